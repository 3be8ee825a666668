/*
 * sot._C -- the PEP 523 frame-evaluation hook of sot.
 *
 * While a thread has a callback set, every plain function frame that thread
 * evaluates comes here first. Per code object (co_extra) we keep a skip flag
 * and a cache list of (guard, replacement[, direct]) entries:
 *
 *   skipped code             -> default evaluator (a pointer check)
 *   guard(globals, *args, *free_cells) holds (a GuardProgram is evaluated
 *   in C, see guard_program.c; any other guard is called)
 *        direct given        -> direct(globals, *args, *free_cells) is the
 *                               frame's result (no replacement frame)
 *        replacement is None -> default evaluator on the original frame
 *        replacement code    -> run it as a function on the argument vector
 *   no guard holds           -> callback(frame_info) decides:
 *        None -> original frame, SKIP -> skip the code and run the original,
 *        code object -> run it as the replacement (not cached here)
 *
 * An entry whose GuardProgram holds moves to the front of the list (most
 * recently hit first); entries with other guards keep their place.
 *
 * A replacement runs as PyFunction_New(rc, f_globals) with the frame's
 * closure, called with the argument vector; for a replacement without free
 * variables the function is kept in the code state and reused while its code
 * and globals match (it holds only those two; dropped with the cache).
 *
 * Two ways for a replacement to hand the frame on (sot/breaks, sot/translate):
 *   it returns Resume(function, *args)  -> the hook calls function(*args)
 *        after the replacement's frame is gone, so the resume function of a
 *        graph break runs where the original frame would have: the stack and
 *        tracebacks show the user's function once, not the replacement too;
 *   it raises RerunNatively before doing anything else -> the hook runs the
 *        original frame natively (a compiled graph failed: the user's own
 *        code raises the error, at the user's line).
 *
 * The guards and the callback run with the hook disabled for the thread; the
 * replacement runs with it enabled (its callees are intercepted), except for
 * the replacement's own frame, which is let through once ("bypass").
 *
 * Version-specific frame access and release live in frame_adapter.h; the
 * per-code state and the module functions over it in code_state.c.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "frame_adapter.h"
#include "frame_info.h"
#include "code_state.h"
#include "traceback_fixup.h"
#include "guard_program.h"
#include "static_function.h"
#include "fp_state.h"
#include "hook_types.h"
#include "array_binding.h"
#include "stack_guard.h"
#include "thread_owner.h"

/* frames kept free below the recursion limit: closer, frames run natively */
#define SOT_RECURSION_MARGIN 40

/* ------------------------------------------------------------ state */

/* Per thread. The callback reference is owned. */
typedef struct {
    PyObject *callback;      /* NULL: no callback on this thread */
    int disabled;            /* >0 while guards or the callback run */
    PyCodeObject *bypass;    /* borrowed: the replacement about to start */
    int has_owner;           /* a ThreadOwner sits in the thread's dict */
    /* The unrun frame of the running replacement (sot_release_frame_args). */
    sot_frame *unrun_frame;
    PyCodeObject *unrun_code;
    Py_ssize_t unrun_nargs;
    int unrun_dropped;
} sot_thread_state;

/* Default (dlopen-safe) TLS model: the hot path for skipped codes does not
 * read it, see sot_eval_frame. */
static _Thread_local sot_thread_state tls_state;

/* Interpreter-wide, protected by the GIL. */
static Py_ssize_t install_count = 0;  /* threads with a callback */
static PyInterpreterState *hook_interp = NULL;
static _PyFrameEvalFunction previous_eval = NULL;
static PyObject *skip_sentinel = NULL;
static PyObject *rerun_natively = NULL;  /* the RerunNatively exception type */
static Py_ssize_t intercepts = 0;     /* frames intercepted, never reset */
static Py_ssize_t intercepts_at_reset = 0;  /* frames_seen() counts from here */
static int quiet_depth = 0;           /* nesting of quiet runs */

/* ------------------------------------------------------- the hook */

