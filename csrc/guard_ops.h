/*
 * guard_ops.h -- the parsed form of a guard program, shared by
 * guard_program.c (evaluation, the type) and guard_parse.c (parsing the op
 * tuples; the op set is documented at the top of guard_program.c).
 */
#ifndef SOT_GUARD_OPS_H
#define SOT_GUARD_OPS_H

#include <Python.h>

enum {
    OP_ARG, OP_CELL, OP_GLOBAL, OP_BUILTINS, OP_ATTR, OP_ITEM, OP_CONST,
    OP_TYPE, OP_ID, OP_TENSOR, OP_VALUE, OP_LEN, OP_DICTKEYS, OP_ABSENT, OP_DIMEQ,
    OP_SAME, OP_NOTIN, OP_TYPEVER, OP_CLASS, OP_CALL, OP_OVERLAP, OP_WID, OP_WTYPE, OP_WTYPEVER, OP_WCLASS, OP_PLAINKEYS, OP_WCONST,
};

typedef struct {
    int op;
    int reg;
    int src;
    int exact;            /* tensor: the type is numpy.ndarray itself */
    Py_ssize_t n;         /* index, length, or ndim (-1: no shape); dimeq: first axis */
    Py_ssize_t m;         /* dimeq: second axis */
    PyObject *a;          /* type, name, key, value, object (owned) */
    PyObject *b;          /* dtype, keys, (mro, metaclass, snapshot), callable (owned) */
    Py_ssize_t *dims;     /* tensor shape, -1 for a symbolic dim */
} guard_op;

typedef struct {
    PyObject_HEAD
    Py_ssize_t nargs;
    Py_ssize_t ncells;
    int nregs;
    Py_ssize_t nops;
    guard_op *ops;
    PyObject *fallback;   /* the Python reference of the same ops: strict mode compares */
    PyObject *spec;       /* the ops as given */
    vectorcallfunc vectorcall;
} GuardProgram;

/* Parse op tuple t into op (its references owned by op); 0 on success, -1
 * with an exception set. */
int sot_guard_parse_op(GuardProgram *p, PyObject *t, guard_op *op);

/* The referent of weakref.ref `ref` as a borrowed pointer, only compared
 * with (never used past the check), or NULL when it has died. */
static inline PyObject *
sot_weak_referent(PyObject *ref)
{
#if PY_VERSION_HEX >= 0x030D0000
    PyObject *o = NULL;
    if (PyWeakref_GetRef(ref, &o) <= 0) {
        PyErr_Clear();
        return NULL;
    }
    Py_DECREF(o);  /* alive before the call: still alive after it */
    return o;
#else
    PyObject *o = PyWeakref_GET_OBJECT(ref);
    return o == Py_None ? NULL : o;
#endif
}

/* guard_class.c: the "class" (and "wclass") check (1 holds, 0 not, -1 error); it may
 * update op->n, the tag last seen to hold. */
int sot_check_class(guard_op *op);
/* whether t's version tag is valid and equal to tag */
int sot_tag_unchanged(PyObject *t, Py_ssize_t tag);
/* t's version tag, assigned now if needed; 0 if CPython cannot give one */
unsigned int sot_version_tag(PyTypeObject *t);

#endif /* SOT_GUARD_OPS_H */
