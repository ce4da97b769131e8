/*
 * procs.c -- the runner's processes (docs/python.md, "multiprocessing"):
 * a worker named as Python names it (ForkPoolWorker-1, not python3), a
 * process ended by SIGTERM that leaves no segment behind, and the ring
 * size in force (for the test that checks the documented default).  The
 * work is in writer.c, which owns the segment; python/recorder/_procs.py
 * decides when.
 */
#include "pyrec.h"
#include "procs.h"

static PyObject *procs_process_name(PyObject *m, PyObject *name) {
    (void)m;
    Py_ssize_t n;
    const char *s = PyUnicode_AsUTF8AndSize(name, &n);
    if (!s) return NULL;
    return PyBool_FromLong(pyrec_set_process_name(s, (size_t)n) == 0);
}

static PyObject *procs_unlink_on_term(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    if (pyrec_unlink_on_term() != 0) return PyErr_SetFromErrno(PyExc_OSError);
    Py_RETURN_NONE;
}

static PyObject *procs_close_segment(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    pyrec_close_segment();
    Py_RETURN_NONE;
}

static PyObject *procs_ring_kb(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return PyLong_FromUnsignedLongLong(pyrec_ring_bytes() / 1024);
}

PyMethodDef pyrec_procs_methods[] = {
    {"process_name", procs_process_name, METH_O,
     "process_name(name) -> bool: the segment's process name (False: not this copy's segment, or off)."},
    {"unlink_on_term", procs_unlink_on_term, METH_NOARGS,
     "unlink_on_term(): SIGTERM removes the segment (unless RECORDER_KEEP or a launcher), then ends the process."},
    {"close_segment", procs_close_segment, METH_NOARGS,
     "close_segment(): close the segment as exit would (a worker leaves by os._exit())."},
    {"ring_kb", procs_ring_kb, METH_NOARGS, "ring_kb() -> int: each thread's ring in KiB (0 if recording is off)."},
    {NULL, NULL, 0, NULL},
};
