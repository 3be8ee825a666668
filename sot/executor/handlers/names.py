"""Loads and stores of constants, locals, cells, globals and attributes."""
import builtins

from ...breaks.reasons import SIDE_EFFECT, FallbackError
from .. import builtin_subclasses, cell_writes, classes, dispatch, local_classes, setters, user_descriptors, user_protocols, writes
from ...guards.tracker import AttrTracker
from ..opcode_table import FACTS
from ..variables import NULL, CellVariable, ConstVariable, ObjectVariable, Variable
from ._registry import handler, unsupported


def const_variable(ex, value) -> Variable:
    if isinstance(value, tuple):
        from ..variables import TupleVariable
        return TupleVariable([const_variable(ex, v) for v in value])
    return ConstVariable(value)


@handler("LOAD_CONST")
def load_const(ex, instr):
    ex.push(const_variable(ex, instr.argval))


@handler("LOAD_FAST", "LOAD_FAST_CHECK", "LOAD_FAST_BORROW")
def load_fast(ex, instr):
    name = instr.argval
    if not FACTS.load_closure_is_real and name in ex.cells and name not in ex.locals \
            and name not in ex.lazy_locals:
        ex.push(ex.cells[name])  # 3.13 loads a cell for a closure tuple with LOAD_FAST
        return
    ex.push(ex.load_local(name))


@handler("LOAD_FAST_AND_CLEAR")
def load_fast_and_clear(ex, instr):
    # 3.12+ comprehensions save the outer binding (NULL when unbound).
    name = instr.argval
    if name in ex.locals or name in ex.lazy_locals:
        ex.push(ex.load_local(name))
    else:
        ex.push(NULL)
    ex.locals.pop(name, None)


@handler("LOAD_FAST_LOAD_FAST")
def load_fast_load_fast(ex, instr):
    a, b = instr.argval
    ex.push(ex.load_local(a))
    ex.push(ex.load_local(b))


@handler("STORE_FAST", "STORE_FAST_MAYBE_NULL")
def store_fast(ex, instr):
    value = ex.pop()
    if value is NULL:  # restoring an unbound comprehension variable
        ex.drop_local(instr.argval)
    else:
        ex.store_local(instr.argval, value)


@handler("STORE_FAST_LOAD_FAST")
def store_fast_load_fast(ex, instr):
    store, load = instr.argval
    ex.store_local(store, ex.pop())
    ex.push(ex.load_local(load))


@handler("STORE_FAST_STORE_FAST")
def store_fast_store_fast(ex, instr):
    first, second = instr.argval
    ex.store_local(first, ex.pop())
    ex.store_local(second, ex.pop())


@handler("DELETE_FAST")
def delete_fast(ex, instr):
    ex.load_local(instr.argval)  # eager raises if unbound
    ex.drop_local(instr.argval)


@handler("MAKE_CELL")
def make_cell(ex, instr):
    name = instr.argval
    value = ex.locals.pop(name, None)
    if value is None and name in ex.lazy_locals:
        value = ex.load_local(name)
        ex.locals.pop(name, None)
    ex.cells[name] = CellVariable(value)
    ex.cells[name].inlined = ex.depth > 0   # a cell of a call the trace inlined (function_rebuild.py)


@handler("LOAD_CLOSURE")
def load_closure(ex, instr):
    ex.push(ex.cell(instr.argval))


@handler("LOAD_DEREF")
def load_deref(ex, instr):
    ex.push(ex.load_cell_contents(instr.argval))


@handler("STORE_DEREF")
def store_deref(ex, instr):
    cell = ex.cell(instr.argval)
    if cell.preexisting and cell.contents is not None and writes.stores_back(ex.stack[-1], cell.contents.tracker):
        ex.pop()   # `s += y` on an array of an enclosing function: the same object, written in place
        return
    if cell.preexisting:
        if cell_writes.store(ex.graph, cell, ex.stack[-1]):  # the frame's own free cell: replayed
            ex.pop()
            return
        raise FallbackError(SIDE_EFFECT, f"assignment to nonlocal {instr.argval!r} of an enclosing function")
    cell.contents = ex.pop()


@handler("LOAD_GLOBAL")
def load_global(ex, instr):
    # 3.11+: the low arg bit asks for a NULL beside the value (call protocol).
    value = ex.load_global(instr.argval)
    push_null = FACTS.load_global_null_bit and instr.arg & 1
    if push_null and not FACTS.null_after_callable:
        ex.push(NULL)
    ex.push(value)
    if push_null and FACTS.null_after_callable:
        ex.push(NULL)


@handler("LOAD_ATTR")
def load_attr(ex, instr):
    obj = ex.pop()
    value = dispatch.getattr_(ex, obj, instr.argval)
    if FACTS.load_attr_method_bit and instr.arg & 1:
        push_method(ex, value)
    else:
        ex.push(value)


@handler("LOAD_METHOD")
def load_method(ex, instr):
    push_method(ex, dispatch.getattr_(ex, ex.pop(), instr.argval))


