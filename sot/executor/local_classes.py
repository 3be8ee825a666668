"""Class statements in the traced frame (`class C: ...` inside a decorated
function or a function it calls).

Eagerly each call runs the class body and makes a new class object. Where
that is unobservable the trace models it: the body is checked to be plain
(constants, function definitions, arithmetic on constants it reads from the
enclosing function, the builtin decorators property/classmethod/staticmethod
and a property's .setter; no other call, global read, metaclass or
`__init_subclass__`), and run once at translation time to make a private
*prototype* class. The trace then uses the prototype as it uses any plain
class (instances are `classes.NewObjectVariable`s; methods are inlined).

The prototype is exact only while it stays private to the trace, so:

- Its methods' closure cells hold a `TraceCell` naming the simulated cell of
  the enclosing frame; `function_graph.function_variable` inlines the method
  over that cell, so a method sees the frame's variable as eager does.
- Nothing changes it after it is made: a class-level store (`C.n += 1`) of
  a value to a name its body defined is simulated (`store_class_attr`,
  read back by `classes.class_level` through `stored_class_attr`); any
  other is refused. Its bases are builtins or classes made in the same
  trace: a prototype would stay in an outside base's `__subclasses__()`.
- If the class, an instance of it, or anything read from it would leave the
  graph (returned, stored outside, live across a break), output.py raises
  `ClassEscapes`; translate() then marks that class statement and translates
  again, and the statement is a graph break (built natively each call, as
  before). Eagerly every call has its own class; the prototype would be one.
"""
from __future__ import annotations

import builtins
import dis
import types
import weakref

from .._codemap import CodeMap
from ..breaks.reasons import UNSUPPORTED_OPCODE, FallbackError, NewClassStatement
from ..guards.tracker import ConstTracker
from .variables import CellVariable, ClassVariable, ConstVariable, TensorVariable, UserFunctionVariable, Variable
from .variables.modelled import ModelledObject

TRACE_CLASSES: "weakref.WeakSet[type]" = weakref.WeakSet()  # prototypes made by translations
_SITE: "weakref.WeakKeyDictionary[type, tuple]" = weakref.WeakKeyDictionary()  # prototype -> (code, offset)
_NATIVE = CodeMap()  # code -> offsets of class statements that are built natively (their class escaped)
# prototype -> {name: Variable} its class-level stores in the trace (one
# prototype per simulation: each run of the class statement makes its own)
_STORED: "weakref.WeakKeyDictionary[type, dict]" = weakref.WeakKeyDictionary()


class ClassEscapes(Exception):
    """A class made by the trace (or an object of it) would outlive the graph."""

    def __init__(self, site):
        super().__init__("a class made in the trace escapes it")
        self.site = site


class TraceCell:
    """Held by a prototype method's closure cell: the frame's simulated cell."""
    __slots__ = ("var", "site")

    def __init__(self, var: CellVariable, site):
        self.var, self.site = var, site


def natively(code, offset: int) -> bool:
    return offset in _NATIVE.get(code, ())


def build_natively(site) -> None:
    """After ClassEscapes: the class statement at `site` breaks from now on."""
    code, offset = site
    _NATIVE[code] = _NATIVE.get(code, frozenset()) | {offset}


def not_modelled(why: str) -> FallbackError:
    err = FallbackError(UNSUPPORTED_OPCODE, f"a class statement is built natively ({why})")
    err.reason = NewClassStatement(err.reason.message)
    return err


# -- what output.py and the guards ask ------------------------------------------

def _root(tracker):
    while getattr(tracker, "base", None) is not None:
        tracker = tracker.base
    return tracker


def rooted_in_trace_class(tracker) -> bool:
    root = _root(tracker)
    return type(root) is ConstTracker and isinstance(root.value, type) and root.value in TRACE_CLASSES


def check_tracker(tracker) -> None:
    """Raise ClassEscapes if generated code would load `tracker` from a prototype."""
    if TRACE_CLASSES and rooted_in_trace_class(tracker):
        raise ClassEscapes(_SITE[_root(tracker).value])


def check_value(value) -> None:
    """Raise ClassEscapes if generated code would hold `value`: a prototype,
    an object of one, or a prototype's method."""
    if not TRACE_CLASSES:
        return
    for cls in (value if issubclass(type(value), type) else None, type(value)):
        if cls is not None and cls in TRACE_CLASSES:
            raise ClassEscapes(_SITE[cls])
    if isinstance(value, types.FunctionType):   # a prototype's method: its cells are the trace's
        for cell in value.__closure__ or ():
            contents = _contents(cell)
            if isinstance(contents, TraceCell):
                raise ClassEscapes(contents.site)
            if isinstance(contents, type) and contents in TRACE_CLASSES:   # __class__
                raise ClassEscapes(_SITE[contents])