/* The argument vector of an intercepted frame, on the C stack when small:
 * vec[0] = f_globals, vec[1 .. n] = arguments, vec[n+1 .. n+nfree] = free
 * cells. All references are borrowed from the (unrun) frame, which stays
 * alive until the hook returns or releases it (release_frame_args may drop
 * the arguments once the replacement runs: the vector is not read then). */
#define SOT_SMALL_VECTOR 12

typedef struct {
    PyObject **vec;
    Py_ssize_t nargs;
    Py_ssize_t nfree;
    PyObject *small[SOT_SMALL_VECTOR];
} sot_argvec;

static inline Py_ssize_t
code_nargs(PyCodeObject *co)
{
    return co->co_argcount + co->co_kwonlyargcount +
           ((co->co_flags & CO_VARARGS) != 0) +
           ((co->co_flags & CO_VARKEYWORDS) != 0);
}

static int
argvec_init(sot_argvec *av, sot_frame *frame, PyCodeObject *co)
{
    av->nargs = code_nargs(co);
    av->nfree = sot_code_nfree(co);
    Py_ssize_t total = 1 + av->nargs + av->nfree;
    av->vec = av->small;
    if (total > SOT_SMALL_VECTOR) {
        av->vec = PyMem_Malloc(total * sizeof(PyObject *));
        if (av->vec == NULL) {
            PyErr_NoMemory();
            return -1;
        }
    }
    av->vec[0] = sot_frame_globals(frame);
    for (Py_ssize_t i = 0; i < av->nargs; i++) {
        PyObject *v = sot_frame_arg(frame, co, i);
        if (v == NULL) {
            if (av->vec != av->small) {
                PyMem_Free(av->vec);
            }
            PyErr_SetString(PyExc_SystemError, "sot._C: unbound argument at frame entry");
            return -1;
        }
        av->vec[1 + i] = v;
    }
    for (Py_ssize_t i = 0; i < av->nfree; i++) {
        av->vec[1 + av->nargs + i] = sot_frame_free_cell(frame, co, i);
    }
    return 0;
}

static inline void
argvec_fini(sot_argvec *av)
{
    if (av->vec != av->small) {
        PyMem_Free(av->vec);
    }
}

static inline PyObject *
run_default(PyThreadState *tstate, sot_frame *frame, int throwflag)
{
#if SOT_STACK_GUARD
    if (sot_stack_exhausted()) {
        return sot_eval_refused(previous_eval, tstate, frame, throwflag);
    }
#endif
    sot_c_budget_adjust(tstate, SOT_EVAL_C_REFUND);  /* see frame_adapter.h */
    PyObject *res = previous_eval(tstate, frame, throwflag);
    sot_c_budget_adjust(tstate, -SOT_EVAL_C_REFUND);
    return res;
}

/* Whether the guard of a cache entry holds on the argument vector. A
 * GuardProgram is evaluated right here; any other callable is called. Both
 * run with the hook disabled (they may run user attribute code) and never
 * leave an exception set. */
static int
guard_holds(sot_thread_state *ts, PyObject *guard, sot_argvec *av)
{
    Py_ssize_t nvec = 1 + av->nargs + av->nfree;
    int saved = ts->disabled;
    ts->disabled = 1;
    int hit;
    if (GuardProgram_Check(guard)) {
        hit = sot_guard_program_holds(guard, av->vec, nvec);
    }
    else {
        PyObject *r = PyObject_Vectorcall(guard, av->vec, nvec, NULL);
        hit = r == NULL ? -1 : (r == Py_True ? 1 : (r == Py_False ? 0 : PyObject_IsTrue(r)));
        Py_XDECREF(r);
        if (hit < 0) {
            PyErr_Clear();
            hit = 0;
        }
    }
    ts->disabled = saved;
    return hit;
}

/* Walk the cache list. Returns a new reference to the first entry whose
 * guard holds, or NULL on a miss; never leaves an exception set. An entry
 * with a GuardProgram that hits is moved to the front (most recently hit
 * first); entries with other guards keep their place, so a catch-all
 * entry stays last. */