def push_method(ex, bound: Variable) -> None:
    """Method loads push two slots; we always push the bound callable + NULL."""
    if FACTS.null_after_callable:
        ex.push(bound)
        ex.push(NULL)
    else:
        ex.push(NULL)
        ex.push(bound)


@handler("STORE_ATTR")
def store_attr(ex, instr):
    obj = ex.pop()
    set_attribute(ex, obj, instr.argval, ex.pop())


def set_attribute(ex, obj: Variable, name: str, value: Variable) -> None:
    """`obj.name = value` (STORE_ATTR, and setattr() with a constant name)."""
    if user_protocols.custom_setattr(ex, obj, name, value):   # the class's own __setattr__, inlined
        return
    cls = obj.cls if isinstance(obj, classes.NewObjectVariable) else \
        type(obj.value) if isinstance(obj, ObjectVariable) else None
    if cls is not None and setters.property_setter(cls, name) is not None:
        setters.inline_setter(ex, obj, cls, name, value)   # a property setter: inlined
        return
    if isinstance(obj, builtin_subclasses.SUBCLASS_INSTANCES):  # a list/dict subclass made in the trace
        obj.store(name, value)
        return
    if isinstance(obj, classes.NewObjectVariable):  # made in the trace: no side effect outside
        if not user_descriptors.store(ex, obj, name, value):   # (a data descriptor in Python: inlined)
            classes.store_attr(obj, name, value)
        return
    if isinstance(obj, ObjectVariable) and type(obj.value).__setattr__ is object.__setattr__ and \
            obj.tracker is not None and writes.stores_back(value, AttrTracker(obj.tracker, name)):
        return   # `self.state += dt`: the same object, written in place
    if isinstance(obj, ObjectVariable) and obj.tracker is not None:  # replayed after the graph
        ex.graph.effects.store_attr(obj, name, value)
        return
    if local_classes.store_class_attr(obj, name, value):  # on a class the trace made
        return
    raise FallbackError(SIDE_EFFECT, f"attribute assignment .{name} on {obj.describe()}")


@handler("STORE_GLOBAL")
def store_global(ex, instr):
    tracker = ex.global_tracker(instr.argval)
    if writes.stores_back(ex.stack[-1], tracker):
        ex.pop()   # `G += y` on a global array: the same object, written in place
        return
    # replayed after the graph (executor/global_stores.py)
    ex.graph.effects.store_global(ex.graph, ex.globals, ex.globals_tracker, instr.argval, tracker, ex.pop())


@handler("DELETE_GLOBAL")
def delete_global(ex, instr):
    # replayed after the graph, as a store (executor/global_stores.py)
    ex.graph.effects.delete_global(ex.graph, ex.globals, ex.globals_tracker, instr.argval,
                                   ex.global_tracker(instr.argval))


@handler("DELETE_ATTR")
def delete_attr(ex, instr):
    delete_attribute(ex, ex.pop(), instr.argval)


def delete_attribute(ex, obj: Variable, name: str) -> None:
    """`del obj.name` (DELETE_ATTR, and delattr() with a constant name): on
    an object made in the trace only (elsewhere a side effect not replayed)."""
    if isinstance(obj, classes.NewObjectVariable) and not isinstance(obj, builtin_subclasses.SUBCLASS_INSTANCES):
        classes.delete_attr(ex.graph, obj, name)
        return
    raise FallbackError(SIDE_EFFECT, f"deleting attribute .{name} of {obj.describe()}")


unsupported("deleting cells is a side effect", "DELETE_DEREF")
unsupported("module and class-body name lookups are not simulated",
            "LOAD_NAME", "STORE_NAME", "DELETE_NAME", "LOAD_CLASSDEREF", "LOAD_FROM_DICT_OR_DEREF",
            "LOAD_FROM_DICT_OR_GLOBALS", "LOAD_LOCALS", "SETUP_ANNOTATIONS")


@handler("LOAD_BUILD_CLASS")
def load_build_class(ex, instr):
    # A class statement: a plain one is made once per translation and kept
    # private to the trace (local_classes.py); any other breaks, and is built
    # natively, exactly as eager (qualname, module, closure cells, super()).
    ex.push(local_classes.load_build_class(ex, instr))


unsupported("super() is not modelled", "LOAD_ZERO_SUPER_ATTR", "LOAD_ZERO_SUPER_METHOD",
            "LOAD_SUPER_METHOD")


@handler("LOAD_SUPER_ATTR")
def load_super_attr(ex, instr):
    # 3.12+: `super().name` / `super(C, self).name`; stack: super, class, self
    self_var, cls_var, sup = ex.pop(), ex.pop(), ex.pop()
    if getattr(sup, "value", None) is not builtins.super:
        raise FallbackError(SIDE_EFFECT, "super is rebound: its call is not modelled")
    value = classes.super_getattr(ex, classes.make_super(ex, cls_var, self_var), instr.argval)
    if instr.arg & 1:
        push_method(ex, value)
    else:
        ex.push(value)
unsupported("interactive-mode expression printing", "PRINT_EXPR")
