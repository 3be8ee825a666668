"""The public API documents itself: help() explains every option, dir()
lists every public name, and the package is typed (py.typed, annotations)."""
import inspect
import os

import pytest

import sot

LAZY = ["save", "load", "InputSpec", "ExportError", "mark_dynamic", "GraphBreakError"]


def test_dir_lists_the_names_imported_on_first_use():
    names = dir(sot)
    assert set(LAZY) <= set(names)
    assert set(sot.__all__) <= set(names)
    for name in sot.__all__:
        assert getattr(sot, name) is not None


@pytest.mark.parametrize("option", ["backend", "device", "full_graph", "cache_size", "freeze", "dynamic",
                                    "min_graph_size", "cache_dir"])
def test_to_static_documents_each_option(option):
    doc = inspect.getdoc(sot.to_static)
    assert f"\n{option}: " in doc
    assert option in inspect.signature(sot.to_static).parameters


@pytest.mark.parametrize("name", sot.__all__)
def test_every_public_name_has_a_docstring(name):
    obj = getattr(sot, name)
    assert inspect.getdoc(obj) and len(inspect.getdoc(obj)) > 20, name


def test_set_verbosity_and_set_code_level_document_their_levels():
    for fn, levels in ((sot.set_verbosity, ['"breaks"', '"recompiles"', '"guards"', '"trace"', "SOT_LOG_LEVEL"]),
                       (sot.set_code_level, ['"graphs"', '"bytecode"', "SOT_CODE_LEVEL"])):
        doc = inspect.getdoc(fn)
        assert all(level in doc for level in levels), fn


def test_explain_report_documents_its_fields():
    doc = inspect.getdoc(sot.ExplainReport)
    for field in ("entries", "result", "graph_count", "op_count", "breaks", "fallbacks", "guards",
                  "translate_seconds"):
        assert field in doc
    for prop in ("graph_count", "op_count", "breaks", "translation_count", "guards"):
        assert inspect.getdoc(getattr(sot.ExplainReport, prop)), prop


@pytest.mark.parametrize("name", ["to_static", "not_to_static", "reset", "explain", "translation_count",
                                  "set_verbosity", "set_code_level", "save", "load", "mark_dynamic"])
def test_public_functions_are_annotated(name):
    sig = inspect.signature(getattr(sot, name))
    assert sig.return_annotation is not inspect.Signature.empty, name
    for p in sig.parameters.values():
        if p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD):
            assert p.annotation is not inspect.Parameter.empty, f"{name}({p.name})"


def test_the_package_is_marked_typed():
    assert os.path.isfile(os.path.join(os.path.dirname(sot.__file__), "py.typed"))
