/*
 * thread_owner.c -- see thread_owner.h.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "thread_owner.h"

typedef struct {
    PyObject_HEAD
    sot_thread_exit_fn on_exit;  /* NULL: not registered, do nothing */
    void *state;
    unsigned long ident;         /* the thread that registered it */
} ThreadOwner;

static void
threadowner_dealloc(ThreadOwner *self)
{
    /* Another thread clears the dict only at interpreter finalisation; the
     * owner thread's thread-local state must not be touched from there. */
    if (self->on_exit != NULL && PyThread_get_thread_ident() == self->ident) {
        self->on_exit(self->state);
    }
    PyObject_Free(self);
}

PyTypeObject sot_ThreadOwnerType = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sot._C.ThreadOwner",
    .tp_basicsize = sizeof(ThreadOwner),
    .tp_flags = Py_TPFLAGS_DEFAULT,
    .tp_dealloc = (destructor)threadowner_dealloc,
};

int
sot_thread_owner_register(sot_thread_exit_fn on_exit, void *state)
{
    PyObject *dict = PyThreadState_GetDict();
    if (dict == NULL) {
        return 0;
    }
    ThreadOwner *owner = PyObject_New(ThreadOwner, &sot_ThreadOwnerType);
    if (owner == NULL) {
        return -1;
    }
    owner->on_exit = on_exit;
    owner->state = state;
    owner->ident = PyThread_get_thread_ident();
    int rc = PyDict_SetItemString(dict, "sot._C.thread_owner", (PyObject *)owner);
    if (rc < 0) {
        owner->on_exit = NULL;  /* not registered: its dealloc must do nothing */
    }
    Py_DECREF(owner);
    return rc < 0 ? -1 : 1;
}
