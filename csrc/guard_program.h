/*
 * guard_program.h -- guards evaluated in C on the hook's warm path.
 *
 * A GuardProgram is a compiled guard function (sot/guards/program.py assembles
 * it from the Guard objects; sot/guards/program_ref.py runs the same ops
 * in Python): a short
 * list of loads into registers (argument, cell contents, global, builtins,
 * attribute, item, constant) and checks on registers (exact type, identity,
 * ndarray type/dtype/shape, value, length, dict keys, global or key absent,
 * identity relation of two registers, a class unchanged, a builtin's result,
 * two arrays' memory overlap).
 * Loads and checks run in the order given; any exception means "does not
 * hold" and is cleared, exactly like the Python reference.
 */
#ifndef SOT_GUARD_PROGRAM_H
#define SOT_GUARD_PROGRAM_H

#include <Python.h>

extern PyTypeObject GuardProgram_Type;

#define GuardProgram_Check(op) Py_IS_TYPE((op), &GuardProgram_Type)

/* 1 if the program's guards hold on vec = (globals, *args, *cells), else 0.
 * Never leaves an exception set. */
int sot_guard_program_holds(PyObject *program, PyObject *const *vec, Py_ssize_t n);

/* Module-level functions of the guard machinery (strict mode, counters,
 * the ndarray layout self-check); added to sot._C's method table. */
extern PyMethodDef sot_guard_methods[];

/* Ready the type; 0 on success. */
int sot_guard_program_init(void);

#endif /* SOT_GUARD_PROGRAM_H */
