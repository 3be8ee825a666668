/*
 * frame_info.h -- sot._C.FrameInfo, what the frame-evaluation callback is
 * given about an intercepted frame: f_code, f_globals, f_builtins, f_locals
 * (argument name -> value as bound at entry), args (the argument vector) and
 * closure (the free cells, or None). A plain snapshot: it holds no pointer
 * to the frame, which is never materialised as a frame object.
 *
 * Included once, by eval_frame_hook.c.
 */
#ifndef SOT_FRAME_INFO_H
#define SOT_FRAME_INFO_H

#include <Python.h>
#include <structmember.h>

#include "frame_adapter.h"

typedef struct {
    PyObject_HEAD
    PyObject *f_code;
    PyObject *f_globals;
    PyObject *f_builtins;
    PyObject *f_locals;
    PyObject *args;
    PyObject *closure;
} FrameInfo;

static int
frameinfo_traverse(FrameInfo *self, visitproc visit, void *arg)
{
    Py_VISIT(self->f_code);
    Py_VISIT(self->f_globals);
    Py_VISIT(self->f_builtins);
    Py_VISIT(self->f_locals);
    Py_VISIT(self->args);
    Py_VISIT(self->closure);
    return 0;
}

static int
frameinfo_clear(FrameInfo *self)
{
    Py_CLEAR(self->f_code);
    Py_CLEAR(self->f_globals);
    Py_CLEAR(self->f_builtins);
    Py_CLEAR(self->f_locals);
    Py_CLEAR(self->args);
    Py_CLEAR(self->closure);
    return 0;
}

static void
frameinfo_dealloc(FrameInfo *self)
{
    PyObject_GC_UnTrack(self);
    frameinfo_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

static PyObject *
frameinfo_repr(FrameInfo *self)
{
    return PyUnicode_FromFormat("<sot frame_info of %R>", self->f_code);
}

#define FI_MEMBER(name, doc) \
    {#name, T_OBJECT, offsetof(FrameInfo, name), READONLY, doc}

static PyMemberDef frameinfo_members[] = {
    FI_MEMBER(f_code, "code object of the intercepted frame"),
    FI_MEMBER(f_globals, "globals dict of the frame"),
    FI_MEMBER(f_builtins, "builtins dict of the frame"),
    FI_MEMBER(f_locals, "dict: argument name -> value as bound at entry"),
    FI_MEMBER(args, "tuple: the argument vector (uniform arguments)"),
    FI_MEMBER(closure, "tuple of the frame's free cells, or None"),
    {NULL, 0, 0, 0, NULL},
};

static PyTypeObject FrameInfo_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sot._C.FrameInfo",
    .tp_basicsize = sizeof(FrameInfo),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC,
    .tp_doc = "What the frame-evaluation callback learns about a frame.",
    .tp_dealloc = (destructor)frameinfo_dealloc,
    .tp_traverse = (traverseproc)frameinfo_traverse,
    .tp_clear = (inquiry)frameinfo_clear,
    .tp_repr = (reprfunc)frameinfo_repr,
    .tp_members = frameinfo_members,
};

/* Snapshot of `frame` (of code `co`) whose argument vector is args[0..nargs)
 * and which has nfree free cells. */
static PyObject *
make_frame_info(sot_frame *frame, PyCodeObject *co, PyObject *const *args,
                Py_ssize_t nargs, Py_ssize_t nfree)
{
    FrameInfo *fi = PyObject_GC_New(FrameInfo, &FrameInfo_Type);
    if (fi == NULL) {
        return NULL;
    }
    fi->f_code = Py_NewRef((PyObject *)co);
    fi->f_globals = Py_NewRef(sot_frame_globals(frame));
    fi->f_builtins = Py_NewRef(sot_frame_builtins(frame));
    fi->f_locals = PyDict_New();
    fi->args = PyTuple_New(nargs);
    fi->closure = nfree ? sot_frame_closure(frame, co) : Py_NewRef(Py_None);
    PyObject_GC_Track(fi);
    if (fi->f_locals == NULL || fi->args == NULL || fi->closure == NULL) {
        Py_DECREF(fi);
        return NULL;
    }
    PyObject *names = sot_code_argnames(co);
    for (Py_ssize_t i = 0; i < nargs; i++) {
        PyTuple_SET_ITEM(fi->args, i, Py_NewRef(args[i]));
        if (PyDict_SetItem(fi->f_locals, PyTuple_GET_ITEM(names, i), args[i]) < 0) {
            Py_DECREF(fi);
            return NULL;
        }
    }
    return (PyObject *)fi;
}

#endif /* SOT_FRAME_INFO_H */
