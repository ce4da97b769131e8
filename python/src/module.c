/*
 * module.c -- recorder._native: the configuration of the hooks, starting
 * and stopping them, and the module itself.
 *
 * The Python layer (recorder/_control.py) decides which hook to run and
 * when; this file only holds the state every hook reads: pyrec_cfg, whose
 * generation number lets a cached verdict (a code object's filter result)
 * notice that the filters changed.
 */
#include "pyrec.h"

struct pyrec_config pyrec_cfg = {1, 0, 0, NULL, NULL, NULL, 0, 0, 0, 1};
static enum pyrec_hook running = PYREC_HOOK_NONE;

static const char *const hook_names[] = {"none", "eval", "profile", "monitoring"};

static PyObject *str_tuple(PyObject *o, const char *what) {
    if (o == NULL || o == Py_None) return NULL;
    PyObject *t = PySequence_Tuple(o);
    if (!t) return NULL;
    if (PyTuple_GET_SIZE(t) > PYREC_MAX_FILTERS) {   /* refused, never cut short */
        PyErr_Format(PyExc_ValueError, "%s: at most %d substrings, not %zd", what, PYREC_MAX_FILTERS,
                     PyTuple_GET_SIZE(t));
        Py_DECREF(t);
        return NULL;
    }
    for (Py_ssize_t i = 0; i < PyTuple_GET_SIZE(t); i++)
        if (!PyUnicode_Check(PyTuple_GET_ITEM(t, i))) {
            PyErr_Format(PyExc_TypeError, "%s: each item must be a str", what);
            Py_DECREF(t);
            return NULL;
        }
    return t;
}

static PyObject *mod_configure(PyObject *m, PyObject *args, PyObject *kw) {
    (void)m;
    static char *kwlist[] = {"native", "lines", "max_depth", "filter", "filter_out", "own_dir", "imports",
                             "builtin_min_ns", NULL};
    int native = 1, lines = 0, imports = 0;
    long max_depth = 0;
    long long builtin_min_ns = 0;
    PyObject *filter = Py_None, *filter_out = Py_None, *own_dir = Py_None;
    if (!PyArg_ParseTupleAndKeywords(args, kw, "|$pplOOOpL:configure", kwlist, &native, &lines, &max_depth, &filter,
                                     &filter_out, &own_dir, &imports, &builtin_min_ns))
        return NULL;
    if (builtin_min_ns < 0 || builtin_min_ns > 3600LL * 1000000000LL) {
        PyErr_SetString(PyExc_ValueError, "builtin_min_ns must be between 0 (every builtin) and an hour");
        return NULL;
    }
    if (max_depth < 0 || max_depth > 0x7fffffffL) {
        PyErr_SetString(PyExc_ValueError, "max_depth must be >= 0 (0: no limit)");
        return NULL;
    }
    if (own_dir != Py_None && !PyUnicode_Check(own_dir)) {
        PyErr_SetString(PyExc_TypeError, "own_dir must be a str");
        return NULL;
    }
    PyObject *f = str_tuple(filter, "filter");
    if (!f && PyErr_Occurred()) return NULL;
    PyObject *fo = str_tuple(filter_out, "filter_out");
    if (!fo && PyErr_Occurred()) {
        Py_XDECREF(f);
        return NULL;
    }
    if (running == PYREC_HOOK_PROFILE && lines != pyrec_cfg.lines) {
        Py_XDECREF(f);
        Py_XDECREF(fo);
        PyErr_SetString(PyExc_RuntimeError, "line mode cannot change while recording: stop first");
        return NULL;
    }
    Py_XSETREF(pyrec_cfg.filter, f);
    Py_XSETREF(pyrec_cfg.filter_out, fo);
    Py_XSETREF(pyrec_cfg.own_dir, own_dir == Py_None ? NULL : Py_NewRef(own_dir));
    pyrec_cfg.native = native;
    pyrec_cfg.lines = lines;
    pyrec_cfg.imports = imports;
    pyrec_cfg.max_depth = (uint32_t)max_depth;
    pyrec_cfg.builtin_min_ns = (uint64_t)builtin_min_ns;
    pyrec_builtins_configure();
    pyrec_cfg.gen++;
    if (pyrec_cfg.gen == 0) pyrec_cfg.gen = 1;  /* 0 never matches a fresh record's gen by accident */
    Py_RETURN_NONE;
}

static int hook_available(enum pyrec_hook h) {
    switch (h) {
    case PYREC_HOOK_EVAL: return pyrec_eval_available();
    case PYREC_HOOK_PROFILE: return 1;
    case PYREC_HOOK_MONITOR: return pyrec_monitor_available();
    default: return 0;
    }
}

static void stop_running(void) {
    switch (running) {
    case PYREC_HOOK_EVAL: pyrec_eval_stop(); break;
    case PYREC_HOOK_PROFILE: pyrec_profile_stop(); break;
    case PYREC_HOOK_MONITOR: pyrec_monitor_stop(); break;
    default: break;
    }
    running = PYREC_HOOK_NONE;
}

