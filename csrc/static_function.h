/*
 * static_function.h -- what sot.to_static returns: a C callable that sets
 * the thread's frame callback around a call of the wrapped callable.
 */
#ifndef SOT_STATIC_FUNCTION_H
#define SOT_STATIC_FUNCTION_H

#include <Python.h>

extern PyTypeObject StaticFunction_Type;

int sot_static_function_init(void);

/* Provided by eval_frame_hook.c: set this thread's callback to `cb` (NULL:
 * none) for the duration of a call. enter() stores the previous callback (owned, may be
 * NULL) in *prev; exit() restores it and consumes it. */
int sot_callback_enter(PyObject *cb, PyObject **prev);
void sot_callback_exit(PyObject *prev);

#endif /* SOT_STATIC_FUNCTION_H */
