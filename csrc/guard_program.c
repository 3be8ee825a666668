/*
 * guard_program.c -- see guard_program.h.
 *
 * The program is given as a tuple of small tuples, parsed once:
 *
 *   loads   ("arg", r, i)            r = args[i]
 *           ("cell", r, i)           r = cells[i].cell_contents
 *           ("global", r, name)      r = g[name]
 *           ("builtins", r)          r = the builtins mapping of g
 *           ("attr", r, s, name)     r = getattr(regs[s], name)
 *           ("item", r, s, key)      r = regs[s][key]
 *           ("const", r, value)      r = value
 *           ("wconst", r, ref)       r = ref() (a class the user's code
 *                                    made, held weakly); fails once it died
 *   checks  ("type", r, T)           type(regs[r]) is T
 *           ("id", r, obj)           regs[r] is obj
 *           ("wid", r, ref)          regs[r] is ref() and ref is alive (a
 *                                    weakref.ref: the guard does not keep a
 *                                    class or function made by the user's
 *                                    code alive; once it dies the op never
 *                                    holds again)
 *           ("wtype", r, ref)        type(regs[r]) is ref(), ref alive
 *           ("plainkeys", r)         regs[r] is an exact dict whose keys are
 *                                    all exact str or int: a lookup of a
 *                                    str/int key in it (the "item" and
 *                                    "notin" ops after it, the runner's
 *                                    loads) compares only with those, so it
 *                                    runs no user __eq__ (a key of a user
 *                                    class with a colliding hash would)
 *           ("wtypever", ref, tag)   "typever" of the class ref(), alive
 *           ("wclass", ref, tag, (mro[1:], metaclass, snapshot, ANY, OWN))
 *                                    "class" of the class ref() (one the
 *                                    user's code made, held weakly), alive;
 *                                    nothing in the spec refers to it: the
 *                                    MRO without it, a weakref for it in the
 *                                    snapshot, OWN for its own __dict__/
 *                                    __weakref__ descriptors (guard_class.c)
 *           ("tensor", r, T, dtype, shape, exact)
 *                                    type is T, dtype == dtype, and shape
 *                                    matches (None: a NumPy scalar, no
 *                                    shape; a None entry: any size >= 2);
 *                                    exact: T is numpy.ndarray itself, so
 *                                    dtype and shape are read from the
 *                                    array struct, not through attributes
 *           ("value", r, value)      same exact type and value; floats
 *                                    bit-exact (NaN sign, payload); tuples
 *                                    element-wise
 *           ("len", r, T, n)         type(regs[r]) is T and len == n
 *           ("dictkeys", r, T, keys) type is T, keys in order equal keys
 *           ("absent", name)         name not in g
 *           ("dimeq", r, i, s, j, ndarray)
 *                                    regs[r].shape[i] == regs[s].shape[j]
 *                                    (struct reads when a value's type is
 *                                    the given ndarray type)
 *           ("same", r, s, expect)   (regs[r] is regs[s]) == expect
 *           ("notin", r, key)        regs[r] is an exact dict without key
 *           ("typever", T, tag)      T is unchanged since the trace: its
 *                                    version tag is still valid and == tag
 *                                    (any attribute set on T or a base
 *                                    invalidates it; see type_version())
 *           ("class", T, tag, spec)  what the trace read of class T holds:
 *                                    the tag as a fast path, else a precise
 *                                    check of T's dicts (guard_class.c)
 *           ("call", fn, value)      fn() (a builtin that runs no user
 *                                    code, e.g. abc.get_cache_token) is
 *                                    still value (compared like "value")
 *           ("overlap", r, s, fn, expect[, T, size_r, size_s])
 *                                    bool(fn(regs[r], regs[s])) == expect
 *                                    (fn runs no user code: numpy.
 *                                    may_share_memory, or a branch's
 *                                    predicate on a Python number with r == s,
 *                                    sot/guards/predicate.py); with T
 *                                    (numpy.ndarray) and the item sizes
 *                                    (their dtypes guarded before): for two
 *                                    arrays of exactly type T, NumPy's bounds
 *                                    check is done here (memory_extents)
 *
 * Everything reads the frame's borrowed argument vector; registers own
 * their values and are released on every path. The tuples are parsed in
 * guard_parse.c into the guard_op structs of guard_ops.h.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <structmember.h>
#include <string.h>

#include "guard_program.h"
#include "guard_ops.h"

#include "ndarray_head.h"

static int strict_mode = 0;
static PyObject *str_builtins = NULL;      /* "__builtins__", interned */
static PyObject *interp_builtins = NULL;   /* the builtins module's dict */
static Py_ssize_t strict_mismatches = 0;
static Py_ssize_t c_evaluations = 0;

