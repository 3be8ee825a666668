/*
 * frame_adapter.h -- the per-CPython-version view of a frame that the
 * PEP 523 hook in eval_frame_hook.c needs.
 *
 * Everything that depends on the layout of CPython's frames lives here, one
 * block per version, behind the same small set of static inline functions:
 *
 *   sot_frame                   the type the eval-frame function receives
 *   sot_frame_code(f)           borrowed code object
 *   sot_frame_globals(f)        borrowed globals dict
 *   sot_frame_builtins(f)       borrowed builtins dict
 *   sot_frame_is_plain(f)       1 if the frame is a plain, unmaterialised
 *                               function frame (no f_locals dict, no frame
 *                               object yet): the only kind the hook touches
 *   sot_frame_arg(f, co, i)     borrowed raw value of argument i at entry
 *                               (never a cell object)
 *   sot_frame_free_cell(f, co, i) borrowed closure cell for co_freevars[i]
 *   sot_frame_closure(f, co)    new reference to the tuple of free cells
 *   sot_frame_closure_ok(f, co) the free cells can be read
 *   sot_frame_drop_args(f, co, n)  give up an unrun frame's argument
 *                               references (sot_release_frame_args)
 *   sot_frame_drop_unrun_locals(f, co)  give up all of them (before release)
 *   sot_frame_release_unrun(ts, f)  release a frame that the hook decided
 *                               not to evaluate, as the caller of the
 *                               eval-frame function expects
 *   sot_code_nfree(co), sot_code_argnames(co)
 *   sot_tstate_tracing(ts, co)  a trace or profile function is active, or
 *                               (3.12+) a sys.monitoring tool has events
 *                               set globally or on co
 *
 * How an unevaluated frame is released differs per version:
 *
 *   3.10  The frame is a PyFrameObject; _PyEval_Vector drops its reference
 *         after the eval-frame function returns. Nothing to do.
 *   3.11  _PyEval_Vector calls _PyEvalFrameClearAndPop after the eval-frame
 *         function returns, evaluated or not. Nothing to do.
 *   3.12  _PyEval_Vector returns the eval-frame function's result directly;
 *   3.13  the default evaluator clears and pops the entry frame itself
 *         (clear_thread_frame in ceval.c). When it is not run we must do the
 *         same: drop the locals, f_locals, f_funcobj and the code reference,
 *         then pop the frame from the thread's data stack.
 *         _PyFrame_ClearExceptCode is not exported by libpython on either
 *         version, so the minimal part is reimplemented. The frame object of
 *         an unrun frame is never materialised: the hook delegates any frame
 *         that already has one, and the frame is never linked into the
 *         thread's frame chain, so nothing can create one later.
 *         _PyThreadState_PopFrame is exported on 3.13 only; on 3.12 it is
 *         reimplemented, including freeing an emptied data-stack chunk.
 */
#ifndef SOT_FRAME_ADAPTER_H
#define SOT_FRAME_ADAPTER_H

#include <Python.h>

#if PY_VERSION_HEX < 0x030A0000 || PY_VERSION_HEX >= 0x030E0000
#error "sot._C supports CPython 3.10 to 3.13; audit frame_adapter.h for this version"
#endif

#ifdef Py_GIL_DISABLED
#error "sot._C relies on the GIL to protect its state; free-threaded builds are not supported"
#endif

#define SOT_GENERATOR_FLAGS \
    (CO_GENERATOR | CO_COROUTINE | CO_ASYNC_GENERATOR | CO_ITERABLE_COROUTINE)

/* Mirror of the private holder behind co_extra (Objects/codeobject.c),
 * unchanged from 3.7 to 3.13. Read directly so that the skip check costs a
 * few loads rather than a call into libpython. */
typedef struct {
    Py_ssize_t ce_size;
    void *ce_extras[1];
} sot_code_extra;

