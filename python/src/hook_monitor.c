/*
 * hook_monitor.c -- the monitoring hook: sys.monitoring (PEP 669), Python
 * 3.12 and later.  Not available on 3.11.
 */
#include "pyrec.h"

#if PY_VERSION_HEX < 0x030C0000
int pyrec_monitor_available(void) { return 0; }
int pyrec_monitor_start(PyObject *module) {
    (void)module;
    PyErr_SetString(PyExc_ValueError, "sys.monitoring needs Python 3.12");
    return -1;
}
void pyrec_monitor_stop(void) {}
PyMethodDef pyrec_monitor_methods[] = {{NULL, NULL, 0, NULL}};
#else
int pyrec_monitor_available(void) { return 0; }
int pyrec_monitor_start(PyObject *module) {
    (void)module;
    PyErr_SetString(PyExc_ValueError, "not yet");
    return -1;
}
void pyrec_monitor_stop(void) {}
PyMethodDef pyrec_monitor_methods[] = {{NULL, NULL, 0, NULL}};
#endif