/* ------------------------------------------------------ plain dict keys
 *
 * Whether every key of a dict is an exact str or int is a scan of the dict;
 * a dict that a step function records into grows on every call. On 3.12+
 * a dict found plain is watched (PyDict_AddWatcher): it stays in
 * plain_dicts until a key of another type is added to it (or it is cloned
 * into, or freed), so the check is one set lookup. Before 3.12: the scan. */

static int
scan_plain_keys(PyObject *d)
{
    Py_ssize_t pos = 0;
    PyObject *k, *v;
    while (PyDict_Next(d, &pos, &k, &v)) {
        if (!PyUnicode_CheckExact(k) && !PyLong_CheckExact(k)) {
            return 0;
        }
    }
    return 1;
}

#if PY_VERSION_HEX >= 0x030C0000
static PyObject *plain_dicts = NULL;   /* set of addresses (int) of watched plain dicts */
static int plain_watcher = -1;

static void
forget_plain(PyObject *d)
{
    PyObject *key = PyLong_FromVoidPtr(d);
    if (key == NULL || PySet_Discard(plain_dicts, key) < 0) {
        PyErr_Clear();
    }
    Py_XDECREF(key);
}

static int
plain_watch_callback(PyDict_WatchEvent event, PyObject *d, PyObject *key, PyObject *value)
{
    (void)value;
    PyObject *exc = PyErr_GetRaisedException();   /* a deallocation may run with one set */
    if (event == PyDict_EVENT_ADDED ? !(PyUnicode_CheckExact(key) || PyLong_CheckExact(key))
                                    : (event == PyDict_EVENT_CLONED || event == PyDict_EVENT_DEALLOCATED)) {
        forget_plain(d);
        if (event != PyDict_EVENT_DEALLOCATED) {
            (void)PyDict_Unwatch(plain_watcher, d);
            PyErr_Clear();
        }
    }
    PyErr_SetRaisedException(exc);
    return 0;
}

static int
plain_keys(PyObject *d)
{
    if (!PyDict_CheckExact(d)) {
        return 0;
    }
    if (plain_dicts == NULL) {
        if ((plain_dicts = PySet_New(NULL)) == NULL) {
            return -1;
        }
        if ((plain_watcher = PyDict_AddWatcher(plain_watch_callback)) < 0) {
            Py_CLEAR(plain_dicts);
            return -1;
        }
    }
    PyObject *key = PyLong_FromVoidPtr(d);
    if (key == NULL) {
        return -1;
    }
    int known = PySet_Contains(plain_dicts, key);
    if (known == 0 && scan_plain_keys(d)) {
        known = PyDict_Watch(plain_watcher, d) < 0 || PySet_Add(plain_dicts, key) < 0 ? -1 : 1;
    }
    Py_DECREF(key);
    return known;
}
#else
/* Before 3.12 nothing tells a dict's keys changed type, and a dict recorded
 * into every step grows: scanning it on every call would make the call
 * O(len). Past this many keys the scan is skipped, and such a dict is taken
 * as plain: a guard's lookup may then call a colliding user key's __eq__
 * (the hazard the scan removes for smaller dicts). */
#define PLAIN_SCAN_MAX 256

static int
plain_keys(PyObject *d)
{
    return PyDict_CheckExact(d) && (PyDict_GET_SIZE(d) > PLAIN_SCAN_MAX || scan_plain_keys(d));
}
#endif

/* ------------------------------------------------------ value equality */

static int
float_same(double x, double y)
{
    return memcmp(&x, &y, sizeof(double)) == 0;  /* bit-exact: -0.0, NaN sign and payload */
}