/* The co_extra API was renamed PyUnstable_* in 3.12 (old names deprecated). */
#if PY_VERSION_HEX >= 0x030C0000
#define sot_request_extra_index PyUnstable_Eval_RequestCodeExtraIndex
#define sot_code_set_extra PyUnstable_Code_SetExtra
#else
#define sot_request_extra_index _PyEval_RequestCodeExtraIndex
#define sot_code_set_extra _PyCode_SetExtra
#endif


/* ------------------------------------------------------------------ 3.10 */
#if PY_VERSION_HEX < 0x030B0000

#include <frameobject.h>

typedef PyFrameObject sot_frame;

static inline PyCodeObject *sot_frame_code(sot_frame *f) { return f->f_code; }
static inline PyObject *sot_frame_globals(sot_frame *f) { return f->f_globals; }
static inline PyObject *sot_frame_builtins(sot_frame *f) { return f->f_builtins; }
static inline int sot_frame_is_plain(sot_frame *f) { return f->f_locals == NULL; }

static inline Py_ssize_t
sot_code_nfree(PyCodeObject *co)
{
    return PyTuple_GET_SIZE(co->co_freevars);
}

static inline PyObject *
sot_code_argnames(PyCodeObject *co)
{
    return co->co_varnames;
}

/* An argument that is also a cell variable was moved into its cell by
 * _PyEval_MakeFrameVector (cell2arg) and its local slot set to NULL. */
static inline PyObject *
sot_frame_arg(sot_frame *f, PyCodeObject *co, Py_ssize_t i)
{
    PyObject *v = f->f_localsplus[i];
    if (v != NULL || co->co_cell2arg == NULL) {
        return v;
    }
    Py_ssize_t ncells = PyTuple_GET_SIZE(co->co_cellvars);
    for (Py_ssize_t c = 0; c < ncells; c++) {
        if (co->co_cell2arg[c] == i) {
            return PyCell_GET(f->f_localsplus[co->co_nlocals + c]);
        }
    }
    return NULL;
}

static inline PyObject *
sot_frame_free_cell(sot_frame *f, PyCodeObject *co, Py_ssize_t i)
{
    return f->f_localsplus[co->co_nlocals + PyTuple_GET_SIZE(co->co_cellvars) + i];
}

static inline PyObject *
sot_frame_closure(sot_frame *f, PyCodeObject *co)
{
    Py_ssize_t nfree = sot_code_nfree(co);
    PyObject *t = PyTuple_New(nfree);
    if (t == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < nfree; i++) {
        PyTuple_SET_ITEM(t, i, Py_NewRef(sot_frame_free_cell(f, co, i)));
    }
    return t;
}

static inline int
sot_frame_closure_ok(sot_frame *f, PyCodeObject *co)
{
    (void)f;
    (void)co;
    return 1;
}

static inline void
sot_frame_release_unrun(PyThreadState *tstate, sot_frame *f)
{
    (void)tstate;
    (void)f;
}

/* Drop what an unrun frame holds (its arguments) before the frame itself
 * goes (later, in _PyEval_Vector): nothing keeps them alive meanwhile. */
static inline void
sot_frame_drop_unrun_locals(sot_frame *f, PyCodeObject *co)
{
    Py_ssize_t n = co->co_nlocals + PyTuple_GET_SIZE(co->co_cellvars) +
                   PyTuple_GET_SIZE(co->co_freevars);
    for (Py_ssize_t i = 0; i < n; i++) {
        Py_CLEAR(f->f_localsplus[i]);
    }
}

/* Give up an unrun frame's first nargs argument references (the frame keeps
 * the slots, empty); 0 where an argument lives in a cell (cell2arg). */
static inline int
sot_frame_drop_args(sot_frame *f, PyCodeObject *co, Py_ssize_t nargs)
{
    if (co->co_cell2arg != NULL) {
        return 0;
    }
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_CLEAR(f->f_localsplus[i]);
    }
    return 1;
}

/* ---------------------------------------------------------- 3.11 - 3.13 */
#else

#define Py_BUILD_CORE
#include <internal/pycore_frame.h>
#undef Py_BUILD_CORE

typedef _PyInterpreterFrame sot_frame;

