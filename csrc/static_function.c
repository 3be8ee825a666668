/*
 * static_function.c -- see static_function.h.
 *
 * A Python wrapper function would cost a frame, argument packing and a
 * lookup of SOT_DISABLE in os.environ (~0.8 us) on every call; this type
 * forwards the vectorcall as is. It behaves like a function where it
 * matters: it binds as a method (and supports the method-call shortcut),
 * has a __dict__ for functools.update_wrapper, and is weak-referenceable.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <strings.h>
#include <structmember.h>
#include <stdlib.h>

#include "static_function.h"

typedef struct {
    PyObject_HEAD
    PyObject *fn;          /* the wrapped callable */
    PyObject *callback;    /* the frame callback (the translator) */
    PyObject *dict;
    PyObject *weakreflist;
    vectorcallfunc vectorcall;
    /* The do-no-harm governor (sot/governor.py): `mode` TRANSLATED runs fn
     * with the callback set, NATIVE runs it as is, MEASURE runs it either
     * way as `measure` says and lets it time the call (sf_measured_call).
     * `countdown` > 0: calls left
     * until MEASURE (a re-check). One int test per call otherwise. */
    int mode;
    Py_ssize_t countdown;
    PyObject *measure;
} StaticFunction;

enum { SF_TRANSLATED = 0, SF_NATIVE = 1, SF_MEASURE = 2 };

/* SOT_DISABLE=1 runs everything natively; empty, 0, false, no or off
 * (any case: the switches of sot/_env.py, which rejects other words when a
 * function is decorated) does not. Read with getenv on every call:
 * os.environ writes go through putenv, so a change made at run time is
 * seen, at the cost of a scan of the environment. */
static int
disabled_by_env(void)
{
    const char *v = getenv("SOT_DISABLE");
    if (v == NULL || v[0] == '\0') {
        return 0;
    }
    static const char *const off[] = {"0", "false", "no", "off"};
    for (size_t i = 0; i < sizeof(off) / sizeof(off[0]); i++) {
        if (strcasecmp(v, off[i]) == 0) {
            return 0;
        }
    }
    return 1;
}

/* A call in MEASURE mode: measure.begin() returns a token whose item 0
 * says whether this call runs translated (with the callback set) or
 * natively (with none); the call itself runs here, so no Python frame of
 * sot sits between the caller and fn (tracebacks, inspect.stack() and the
 * recursion depth are eager's); measure.end(token) takes the sample after a
 * call that returned. */
static PyObject *
sf_measured_call(StaticFunction *sf, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    static PyObject *begin_name = NULL, *end_name = NULL;
    if (begin_name == NULL && (begin_name = PyUnicode_InternFromString("begin")) == NULL) {
        return NULL;
    }
    if (end_name == NULL && (end_name = PyUnicode_InternFromString("end")) == NULL) {
        return NULL;
    }
    PyObject *measure = Py_NewRef(sf->measure);  /* the governor may replace it */
    PyObject *token = PyObject_CallMethodNoArgs(measure, begin_name);
    if (token == NULL) {
        Py_DECREF(measure);
        /* sot's own Python failed (a RecursionError at a depth eager's call
         * still fits in): the call runs natively, unmeasured. A
         * KeyboardInterrupt or SystemExit is the user's: it propagates. */
        if (!PyErr_ExceptionMatches(PyExc_Exception)) {
            return NULL;
        }
        PyErr_Clear();
        return PyObject_Vectorcall(sf->fn, args, nargsf, kwnames);
    }
    int translated = PyTuple_Check(token) && PyTuple_GET_SIZE(token) > 0 ?
                     PyObject_IsTrue(PyTuple_GET_ITEM(token, 0)) : -1;
    PyObject *prev;
    if (translated < 0 || sot_callback_enter(translated ? sf->callback : NULL, &prev) < 0) {
        if (translated < 0 && !PyErr_Occurred()) {
            PyErr_SetString(PyExc_SystemError, "sot: measure.begin() must return a tuple");
        }
        Py_DECREF(token);
        Py_DECREF(measure);
        return NULL;
    }
    PyObject *res = PyObject_Vectorcall(sf->fn, args, nargsf, kwnames);
    sot_callback_exit(prev);
    if (res != NULL) {
        PyObject *done = PyObject_CallMethodOneArg(measure, end_name, token);
        if (done == NULL) {
            if (PyErr_ExceptionMatches(PyExc_Exception)) {
                PyErr_Clear();   /* the sample is lost, not the call's result */
            }
            else {
                Py_CLEAR(res);
            }
        }
        Py_XDECREF(done);
    }
    Py_DECREF(token);
    Py_DECREF(measure);
    return res;
}

