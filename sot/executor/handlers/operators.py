"""Operators, subscripts and building containers."""
from ...breaks.reasons import UNSUPPORTED_OBJECT, FallbackError
from .. import dispatch, exceptions, functional, object_key_dicts, sets, str_runtime, user_operators, user_protocols
from ..str_data import PassStrVariable
from ..dispatch import const
from ..opcode_table import (
    BINARY_OPCODES_310, INPLACE_OPCODES_310, INTRINSIC_LIST_TO_TUPLE,
    INTRINSIC_STOPITERATION_ERROR, INTRINSIC_UNARY_POSITIVE,
    binary_op_name, compare_op_name,
)
from ..function_graph import to_ir_arg
from ..variables import (
    ConstVariable, DictVariable, ListVariable, SymScalarVariable, SymSliceVariable,
    TupleVariable,
)
from ._registry import handler, unsupported


@handler("BINARY_OP", *BINARY_OPCODES_310, *INPLACE_OPCODES_310)
def binary_op(ex, instr):
    b = ex.pop()
    a = ex.pop()
    name = binary_op_name(instr)
    result = user_operators.binary(ex, name, a, b)
    ex.push(result if result is not None else dispatch.binary_op(ex.graph, name, a, b))


UNARY = {"UNARY_NEGATIVE": "neg", "UNARY_POSITIVE": "pos", "UNARY_INVERT": "invert", "UNARY_NOT": "not_"}


@handler(*UNARY)
def unary_op(ex, instr):
    ex.push(_unary(ex, UNARY[instr.opname], ex.pop()))


def _unary(ex, name, a):
    if name == "not_":
        return const(not user_protocols.truth(ex, a))
    result = user_operators.unary(ex, name, a)
    return result if result is not None else dispatch.unary_op(ex.graph, name, a)


@handler("COMPARE_OP")
def compare_op(ex, instr):
    b = ex.pop()
    a = ex.pop()
    result = user_operators.compare(ex, compare_op_name(instr), a, b)
    if result is None:
        result = dispatch.compare_op(ex.graph, compare_op_name(instr), a, b)
    if instr.argrepr.startswith("bool("):  # 3.13: the comparison feeds a jump directly
        result = const(user_protocols.truth(ex, result))
    ex.push(result)


@handler("IS_OP")
def is_op(ex, instr):
    b = ex.pop()
    a = ex.pop()
    ex.push(const(dispatch.is_op(a, b, ex.graph) != bool(instr.arg)))


@handler("CONTAINS_OP")
def contains_op(ex, instr):
    container = ex.pop()
    item = ex.pop()
    found = user_protocols.contains(ex, item, container)
    if found is None:
        found = dispatch.contains_op(ex.graph, item, container)
    ex.push(const(found != bool(instr.arg)))


@handler("TO_BOOL")
def to_bool(ex, instr):
    ex.push(const(user_protocols.truth(ex, ex.pop())))


@handler("BINARY_SUBSCR")
def binary_subscr(ex, instr):
    key = ex.pop()
    obj = ex.pop()
    item = user_protocols.getitem(ex, obj, key)
    ex.push(item if item is not None else dispatch.getitem(ex.graph, obj, key))


@handler("BINARY_SLICE")
def binary_slice(ex, instr):
    stop = ex.pop()
    start = ex.pop()
    obj = ex.pop()
    ex.push(dispatch.getitem(ex.graph, obj, make_slice([start, stop])))


@handler("STORE_SUBSCR")
def store_subscr(ex, instr):
    key = ex.pop()
    obj = ex.pop()
    value = ex.pop()
    dispatch.setitem(ex.graph, obj, key, value)


@handler("STORE_SLICE")
def store_slice(ex, instr):
    stop = ex.pop()
    start = ex.pop()
    obj = ex.pop()
    value = ex.pop()
    dispatch.setitem(ex.graph, obj, make_slice([start, stop]), value)


def make_slice(parts):
    if any(isinstance(p, SymScalarVariable) for p in parts):  # bounds computed from symbolic dims
        if not all(isinstance(p, SymScalarVariable) or (isinstance(p, ConstVariable) and (
                p.value is None or type(p.value) in (int, bool))) for p in parts):
            raise FallbackError(UNSUPPORTED_OBJECT, "slice bounds that are not Python ints")
        deps = frozenset().union(*(p.deps for p in parts if isinstance(p, SymScalarVariable)))
        return SymSliceVariable(slice(*[to_ir_arg(p) for p in parts]), deps)
    if not all(isinstance(p, ConstVariable) and (p.value is None or type(p.value) in (int, bool)) for p in parts):
        raise FallbackError(UNSUPPORTED_OBJECT, "slice bounds that are not Python ints")
    return const(slice(*[p.value for p in parts]))