/* 1 if v is interchangeable with w (sot.guards.tracker.value_key equal),
 * 0 if not, -1 on error. */
static int
value_equal(PyObject *v, PyObject *w)
{
    PyTypeObject *t = Py_TYPE(w);
    if (Py_TYPE(v) != t) {
        return 0;
    }
    if (t == &PyFloat_Type) {
        return float_same(PyFloat_AS_DOUBLE(v), PyFloat_AS_DOUBLE(w));
    }
    if (t == &PyComplex_Type) {
        Py_complex a = PyComplex_AsCComplex(v), b = PyComplex_AsCComplex(w);
        return float_same(a.real, b.real) && float_same(a.imag, b.imag);
    }
    if (t == &PyTuple_Type) {
        Py_ssize_t n = PyTuple_GET_SIZE(w);
        if (PyTuple_GET_SIZE(v) != n) {
            return 0;
        }
        for (Py_ssize_t i = 0; i < n; i++) {
            int r = value_equal(PyTuple_GET_ITEM(v, i), PyTuple_GET_ITEM(w, i));
            if (r <= 0) {
                return r;
            }
        }
        return 1;
    }
    if (t == &PyLong_Type || t == &PyUnicode_Type || t == &PyBytes_Type) {
        return PyObject_RichCompareBool(v, w, Py_EQ);  /* exact builtin types: no user code */
    }
    return v == w;  /* None, bool, and everything keyed by identity */
}

/* ------------------------------------------------------------- checks */

/* The same dtype, or an equal one (byte order included) where neither
 * carries metadata (== ignores it; a dtype with metadata must be the one). */
static int
dtype_equal(PyObject *have, PyObject *want)
{
    if (have == want) {
        return 1;
    }
    int eq = PyObject_RichCompareBool(have, want, Py_EQ);
    if (eq <= 0) {
        return eq;
    }
    PyObject *m1 = PyObject_GetAttrString(have, "metadata");
    if (m1 == NULL) {
        return -1;
    }
    PyObject *m2 = PyObject_GetAttrString(want, "metadata");
    if (m2 == NULL) {
        Py_DECREF(m1);
        return -1;
    }
    eq = m1 == Py_None && m2 == Py_None;
    Py_DECREF(m1);
    Py_DECREF(m2);
    return eq;
}

/* np.may_share_memory(a, b) (max_work=0: the bounds of the data ranges, as
 * NumPy's offset_bounds_from_strides / solve_may_share_memory compute
 * them) for two exact ndarrays of the given item sizes. */
static void
memory_extents(PyObject *v, Py_ssize_t itemsize, char **start, char **end)
{
    sot_ndarray_head *arr = (sot_ndarray_head *)v;
    Py_ssize_t lower = 0, upper = 0;
    for (int i = 0; i < arr->nd; i++) {
        if (arr->dimensions[i] == 0) {   /* no element: an empty range */
            *start = *end = arr->data;
            return;
        }
        Py_ssize_t span = arr->strides[i] * (arr->dimensions[i] - 1);
        if (span > 0) {
            upper += span;
        }
        else {
            lower += span;
        }
    }
    *start = arr->data + lower;
    *end = arr->data + upper + itemsize;
}

static int
extents_overlap(PyObject *a, Py_ssize_t size_a, PyObject *b, Py_ssize_t size_b)
{
    char *s1, *e1, *s2, *e2;
    memory_extents(a, size_a, &s1, &e1);
    memory_extents(b, size_b, &s2, &e2);
    return s1 < e2 && s2 < e1 && s1 < e1 && s2 < e2;
}

