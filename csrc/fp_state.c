/*
 * fp_state.c -- the per-call check behind sot/backends/fp_state.py.
 *
 * fp_plain(token) is called by every runner before its graph. token is the
 * list [contextvar, extobj, warnings_dict, filters, len(filters), filters[0]]
 * recorded when the state was last found plain (NumPy errors only warn or
 * are ignored, no warnings filter shows or raises RuntimeWarnings): it
 * answers whether NumPy's error-state context variable still holds that
 * extobj and warnings.filters is still that list, with the same length and
 * first entry (filterwarnings/simplefilter insert at the front or append;
 * catch_warnings swaps the list). A few pointer compares: the warm path.
 * Any other answer sends the call to the careful path, which decides anew.
 */
#include "fp_state.h"

static PyObject *filters_str = NULL;

static PyObject *
fp_plain(PyObject *self, PyObject *token)
{
    (void)self;
    if (!PyList_CheckExact(token) || PyList_GET_SIZE(token) != 6) {
        Py_RETURN_FALSE;
    }
    PyObject *value = NULL;
    if (PyContextVar_Get(PyList_GET_ITEM(token, 0), NULL, &value) < 0) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    int same = value == PyList_GET_ITEM(token, 1);
    Py_XDECREF(value);
    if (!same) {
        Py_RETURN_FALSE;
    }
    if (filters_str == NULL && (filters_str = PyUnicode_InternFromString("filters")) == NULL) {
        return NULL;
    }
    PyObject *dict = PyList_GET_ITEM(token, 2);
    PyObject *filters = PyDict_CheckExact(dict) ? PyDict_GetItemWithError(dict, filters_str) : NULL;
    if (filters == NULL) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (filters != PyList_GET_ITEM(token, 3) || !PyList_CheckExact(filters)) {
        Py_RETURN_FALSE;
    }
    Py_ssize_t n = PyList_GET_SIZE(filters);
    Py_ssize_t expected = PyLong_AsSsize_t(PyList_GET_ITEM(token, 4));
    if (expected == -1 && PyErr_Occurred()) {
        PyErr_Clear();
        Py_RETURN_FALSE;
    }
    if (n != expected || (n > 0 && PyList_GET_ITEM(filters, 0) != PyList_GET_ITEM(token, 5))) {
        Py_RETURN_FALSE;
    }
    Py_RETURN_TRUE;
}

PyMethodDef sot_fp_state_methods[] = {
    {"fp_plain", fp_plain, METH_O,
     "fp_plain(token) -> whether NumPy's error state and warnings.filters are as recorded in token"},
    {NULL, NULL, 0, NULL},
};
