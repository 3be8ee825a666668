/*
 * guard_parse.c -- a guard program's op tuples, checked and parsed once
 * (see guard_program.c for the op set).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "guard_ops.h"

static const char *const op_names[] = {
    "arg", "cell", "global", "builtins", "attr", "item", "const",
    "type", "id", "tensor", "value", "len", "dictkeys", "absent", "dimeq",
    "same", "notin", "typever", "class", "call", "overlap", "wid", "wtype", "wtypever", "wclass", "plainkeys", "wconst", NULL,
};

/* How many fields each op's tuple has, op name included. */
static const int op_sizes[] = {3, 3, 3, 2, 4, 4, 3, 3, 3, 6, 3, 4, 4, 2, 6, 4, 3, 3, 4, 3, 5, 3, 3, 3, 4, 2, 3};

/* ------------------------------------------------------------ parsing */

static int
parse_index(PyObject *t, Py_ssize_t i, Py_ssize_t limit, const char *what, Py_ssize_t *out)
{
    Py_ssize_t v = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, i));
    if (v == -1 && PyErr_Occurred()) {
        return -1;
    }
    if (v < 0 || v >= limit) {
        PyErr_Format(PyExc_ValueError, "guard program: %s %zd out of range (< %zd)", what, v, limit);
        return -1;
    }
    *out = v;
    return 0;
}

static int
parse_type(PyObject *t, Py_ssize_t i, PyObject **out)
{
    PyObject *v = PyTuple_GET_ITEM(t, i);
    if (!PyType_Check(v)) {
        PyErr_SetString(PyExc_TypeError, "guard program: expected a type");
        return -1;
    }
    *out = Py_NewRef(v);
    return 0;
}