int sot_monitoring_active(PyThreadState *tstate, PyCodeObject *co);  /* monitoring.c */

/* A trace or profile function (or a sys.monitoring tool) is active: the
 * hook stands aside, and the governor's Python code must not run either
 * (the tracer would see its frames, which eager does not have). */
static int
being_traced(PyObject *fn)
{
    PyThreadState *tstate = PyThreadState_Get();
    if (tstate->c_tracefunc != NULL || tstate->c_profilefunc != NULL) {
        return 1;
    }
    return PyFunction_Check(fn) &&
           sot_monitoring_active(tstate, (PyCodeObject *)PyFunction_GET_CODE(fn));
}

static PyObject *
sf_vectorcall(PyObject *self, PyObject *const *args, size_t nargsf, PyObject *kwnames)
{
    StaticFunction *sf = (StaticFunction *)self;
    if (disabled_by_env()) {
        return PyObject_Vectorcall(sf->fn, args, nargsf, kwnames);
    }
    if (sf->countdown > 0 && --sf->countdown == 0) {
        sf->mode = SF_MEASURE;
    }
    if (sf->mode == SF_NATIVE) {
        return PyObject_Vectorcall(sf->fn, args, nargsf, kwnames);
    }
    if (sf->mode == SF_MEASURE && sf->measure != NULL && sf->measure != Py_None && !being_traced(sf->fn)) {
        return sf_measured_call(sf, args, nargsf, kwnames);
    }
    PyObject *prev;
    if (sot_callback_enter(sf->callback, &prev) < 0) {
        return NULL;
    }
    PyObject *res = PyObject_Vectorcall(sf->fn, args, nargsf, kwnames);
    sot_callback_exit(prev);
    return res;
}

static PyObject *
sf_new(PyTypeObject *type, PyObject *args, PyObject *kwds)
{
    static char *kwlist[] = {"fn", "callback", NULL};
    PyObject *fn, *callback;
    if (!PyArg_ParseTupleAndKeywords(args, kwds, "OO:StaticFunction", kwlist, &fn, &callback)) {
        return NULL;
    }
    if (!PyCallable_Check(fn)) {
        PyErr_Format(PyExc_TypeError,
                     "sot.to_static() needs a function, method or callable object, not %.200s",
                     Py_TYPE(fn)->tp_name);
        return NULL;
    }
    if (!PyCallable_Check(callback)) {
        PyErr_Format(PyExc_TypeError, "sot: the translator of a static function must be callable, not %.200s",
                     Py_TYPE(callback)->tp_name);
        return NULL;
    }
    StaticFunction *self = (StaticFunction *)type->tp_alloc(type, 0);
    if (self == NULL) {
        return NULL;
    }
    self->fn = Py_NewRef(fn);
    self->callback = Py_NewRef(callback);
    self->vectorcall = sf_vectorcall;
    return (PyObject *)self;
}

static int
sf_traverse(StaticFunction *self, visitproc visit, void *arg)
{
    Py_VISIT(self->fn);
    Py_VISIT(self->callback);
    Py_VISIT(self->dict);
    Py_VISIT(self->measure);
    return 0;
}

static int
sf_clear(StaticFunction *self)
{
    Py_CLEAR(self->fn);
    Py_CLEAR(self->callback);
    Py_CLEAR(self->dict);
    Py_CLEAR(self->measure);
    return 0;
}