static int
check_tensor(const guard_op *op, PyObject *v)
{
    if ((PyObject *)Py_TYPE(v) != op->a) {
        return 0;
    }
    if (op->exact) {
        sot_ndarray_head *arr = (sot_ndarray_head *)v;
        if (arr->nd != op->n) {
            return 0;
        }
        for (Py_ssize_t i = 0; i < op->n; i++) {
            Py_ssize_t want = op->dims[i], have = arr->dimensions[i];
            if (want < 0 ? have < 2 : have != want) {
                return 0;
            }
        }
        return dtype_equal(arr->descr, op->b);
    }
    PyObject *dtype = PyObject_GetAttrString(v, "dtype");
    if (dtype == NULL) {
        return -1;
    }
    int ok = dtype_equal(dtype, op->b);
    Py_DECREF(dtype);
    if (ok <= 0 || op->n < 0) {
        return ok;
    }
    PyObject *shape = PyObject_GetAttrString(v, "shape");
    if (shape == NULL) {
        return -1;
    }
    ok = PyTuple_CheckExact(shape) && PyTuple_GET_SIZE(shape) == op->n;
    for (Py_ssize_t i = 0; ok && i < op->n; i++) {
        PyObject *d = PyTuple_GET_ITEM(shape, i);
        Py_ssize_t have = PyLong_CheckExact(d) ? PyLong_AsSsize_t(d) : -1;
        if (have == -1 && PyErr_Occurred()) {
            PyErr_Clear();
        }
        ok = op->dims[i] < 0 ? have >= 2 : have == op->dims[i];
    }
    Py_DECREF(shape);
    return ok;
}

static int
check_dict_keys(const guard_op *op, PyObject *v)
{
    if ((PyObject *)Py_TYPE(v) != op->a) {
        return 0;
    }
    Py_ssize_t n = PyTuple_GET_SIZE(op->b);
    if (PyDict_GET_SIZE(v) != n) {
        return 0;
    }
    Py_ssize_t pos = 0, i = 0;
    PyObject *key, *value;
    while (PyDict_Next(v, &pos, &key, &value)) {
        if (i >= n) {
            return 0;
        }
        int r = value_equal(key, PyTuple_GET_ITEM(op->b, i++));
        if (r <= 0) {
            return r;
        }
    }
    return i == n;
}

/* Size of axis `axis` of v (-1 with an exception set on failure): read from
 * the struct when v's type is exactly `ndarray`, else through v.shape. */
static Py_ssize_t
dim_of(PyObject *v, Py_ssize_t axis, PyObject *ndarray)
{
    if ((PyObject *)Py_TYPE(v) == ndarray) {
        sot_ndarray_head *arr = (sot_ndarray_head *)v;
        Py_ssize_t i = axis < 0 ? axis + arr->nd : axis;
        if (i < 0 || i >= arr->nd) {
            PyErr_SetString(PyExc_IndexError, "axis out of range");
            return -1;
        }
        return arr->dimensions[i];
    }
    PyObject *shape = PyObject_GetAttrString(v, "shape");
    if (shape == NULL) {
        return -1;
    }
    PyObject *d = PySequence_GetItem(shape, axis);
    Py_DECREF(shape);
    if (d == NULL) {
        return -1;
    }
    Py_ssize_t size = PyLong_AsSsize_t(d);
    Py_DECREF(d);
    return size;
}

static int
check_dimeq(const guard_op *op, PyObject *a, PyObject *b)
{
    Py_ssize_t x = dim_of(a, op->n, op->b);
    if (x < 0) {
        return -1;
    }
    Py_ssize_t y = dim_of(b, op->m, op->b);
    if (y < 0) {
        return -1;
    }
    return x == y;
}

/* The builtins mapping CPython uses for globals g (sot.guards.tracker.builtins_of). */
static PyObject *
builtins_of(PyObject *g)
{
    PyObject *b;
    if (PyDict_CheckExact(g)) {
        b = PyDict_GetItemWithError(g, str_builtins);
        Py_XINCREF(b);
    }
    else {
        b = PyObject_GetItem(g, str_builtins);
        if (b == NULL && PyErr_ExceptionMatches(PyExc_KeyError)) {
            PyErr_Clear();
        }
    }
    if (b == NULL) {
        if (PyErr_Occurred()) {
            return NULL;
        }
        return Py_NewRef(interp_builtins);
    }
    if (PyModule_Check(b)) {
        PyObject *d = PyModule_GetDict(b);
        Py_XINCREF(d);
        Py_DECREF(b);
        return d;
    }
    return b;
}

/* -------------------------------------------------------- evaluation */

