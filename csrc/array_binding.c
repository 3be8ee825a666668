/* Which inputs of an onnxruntime IO binding must be bound again
 * (sot/backends/onnx_prebound.py): a binding reads an input through the
 * data pointer, dtype and shape it was bound with, so it is still right for
 * a call whose value is an exact, C-contiguous ndarray with those three,
 * whatever object it is.  About 10 ns an input, where reading the pointer
 * from Python (__array_interface__) costs microseconds. */
#include "array_binding.h"
#include "ndarray_head.h"

/* the binding is right for v: bound = (data pointer, shape tuple, dtype) */
static int
still_bound(PyObject *v, PyObject *bound, PyTypeObject *ndarray)
{
    if (Py_TYPE(v) != ndarray || !PyTuple_Check(bound) || PyTuple_GET_SIZE(bound) != 3) {
        return 0;
    }
    sot_ndarray_head *a = (sot_ndarray_head *)v;
    PyObject *shape = PyTuple_GET_ITEM(bound, 1);
    if (!(a->flags & SOT_NPY_C_CONTIGUOUS) || a->descr != PyTuple_GET_ITEM(bound, 2) ||
        !PyTuple_Check(shape) || a->nd != PyTuple_GET_SIZE(shape)) {
        return 0;
    }
    void *data = PyLong_AsVoidPtr(PyTuple_GET_ITEM(bound, 0));
    if (data == NULL && PyErr_Occurred()) {
        return -1;
    }
    if (data != (void *)a->data) {
        return 0;
    }
    for (Py_ssize_t d = 0; d < a->nd; d++) {
        Py_ssize_t n = PyLong_AsSsize_t(PyTuple_GET_ITEM(shape, d));
        if (n == -1 && PyErr_Occurred()) {
            return -1;
        }
        if (a->dimensions[d] != n) {
            return 0;
        }
    }
    return 1;
}

/* stale_bindings(values, bound, ndarray) -> [i, ...]: the positions whose
 * value the binding bound[i] (a (data, shape, dtype) tuple, or None) does
 * not fit. */
static PyObject *
sot_stale_bindings(PyObject *module, PyObject *const *args, Py_ssize_t nargs)
{
    (void)module;
    if (nargs != 3 || !PyList_Check(args[0]) || !PyList_Check(args[1]) || !PyType_Check(args[2]) ||
        PyList_GET_SIZE(args[0]) != PyList_GET_SIZE(args[1])) {
        PyErr_SetString(PyExc_TypeError, "stale_bindings(values: list, bound: list of the same length, ndarray)");
        return NULL;
    }
    PyObject *stale = PyList_New(0);
    if (stale == NULL) {
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyList_GET_SIZE(args[0]); i++) {
        int ok = still_bound(PyList_GET_ITEM(args[0], i), PyList_GET_ITEM(args[1], i), (PyTypeObject *)args[2]);
        if (ok < 0) {
            Py_DECREF(stale);
            return NULL;
        }
        if (!ok) {
            PyObject *index = PyLong_FromSsize_t(i);
            if (index == NULL || PyList_Append(stale, index) < 0) {
                Py_XDECREF(index);
                Py_DECREF(stale);
                return NULL;
            }
            Py_DECREF(index);
        }
    }
    return stale;
}

PyMethodDef sot_array_binding_methods[] = {
    {"stale_bindings", (PyCFunction)(void (*)(void))sot_stale_bindings, METH_FASTCALL,
     "stale_bindings(values, bound, ndarray) -> positions whose (data, shape, dtype) binding does not fit"},
    {NULL, NULL, 0, NULL},
};
