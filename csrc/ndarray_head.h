#ifndef SOT_NDARRAY_HEAD_H
#define SOT_NDARRAY_HEAD_H

#include <Python.h>

/* The leading fields of NumPy's PyArrayObject (numpy/ndarraytypes.h,
 * PyArrayObject_fields): public ABI, unchanged from NumPy 1.7 through 2.x.
 * Only read for objects whose exact type is numpy.ndarray, and only after
 * array_layout_ok() confirmed the layout on a real array at import. */
typedef struct {
    PyObject_HEAD
    char *data;
    int nd;
    Py_ssize_t *dimensions;  /* npy_intp */
    Py_ssize_t *strides;
    PyObject *base;
    PyObject *descr;
    int flags;
} sot_ndarray_head;

#define SOT_NPY_C_CONTIGUOUS 0x0001   /* NPY_ARRAY_C_CONTIGUOUS */

#endif
