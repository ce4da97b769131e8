/*
 * api.c -- recorder's calls for Python code: signpost, counter,
 * thread_name, flows, and the segment.  Each is a thin METH_FASTCALL
 * function over the C API of recorder.h; names are interned through the
 * writer's dynamic-name cache (rec__intern_dyn), so a constant name costs
 * no hashing after its first use.
 */
#include "pyrec.h"

#include <string.h>

/* A str's UTF-8 text, cut to at most cap - 1 bytes without splitting a
 * character (a message longer than REC_MSG_MAX is cut by the writer at a
 * byte count, which could leave half a character). */
static const char *utf8_cut(PyObject *s, char *buf, size_t cap) {
    Py_ssize_t n;
    const char *u = PyUnicode_AsUTF8AndSize(s, &n);
    if (!u) return NULL;
    if ((size_t)n < cap) return u;
    size_t k = cap - 1;
    while (k > 0 && ((unsigned char)u[k] & 0xc0) == 0x80) k--;
    memcpy(buf, u, k);
    buf[k] = 0;
    return buf;
}

static int want_str(PyObject *o, const char *what) {
    if (PyUnicode_Check(o)) return 1;
    PyErr_Format(PyExc_TypeError, "%s must be a str, not %.100s", what, Py_TYPE(o)->tp_name);
    return 0;
}

static PyObject *api_signpost(PyObject *m, PyObject *const *args, Py_ssize_t nargs, PyObject *kwnames) {
    (void)m;
    static const char *const kw[] = {"header", "message", NULL};
    PyObject *header = NULL, *message = Py_None;
    Py_ssize_t nkw = kwnames ? PyTuple_GET_SIZE(kwnames) : 0;
    if (nargs > 2) {
        PyErr_SetString(PyExc_TypeError, "signpost(header, message=None)");
        return NULL;
    }
    if (nargs > 0) header = args[0];
    if (nargs > 1) message = args[1];
    for (Py_ssize_t i = 0; i < nkw; i++) {
        PyObject *k = PyTuple_GET_ITEM(kwnames, i);
        int which = PyUnicode_CompareWithASCIIString(k, kw[0]) == 0 ? 0
                    : PyUnicode_CompareWithASCIIString(k, kw[1]) == 0 ? 1 : -1;
        if (which < 0 || which < nargs) {
            PyErr_Format(PyExc_TypeError, "signpost() got an unexpected or repeated argument %R", k);
            return NULL;
        }
        if (which == 0) header = args[nargs + i];
        else message = args[nargs + i];
    }
    if (!header) {
        PyErr_SetString(PyExc_TypeError, "signpost() needs a header");
        return NULL;
    }
    if (!want_str(header, "the header") || (message != Py_None && !want_str(message, "the message"))) return NULL;
    char hbuf[REC_STR_MAXLEN + 1], mbuf[REC_MSG_MAX + 1];
    const char *h = utf8_cut(header, hbuf, sizeof hbuf);
    const char *msg = message == Py_None ? NULL : utf8_cut(message, mbuf, sizeof mbuf);
    if (!h || (message != Py_None && !msg)) return NULL;
    pyrec_will_write(&pyrec_t);
    rec__instant(rec__intern_dyn(h), msg);
    Py_RETURN_NONE;
}

static PyObject *api_counter(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    if (nargs != 2) {
        PyErr_SetString(PyExc_TypeError, "counter(name, value)");
        return NULL;
    }
    if (!want_str(args[0], "the counter's name")) return NULL;
    double v = PyFloat_AsDouble(args[1]);
    if (v == -1.0 && PyErr_Occurred()) return NULL;
    pyrec_will_write(&pyrec_t);
    rec__counter(pyrec_intern_str(args[0]), v);
    if (PyErr_Occurred()) return NULL;
    Py_RETURN_NONE;
}

static PyObject *api_thread_name(PyObject *m, PyObject *name) {
    (void)m;
    if (!want_str(name, "the thread's name")) return NULL;
    char buf[64];
    const char *s = utf8_cut(name, buf, sizeof buf);
    if (!s) return NULL;
    rec__thread_name(s);
    pyrec_t.named = 1;  /* the hooks leave it as it is */
    Py_RETURN_NONE;
}

static PyObject *flow(PyObject *id, unsigned type) {
    unsigned long long v = PyLong_AsUnsignedLongLongMask(id);
    if (v == (unsigned long long)-1 && PyErr_Occurred()) return NULL;
    pyrec_will_write(&pyrec_t);
    rec__flow(type, (uint64_t)v);
    Py_RETURN_NONE;
}
static PyObject *api_flow_begin(PyObject *m, PyObject *id) { (void)m; return flow(id, REC_EV_FLOW_BEGIN); }
static PyObject *api_flow_step(PyObject *m, PyObject *id) { (void)m; return flow(id, REC_EV_FLOW_STEP); }
static PyObject *api_flow_end(PyObject *m, PyObject *id) { (void)m; return flow(id, REC_EV_FLOW_END); }

static PyObject *api_init(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    return PyBool_FromLong(rec_init() == 0);
}

static PyObject *api_segment_path(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    const char *p = rec_segment_path();
    if (!p) Py_RETURN_NONE;
    return PyUnicode_DecodeFSDefault(p);
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f)
PyMethodDef pyrec_api_methods[] = {
    {"signpost", FASTCALL(api_signpost), METH_FASTCALL | METH_KEYWORDS,
     "signpost(header, message=None): a marker in the timeline, named header, with message\n"
     "(at most 45 bytes) in its args."},
    {"counter", FASTCALL(api_counter), METH_FASTCALL, "counter(name, value): a value to plot."},
    {"thread_name", api_thread_name, METH_O, "thread_name(name): this thread's lane's name."},
    {"flow_begin", api_flow_begin, METH_O, "flow_begin(id): an arrow starts at the scope open here."},
    {"flow_step", api_flow_step, METH_O, "flow_step(id): the arrow passes through the scope open here."},
    {"flow_end", api_flow_end, METH_O, "flow_end(id): the arrow ends at the scope open here."},
    {"init", api_init, METH_NOARGS, "init() -> bool: create the segment now; False if recording is off."},
    {"segment_path", api_segment_path, METH_NOARGS, "segment_path() -> str or None: /dev/shm/recorder.<pid>."},
    {NULL, NULL, 0, NULL},
};