@handler("BUILD_SLICE")
def build_slice(ex, instr):
    ex.push(make_slice(ex.popn(instr.arg)))


@handler("BUILD_TUPLE")
def build_tuple(ex, instr):
    ex.push(TupleVariable(ex.popn(instr.arg)))


@handler("BUILD_LIST")
def build_list(ex, instr):
    ex.push(ListVariable(ex.popn(instr.arg)))


@handler("BUILD_MAP")
def build_map(ex, instr):
    items = ex.popn(2 * instr.arg)
    ex.push(object_key_dicts.make(ex, items[::2], items[1::2]))   # (a DictVariable unless keyed by objects)


@handler("BUILD_CONST_KEY_MAP")
def build_const_key_map(ex, instr):
    keys = ex.pop()
    values = ex.popn(instr.arg)
    ex.push(DictVariable({dict_key(k): v for k, v in zip(keys.items, values)}))


def dict_key(v):
    if isinstance(v, ConstVariable) and type(v.value) in (str, int, bool, float, type(None)):
        return v.value
    from ..container_values import plain_key   # a tuple of plain constants: its value
    if (key := plain_key(v)) is not None:
        return key
    raise FallbackError(UNSUPPORTED_OBJECT, f"dict key {v.describe()} is not a constant")


@handler("BUILD_STRING")
def build_string(ex, instr):
    parts = ex.popn(instr.arg)
    if any(type(p) is PassStrVariable for p in parts):   # a str known when the call runs
        if (r := str_runtime.concat(parts)) is str_runtime.NO:
            raise FallbackError(UNSUPPORTED_OBJECT, "an f-string of values that are not constants")
        ex.push(r)
        return
    ex.push(const("".join(p.value for p in parts)))


@handler("LIST_APPEND")
def list_append(ex, instr):
    value = ex.pop()
    ex.peek(instr.arg).items.append(value)


@handler("MAP_ADD")
def map_add(ex, instr):
    value = ex.pop()
    key = ex.pop()
    object_key_dicts.map_add(ex, instr.arg, key, value)


@handler("LIST_EXTEND")
def list_extend(ex, instr):
    seq = ex.pop()
    ex.peek(instr.arg).items.extend(dispatch.get_iter(ex.graph, seq).items)


@handler("DICT_UPDATE", "DICT_MERGE")
def dict_update(ex, instr):
    other = ex.pop()
    target = ex.peek(instr.arg)
    if not isinstance(other, DictVariable):
        raise FallbackError(UNSUPPORTED_OBJECT, f"** of {other.describe()}")
    if instr.opname == "DICT_MERGE" and set(other.entries) & set(target.entries):
        raise FallbackError(UNSUPPORTED_OBJECT, "duplicate keyword argument (eager raises TypeError)")
    target.entries.update(other.entries)


@handler("LIST_TO_TUPLE")
def list_to_tuple(ex, instr):
    ex.push(TupleVariable(ex.pop().items))


@handler("CALL_INTRINSIC_1")
def call_intrinsic_1(ex, instr):
    if instr.argrepr == INTRINSIC_LIST_TO_TUPLE:
        ex.push(TupleVariable(ex.pop().items))
    elif instr.argrepr == INTRINSIC_UNARY_POSITIVE:
        ex.push(_unary(ex, "pos", ex.pop()))
    elif instr.argrepr == INTRINSIC_STOPITERATION_ERROR:
        # a generator's exception on its way out: a StopIteration would become RuntimeError
        if issubclass(ex.peek().python_type(), StopIteration):
            raise FallbackError(UNSUPPORTED_OBJECT, "StopIteration raised inside a generator "
                                "(eager turns it into RuntimeError)")
    else:
        raise FallbackError(UNSUPPORTED_OBJECT, f"intrinsic {instr.argrepr} is not supported")


@handler("UNPACK_SEQUENCE")
def unpack_sequence(ex, instr):
    items = dispatch.unpack(ex.graph, ex.pop(), instr.arg)
    for item in reversed(items):
        ex.push(item)