static PyObject *mod_start(PyObject *m, PyObject *name) {
    enum pyrec_hook h = PYREC_HOOK_NONE;
    for (int i = 1; i < 4; i++)
        if (PyUnicode_Check(name) && PyUnicode_CompareWithASCIIString(name, hook_names[i]) == 0) h = (enum pyrec_hook)i;
    if (h == PYREC_HOOK_NONE || !hook_available(h)) {
        PyErr_Format(PyExc_ValueError, "no hook %R here (available: %s%s)", name, "eval, profile",
                     pyrec_monitor_available() ? ", monitoring" : "");
        return NULL;
    }
    if ((pyrec_cfg.lines || pyrec_cfg.native) && h == PYREC_HOOK_EVAL) {
        PyErr_SetString(PyExc_ValueError, "the eval hook sees Python calls only: not with native or lines");
        return NULL;
    }
    if (running != h) stop_running();
    int rc = 0;
    switch (h) {
    case PYREC_HOOK_EVAL: rc = pyrec_eval_start(); break;
    case PYREC_HOOK_PROFILE: rc = pyrec_profile_start(m); break;
    case PYREC_HOOK_MONITOR: rc = pyrec_monitor_start(m); break;
    default: break;
    }
    if (rc != 0) return NULL;
    running = h;
    Py_RETURN_NONE;
}

static PyObject *mod_stop(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    stop_running();
    Py_RETURN_NONE;
}

static PyObject *mod_running(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    if (running == PYREC_HOOK_NONE) Py_RETURN_NONE;
    return PyUnicode_FromString(hook_names[running]);
}

static PyObject *mod_hooks(PyObject *m, PyObject *unused) {
    (void)m;
    (void)unused;
    PyObject *l = PyList_New(0);
    for (int i = 1; l && i < 4; i++)
        if (hook_available((enum pyrec_hook)i)) {
            PyObject *s = PyUnicode_FromString(hook_names[i]);
            if (!s || PyList_Append(l, s) < 0) Py_CLEAR(l);
            Py_XDECREF(s);
        }
    return l;
}

static PyObject *installer(PyObject *const *args, Py_ssize_t nargs, int trace) {
    if (nargs != 3) {
        PyErr_SetString(PyExc_TypeError, "a profile hook takes (frame, event, arg)");
        return NULL;
    }
    pyrec_profile_install_thread(args[0], args[1], args[2], trace);
    Py_RETURN_NONE;
}
static PyObject *mod_profile_installer(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    return installer(args, nargs, 0);
}
static PyObject *mod_trace_installer(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    return installer(args, nargs, 1);
}

static PyObject *mod_profile_floor(PyObject *m, PyObject *on) {
    (void)m;
    int v = PyObject_IsTrue(on);
    if (v < 0) return NULL;
    pyrec_profile_floor(v);
    Py_RETURN_NONE;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f)
static PyMethodDef mod_methods[] = {
    {"configure", FASTCALL(mod_configure), METH_VARARGS | METH_KEYWORDS,
     "configure(*, native=True, lines=False, max_depth=0, filter=None, filter_out=None, own_dir=None, "
     "imports=False, builtin_min_ns=0)"},
    {"start", mod_start, METH_O, "start(hook): record calls with hook 'eval', 'profile' or 'monitoring'."},
    {"stop", mod_stop, METH_NOARGS, "stop(): record no new scope; open ones end as their frames return."},
    {"running", mod_running, METH_NOARGS, "running() -> the hook recording now, or None."},
    {"hooks", mod_hooks, METH_NOARGS, "hooks() -> the hooks this interpreter offers."},
    {"_profile_installer", FASTCALL(mod_profile_installer), METH_FASTCALL, "threading.setprofile's hook."},
    {"_trace_installer", FASTCALL(mod_trace_installer), METH_FASTCALL, "threading.settrace's hook."},
    {"_profile_floor", mod_profile_floor, METH_O,
     "_profile_floor(on): a C profile function that does nothing, on this thread (bench/python)."},
    {NULL, NULL, 0, NULL},
};

static struct PyModuleDef mod_def = {
    PyModuleDef_HEAD_INIT, "recorder._native",
    "The C side of recorder's Python package: hooks and API (see the recorder package).",
    -1, NULL, NULL, NULL, NULL, NULL,
};

static int add_methods(PyObject *m, PyMethodDef *defs) {
    PyObject *name = PyModule_GetNameObject(m);
    if (!name) return -1;
    for (PyMethodDef *d = defs; d->ml_name; d++) {
        PyObject *f = PyCFunction_NewEx(d, m, name);
        if (!f || PyModule_AddObject(m, d->ml_name, f) < 0) {
            Py_XDECREF(f);
            Py_DECREF(name);
            return -1;
        }
    }
    Py_DECREF(name);
    return 0;
}

PyMODINIT_FUNC PyInit__native(void) {
    PyObject *m = PyModule_Create(&mod_def);
    if (!m) return NULL;
    if (pyrec_names_init() < 0 || pyrec_tstack_init() < 0 || add_methods(m, mod_methods) < 0 ||
        add_methods(m, pyrec_api_methods) < 0 || add_methods(m, pyrec_procs_methods) < 0 || add_methods(m, pyrec_monitor_methods) < 0 ||
        pyrec_scope_types_ready(m) < 0) {
        Py_DECREF(m);
        return NULL;
    }
    PyModule_AddIntConstant(m, "MSG_MAX", REC_MSG_MAX);
    PyModule_AddIntConstant(m, "MAX_FILTERS", PYREC_MAX_FILTERS);   /* the runner's --filter checks it */
    PyModule_AddIntConstant(m, "SITE_OFF_AFTER", PYREC_SITE_OFF_AFTER);   /* builtins.c */
    return m;
}