static inline PyCodeObject *
sot_frame_code(sot_frame *f)
{
#if PY_VERSION_HEX >= 0x030D0000
    return (PyCodeObject *)f->f_executable;
#else
    return f->f_code;
#endif
}

static inline PyFunctionObject *
sot_frame_func(sot_frame *f)
{
#if PY_VERSION_HEX >= 0x030C0000
    return (PyFunctionObject *)f->f_funcobj;
#else
    return f->f_func;
#endif
}

static inline PyObject *sot_frame_globals(sot_frame *f) { return f->f_globals; }
static inline PyObject *sot_frame_builtins(sot_frame *f) { return f->f_builtins; }

static inline int
sot_frame_is_plain(sot_frame *f)
{
    return f->owner == FRAME_OWNED_BY_THREAD && f->f_locals == NULL &&
           f->frame_obj == NULL;
}

static inline Py_ssize_t sot_code_nfree(PyCodeObject *co) { return co->co_nfreevars; }

/* Arguments come first in co_localsplusnames. */
static inline PyObject *sot_code_argnames(PyCodeObject *co) { return co->co_localsplusnames; }

/* MAKE_CELL has not run yet, so the slot holds the raw value. */
static inline PyObject *
sot_frame_arg(sot_frame *f, PyCodeObject *co, Py_ssize_t i)
{
    (void)co;
    return f->localsplus[i];
}

/* COPY_FREE_VARS has not run yet: the cells are in the function's closure. */
static inline PyObject *
sot_frame_free_cell(sot_frame *f, PyCodeObject *co, Py_ssize_t i)
{
    (void)co;
    return PyTuple_GET_ITEM(sot_frame_func(f)->func_closure, i);
}

static inline PyObject *
sot_frame_closure(sot_frame *f, PyCodeObject *co)
{
    (void)co;
    return Py_NewRef(sot_frame_func(f)->func_closure);
}

/* A function made from C may lack a closure that matches its code. */
static inline int
sot_frame_closure_ok(sot_frame *f, PyCodeObject *co)
{
    if (co->co_nfreevars == 0) {
        return 1;
    }
    PyObject *closure = sot_frame_func(f)->func_closure;
    return closure != NULL && PyTuple_Check(closure) &&
           PyTuple_GET_SIZE(closure) == co->co_nfreevars;
}

/* Give up an unrun frame's first nargs argument references (the frame keeps
 * the slots, empty: clearing it later skips them). Returns 1. */
static inline int
sot_frame_drop_args(sot_frame *f, PyCodeObject *co, Py_ssize_t nargs)
{
    (void)co;
    for (Py_ssize_t i = 0; i < nargs; i++) {
        Py_CLEAR(f->localsplus[i]);
    }
    return 1;
}

#if PY_VERSION_HEX < 0x030C0000
static inline void
sot_frame_release_unrun(PyThreadState *tstate, sot_frame *f)
{
    (void)tstate;
    (void)f;
}

/* Drop what an unrun frame holds (its arguments) before the frame itself
 * goes (_PyEvalFrameClearAndPop, later): nothing keeps them alive meanwhile. */
static inline void
sot_frame_drop_unrun_locals(sot_frame *f, PyCodeObject *co)
{
    for (int i = 0; i < co->co_nlocalsplus; i++) {
        Py_CLEAR(f->localsplus[i]);
    }
}
#else
/* 3.12+: sot_frame_release_unrun drops them, and pops the frame. */
static inline void
sot_frame_drop_unrun_locals(sot_frame *f, PyCodeObject *co)
{
    (void)f;
    (void)co;
}


#if PY_VERSION_HEX < 0x030D0000
/* Python/pystate.c: _PyThreadState_PopFrame (3.12, not exported). */
static inline void
sot_pop_frame(PyThreadState *tstate, sot_frame *frame)
{
    PyObject **base = (PyObject **)frame;
    _PyStackChunk *chunk = tstate->datastack_chunk;
    if (base == &chunk->data[0]) {
        /* The frame opened this chunk: free it (the root chunk never is). */
        _PyStackChunk *previous = chunk->previous;
        PyObjectArenaAllocator arena;
        tstate->datastack_top = &previous->data[previous->top];
        tstate->datastack_chunk = previous;
        PyObject_GetArenaAllocator(&arena);
        arena.free(arena.ctx, chunk, chunk->size);
        tstate->datastack_limit = (PyObject **)(((char *)previous) + previous->size);
    }
    else {
        tstate->datastack_top = base;
    }
}
#else
#define sot_pop_frame _PyThreadState_PopFrame
#endif

