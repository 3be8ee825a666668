/* traceback_fixup.c -- see traceback_fixup.h. */
#include "traceback_fixup.h"

#include <frameobject.h>

#include "code_state.h"

/* The entry after `tb` when `tb` is rc's frame and the next one a loop
 * body's (new reference), else NULL. */
static PyObject *
entry_after_replacement(PyObject *tb, PyCodeObject *rc)
{
    if (tb == NULL || !PyTraceBack_Check(tb)) {
        return NULL;
    }
    PyTracebackObject *head = (PyTracebackObject *)tb;
    PyTracebackObject *next = head->tb_next;
    if (head->tb_frame == NULL || next == NULL || next->tb_frame == NULL) {
        return NULL;
    }
    PyCodeObject *own = PyFrame_GetCode(head->tb_frame);
    PyCodeObject *inner = PyFrame_GetCode(next->tb_frame);
    sot_code_state *st = code_state_peek(inner);
    int drop = own == rc && st != NULL && st->loop_body;
    Py_DECREF(own);
    Py_DECREF(inner);
    return drop ? Py_NewRef((PyObject *)next) : NULL;
}

/* With an exception set: replace its traceback by pick(tb, rc) when that
 * gives one (a new reference). Keeps the exception set; never fails. */
static void
replace_traceback(PyObject *(*pick)(PyObject *, PyCodeObject *), PyCodeObject *rc)
{
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
    if (exc == NULL) {
        return;
    }
    PyObject *tb = PyException_GetTraceback(exc);
    PyObject *next = pick(tb, rc);
    if (next != NULL) {
        PyException_SetTraceback(exc, next);  /* cannot fail: next is a traceback */
        Py_DECREF(next);
    }
    Py_XDECREF(tb);
    PyErr_SetRaisedException(exc);
#else
    PyObject *type, *value, *tb;
    PyErr_Fetch(&type, &value, &tb);
    PyObject *next = pick(tb, rc);
    if (next != NULL) {
        Py_SETREF(tb, next);
        if (value != NULL && PyExceptionInstance_Check(value)) {
            PyException_SetTraceback(value, tb);
        }
    }
    PyErr_Restore(type, value, tb);
#endif
}

void
sot_tb_drop_replacement_entry(PyCodeObject *rc)
{
    replace_traceback(entry_after_replacement, rc);
}

/* The first entry of tb standing for the user's frame, when only rc and
 * skipped codes come before it (new reference), else NULL. */
static PyObject *
user_frame_entry(PyObject *tb, PyCodeObject *rc)
{
    PyTracebackObject *e = (tb != NULL && PyTraceBack_Check(tb)) ? (PyTracebackObject *)tb : NULL;
    for (int depth = 0; e != NULL && e->tb_frame != NULL && depth < 4; depth++, e = e->tb_next) {
        PyCodeObject *code = PyFrame_GetCode(e->tb_frame);
        sot_code_state *st = code_state_peek(code);
        int is_rc = code == rc;
        Py_DECREF(code);
        if (st != NULL && st->user_frame) {
            return depth > 0 ? Py_NewRef((PyObject *)e) : NULL;
        }
        if (!is_rc && (st == NULL || !st->skip)) {
            return NULL;
        }
    }
    return NULL;
}

void
sot_tb_start_at_user_frame(PyCodeObject *rc)
{
    replace_traceback(user_frame_entry, rc);
}

void
sot_mark_loop_body(PyObject *code)
{
    sot_code_state *st = code_state_get_or_create(code);
    if (st == NULL) {
        PyErr_Clear();
        return;
    }
    st->loop_body = 1;
}