int
sot_guard_parse_op(GuardProgram *p, PyObject *t, guard_op *op)
{
    if (!PyTuple_Check(t) || PyTuple_GET_SIZE(t) < 2 || !PyUnicode_Check(PyTuple_GET_ITEM(t, 0))) {
        PyErr_SetString(PyExc_TypeError, "guard program: each op is a tuple (name, ...)");
        return -1;
    }
    op->op = -1;
    for (int k = 0; op_names[k] != NULL; k++) {
        if (PyUnicode_CompareWithASCIIString(PyTuple_GET_ITEM(t, 0), op_names[k]) == 0) {
            op->op = k;
        }
    }
    if (op->op < 0 || (PyTuple_GET_SIZE(t) != op_sizes[op->op] &&
                       !(op->op == OP_OVERLAP && PyTuple_GET_SIZE(t) == 8))) {   /* its C form */
        PyErr_Format(PyExc_ValueError, "guard program: bad op %R", t);
        return -1;
    }
    Py_ssize_t reg = -1, x;
    int no_reg = op->op == OP_ABSENT || op->op == OP_TYPEVER || op->op == OP_CLASS || op->op == OP_CALL ||
                 op->op == OP_WTYPEVER || op->op == OP_WCLASS;
    if (!no_reg && parse_index(t, 1, p->nregs, "register", &reg) < 0) {
        return -1;
    }
    op->reg = (int)reg;
    switch (op->op) {
    case OP_ARG:
        return parse_index(t, 2, p->nargs, "argument", &op->n);
    case OP_CELL:
        return parse_index(t, 2, p->ncells, "cell", &op->n);
    case OP_ATTR:
    case OP_ITEM:
        if (parse_index(t, 2, p->nregs, "register", &x) < 0) {
            return -1;
        }
        op->src = (int)x;
        op->a = Py_NewRef(PyTuple_GET_ITEM(t, 3));
        if (op->op == OP_ATTR && !PyUnicode_Check(op->a)) {
            PyErr_SetString(PyExc_TypeError, "guard program: attribute name must be a str");
            return -1;
        }
        return 0;
    case OP_GLOBAL:
    case OP_CONST:
    case OP_ID:
    case OP_VALUE:
        op->a = Py_NewRef(PyTuple_GET_ITEM(t, 2));
        return 0;
    case OP_ABSENT:
        op->reg = -1;
        op->a = Py_NewRef(PyTuple_GET_ITEM(t, 1));
        return 0;
    case OP_BUILTINS:
        return 0;
    case OP_SAME:
        if (parse_index(t, 2, p->nregs, "register", &x) < 0) {
            return -1;
        }
        op->src = (int)x;
        op->n = PyObject_IsTrue(PyTuple_GET_ITEM(t, 3));
        return op->n < 0 ? -1 : 0;
    case OP_NOTIN:
        op->a = Py_NewRef(PyTuple_GET_ITEM(t, 2));
        return 0;
    case OP_TYPEVER:
        op->reg = -1;
        if (parse_type(t, 1, &op->a) < 0) {
            return -1;
        }
        op->n = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 2));
        return op->n == -1 && PyErr_Occurred() ? -1 : 0;
    case OP_WTYPEVER:
        op->reg = -1;
        if (!PyWeakref_CheckRefExact(PyTuple_GET_ITEM(t, 1))) {
            PyErr_SetString(PyExc_TypeError, "guard program: wtypever needs a weakref.ref");
            return -1;
        }
        op->a = Py_NewRef(PyTuple_GET_ITEM(t, 1));
        op->n = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 2));
        return op->n == -1 && PyErr_Occurred() ? -1 : 0;
    case OP_CLASS:
    case OP_WCLASS: {
        int weak = op->op == OP_WCLASS;
        op->reg = -1;
        if (weak) {
            if (!PyWeakref_CheckRefExact(PyTuple_GET_ITEM(t, 1))) {
                PyErr_SetString(PyExc_TypeError, "guard program: wclass needs a weakref.ref");
                return -1;
            }
            op->a = Py_NewRef(PyTuple_GET_ITEM(t, 1));
        }
        else if (parse_type(t, 1, &op->a) < 0) {
            return -1;
        }
        op->n = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 2));
        if (op->n == -1 && PyErr_Occurred()) {
            return -1;
        }
        PyObject *spec = PyTuple_GET_ITEM(t, 3);
        if (!PyTuple_Check(spec) || PyTuple_GET_SIZE(spec) != 4 + weak || !PyTuple_Check(PyTuple_GET_ITEM(spec, 2)) ||
            !PyTuple_Check(PyTuple_GET_ITEM(spec, 0))) {
            PyErr_SetString(PyExc_TypeError, "guard program: class needs (mro, metaclass, snapshot, any[, own])");
            return -1;
        }
        PyObject *snapshot = PyTuple_GET_ITEM(spec, 2);
        for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(snapshot); i++) {
            PyObject *pair = PyTuple_GET_ITEM(snapshot, i);
            if (!PyTuple_Check(pair) || PyTuple_GET_SIZE(pair) != 2 || !PyDict_CheckExact(PyTuple_GET_ITEM(pair, 1))) {
                PyErr_SetString(PyExc_TypeError, "guard program: a class snapshot is ((heap type, dict), ...)");
                return -1;
            }
            if (weak && PyWeakref_CheckRefExact(PyTuple_GET_ITEM(pair, 0))) {
                continue;  /* the class itself, held weakly */
            }
            if (!PyType_Check(PyTuple_GET_ITEM(pair, 0)) ||
                !(((PyTypeObject *)PyTuple_GET_ITEM(pair, 0))->tp_flags & Py_TPFLAGS_HEAPTYPE)) {
                PyErr_SetString(PyExc_TypeError, "guard program: a class snapshot is ((heap type, dict), ...)");
                return -1;
            }
        }
        op->b = Py_NewRef(spec);
        return 0;
    }
    case OP_CALL:
        op->reg = -1;
        op->b = Py_NewRef(PyTuple_GET_ITEM(t, 1));
        op->a = Py_NewRef(PyTuple_GET_ITEM(t, 2));
        if (!PyCallable_Check(op->b)) {
            PyErr_SetString(PyExc_TypeError, "guard program: call needs a callable");
            return -1;
        }
        return 0;
    case OP_OVERLAP:
        if (parse_index(t, 2, p->nregs, "register", &x) < 0) {
            return -1;
        }
        op->src = (int)x;
        op->b = Py_NewRef(PyTuple_GET_ITEM(t, 3));
        op->n = PyObject_IsTrue(PyTuple_GET_ITEM(t, 4));
        if (op->n < 0) {
            return -1;
        }
        if (PyTuple_GET_SIZE(t) == 8) {   /* the ndarray type and both item sizes: the bounds in C */
            if (parse_type(t, 5, &op->a) < 0) {
                return -1;
            }
            op->m = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 6));
            op->dims = PyMem_Calloc(1, sizeof(Py_ssize_t));
            if (op->dims == NULL) {
                PyErr_NoMemory();
                return -1;
            }
            op->dims[0] = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 7));
            if ((op->m == -1 || op->dims[0] == -1) && PyErr_Occurred()) {
                return -1;
            }
            op->exact = 1;
        }
        return 0;
    case OP_DIMEQ: {
        if (parse_index(t, 3, p->nregs, "register", &x) < 0) {
            return -1;
        }
        op->src = (int)x;
        op->n = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 2));
        op->m = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 4));
        if ((op->n == -1 || op->m == -1) && PyErr_Occurred()) {
            return -1;
        }
        return parse_type(t, 5, &op->b);
    }
    case OP_TYPE:
        return parse_type(t, 2, &op->a);
    case OP_WID:
    case OP_WTYPE:
    case OP_WCONST:
        if (!PyWeakref_CheckRefExact(PyTuple_GET_ITEM(t, 2))) {
            PyErr_SetString(PyExc_TypeError, "guard program: wid/wtype/wconst need a weakref.ref");
            return -1;
        }
        op->a = Py_NewRef(PyTuple_GET_ITEM(t, 2));
        return 0;
    case OP_LEN:
        if (parse_type(t, 2, &op->a) < 0) {
            return -1;
        }
        op->n = PyLong_AsSsize_t(PyTuple_GET_ITEM(t, 3));
        return op->n == -1 && PyErr_Occurred() ? -1 : 0;
    case OP_DICTKEYS:
        if (parse_type(t, 2, &op->a) < 0) {
            return -1;
        }
        if (!PyType_IsSubtype((PyTypeObject *)op->a, &PyDict_Type) ||
            !PyTuple_Check(PyTuple_GET_ITEM(t, 3))) {
            PyErr_SetString(PyExc_TypeError, "guard program: dictkeys needs a dict type and a tuple");
            return -1;
        }
        op->b = Py_NewRef(PyTuple_GET_ITEM(t, 3));
        return 0;
    case OP_TENSOR: {
        if (parse_type(t, 2, &op->a) < 0) {
            return -1;
        }
        op->b = Py_NewRef(PyTuple_GET_ITEM(t, 3));
        PyObject *shape = PyTuple_GET_ITEM(t, 4);
        op->exact = PyObject_IsTrue(PyTuple_GET_ITEM(t, 5));
        if (op->exact < 0) {
            return -1;
        }
        if (shape == Py_None) {
            op->n = -1;
            op->exact = 0;  /* NumPy scalars are not arrays */
            return 0;
        }
        if (!PyTuple_Check(shape)) {
            PyErr_SetString(PyExc_TypeError, "guard program: tensor shape must be a tuple or None");
            return -1;
        }
        op->n = PyTuple_GET_SIZE(shape);
        op->dims = PyMem_Calloc(op->n ? op->n : 1, sizeof(Py_ssize_t));
        if (op->dims == NULL) {
            PyErr_NoMemory();
            return -1;
        }
        for (Py_ssize_t i = 0; i < op->n; i++) {
            PyObject *d = PyTuple_GET_ITEM(shape, i);
            op->dims[i] = d == Py_None ? -1 : PyLong_AsSsize_t(d);
            if (op->dims[i] == -1 && PyErr_Occurred()) {
                return -1;
            }
            if (d != Py_None && op->dims[i] < 0) {
                PyErr_SetString(PyExc_ValueError, "guard program: negative dimension");
                return -1;
            }
        }
        return 0;
    }
    }
    return 0;
}

