#ifndef SOT_ARRAY_BINDING_H
#define SOT_ARRAY_BINDING_H

#include <Python.h>

extern PyMethodDef sot_array_binding_methods[];

#endif