#define SMALL_REGS 16

/* 1 hold, 0 not, -1 error (the caller clears it). */
static int
run_program(GuardProgram *p, PyObject *const *vec, Py_ssize_t n)
{
    if (n != 1 + p->nargs + p->ncells) {
        return 0;
    }
    PyObject *small[SMALL_REGS];
    PyObject **regs = small;
    if (p->nregs > SMALL_REGS) {
        regs = PyMem_Calloc(p->nregs, sizeof(PyObject *));
        if (regs == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    else {
        memset(small, 0, sizeof(small));
    }
    PyObject *g = vec[0];
    int ok = 1;
    for (Py_ssize_t k = 0; ok > 0 && k < p->nops; k++) {
        const guard_op *op = &p->ops[k];
        PyObject *v = op->reg >= 0 ? regs[op->reg] : NULL;
        switch (op->op) {
        case OP_ARG:
            regs[op->reg] = Py_NewRef(vec[1 + op->n]);
            break;
        case OP_CELL: {
            PyObject *cell = vec[1 + p->nargs + op->n];
            PyObject *c = PyCell_Check(cell) ? PyCell_GET(cell) : NULL;
            if (c == NULL) {
                ok = 0;  /* an empty cell: reading it raises in Python */
            }
            else {
                regs[op->reg] = Py_NewRef(c);
            }
            break;
        }
        case OP_GLOBAL:
            if (PyDict_CheckExact(g)) {
                PyObject *r = PyDict_GetItemWithError(g, op->a);
                if (r == NULL) {
                    ok = PyErr_Occurred() ? -1 : 0;
                }
                else {
                    regs[op->reg] = Py_NewRef(r);
                }
            }
            else if ((regs[op->reg] = PyObject_GetItem(g, op->a)) == NULL) {
                ok = -1;
            }
            break;
        case OP_BUILTINS:
            if ((regs[op->reg] = builtins_of(g)) == NULL) {
                ok = -1;
            }
            break;
        case OP_ATTR:
            if ((regs[op->reg] = PyObject_GetAttr(regs[op->src], op->a)) == NULL) {
                ok = -1;
            }
            break;
        case OP_ITEM:
            if ((regs[op->reg] = PyObject_GetItem(regs[op->src], op->a)) == NULL) {
                ok = -1;
            }
            break;
        case OP_CONST:
            regs[op->reg] = Py_NewRef(op->a);
            break;
        case OP_WCONST: {
            PyObject *o = sot_weak_referent(op->a);
            if (o == NULL) {
                ok = 0;
            }
            else {
                regs[op->reg] = Py_NewRef(o);
            }
            break;
        }
        case OP_TYPE:
            ok = (PyObject *)Py_TYPE(v) == op->a;
            break;
        case OP_ID:
            ok = v == op->a;
            break;
        case OP_PLAINKEYS:
            ok = plain_keys(v);
            break;
        case OP_WID: {
            PyObject *o = sot_weak_referent(op->a);
            ok = o != NULL && v == o;
            break;
        }
        case OP_WTYPE: {
            PyObject *o = sot_weak_referent(op->a);
            ok = o != NULL && (PyObject *)Py_TYPE(v) == o;
            break;
        }
        case OP_TENSOR:
            ok = check_tensor(op, v);
            break;
        case OP_VALUE:
            ok = value_equal(v, op->a);
            break;
        case OP_LEN:
            if ((PyObject *)Py_TYPE(v) != op->a) {
                ok = 0;
            }
            else {
                Py_ssize_t len = PyObject_Size(v);
                ok = len < 0 ? -1 : len == op->n;
            }
            break;
        case OP_DICTKEYS:
            ok = check_dict_keys(op, v);
            break;
        case OP_ABSENT:
            ok = PyDict_CheckExact(g) ? PyDict_Contains(g, op->a) : PySequence_Contains(g, op->a);
            ok = ok < 0 ? -1 : !ok;
            break;
        case OP_DIMEQ:
            ok = check_dimeq(op, v, regs[op->src]);
            break;
        case OP_SAME:
            ok = (v == regs[op->src]) == (op->n != 0);
            break;
        case OP_NOTIN:
            if (!PyDict_CheckExact(v)) {
                ok = 0;
            }
            else {
                ok = PyDict_Contains(v, op->a);
                ok = ok < 0 ? -1 : !ok;
            }
            break;
        case OP_TYPEVER:
            ok = sot_tag_unchanged(op->a, op->n);
            break;
        case OP_CLASS:
        case OP_WCLASS:
            ok = sot_check_class((guard_op *)op);
            break;
        case OP_WTYPEVER: {
            PyObject *o = sot_weak_referent(op->a);
            ok = o != NULL && PyType_Check(o) && sot_tag_unchanged(o, op->n);
            break;
        }
        case OP_CALL: {
            PyObject *r = PyObject_CallNoArgs(op->b);
            ok = r == NULL ? -1 : value_equal(r, op->a);
            Py_XDECREF(r);
            break;
        }
        case OP_OVERLAP: {
            PyObject *w = regs[op->src];
            if (op->exact && (PyObject *)Py_TYPE(v) == op->a && (PyObject *)Py_TYPE(w) == op->a) {
                ok = extents_overlap(v, op->m, w, op->dims[0]) == (op->n != 0);
                break;
            }
            PyObject *pair[2] = {v, w};
            PyObject *r = PyObject_Vectorcall(op->b, pair, 2, NULL);
            ok = r == NULL ? -1 : PyObject_IsTrue(r);
            Py_XDECREF(r);
            if (ok >= 0) {
                ok = ok == (op->n != 0);
            }
            break;
        }
        }
    }
    for (int r = 0; r < p->nregs; r++) {
        Py_XDECREF(regs[r]);
    }
    if (regs != small) {
        PyMem_Free(regs);
    }
    return ok;
}

static int
call_fallback(GuardProgram *p, PyObject *const *vec, Py_ssize_t n)
{
    PyObject *r = PyObject_Vectorcall(p->fallback, vec, n, NULL);
    int hold = r == NULL ? -1 : PyObject_IsTrue(r);
    Py_XDECREF(r);
    if (hold < 0) {
        PyErr_Clear();
        hold = 0;
    }
    return hold;
}

int
sot_guard_program_holds(PyObject *program, PyObject *const *vec, Py_ssize_t n)
{
    GuardProgram *p = (GuardProgram *)program;
    c_evaluations++;
    int hold = run_program(p, vec, n);
    if (hold < 0) {
        PyErr_Clear();
        hold = 0;
    }
    if (strict_mode && p->fallback != Py_None) {
        int py = call_fallback(p, vec, n);
        if (py != hold) {
            strict_mismatches++;
            hold = py;  /* the Python evaluator is the reference */
        }
    }
    return hold;
}

/* ------------------------------------------------------------ the type */

static int
gp_clear(GuardProgram *self)
{
    for (Py_ssize_t k = 0; self->ops != NULL && k < self->nops; k++) {
        Py_CLEAR(self->ops[k].a);
        Py_CLEAR(self->ops[k].b);
    }
    Py_CLEAR(self->fallback);
    Py_CLEAR(self->spec);
    return 0;
}

static int
gp_traverse(GuardProgram *self, visitproc visit, void *arg)
{
    for (Py_ssize_t k = 0; self->ops != NULL && k < self->nops; k++) {
        Py_VISIT(self->ops[k].a);
        Py_VISIT(self->ops[k].b);
    }
    Py_VISIT(self->fallback);
    Py_VISIT(self->spec);
    return 0;
}

static void
gp_dealloc(GuardProgram *self)
{
    PyObject_GC_UnTrack(self);
    gp_clear(self);
    for (Py_ssize_t k = 0; self->ops != NULL && k < self->nops; k++) {
        PyMem_Free(self->ops[k].dims);
    }
    PyMem_Free(self->ops);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *gp_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf,
                               PyObject *kwnames);

static PyObject *
gp_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"nargs", "ncells", "nregs", "ops", "fallback", NULL};
    Py_ssize_t nargs, ncells;
    int nregs;
    PyObject *ops, *fallback = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "nniO!|O:GuardProgram", kwlist, &nargs, &ncells,
                                     &nregs, &PyTuple_Type, &ops, &fallback)) {
        return NULL;
    }
    if (nargs < 0 || ncells < 0 || nregs < 0) {
        PyErr_SetString(PyExc_ValueError, "GuardProgram: negative size");
        return NULL;
    }
    if (fallback != Py_None && !PyCallable_Check(fallback)) {
        PyErr_SetString(PyExc_TypeError, "GuardProgram: fallback must be callable or None");
        return NULL;
    }
    GuardProgram *self = (GuardProgram *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->nargs = nargs;
    self->ncells = ncells;
    self->nregs = nregs;
    self->fallback = Py_NewRef(fallback);
    self->spec = Py_NewRef(ops);
    self->vectorcall = gp_vectorcall;
    Py_ssize_t nops = PyTuple_GET_SIZE(ops);
    self->ops = PyMem_Calloc(nops ? nops : 1, sizeof(guard_op));
    if (self->ops == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    self->nops = nops;
    for (Py_ssize_t k = 0; k < nops; k++) {
        if (sot_guard_parse_op(self, PyTuple_GET_ITEM(ops, k), &self->ops[k]) < 0) {
            Py_DECREF(self);
            return NULL;
        }
    }
    /* A check must read a register some earlier load wrote. */
    char *written = PyMem_Calloc(nregs ? nregs : 1, 1);
    if (written == NULL) {
        Py_DECREF(self);
        return PyErr_NoMemory();
    }
    for (Py_ssize_t k = 0; k < nops; k++) {
        guard_op *op = &self->ops[k];
        int is_load = op->op <= OP_CONST || op->op == OP_WCONST;
        int reads = is_load ? ((op->op == OP_ATTR || op->op == OP_ITEM) ? op->src : -1) : op->reg;
        int reads2 = (op->op == OP_DIMEQ || op->op == OP_SAME || op->op == OP_OVERLAP) ? op->src : -1;
        if ((reads >= 0 && !written[reads]) || (reads2 >= 0 && !written[reads2]) ||
            (is_load && written[op->reg])) {
            PyMem_Free(written);
            PyErr_Format(PyExc_ValueError, "guard program: op %zd reads an unset register or "
                         "writes one twice", k);
            Py_DECREF(self);
            return NULL;
        }
        if (is_load) {
            written[op->reg] = 1;
        }
    }
    PyMem_Free(written);
    return (PyObject *)self;
}

static PyObject *
gp_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    if (kwnames != NULL && PyTuple_GET_SIZE(kwnames)) {
        PyErr_SetString(PyExc_TypeError, "a guard program takes no keyword arguments");
        return NULL;
    }
    Py_ssize_t n = PyVectorcall_NARGS(nargsf);
    if (n < 1) {
        PyErr_SetString(PyExc_TypeError, "a guard program is called as guard(globals, *args, *cells)");
        return NULL;
    }
    int hold = run_program((GuardProgram *)self, args, n);
    if (hold < 0) {
        PyErr_Clear();
        hold = 0;
    }
    return PyBool_FromLong(hold);
}

