/*
 * monitoring.c -- is a sys.monitoring tool watching? (CPython 3.12+)
 *
 * Tool ids 0-5 belong to sys.monitoring users (coverage.py's sysmon core,
 * debuggers, profilers); 6 and 7 are sys.setprofile/settrace, which the hook
 * sees through c_tracefunc/c_profilefunc. coverage.py sets PY_START globally
 * and LINE, BRANCH... per code object, so any event of a user tool, global
 * or local to the code about to run, makes the hook stand aside as for
 * settrace: the user's own code runs and is seen.
 *
 * Its own file because the interpreter's monitors are in an internal header
 * that must be included with Py_BUILD_CORE before Python.h.
 */
#define Py_BUILD_CORE
#include <Python.h>

#if PY_VERSION_HEX >= 0x030C0000
#include <internal/pycore_interp.h>

#define SOT_MONITORING_USER_TOOLS 0x3F

static int
any_user_tool(const uint8_t *tools)
{
    uint8_t any = 0;
    for (int e = 0; e < _PY_MONITORING_UNGROUPED_EVENTS; e++) {
        any |= tools[e];
    }
    return (any & SOT_MONITORING_USER_TOOLS) != 0;
}

int
sot_monitoring_active(PyThreadState *tstate, PyCodeObject *co)
{
    if (any_user_tool(tstate->interp->monitors.tools)) {
        return 1;
    }
    return co->_co_monitoring != NULL && any_user_tool(co->_co_monitoring->local_monitors.tools);
}
#else
int
sot_monitoring_active(PyThreadState *tstate, PyCodeObject *co)
{
    (void)tstate;
    (void)co;
    return 0;
}
#endif