static void
sf_dealloc(StaticFunction *self)
{
    PyObject_GC_UnTrack(self);
    if (self->weakreflist != NULL) {
        PyObject_ClearWeakRefs((PyObject *)self);
    }
    sf_clear(self);
    Py_TYPE(self)->tp_free((PyObject *)self);
}

/* Bind like a function: looked up on an instance, it becomes a method. */
static PyObject *
sf_descr_get(PyObject *self, PyObject *obj, PyObject *type)
{
    (void)type;
    if (obj == NULL || obj == Py_None) {
        return Py_NewRef(self);
    }
    return PyMethod_New(self, obj);
}

static PyObject *
sf_repr(StaticFunction *self)
{
    return PyUnicode_FromFormat("<sot.to_static of %R>", self->fn);
}

/* Pickling is decided in Python (sot/_pickling.py): by reference where the
 * decorated function is what its module and qualified name find, else as
 * "decorate this callable again with these options". Not on the call path. */
static PyObject *
sf_reduce(PyObject *self, PyObject *Py_UNUSED(ignored))
{
    PyObject *mod = PyImport_ImportModule("sot._pickling");
    if (mod == NULL) {
        return NULL;
    }
    PyObject *res = PyObject_CallMethod(mod, "reduce_static", "O", self);
    Py_DECREF(mod);
    return res;
}

static PyMethodDef sf_methods[] = {
    {"__reduce__", sf_reduce, METH_NOARGS, "pickle support (see sot/_pickling.py)"},
    {NULL, NULL, 0, NULL},
};

static PyMemberDef sf_members[] = {
    {"__sot_fn__", T_OBJECT, offsetof(StaticFunction, fn), READONLY, "the wrapped callable"},
    {"__sot_callback__", T_OBJECT, offsetof(StaticFunction, callback), READONLY,
     "the frame callback set around each call"},
    {"__sot_mode__", T_INT, offsetof(StaticFunction, mode), 0,
     "0: translated, 1: native, 2: each call goes to __sot_measure__ (sot/governor.py)"},
    {"__sot_countdown__", T_PYSSIZET, offsetof(StaticFunction, countdown), 0,
     "calls left until mode 2 (0: none)"},
    {"__sot_measure__", T_OBJECT, offsetof(StaticFunction, measure), 0,
     "begin()/end(token) around each call in mode 2 (sot/governor.py)"},
    {NULL, 0, 0, 0, NULL},
};

static PyGetSetDef sf_getset[] = {
    {"__dict__", PyObject_GenericGetDict, PyObject_GenericSetDict, NULL, NULL},
    {NULL, NULL, NULL, NULL, NULL},
};

PyTypeObject StaticFunction_Type = {
    PyVarObject_HEAD_INIT(NULL, 0)
    .tp_name = "sot._C.StaticFunction",
    .tp_basicsize = sizeof(StaticFunction),
    .tp_flags = Py_TPFLAGS_DEFAULT | Py_TPFLAGS_HAVE_GC | Py_TPFLAGS_HAVE_VECTORCALL |
                Py_TPFLAGS_METHOD_DESCRIPTOR,
    .tp_doc = "StaticFunction(fn, callback): calls fn with callback set as this thread's "
              "frame callback (what sot.to_static returns).",
    .tp_new = sf_new,
    .tp_dealloc = (destructor)sf_dealloc,
    .tp_traverse = (traverseproc)sf_traverse,
    .tp_clear = (inquiry)sf_clear,
    .tp_repr = (reprfunc)sf_repr,
    .tp_call = PyVectorcall_Call,
    .tp_vectorcall_offset = offsetof(StaticFunction, vectorcall),
    .tp_descr_get = sf_descr_get,
    .tp_dictoffset = offsetof(StaticFunction, dict),
    .tp_weaklistoffset = offsetof(StaticFunction, weakreflist),
    .tp_methods = sf_methods,
    .tp_members = sf_members,
    .tp_getset = sf_getset,
};

int
sot_static_function_init(void)
{
    return PyType_Ready(&StaticFunction_Type);
}