static PyObject *
gp_repr(GuardProgram *self)
{
    return PyUnicode_FromFormat("<sot._C.GuardProgram: %zd ops, %d registers>", self->nops, self->nregs);
}

static PyMemberDef gp_members[] = {
    {"fallback", T_OBJECT, offsetof(GuardProgram, fallback), READONLY,
     "the Python reference evaluator of the same ops (sot.guards.program_ref), for strict mode"},
    {"ops", T_OBJECT, offsetof(GuardProgram, spec), READONLY, "the program, as given"},
    {NULL, 0, 0, 0, NULL},
};

PyTypeObject GuardProgram_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sot._C.GuardProgram",
    .tp_basicsize = sizeof(GuardProgram),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL,
    .tp_doc = "GuardProgram(nargs, ncells, nregs, ops, fallback=None): guards checked in C.\n"
              "Called as program(globals, *args, *cells) -> bool.",
    .tp_new = gp_new,
    .tp_dealloc = (destructor)gp_dealloc,
    .tp_traverse = (traverseproc)gp_traverse,
    .tp_clear = (inquiry)gp_clear,
    .tp_repr = (reprfunc)gp_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(GuardProgram, vectorcall),
    .tp_members = gp_members,
};

/* ------------------------------------------------- module functions */

static PyObject *
sot_set_guard_strict(PyObject *module, PyObject *flag)
{
    (void)module;
    int on = PyObject_IsTrue(flag);
    if (on < 0) {
        return NULL;
    }
    int was = strict_mode;
    strict_mode = on;
    return PyBool_FromLong(was);
}

