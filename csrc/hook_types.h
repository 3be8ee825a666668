/*
 * hook_types.h -- SKIP's type and Resume(function, *args), the objects a
 * callback or a replacement returns to the hook (eval_frame_hook.c).
 */
#ifndef SOT_HOOK_TYPES_H
#define SOT_HOOK_TYPES_H

#include <Python.h>

/* Resume(function, *args): returned by a replacement, called by the hook. */
typedef struct {
    PyObject_HEAD
    PyObject *call;          /* owned tuple (function, *args) */
} ResumeObject;

extern PyTypeObject sot_SkipType;
extern PyTypeObject sot_ResumeType;

#endif /* SOT_HOOK_TYPES_H */
