/*
 * traceback_fixup.h -- keep a loop body's extra frame out of tracebacks.
 *
 * A loop body that became a function of its own (sot/breaks/loop_body.py)
 * runs in a frame nested under the replacement's: an exception raised in it
 * got two entries for the user's function (the replacement's at the `for`
 * line, the body's at the failing line) where eager has one. Codes of loop
 * bodies, and the replacements and resume functions made from them, carry
 * sot_code_state.loop_body; the replacement's own entry is dropped when the
 * next one belongs to such a code.
 */
#ifndef SOT_TRACEBACK_FIXUP_H
#define SOT_TRACEBACK_FIXUP_H

#include <Python.h>

/* With an exception set that left the frame of replacement code `rc`: drop
 * that frame's traceback entry when the next entry is a loop body's. Keeps
 * the exception set; never fails. */
void sot_tb_drop_replacement_entry(PyCodeObject *rc);

/* With an exception set that left a runner (rc: the replacement code that
 * called it, or NULL where the hook called it directly): when the
 * traceback reaches a graph's frame that stands for the user's
 * (sot_code_state.user_frame) through only rc and sot's own skipped codes
 * (the runner, its careful wrapper), the traceback starts at the graph's
 * entry: eager's has the user's frame there, at that line. Keeps the
 * exception set; never fails. */
void sot_tb_start_at_user_frame(PyCodeObject *rc);

/* Mark `code` as derived from a loop body; errors are cleared (only the
 * traceback's shape depends on it). */
void sot_mark_loop_body(PyObject *code);

#endif /* SOT_TRACEBACK_FIXUP_H */