/* Python/ceval.c: clear_thread_frame + Python/frame.c:
 * _PyFrame_ClearExceptCode, for a frame that never ran. */
static inline void
sot_frame_release_unrun(PyThreadState *tstate, sot_frame *f)
{
    PyCodeObject *co = sot_frame_code(f);
    if (f->frame_obj != NULL ||
        (PyObject **)f + co->co_framesize != tstate->datastack_top) {
        Py_FatalError("sot._C: unrun frame is not the top of the data stack "
                      "or has a frame object");
    }
    tstate->c_recursion_remaining--;
    /* As _PyFrame_ClearLocals (3.13): empty the frame before the decrefs,
     * which may run finalizers. */
    int stacktop = f->stacktop;
    f->stacktop = 0;
    for (int i = 0; i < stacktop; i++) {
        Py_XDECREF(f->localsplus[i]);
    }
    Py_CLEAR(f->f_locals);
    Py_DECREF(f->f_funcobj);
    Py_DECREF(co);
    tstate->c_recursion_remaining++;
    sot_pop_frame(tstate, f);
}
#endif /* 3.12+ */

#endif /* 3.11+ */

/* ------------------------------------------------ C recursion budget */

/* 3.12 charges each entry of _PyEval_EvalFrameDefault two units of the C
 * recursion budget (PY_EVAL_C_STACK_UNITS 2 of C_RECURSION_LIMIT 1500),
 * and while a PEP 523 hook is installed every Python-to-Python call is such
 * an entry, where an unhooked one is inlined and charges nothing: recursion
 * under the hook stopped near 750 levels, well before the recursion limit
 * that stops the same function eagerly. The hook gives one unit back for the
 * evaluation it delegates, so sys.getrecursionlimit() (1000 by default) is
 * reached first, as eagerly; the C budget still bounds the C stack (1500
 * nested evaluations). 3.10/3.11 count every frame once; 3.13 budgets by
 * stack size. */
#if PY_VERSION_HEX >= 0x030C0000 && PY_VERSION_HEX < 0x030D0000
#define SOT_EVAL_C_REFUND 1
#define sot_c_budget_adjust(tstate, n) ((tstate)->c_recursion_remaining += (n))
#else
#define SOT_EVAL_C_REFUND 0
#define sot_c_budget_adjust(tstate, n) ((void)(tstate), (void)(n))
#endif

/* ------------------------------------------------ Python recursion headroom */

/* Frames left before sys.getrecursionlimit() is reached. Near the limit the
 * hook runs frames natively: a replacement's runner, graph and guard
 * predicates are frames of their own, and with them a deep recursion would
 * meet the limit a few levels before it does eagerly. */
static inline int
sot_py_recursion_headroom(PyThreadState *tstate)
{
#if PY_VERSION_HEX >= 0x030C0000
    return tstate->py_recursion_remaining;
#elif PY_VERSION_HEX >= 0x030B0000
    return tstate->recursion_remaining;
#else
    return Py_GetRecursionLimit() - tstate->recursion_depth;
#endif
}

/* ------------------------------------------------ tracing and monitoring */

/* 1 if a sys.monitoring tool (3.12+) has events set globally or on co
 * (monitoring.c: reading the interpreter's monitors needs internal headers). */
int sot_monitoring_active(PyThreadState *tstate, PyCodeObject *co);

static inline int
sot_tstate_tracing(PyThreadState *tstate, PyCodeObject *co)
{
    return tstate->c_tracefunc != NULL || tstate->c_profilefunc != NULL ||
           sot_monitoring_active(tstate, co);
}

#endif /* SOT_FRAME_ADAPTER_H */
