/*
 * hook_types.c -- the two small types the hook hands to Python: the SKIP
 * sentinel's type and Resume (see hook_types.h, eval_frame_hook.c).
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "hook_types.h"

/* The SKIP sentinel: its own little type, so that it prints as itself. */
static PyObject *
skip_repr(PyObject *self)
{
    (void)self;
    return PyUnicode_FromString("sot._C.SKIP");
}

PyTypeObject sot_SkipType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sot._C.SkipType",
    .tp_basicsize = sizeof(PyObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Type of SKIP: a callback returns SKIP to never intercept a code again.",
    .tp_repr = skip_repr,
};

/* Resume(function, *args): returned by a replacement, called by the hook. */
static PyObject *
resume_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    if ((kwds != NULL && PyDict_GET_SIZE(kwds) != 0) || PyTuple_GET_SIZE(args) < 1 ||
        !PyCallable_Check(PyTuple_GET_ITEM(args, 0))) {
        PyErr_SetString(PyExc_TypeError, "Resume(function, *args) takes a callable "
                        "and positional arguments");
        return NULL;
    }
    ResumeObject *self = (ResumeObject *)type->tp_alloc(type, 0);
    if (self != NULL) {
        self->call = Py_NewRef(args);
    }
    return (PyObject *)self;
}

static void
resume_dealloc(ResumeObject *self)
{
    Py_XDECREF(self->call);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

PyTypeObject sot_ResumeType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sot._C.Resume",
    .tp_basicsize = sizeof(ResumeObject),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_doc = "Resume(function, *args): a replacement returns this to have the hook "
              "call function(*args) after the replacement's own frame is gone.",
    .tp_new = resume_new,
    .tp_dealloc = (destructor)resume_dealloc,
};