def _contents(cell):
    try:
        return cell.cell_contents
    except ValueError:  # empty
        return None


def simulated_cell(real_cell) -> CellVariable | None:
    """The frame's simulated cell a prototype method's `real_cell` stands for."""
    contents = _contents(real_cell)
    return contents.var if isinstance(contents, TraceCell) else None


# -- class-level stores ---------------------------------------------------------------

def store_class_attr(cls_var: Variable, name: str, value: Variable) -> bool:
    """`C.name = value` on a prototype, simulated; False where not modelled."""
    cls = getattr(cls_var, "value", None)
    if not issubclass(type(cls), type) or cls not in TRACE_CLASSES or name.startswith("__") or \
            name not in cls.__dict__ or hasattr(type(cls.__dict__[name]), "__get__"):
        return False   # a new name, a dunder, a method or descriptor: the statement breaks
    if not isinstance(value, (ConstVariable, TensorVariable)):
        return False
    _STORED.setdefault(cls, {})[name] = value
    return True


def stored_class_attr(cls: type, name: str) -> Variable | None:
    """What the trace stored as `name` on `cls` or the base it is found on."""
    if not _STORED:
        return None
    for k in cls.__mro__:
        stored = _STORED.get(k)
        if stored is not None and name in stored:
            return stored[name]
        if name in k.__dict__:
            return None
    return None


# -- the class statement ----------------------------------------------------------

# Instructions a class body may hold for the trace to build it: no jumps, no
# global reads, no calls but decorators (below); LOAD_NAME and reads of the
# enclosing function's variables are checked one by one (_check_body).
_PLAIN = frozenset((
    "RESUME", "NOP", "CACHE", "COPY_FREE_VARS", "MAKE_CELL", "LOAD_CONST", "STORE_NAME", "RETURN_VALUE",
    "RETURN_CONST", "LOAD_CLOSURE", "BUILD_TUPLE", "MAKE_FUNCTION", "SET_FUNCTION_ATTRIBUTE", "DUP_TOP",
    "COPY", "POP_TOP", "LOAD_LOCALS", "BINARY_OP", "BINARY_ADD", "BINARY_SUBTRACT", "BINARY_MULTIPLY",
    "BINARY_TRUE_DIVIDE", "BINARY_FLOOR_DIVIDE", "BINARY_MODULO", "BINARY_POWER", "UNARY_NEGATIVE",
    "EXTENDED_ARG", "PRECALL", "CALL", "CALL_FUNCTION", "LOAD_ATTR",
))
_OUTER_READS = frozenset(("LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF", "LOAD_DEREF"))
_PLAIN_CONSTANTS = (int, float, bool, str, type(None))
# Decorators a body may apply: the builtins (guarded to be them when the
# statement runs) and a property's own .setter/.getter/.deleter. Making
# them runs no user code and the result depends only on the function.
DECORATORS = frozenset(("property", "classmethod", "staticmethod"))
_PROPERTY_DECORATORS = frozenset(("setter", "getter", "deleter"))
# no stack operands (dis.stack_effect's net count would misread them)
_NO_OPERANDS = frozenset(("RESUME", "NOP", "CACHE", "COPY_FREE_VARS", "MAKE_CELL", "EXTENDED_ARG", "PRECALL"))
_FN, _DECO, _OTHER = "function", "decorator", "value"


def _check_body(code):
    """(the enclosing function's variables the body reads, the builtin
    decorators it loads), or why it is not plain. A stack of what each slot
    holds (a function, a decorator, another value) checks that every call
    applies one decorator to one function."""
    stored, reads, decorators, stack = set(), set(), set(), []
    try:
        for ins in dis.get_instructions(code):
            op = ins.opname
            if op not in _PLAIN and op != "LOAD_NAME" and op != "LOAD_FAST" and op not in _OUTER_READS:
                return f"its body runs {op}"
            if op in _NO_OPERANDS:
                continue
            effect = dis.stack_effect(ins.opcode, ins.arg) if ins.opcode >= dis.HAVE_ARGUMENT \
                else dis.stack_effect(ins.opcode)
            if op == "LOAD_NAME":
                if ins.argval in stored:
                    stack.append(("name", ins.argval))
                elif ins.argval in DECORATORS:
                    decorators.add(ins.argval)
                    stack.append(_DECO)
                elif ins.argval == "__name__":
                    stack.append(_OTHER)
                else:
                    return f"its body reads {ins.argval!r} from outside"
            elif op == "LOAD_FAST":   # 3.13: a cell pushed for a closure (LOAD_CLOSURE before)
                if ins.argval not in code.co_cellvars + code.co_freevars:
                    return f"its body reads the local {ins.argval!r}"
                stack.append(_OTHER)
            elif op in _OUTER_READS:
                if ins.argval not in code.co_freevars:
                    return f"its body reads {ins.argval!r} from its own cell"
                reads.add(ins.argval)
                stack.append(_OTHER)
            elif op == "LOAD_ATTR":   # `@prop.setter`
                base = stack.pop()
                if effect != 0 or not (isinstance(base, tuple) and ins.argval in _PROPERTY_DECORATORS):
                    return f"its body reads the attribute {ins.argval!r}"
                stack.append(_DECO)
            elif op in ("CALL", "CALL_FUNCTION"):
                if 1 - effect != 2 or stack[-2:] != [_DECO, _FN]:
                    return "its body calls something other than a decorator on a function"
                del stack[-2:]
                stack.append(_FN)
            elif op == "STORE_NAME":
                stored.add(ins.argval)
                stack.pop()
            elif op in ("POP_TOP", "RETURN_VALUE"):
                stack.pop()
            else:   # pops 1 - effect operands, pushes one result
                if 1 - effect:
                    del stack[effect - 1:]
                stack.append(_FN if op in ("MAKE_FUNCTION", "SET_FUNCTION_ATTRIBUTE") else _OTHER)
    except (IndexError, ValueError):
        return "its body's stack use is unusual"
    return reads, decorators


