/*
 * fp_state.h -- has NumPy's floating-point error state or the warnings
 * filters changed since they were last found plain? (sot/backends/fp_state.py)
 */
#ifndef SOT_FP_STATE_H
#define SOT_FP_STATE_H

#include <Python.h>

extern PyMethodDef sot_fp_state_methods[];

#endif /* SOT_FP_STATE_H */