static PyObject *
cache_lookup(sot_thread_state *ts, PyObject *cache, sot_argvec *av)
{
    PyObject *found = NULL;
    Py_INCREF(cache);  /* guards may replace or shrink it */
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(cache); i++) {
        PyObject *entry = PyList_GET_ITEM(cache, i);
        if (!PyTuple_Check(entry) || PyTuple_GET_SIZE(entry) < 2) {
            continue;
        }
        Py_INCREF(entry);
        PyObject *guard = PyTuple_GET_ITEM(entry, 0);
        if (guard_holds(ts, guard, av)) {
            if (i > 0 && GuardProgram_Check(guard) && i < PyList_GET_SIZE(cache) &&
                PyList_GET_ITEM(cache, i) == entry) {
                PyObject **items = ((PyListObject *)cache)->ob_item;
                memmove(items + 1, items, i * sizeof(PyObject *));
                items[0] = entry;  /* the list's own reference moves with it */
            }
            found = entry;
            break;
        }
        Py_DECREF(entry);
    }
    Py_DECREF(cache);
    return found;
}

/* Ask the callback. Returns a new reference: Py_None (run the original),
 * skip_sentinel, or a code object; NULL with an exception set on error. */
static PyObject *
ask_callback(sot_thread_state *ts, sot_frame *frame, PyCodeObject *co, sot_argvec *av)
{
    PyObject *info = make_frame_info(frame, co, av->vec + 1, av->nargs, av->nfree);
    if (info == NULL) {
        return NULL;
    }
    PyObject *cb = Py_NewRef(ts->callback);
    int saved = ts->disabled;
    ts->disabled = 1;
    PyObject *res = PyObject_CallOneArg(cb, info);
    ts->disabled = saved;
    Py_DECREF(cb);
    Py_DECREF(info);
    if (res == NULL || res == Py_None || res == skip_sentinel || PyCode_Check(res)) {
        return res;
    }
    PyErr_Format(PyExc_TypeError,
                 "sot frame callback must return None, SKIP or a code object, "
                 "not %.200s", Py_TYPE(res)->tp_name);
    Py_DECREF(res);
    return NULL;
}

/* ------------------------------------------------------ quiet runs
 *
 * On 3.11+ CPython neither specialises nor inlines Python-to-Python calls
 * while any PEP 523 hook is installed, so code that runs natively under the
 * hook (a loop left native at a graph break, a frame whose entry is to run
 * natively) pays 30-50 % on call-heavy loops even when every callee is a
 * skipped code. Such a run is watched: when QUIET_AFTER consecutive runs of
 * the same code saw no frame intercepted, later runs are quiet -- the
 * interpreter's previous evaluator is restored for their duration, so
 * nothing in them reaches the hook, which is what happened anyway. Every
 * QUIET_RECHECK-th run is watched again, so a callee that starts needing
 * the hook (a new code path) is noticed. Only while this thread is the only
 * one with a callback, since the switch is interpreter-wide. Correctness
 * never depends on it: a frame the hook does not see runs its own code. */
#define QUIET_AFTER 2
#define QUIET_RECHECK 64

static PyObject *sot_eval_frame(PyThreadState *tstate, sot_frame *frame, int throwflag);

typedef struct {
    int quiet;
    Py_ssize_t before;
} sot_watch;

static sot_watch
watch_begin(sot_code_state *st)
{
    sot_watch w = {0, intercepts};
    if (st != NULL && st->calm >= QUIET_AFTER && install_count == 1 &&
        ++st->quiet_runs % QUIET_RECHECK != 0) {
        w.quiet = 1;
        if (quiet_depth++ == 0) {
            _PyInterpreterState_SetEvalFrameFunc(hook_interp, previous_eval);
        }
    }
    return w;
}

