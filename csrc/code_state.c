/*
 * code_state.c -- see code_state.h.
 */
#define PY_SSIZE_T_CLEAN
#include <Python.h>

#include "code_state.h"

Py_ssize_t sot_extra_index = -1;

static void
code_state_free(void *p)
{
    sot_code_state *st = (sot_code_state *)p;
    if (st != NULL) {
        Py_XDECREF(st->cache);
        Py_XDECREF(st->last_func);
        PyMem_Free(st);
    }
}

sot_code_state *
code_state_get_or_create(PyObject *code)
{
    sot_code_state *st = code_state_peek((PyCodeObject *)code);
    if (st != NULL) {
        return st;
    }
    st = PyMem_Calloc(1, sizeof(*st));
    if (st == NULL) {
        PyErr_NoMemory();
        return NULL;
    }
    if (sot_code_set_extra(code, sot_extra_index, st) < 0) {
        PyMem_Free(st);
        return NULL;
    }
    return st;
}

int
sot_code_state_init(void)
{
    if (sot_extra_index < 0) {
        sot_extra_index = sot_request_extra_index(code_state_free);
        if (sot_extra_index < 0) {
            PyErr_SetString(PyExc_RuntimeError, "sot._C: no co_extra index left");
            return -1;
        }
    }
    return 0;
}

/* ------------------------------------------------------ module API */

static int
check_code(PyObject *code)
{
    if (!PyCode_Check(code)) {
        PyErr_Format(PyExc_TypeError, "expected a code object, not %.200s",
                     Py_TYPE(code)->tp_name);
        return -1;
    }
    return 0;
}

static PyObject *
sot_set_skip(PyObject *code, int skip)
{
    if (check_code(code) < 0) {
        return NULL;
    }
    sot_code_state *st = skip ? code_state_get_or_create(code)
                              : code_state_peek((PyCodeObject *)code);
    if (skip && st == NULL) {
        return NULL;
    }
    if (st != NULL) {
        st->skip = skip;
    }
    Py_RETURN_NONE;
}

static PyObject *
sot_skip_code(PyObject *module, PyObject *code)
{
    (void)module;
    return sot_set_skip(code, 1);
}

static PyObject *
sot_unskip_code(PyObject *module, PyObject *code)
{
    (void)module;
    return sot_set_skip(code, 0);
}

static PyObject *
sot_is_skipped(PyObject *module, PyObject *code)
{
    (void)module;
    if (check_code(code) < 0) {
        return NULL;
    }
    sot_code_state *st = code_state_peek((PyCodeObject *)code);
    return PyBool_FromLong(st != NULL && st->skip);
}

static PyObject *
sot_set_cache(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 2) {
        PyErr_Format(PyExc_TypeError, "set_cache() takes 2 arguments (%zd given)", nargs);
        return NULL;
    }
    PyObject *code = args[0], *entries = args[1];
    if (check_code(code) < 0) {
        return NULL;
    }
    if (!PyList_Check(entries)) {
        PyErr_Format(PyExc_TypeError, "cache entries must be a list, not %.200s",
                     Py_TYPE(entries)->tp_name);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(entries); i++) {
        PyObject *e = PyList_GET_ITEM(entries, i);
        if (!PyTuple_Check(e) || PyTuple_GET_SIZE(e) < 2 || PyTuple_GET_SIZE(e) > 3) {
            PyErr_Format(PyExc_TypeError, "cache entry %zd must be a (guard, "
                         "replacement[, direct]) tuple", i);
            return NULL;
        }
    }
    sot_code_state *st = code_state_get_or_create(code);
    if (st == NULL) {
        return NULL;
    }
    Py_XSETREF(st->cache, Py_NewRef(entries));
    Py_CLEAR(st->last_func);
    st->calm = st->quiet_runs = 0;
    Py_RETURN_NONE;
}

static PyObject *
sot_get_cache(PyObject *module, PyObject *code)
{
    (void)module;
    if (check_code(code) < 0) {
        return NULL;
    }
    sot_code_state *st = code_state_peek((PyCodeObject *)code);
    return Py_NewRef(st != NULL && st->cache != NULL ? st->cache : Py_None);
}

static PyObject *
sot_clear_cache(PyObject *module, PyObject *code)
{
    (void)module;
    if (check_code(code) < 0) {
        return NULL;
    }
    sot_code_state *st = code_state_peek((PyCodeObject *)code);
    if (st != NULL) {
        Py_CLEAR(st->cache);
        Py_CLEAR(st->last_func);
    st->calm = st->quiet_runs = 0;
    }
    Py_RETURN_NONE;
}

/* The state of `code` (created if needed), or NULL with an error set. */
static sot_code_state *
state_to_mark(PyObject *code)
{
    return check_code(code) < 0 ? NULL : code_state_get_or_create(code);
}

static PyObject *
sot_mark_loop_body_code(PyObject *module, PyObject *code)
{
    (void)module;
    sot_code_state *st = state_to_mark(code);
    if (st == NULL) {
        return NULL;
    }
    st->loop_body = 1;
    Py_RETURN_NONE;
}

static PyObject *
sot_mark_user_frame_code(PyObject *module, PyObject *code)
{
    (void)module;
    sot_code_state *st = state_to_mark(code);
    if (st == NULL) {
        return NULL;
    }
    st->user_frame = 1;
    Py_RETURN_NONE;
}

PyMethodDef sot_code_state_methods[] = {
    {"mark_user_frame", sot_mark_user_frame_code, METH_O,
     "mark_user_frame(code): a graph compiled as the user's code (its traceback entry is the user's frame)"},
    {"mark_loop_body", sot_mark_loop_body_code, METH_O,
     "mark_loop_body(code): a loop body's code (its frame's traceback entry stands for the user's)"},
    {"skip_code", sot_skip_code, METH_O, "skip_code(code): never intercept this code"},
    {"unskip_code", sot_unskip_code, METH_O, "unskip_code(code): undo skip_code"},
    {"is_skipped", sot_is_skipped, METH_O, "is_skipped(code) -> bool"},
    {"set_cache", (PyCFunction)(void (*)(void))sot_set_cache, METH_FASTCALL,
     "set_cache(code, entries): entries is a list of (guard, replacement)"},
    {"get_cache", sot_get_cache, METH_O, "get_cache(code) -> list or None"},
    {"clear_cache", sot_clear_cache, METH_O, "clear_cache(code)"},
    {NULL, NULL, 0, NULL},
};
