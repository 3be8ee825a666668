/*
 * thread_owner.h -- run a function when a thread ends: an object in the
 * thread-state dict whose deallocation calls it (eval_frame_hook.c releases
 * the thread's callback there, so that a thread that exits with its callback
 * still set no longer keeps the hook installed).
 */
#ifndef SOT_THREAD_OWNER_H
#define SOT_THREAD_OWNER_H

#include <Python.h>

typedef void (*sot_thread_exit_fn)(void *state);

extern PyTypeObject sot_ThreadOwnerType;

/* Put an owner for ``state`` in the current thread's dict: on_exit(state)
 * runs when CPython clears that dict at the thread's end, in that thread.
 * 1 registered, 0 no thread dict (nothing to do), -1 error set. */
int sot_thread_owner_register(sot_thread_exit_fn on_exit, void *state);

#endif /* SOT_THREAD_OWNER_H */