static void
watch_end(sot_code_state *st, sot_watch w)
{
    if (w.quiet) {
        if (--quiet_depth == 0 && install_count > 0) {
            _PyInterpreterState_SetEvalFrameFunc(hook_interp, (_PyFrameEvalFunction)sot_eval_frame);
        }
    }
    else if (st != NULL) {
        st->calm = intercepts == w.before ? (st->calm < QUIET_AFTER ? st->calm + 1 : st->calm) : 0;
    }
}

/* The (function, *args) tuple of the resume call being started, owned by
 * run_resumes, and its function's code. Once that code's frame starts it
 * holds the arguments itself, and the tuple lets go of them: an argument
 * the resumed code drops (a generator left by `break`, a rebound local) is
 * then freed when eager frees it, not when the resumed call returns.
 * Nothing runs between the call and its frame's start: a plain global
 * under the GIL. */
static PyObject *resume_call = NULL;
static PyCodeObject *resume_call_code = NULL;

static void
release_resume_args(void)
{
    PyObject *call = resume_call;
    resume_call = NULL;
    resume_call_code = NULL;
    if (Py_REFCNT(call) != 1) {
        return;  /* someone else can see the tuple: leave it whole */
    }
    for (Py_ssize_t i = 1; i < PyTuple_GET_SIZE(call); i++) {
        PyObject *arg = PyTuple_GET_ITEM(call, i);
        PyTuple_SET_ITEM(call, i, Py_NewRef(Py_None));
        Py_DECREF(arg);  /* never the last reference: the frame has its own */
    }
}

/* Call the Resume requests a replacement returns until a real result (or
 * an error) comes back. Steals `res`. */
static PyObject *
run_resumes(PyObject *res, int loop_body)
{
    while (res != NULL && Py_IS_TYPE(res, &sot_ResumeType)) {
        ResumeObject *r = (ResumeObject *)res;
        PyObject *call;
        if (Py_REFCNT(res) == 1) {
            call = r->call;  /* the Resume goes: take its tuple */
            r->call = NULL;
        }
        else {
            call = Py_NewRef(r->call);
        }
        Py_DECREF(res);
        PyObject *fn = PyTuple_GET_ITEM(call, 0);
        if (PyFunction_Check(fn)) {
            resume_call = call;
            resume_call_code = (PyCodeObject *)PyFunction_GET_CODE(fn);
            if (loop_body) {
                sot_mark_loop_body((PyObject *)resume_call_code);
            }
        }
        res = PyObject_Vectorcall(fn, ((PyTupleObject *)call)->ob_item + 1,
                                  (size_t)(PyTuple_GET_SIZE(call) - 1), NULL);
        if (resume_call == call) {  /* its frame never reached the hook */
            resume_call = NULL;
            resume_call_code = NULL;
        }
        Py_DECREF(call);
    }
    return res;
}

/* The unrun frame of the replacement running on this thread (saved and
 * restored around nested replacements). A replacement that runs user code
 * after its runner (one with a graph break) first calls
 * sot._C.release_frame_args(): the unrun frame gives up its argument
 * references, which the replacement's own frame holds too, so that what
 * the user's code drops is freed when eager frees it. Not earlier: a
 * runner may still ask to rerun the frame natively. */
static PyObject *
sot_release_frame_args(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    sot_thread_state *ts = &tls_state;
    if (ts->unrun_frame != NULL && !ts->unrun_dropped) {
        ts->unrun_dropped = sot_frame_drop_args(ts->unrun_frame, ts->unrun_code, ts->unrun_nargs);
    }
    Py_RETURN_NONE;
}

/* Run replacement code `rc` on the argument vector, as a fresh function.
 * Sets *rerun (and returns NULL, no exception set) when the replacement
 * asks for the original frame to run natively instead. */