def _base_ok(base) -> str | None:
    if not isinstance(base, type) or type(base) is not type:
        return "a base is not a plain class"
    if base not in TRACE_CLASSES and base.__module__ != "builtins":
        # the prototype would be one more subclass of the base for as long
        # as the cache entry lives: Base.__subclasses__() (a plugin registry)
        # would list it after eager's classes are collected, and calling its
        # methods natively would read the trace's cell markers
        return "a base is a class from outside the frame (its __subclasses__() would list the trace's class)"
    if any("__init_subclass__" in k.__dict__ for k in base.__mro__[:-1]):
        return "a base defines __init_subclass__"
    return None


class BuildClassVariable(ModelledObject, Variable):
    """`builtins.__build_class__` as LOAD_BUILD_CLASS pushes it."""

    def __init__(self, code, offset: int):
        Variable.__init__(self, None)
        self.site = (code, offset)

    def python_type(self):
        return types.BuiltinFunctionType

    def describe(self) -> str:
        return "__build_class__"

    def call(self, executor, args, kwargs):
        if kwargs:
            raise not_modelled("keywords such as metaclass= run code")
        if len(args) < 2 or not isinstance(args[0], UserFunctionVariable) or args[0].value is not None or \
                not isinstance(args[1], ConstVariable) or type(args[1].value) is not str:
            raise not_modelled("an unusual __build_class__ call")
        body, name = args[0], args[1].value
        bases = []
        for b in args[2:]:
            value = getattr(b, "value", None)
            why = _base_ok(value)
            if why is not None:
                raise not_modelled(why)
            bases.append(value)
        checked = _check_body(body.code)
        if isinstance(checked, str):
            raise not_modelled(checked)
        reads, decorators = checked
        for deco in sorted(decorators):   # the builtin, as long as no global of its name shadows it
            if deco in executor.globals or getattr(executor.load_global(deco), "value", None) \
                    is not getattr(builtins, deco):
                raise not_modelled(f"its body reads {deco!r}, which is not the builtin")
        if body.defaults or body.kwdefaults:
            raise not_modelled("an unusual class body")
        cells = []
        for var_name, sim in zip(body.code.co_freevars, body.closure):
            if var_name in reads:
                value = sim.contents
                if not (isinstance(value, ConstVariable) and type(value.value) in _PLAIN_CONSTANTS):
                    raise not_modelled(f"its body reads {var_name}, which is not a known constant")
                cells.append(types.CellType(value.value))
            else:
                cells.append(types.CellType(TraceCell(sim, self.site)))
        fn = types.FunctionType(body.code, body.globals, name, None, tuple(cells))
        try:
            proto = builtins.__build_class__(fn, name, *bases)
        except Exception as e:  # eager raises the same: let the statement run natively
            raise not_modelled(f"{type(e).__name__} building it") from None
        for cell, sim in zip(cells, body.closure):
            if not isinstance(cell.cell_contents, TraceCell):
                cell.cell_contents = TraceCell(sim, self.site)   # methods see the frame's variable from now on
        TRACE_CLASSES.add(proto)
        _SITE[proto] = self.site
        return ClassVariable(proto, ConstTracker(proto))


def load_build_class(ex, instr) -> Variable:
    """What LOAD_BUILD_CLASS pushes (or the break, where the class escaped before)."""
    if natively(ex.code, instr.offset):
        raise not_modelled("its class, an object or a method of it outlives the graph or meets a break: "
                           "each call makes its own class")
    return BuildClassVariable(ex.code, instr.offset)

