/*
 * stack_guard.h -- a RecursionError, not a crash, when the C stack runs out
 * under the hook (3.10, 3.11).
 *
 * With a PEP 523 hook installed, every Python-to-Python call is a nested C
 * call of the evaluator (3.11 inlines them otherwise), and on 3.10/3.11
 * nothing but sys.getrecursionlimit() bounds that nesting: a program that
 * raised the limit to recurse deeply (fine eagerly on 3.11, whose recursion
 * costs no C stack) overflowed the C stack and segfaulted near 12,000
 * levels on an 8 MiB stack. The hook checks the stack left before it
 * evaluates a frame; with less than SOT_STACK_RESERVE left, the frame's
 * evaluation fails as it does past the recursion limit (the default
 * evaluator raises RecursionError and unwinds the frame itself). 3.12
 * bounds the nesting with its C recursion budget (frame_adapter.h), 3.13
 * by stack size.
 *
 * The stack's bounds come from pthread_getattr_np (glibc), once per thread;
 * where they are unknown there is no check.
 */
#ifndef SOT_STACK_GUARD_H
#define SOT_STACK_GUARD_H

#include <Python.h>

#if PY_VERSION_HEX < 0x030C0000 && defined(__linux__) && defined(__GLIBC__)
#define SOT_STACK_GUARD 1
#include <pthread.h>

#define SOT_STACK_RESERVE (256 * 1024)

/* Lowest usable address of this thread's stack (plus the reserve); NULL
 * until looked up, (char *)1 when unknown. The stack grows down. */
static _Thread_local char *sot_stack_floor = NULL;

static char *
sot_stack_find_floor(void)
{
    char *floor = (char *)1;
    pthread_attr_t attr;
    if (pthread_getattr_np(pthread_self(), &attr) == 0) {
        void *addr;
        size_t size;
        if (pthread_attr_getstack(&attr, &addr, &size) == 0 && size > 2 * SOT_STACK_RESERVE) {
            floor = (char *)addr + SOT_STACK_RESERVE;
        }
        pthread_attr_destroy(&attr);
    }
    sot_stack_floor = floor;
    return floor;
}

static inline int
sot_stack_exhausted(void)
{
    char *floor = sot_stack_floor;
    if (floor == NULL) {
        floor = sot_stack_find_floor();
    }
    return (char *)__builtin_frame_address(0) < floor;
}

/* Evaluate `frame` with the recursion counter at its limit: the evaluator
 * raises RecursionError at entry and releases the frame as for any call
 * past the limit. The counter is restored afterwards. */
static inline PyObject *
sot_eval_refused(_PyFrameEvalFunction eval, PyThreadState *tstate, sot_frame *frame, int throwflag)
{
#if PY_VERSION_HEX < 0x030B0000
    int saved = tstate->recursion_depth;
    tstate->recursion_depth = Py_GetRecursionLimit();
    PyObject *res = eval(tstate, frame, throwflag);
    tstate->recursion_depth = saved;
#else
    int saved = tstate->recursion_remaining;
    tstate->recursion_remaining = 0;
    PyObject *res = eval(tstate, frame, throwflag);
    tstate->recursion_remaining = saved;
#endif
    return res;
}

#else
#define SOT_STACK_GUARD 0
#endif

#endif /* SOT_STACK_GUARD_H */