static PyObject *
run_replacement(sot_thread_state *ts, sot_frame *frame, PyCodeObject *co,
                PyObject *replacement, sot_argvec *av, int *rerun)
{
    if (!PyCode_Check(replacement)) {
        PyErr_Format(PyExc_TypeError, "sot cache replacement must be None or a code "
                     "object, not %.200s", Py_TYPE(replacement)->tp_name);
        return NULL;
    }
    PyCodeObject *rc = (PyCodeObject *)replacement;
    if (rc->co_argcount != av->nargs || rc->co_kwonlyargcount != 0 ||
        (rc->co_flags & (CO_VARARGS | CO_VARKEYWORDS | SOT_GENERATOR_FLAGS)) ||
        sot_code_nfree(rc) != av->nfree) {
        PyErr_Format(PyExc_TypeError,
                     "replacement code %R does not take the uniform arguments "
                     "of %R (%zd positional parameters, %zd free variables)",
                     replacement, (PyObject *)co, av->nargs, av->nfree);
        return NULL;
    }
    PyObject *globals = sot_frame_globals(frame);
    sot_code_state *st = code_state_peek(co);
    PyObject *func = st != NULL ? st->last_func : NULL;
    if (av->nfree == 0 && func != NULL &&
        ((PyFunctionObject *)func)->func_code == replacement &&
        ((PyFunctionObject *)func)->func_globals == globals) {
        Py_INCREF(func);
    }
    else if ((func = PyFunction_New(replacement, globals)) == NULL) {
        return NULL;
    }
    else if (av->nfree == 0 && st != NULL) {
        Py_XSETREF(st->last_func, Py_NewRef(func));
    }
    if (av->nfree) {
        PyObject *closure = sot_frame_closure(frame, co);
        if (closure == NULL || PyFunction_SetClosure(func, closure) < 0) {
            Py_XDECREF(closure);
            Py_DECREF(func);
            return NULL;
        }
        Py_DECREF(closure);
    }
    /* The replacement's own frame is the next one with code rc to reach the
     * hook (a skipped rc never gets that far). Finalizers run by allocation
     * inside the call may intercept frames first, hence save and restore. */
    PyCodeObject *saved_bypass = ts->bypass;
    sot_code_state *rst = code_state_peek(rc);
    ts->bypass = (rst != NULL && rst->skip) ? saved_bypass : rc;
    if (rst == NULL) {
        rst = code_state_get_or_create(replacement);  /* for watching; none is fine */
        PyErr_Clear();
    }
    if (rst != NULL && st != NULL && st->loop_body) {
        rst->loop_body = 1;
    }
    sot_watch w = watch_begin(rst);
    PyCodeObject *saved_code = ts->unrun_code;
    sot_frame *saved_frame = ts->unrun_frame;
    Py_ssize_t saved_nargs = ts->unrun_nargs;
    int saved_dropped = ts->unrun_dropped;
    ts->unrun_frame = frame;
    ts->unrun_code = co;
    ts->unrun_nargs = av->nargs;
    ts->unrun_dropped = 0;
    PyObject *res = PyObject_Vectorcall(func, av->vec + 1,
                                        (size_t)av->nargs | PY_VECTORCALL_ARGUMENTS_OFFSET,
                                        NULL);
    int dropped = ts->unrun_dropped;
    ts->unrun_frame = saved_frame;
    ts->unrun_code = saved_code;
    ts->unrun_nargs = saved_nargs;
    ts->unrun_dropped = saved_dropped;
    watch_end(rst, w);
    ts->bypass = saved_bypass;
    Py_DECREF(func);
    if (res == NULL) {
        if (PyErr_ExceptionMatches(rerun_natively)) {
            if (dropped) {  /* only a runner asks, before release_frame_args */
                PyErr_SetString(PyExc_SystemError, "sot._C: RerunNatively after release_frame_args()");
                return NULL;
            }
            PyErr_Clear();
            *rerun = 1;
        }
        else {
            sot_tb_drop_replacement_entry(rc);
            sot_tb_start_at_user_frame(rc);
        }
        return NULL;
    }
    return res;  /* the caller runs its Resume requests once the frame is released */
}

/* The slow part of the hook: cache lookup, callback, replacement. Kept out
 * of line so that the delegating paths of sot_eval_frame stay short. */
