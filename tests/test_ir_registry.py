"""Every registered op, whatever its family, is run through the eager oracle
with the same generic argument lists: it is refused, or captured with
exactly eager's result (where eager raises, it must be refused)."""

from __future__ import annotations

import numpy as np
import pytest

from sot.ir import all_ops
from test_ir_oracle import assert_agrees_or_refuses, run_eager, sample

OPS = sorted(all_ops(), key=lambda op: (op.kind, op.name))


def _generic_calls():
    m = sample((3, 4), np.float32)
    return [
        (m,), (sample((), np.int16, scalar=True),), (sample((), np.float64),), (sample((0, 2), np.int8),),
        (m, sample((3, 4), np.float32, seed=1)), (m, sample((4,), np.int64)), (m, 2), (m, 0.5), (m, 0), (m, -1),
        (m, (1, 0)), (m, (4, 3)), (m, 1, 0), (sample((4,), np.complex64), 2), ("ij->ji", m),
        ([m, m],), (sample((3,), np.bool_), m, 0.0), (sample((3, 3), np.uint8), sample((3, 3), np.uint8)),
    ]


@pytest.mark.parametrize("call", range(len(_generic_calls())))
@pytest.mark.parametrize("op", OPS, ids=lambda op: f"{op.kind}:{op.name}")
def test_every_registered_op_agrees_with_eager_on_generic_calls(op, call):
    args = _generic_calls()[call]
    if op.kind == "method" and not isinstance(args[0], (np.ndarray, np.generic)):
        return
    if op.kind == "attribute":
        args = args[:1]
    result = assert_agrees_or_refuses(op, *args)
    if not op.aliases and not isinstance(result, Exception):
        # an op not marked as aliasing never returns memory of its arguments
        eager = run_eager(op, args, {})
        arrays = [a for a in args if isinstance(a, np.ndarray)] + [
            a for seq in args if isinstance(seq, list) for a in seq]
        for out in (eager if isinstance(eager, (list, tuple)) else [eager]):  # several outputs
            assert not any(np.may_share_memory(out, a) for a in arrays), f"{op} returned a view"


def test_registry_has_ops_of_every_kind():
    kinds = {op.kind for op in OPS}
    assert kinds == {"operator", "function", "method", "attribute"}
    assert len(OPS) > 200


def test_aliasing_table_names_only_registered_ops():
    from sot.ir.registry import ALIASING_OPS
    registered = {(op.kind, op.name) for op in OPS}
    missing = {entry for entry in ALIASING_OPS if entry not in registered and entry != ("attribute", "mT")}
    assert not missing


def test_views_and_inplace_operators_are_marked_as_aliasing():
    from sot.ir import lookup_attribute, lookup_function, lookup_method, lookup_operator
    assert lookup_operator("getitem").aliases and lookup_operator("iadd").aliases
    assert lookup_attribute("T").aliases and lookup_method("reshape").aliases
    assert lookup_function(np.einsum).aliases  # einsum("ij->ji", x) is a view
    assert not lookup_operator("add").aliases and not lookup_function(np.concatenate).aliases
    assert not lookup_method("copy").aliases and not lookup_method("flatten").aliases