static PyObject *
sot_guard_counters(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return Py_BuildValue("{s:n,s:n,s:O}", "c_evaluations", c_evaluations,
                         "strict_mismatches", strict_mismatches,
                         "strict", strict_mode ? Py_True : Py_False);
}

/* array_layout_ok(arr, shape, dtype): our reading of the ndarray struct
 * agrees with what Python sees (checked once at import). */
static PyObject *
sot_array_layout_ok(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyTuple_Check(args[1])) {
        PyErr_SetString(PyExc_TypeError, "array_layout_ok(arr, shape_tuple, dtype)");
        return NULL;
    }
    sot_ndarray_head *arr = (sot_ndarray_head *)args[0];
    PyObject *shape = args[1];
    if (arr->nd != PyTuple_GET_SIZE(shape) || arr->descr != args[2]) {
        Py_RETURN_FALSE;
    }
    for (Py_ssize_t i = 0; i < arr->nd; i++) {
        if (arr->dimensions[i] != PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, i))) {
            PyErr_Clear();
            Py_RETURN_FALSE;
        }
    }
    Py_RETURN_TRUE;
}

/* type_version(T) -> T's version tag (assigned if T had none), 0 if none
 * can be given: what a "typever" op compares against. */
static PyObject *
sot_type_version(PyObject *module, PyObject *t)
{
    (void)module;
    if (!PyType_Check(t)) {
        PyErr_SetString(PyExc_TypeError, "type_version() takes a type");
        return NULL;
    }
    return PyLong_FromUnsignedLong(sot_version_tag((PyTypeObject *)t));
}