#if defined(__GNUC__)
__attribute__((noinline))
#endif
static PyObject *
intercept(PyThreadState *tstate, sot_thread_state *ts, sot_frame *frame,
          PyCodeObject *co, sot_code_state *st)
{
    sot_argvec av;
    if (!sot_frame_closure_ok(frame, co)) {
        return run_default(tstate, frame, 0);
    }
    if (argvec_init(&av, frame, co) < 0) {
        sot_frame_release_unrun(tstate, frame);
        return NULL;
    }
    PyObject *replacement = NULL;
    if (st != NULL && st->cache != NULL) {
        PyObject *entry = cache_lookup(ts, st->cache, &av);
        if (entry != NULL) {
            /* (guard, replacement, direct): direct(globals, *args, *cells)
             * computes the frame's result without a replacement frame. */
            PyObject *direct = PyTuple_GET_SIZE(entry) > 2 ? PyTuple_GET_ITEM(entry, 2) : Py_None;
            if (direct != Py_None) {
                PyObject *res = PyObject_Vectorcall(direct, av.vec, 1 + av.nargs + av.nfree, NULL);
                Py_DECREF(entry);
                argvec_fini(&av);
                if (res == NULL && PyErr_ExceptionMatches(rerun_natively)) {
                    PyErr_Clear();  /* as for a replacement: the frame is unrun */
                    return run_default(tstate, frame, 0);
                }
                if (res == NULL) {
                    sot_tb_start_at_user_frame(NULL);
                }
                sot_frame_release_unrun(tstate, frame);
                sot_frame_drop_unrun_locals(frame, co);
                return run_resumes(res, st != NULL && st->loop_body);
            }
            replacement = Py_NewRef(PyTuple_GET_ITEM(entry, 1));
            Py_DECREF(entry);
        }
    }
    int from_cache = replacement != NULL;
    if (replacement == NULL) {
        replacement = ask_callback(ts, frame, co, &av);
        if (replacement == NULL) {
            goto error;
        }
        if (replacement == skip_sentinel) {
            Py_DECREF(replacement);
            replacement = Py_NewRef(Py_None);
            st = code_state_get_or_create((PyObject *)co);
            if (st == NULL) {
                Py_DECREF(replacement);
                goto error;
            }
            st->skip = 1;
        }
    }
    if (replacement == Py_None) {
        Py_DECREF(replacement);
        argvec_fini(&av);
        if (from_cache) {  /* an entry that runs the frame natively */
            sot_watch w = watch_begin(st);
            PyObject *res = run_default(tstate, frame, 0);
            watch_end(st, w);
            return res;
        }
        return run_default(tstate, frame, 0);
    }
    int rerun = 0;
    PyObject *res = run_replacement(ts, frame, co, replacement, &av, &rerun);
    Py_DECREF(replacement);
    argvec_fini(&av);
    if (rerun) {
        /* The replacement did nothing observable yet; the frame is unrun. */
        return run_default(tstate, frame, 0);
    }
    /* The unrun frame lets go of the arguments before the resumed code
     * runs: what it drops is freed then, as eagerly. */
    sot_frame_release_unrun(tstate, frame);
    if (res != NULL) {
        sot_frame_drop_unrun_locals(frame, co);
    }
    return run_resumes(res, st != NULL && st->loop_body);

error:
    argvec_fini(&av);
    sot_frame_release_unrun(tstate, frame);
    return NULL;
}

static PyObject *
sot_eval_frame(PyThreadState *tstate, sot_frame *frame, int throwflag)
{
    /* A skipped code costs one look into co_extra. */
    PyCodeObject *co = sot_frame_code(frame);
    if (co == resume_call_code) {
        release_resume_args();
    }
    sot_code_state *st = code_state_peek(co);
    if (st != NULL && st->skip) {
        return run_default(tstate, frame, throwflag);
    }
    sot_thread_state *ts = &tls_state;
    if (ts->callback == NULL || ts->disabled) {
        return run_default(tstate, frame, throwflag);
    }
    if (co == ts->bypass) {
        ts->bypass = NULL;
        return run_default(tstate, frame, throwflag);
    }
    if (throwflag || (co->co_flags & SOT_GENERATOR_FLAGS) ||
        !(co->co_flags & CO_OPTIMIZED) || !sot_frame_is_plain(frame) ||
        sot_tstate_tracing(tstate, co)) {
        return run_default(tstate, frame, throwflag);
    }
    if (sot_py_recursion_headroom(tstate) < SOT_RECURSION_MARGIN) {
        return run_default(tstate, frame, throwflag);  /* see sot_py_recursion_headroom */
    }
    intercepts++;
    return intercept(tstate, ts, frame, co, st);
}