@handler("UNPACK_EX")
def unpack_ex(ex, instr):
    before, after = instr.arg & 0xFF, instr.arg >> 8
    items = dispatch.get_iter(ex.graph, ex.pop()).items
    if len(items) < before + after:
        raise FallbackError(UNSUPPORTED_OBJECT, "not enough values to unpack (eager raises)")
    middle = ListVariable(items[before:len(items) - after])
    for item in reversed(items[len(items) - after:]):
        ex.push(item)
    ex.push(middle)
    for item in reversed(items[:before]):
        ex.push(item)


@handler("FORMAT_VALUE", "FORMAT_SIMPLE", "FORMAT_WITH_SPEC", "CONVERT_VALUE")
def format_value(ex, instr):
    if instr.opname == "FORMAT_VALUE" and (instr.arg & 0x04):
        spec = ex.pop()
    elif instr.opname == "FORMAT_WITH_SPEC":
        spec = ex.pop()
    else:
        spec = const("")
    value = ex.pop()
    if type(value) is PassStrVariable:   # known when the call runs (str_runtime.py)
        conv = instr.arg & 0x03 if instr.opname == "FORMAT_VALUE" else instr.arg if instr.opname == "CONVERT_VALUE" else 0
        r = str_runtime.formatted(value, {0: None, 1: str, 2: repr, 3: ascii}[conv], spec)
        if r is str_runtime.NO:
            raise FallbackError(UNSUPPORTED_OBJECT, f"formatting {value.describe()} as text")
        ex.push(r)
        return
    if isinstance(value, ConstVariable):
        v = value.value
    elif exceptions.instance(value) is not None:   # f"{e}" of an exception raised in the trace
        v = exceptions.instance(value)
    elif isinstance(value, (TupleVariable, ListVariable)):  # f"{x.shape}": a tuple of constants
        v = functional.plain_values(value.items, "formatting")
        v = tuple(v) if isinstance(value, TupleVariable) and value.python_type() is tuple else \
            list(v) if isinstance(value, ListVariable) else _no_format(value)
    elif user_protocols.user_class(value) is not None:   # a user class's __str__/__repr__, inlined
        _format_user_object(ex, instr, value, spec)
        return
    else:
        raise FallbackError(UNSUPPORTED_OBJECT, f"formatting {value.describe()} as text")
    conv = {1: str, 2: repr, 3: ascii}
    if instr.opname == "FORMAT_VALUE" and instr.arg & 0x03:
        v = conv[instr.arg & 0x03](v)
    elif instr.opname == "CONVERT_VALUE":
        ex.push(const(conv[instr.arg](v)))
        return
    ex.push(dispatch.folded(dispatch._python(format, v, spec.value)))


def _format_user_object(ex, instr, value, spec):
    code = instr.arg & 0x03 if instr.opname == "FORMAT_VALUE" else instr.arg if instr.opname == "CONVERT_VALUE" else 0
    if code == 0 and not (isinstance(spec, ConstVariable) and user_protocols.formats_as_str(value, spec.value)):
        _no_format(value)
    text = user_protocols.text(ex, {0: str, 1: str, 2: repr}.get(code), value)
    if text is None:
        _no_format(value)
    if instr.opname == "CONVERT_VALUE":
        ex.push(text)
    else:
        ex.push(dispatch.folded(dispatch._python(format, text.value, spec.value)))


def _no_format(value):
    raise FallbackError(UNSUPPORTED_OBJECT, f"formatting {value.describe()} as text")


@handler("BUILD_SET")
def build_set(ex, instr):
    ex.push(sets.build(ex.popn(instr.arg), graph=ex.graph))


@handler("SET_ADD")
def set_add(ex, instr):
    item = ex.pop()
    sets.add_all(ex.peek(instr.arg), [item], graph=ex.graph)


@handler("SET_UPDATE")
def set_update(ex, instr):
    seq = ex.pop()
    sets.add_all(ex.peek(instr.arg), dispatch.get_iter(ex.graph, seq).items, sets.one_at_a_time(seq), seq, ex.graph)


@handler("DELETE_SUBSCR")
def delete_subscr(ex, instr):
    key = ex.pop()
    dispatch.delitem(ex.graph, ex.pop(), key)
unsupported("intrinsics other than list-to-tuple", "CALL_INTRINSIC_2")
