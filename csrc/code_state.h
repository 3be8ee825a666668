/*
 * code_state.h -- what sot keeps per code object, in co_extra: the skip flag,
 * the cache list of entries, and the bookkeeping of the hook's warm path.
 * code_state.c owns the co_extra index and the module functions that read
 * and write this state (skip_code, set_cache, ...).
 */
#ifndef SOT_CODE_STATE_H
#define SOT_CODE_STATE_H

#include <Python.h>

#include "frame_adapter.h"

/* Per code object, in co_extra[extra_index]. */
typedef struct {
    int skip;
    PyObject *cache;         /* owned list of (guard, replacement), or NULL */
    PyObject *last_func;     /* owned: function last made for a replacement
                              * without free variables, reused while its code
                              * and globals match; dropped with the cache */
    unsigned calm;           /* consecutive watched native runs that saw no
                              * frame intercepted (see "quiet runs") */
    unsigned quiet_runs;     /* runs since it became calm */
    int loop_body;           /* a loop body's code, or made from one
                              * (traceback_fixup.h) */
    int user_frame;          /* a graph compiled as the user's code: its
                              * traceback entry is the user's frame */
} sot_code_state;

/* The co_extra index of sot's state (-1 before sot_code_state_init). */
extern Py_ssize_t sot_extra_index;

/* Borrowed state of `co`, or NULL: the hot path of the hook, hence inline. */
static inline sot_code_state *
code_state_peek(PyCodeObject *co)
{
    sot_code_extra *extra = (sot_code_extra *)co->co_extra;
    if (extra == NULL || sot_extra_index >= extra->ce_size) {
        return NULL;
    }
    return (sot_code_state *)extra->ce_extras[sot_extra_index];
}

/* The state of `code`, created if missing; NULL with an exception set. */
sot_code_state *code_state_get_or_create(PyObject *code);

/* Request the co_extra index; 0 on success. */
int sot_code_state_init(void);

extern PyMethodDef sot_code_state_methods[];

#endif /* SOT_CODE_STATE_H */