/* type_unchanged(T, tag) -> the "typever" check, for the Python reference. */
static PyObject *
sot_type_unchanged(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2 || !PyType_Check(args[0])) {
        PyErr_SetString(PyExc_TypeError, "type_unchanged(type, tag)");
        return NULL;
    }
    Py_ssize_t tag = PyLong_AsSsize_t(args[1]);
    if (tag == -1 && PyErr_Occurred()) {
        return NULL;
    }
    return PyBool_FromLong(sot_tag_unchanged(args[0], tag));
}

PyMethodDef sot_guard_methods[] = {
    {"type_version", sot_type_version, METH_O,
     "type_version(T) -> T's version tag, assigned now if needed; 0 if CPython cannot give one"},
    {"type_unchanged", (PyCFunction)(void (*)(void))sot_type_unchanged, METH_FASTCALL,
     "type_unchanged(T, tag) -> whether T's version tag is still valid and equal to tag"},
    {"set_guard_strict", sot_set_guard_strict, METH_O,
     "set_guard_strict(flag) -> previous: also run each C guard's Python twin and count disagreements"},
    {"guard_counters", sot_guard_counters, METH_NOARGS,
     "guard_counters() -> {'c_evaluations', 'strict_mismatches', 'strict'}"},
    {"array_layout_ok", (PyCFunction)(void (*)(void))sot_array_layout_ok, METH_FASTCALL,
     "array_layout_ok(arr, shape, dtype) -> whether C reads this ndarray's struct correctly"},
    {NULL, NULL, 0, NULL},
};

int
sot_guard_program_init(void)
{
    if (str_builtins == NULL) {
        str_builtins = PyUnicode_InternFromString("__builtins__");
        PyObject *mod = PyImport_ImportModule("builtins");
        if (str_builtins == NULL || mod == NULL) {
            Py_XDECREF(mod);
            return -1;
        }
        interp_builtins = Py_NewRef(PyModule_GetDict(mod));
        Py_DECREF(mod);
    }
    return PyType_Ready(&GuardProgram_Type);
}
