/*
 * guard_class.c -- the "class" check of a guard program: what the trace
 * read of a class still holds.
 *
 *   ("class", T, tag, (mro, metaclass, snapshot, ANY))
 *
 * Fast path: T's version tag is valid and equals the tag last seen to hold
 * (CPython gives a class a new tag whenever an attribute of it or of a
 * base is set or deleted). When the tag differs the check is not failed
 * but made precisely: T's MRO and metaclass are the same objects, and for
 * each (type, dict) of the snapshot (the heap types of the MRO, their
 * __dict__ as the trace saw it) the type's dict has the same names, each
 * holding the same object -- except names the trace read through a
 * guarded tracker (the snapshot holds ANY for them): those may hold another
 * object, as long as it is not a descriptor (their own guards check the
 * value). When the precise check holds, the current tag is remembered, so
 * the next call takes the fast path again until the class changes.
 *
 * "wclass" is the same check of a class held weakly (its own dict's
 * functions too: a method using super() refers to the class).
 *
 * A class that writes one of its own attributes on every call
 * (`Counter.calls += 1`) therefore keeps its cache entry, while a method
 * replaced, a property or __bool__/__len__/__getattr__ added, or a name
 * shadowed in a subclass still fails.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "guard_ops.h"

/* Whether t's version tag is valid: 3.13 drops a tag by setting it to 0
 * (the flag is no longer kept); before, PyType_Modified clears the flag. */
static int
version_valid(PyTypeObject *t)
{
#if PY_VERSION_HEX >= 0x030D0000
    return t->tp_version_tag != 0;
#else
    return (t->tp_flags & Py_TPFLAGS_VALID_VERSION_TAG) && t->tp_version_tag != 0;
#endif
}

unsigned int
sot_version_tag(PyTypeObject *t)
{
#if PY_VERSION_HEX >= 0x030C0000
    if (!PyUnstable_Type_AssignVersionTag(t)) {
        return 0;
    }
#else
    if (!version_valid(t)) {
        /* a method-cache lookup assigns a tag as a side effect */
        static PyObject *name = NULL;
        if (name == NULL && (name = PyUnicode_InternFromString("__sot_version__")) == NULL) {
            PyErr_Clear();
            return 0;
        }
        (void)_PyType_Lookup(t, name);
    }
#endif
    return version_valid(t) ? t->tp_version_tag : 0;
}

int
sot_tag_unchanged(PyObject *t, Py_ssize_t tag)
{
    PyTypeObject *tp = (PyTypeObject *)t;
    return tag != 0 && version_valid(tp) && (Py_ssize_t)tp->tp_version_tag == tag;
}

static int
is_descriptor(PyObject *v)
{
    return Py_TYPE(v)->tp_descr_get != NULL || Py_TYPE(v)->tp_descr_set != NULL;
}

/* "wclass": t's MRO is t followed by the items of tail. */
static int
same_mro(PyTypeObject *t, PyObject *tail)
{
    PyObject *mro = t->tp_mro;
    if (mro == NULL || !PyTuple_Check(mro) || PyTuple_GET_SIZE(mro) != PyTuple_GET_SIZE(tail) + 1 ||
        PyTuple_GET_ITEM(mro, 0) != (PyObject *)t) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(tail); i++) {
        if (PyTuple_GET_ITEM(mro, i + 1) != PyTuple_GET_ITEM(tail, i)) {
            return 0;
        }
    }
    return 1;
}

int
sot_check_class(guard_op *op)
{
    int weak = op->op == OP_WCLASS;
    PyObject *self = weak ? sot_weak_referent(op->a) : op->a;
    if (self == NULL || !PyType_Check(self)) {
        return 0;  /* a weakly held class that died */
    }
    if (sot_tag_unchanged(self, op->n)) {
        return 1;
    }
    PyTypeObject *t = (PyTypeObject *)self;
    PyObject *mro = PyTuple_GET_ITEM(op->b, 0), *meta = PyTuple_GET_ITEM(op->b, 1);
    PyObject *snapshot = PyTuple_GET_ITEM(op->b, 2), *any = PyTuple_GET_ITEM(op->b, 3);
    PyObject *own = weak ? PyTuple_GET_ITEM(op->b, 4) : NULL;
    if (!(weak ? same_mro(t, mro) : t->tp_mro == mro) || (PyObject *)Py_TYPE(t) != meta) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(snapshot); i++) {
        PyObject *pair = PyTuple_GET_ITEM(snapshot, i);
        PyObject *k = PyTuple_GET_ITEM(pair, 0);
        if (weak && PyWeakref_CheckRefExact(k)) {
            k = self;
        }
        PyObject *now = ((PyTypeObject *)k)->tp_dict;
        PyObject *then = PyTuple_GET_ITEM(pair, 1);
        if (now == NULL || !PyDict_CheckExact(now) || PyDict_GET_SIZE(now) != PyDict_GET_SIZE(then)) {
            return 0;
        }
        Py_ssize_t pos = 0;
        PyObject *name, *old;
        while (PyDict_Next(then, &pos, &name, &old)) {
            PyObject *cur = PyDict_GetItemWithError(now, name);
            if (cur == NULL) {
                return PyErr_Occurred() ? -1 : 0;
            }
            if (old == own) {
                continue;  /* the class's own __dict__/__weakref__ descriptor */
            }
            if (weak && PyWeakref_CheckRefExact(old)) {
                old = sot_weak_referent(old);  /* a method, held weakly */
                if (old == NULL) {
                    return 0;
                }
            }
            if (cur != old && (old != any || is_descriptor(cur))) {
                return 0;
            }
        }
    }
    op->n = (Py_ssize_t)sot_version_tag(t);  /* this state holds: the fast path again */
    return 1;
}