/* ------------------------------------------------------ module API */

static void
hook_install(void)
{
    hook_interp = PyInterpreterState_Get();
    _PyFrameEvalFunction current = _PyInterpreterState_GetEvalFrameFunc(hook_interp);
    if (current != (_PyFrameEvalFunction)sot_eval_frame) {
        previous_eval = current;
        _PyInterpreterState_SetEvalFrameFunc(hook_interp, (_PyFrameEvalFunction)sot_eval_frame);
    }
}

static void
hook_uninstall(void)
{
    if (_PyInterpreterState_GetEvalFrameFunc(hook_interp) == (_PyFrameEvalFunction)sot_eval_frame) {
        _PyInterpreterState_SetEvalFrameFunc(hook_interp, previous_eval);
    }
    /* previous_eval stays valid: frames already inside the hook use it. */
}

/* Set this thread's callback (owned reference or NULL), keeping the count of
 * threads with a callback and the hook installed while it is positive.
 * Returns the previous callback (owned) or NULL. */
static PyObject *
thread_swap_callback(sot_thread_state *ts, PyObject *next)
{
    PyObject *prev = ts->callback;
    if (prev == NULL && next != NULL) {
        /* Also when other threads have callbacks: one of them may be in a
         * quiet run (watch_begin), which took the hook out interpreter-wide;
         * this thread's frames must reach it from its first call. */
        install_count++;
        hook_install();
    }
    else if (prev != NULL && next == NULL && --install_count == 0) {
        hook_uninstall();
    }
    ts->callback = next;
    return prev;
}

/* Runs in the thread as it ends (thread_owner.c): a thread that exits with
 * its callback still set releases it and no longer keeps the hook installed. */
static void
thread_exit(void *state)
{
    sot_thread_state *ts = (sot_thread_state *)state;
    ts->has_owner = 0;
    Py_XDECREF(thread_swap_callback(ts, NULL));
}

static int
thread_register_owner(sot_thread_state *ts)
{
    int rc = sot_thread_owner_register(thread_exit, ts);
    if (rc > 0) {
        ts->has_owner = 1;
    }
    return rc < 0 ? -1 : 0;
}

static PyObject *
sot_set_callback(PyObject *module, PyObject *cb)
{
    (void)module;
    if (cb != Py_None && !PyCallable_Check(cb)) {
        PyErr_Format(PyExc_TypeError, "callback must be callable or None, not %.200s",
                     Py_TYPE(cb)->tp_name);
        return NULL;
    }
    sot_thread_state *ts = &tls_state;
    if (cb != Py_None && !ts->has_owner && thread_register_owner(ts) < 0) {
        return NULL;
    }
    PyObject *prev = thread_swap_callback(ts, cb == Py_None ? NULL : Py_NewRef(cb));
    return prev != NULL ? prev : Py_NewRef(Py_None);
}

int
sot_callback_enter(PyObject *cb, PyObject **prev)
{
    sot_thread_state *ts = &tls_state;
    if (!ts->has_owner && thread_register_owner(ts) < 0) {
        return -1;
    }
    *prev = thread_swap_callback(ts, Py_XNewRef(cb));  /* NULL: no callback for the call */
    return 0;
}

void
sot_callback_exit(PyObject *prev)
{
    Py_XDECREF(thread_swap_callback(&tls_state, prev));
}

static PyObject *
sot_get_callback(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyObject *cb = tls_state.callback;
    return Py_NewRef(cb != NULL ? cb : Py_None);
}

static PyObject *
sot_hook_installed(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    PyInterpreterState *interp = PyInterpreterState_Get();
    return PyBool_FromLong(_PyInterpreterState_GetEvalFrameFunc(interp) ==
                           (_PyFrameEvalFunction)sot_eval_frame);
}

static PyObject *
sot_frames_seen(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    return PyLong_FromSsize_t(intercepts - intercepts_at_reset);
}

static PyObject *
sot_reset_counters(PyObject *module, PyObject *unused)
{
    (void)module;
    (void)unused;
    intercepts_at_reset = intercepts;
    Py_RETURN_NONE;
}

static PyMethodDef sot_methods[] = {
    {"set_callback", sot_set_callback, METH_O,
     "set_callback(cb_or_None) -> previous callback or None (per thread)"},
    {"get_callback", sot_get_callback, METH_NOARGS,
     "get_callback() -> this thread's callback or None"},
    {"hook_installed", sot_hook_installed, METH_NOARGS,
     "hook_installed() -> whether the interpreter's eval-frame function is sot's"},
    {"frames_seen", sot_frames_seen, METH_NOARGS,
     "frames_seen() -> frames intercepted while a callback was set"},
    {"reset_counters", sot_reset_counters, METH_NOARGS, "reset_counters()"},
    {"release_frame_args", sot_release_frame_args, METH_NOARGS,
     "release_frame_args(): the running replacement's unrun frame gives up its arguments"},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef sot_module = {
    PyModuleDef_HEAD_INIT,
    .m_name = "sot._C",
    .m_doc = "PEP 523 frame-evaluation hook of sot (see csrc/eval_frame_hook.c).",
    .m_size = -1,
    .m_methods = sot_methods,
};

PyMODINIT_FUNC
PyInit__C(void)
{
    if (sot_code_state_init() < 0) {
        return NULL;
    }
    if (PyType_Ready(&FrameInfo_Type) < 0 || PyType_Ready(&sot_ThreadOwnerType) < 0 ||
        PyType_Ready(&sot_ResumeType) < 0 || sot_guard_program_init() < 0 ||
        sot_static_function_init() < 0) {
        return NULL;
    }
    if (rerun_natively == NULL) {
        rerun_natively = PyErr_NewExceptionWithDoc(
            "sot._C.RerunNatively",
            "Raised by a replacement, before it does anything else, to have the "
            "hook run the original frame natively instead.",
            PyExc_BaseException, NULL);
        if (rerun_natively == NULL) {
            return NULL;
        }
    }
    if (skip_sentinel == NULL) {
        skip_sentinel = PyType_Ready(&sot_SkipType) < 0 ? NULL : PyObject_New(PyObject, &sot_SkipType);
        if (skip_sentinel == NULL) {
            return NULL;
        }
    }
    PyObject *m = PyModule_Create(&sot_module);
    if (m == NULL) {
        return NULL;
    }
    if (PyModule_AddObjectRef(m, "SKIP", skip_sentinel) < 0 ||
        PyModule_AddObjectRef(m, "FrameInfo", (PyObject *)&FrameInfo_Type) < 0 ||
        PyModule_AddObjectRef(m, "Resume", (PyObject *)&sot_ResumeType) < 0 ||
        PyModule_AddObjectRef(m, "RerunNatively", rerun_natively) < 0 ||
        PyModule_AddObjectRef(m, "GuardProgram", (PyObject *)&GuardProgram_Type) < 0 ||
        PyModule_AddObjectRef(m, "StaticFunction", (PyObject *)&StaticFunction_Type) < 0 ||
        PyModule_AddFunctions(m, sot_guard_methods) < 0 ||
        PyModule_AddFunctions(m, sot_code_state_methods) < 0 ||
        PyModule_AddFunctions(m, sot_fp_state_methods) < 0 ||
        PyModule_AddFunctions(m, sot_array_binding_methods) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    return m;
}
