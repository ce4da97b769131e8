/*
 * hook_monitor.c -- the monitoring hook: sys.monitoring (PEP 669), from
 * Python 3.12.
 *
 * The interpreter calls our C functions (vectorcall, no frame object) on
 * PY_START / PY_RESUME / PY_THROW (a frame begins or resumes), PY_RETURN /
 * PY_YIELD / PY_UNWIND (it returns, yields or unwinds), CALL with
 * C_RETURN / C_RAISE (builtins), and LINE.  Monitoring is per interpreter:
 * every thread, whenever it started.  A code object that is never
 * recorded (filtered, recorder's own) is switched off where it can be
 * (sys.monitoring.DISABLE, for the local events), so it then costs nothing.
 *
 * Without lines, Python frames are left to the eval hook (hook_eval.c),
 * which costs about half of a PY_START and a PY_RETURN callback, and this
 * hook watches only CALL with C_RETURN / C_RAISE, for builtins.  A call
 * site whose callee is not a recorded builtin (a Python function, a class,
 * a filtered builtin) answers DISABLE, so a Python call costs no CALL
 * callback after its site's first; a site that calls a Python function
 * first and a builtin later misses that builtin until the next start
 * (--all-builtins keeps every site watched).  So does a site whose last
 * PYREC_SITE_OFF_AFTER builtins were all under the threshold, counted on
 * the lane (builtins.c).
 *
 * The shadow stack is keyed by code object (the events carry no frame).
 *
 * Stopping: only the end events stay on, so open scopes end as their frames
 * return (as the profile hook's drain does), and the tool is released once
 * no thread has anything open (open_total, under the GIL).
 */
#include "pyrec.h"

#include <limits.h>

#if PY_VERSION_HEX < 0x030C0000

int pyrec_monitor_available(void) { return 0; }
int pyrec_monitor_start(PyObject *module) {
    (void)module;
    PyErr_SetString(PyExc_ValueError, "sys.monitoring needs Python 3.12");
    return -1;
}
void pyrec_monitor_stop(void) {}
void pyrec_monitor_atfork_child(struct pyrec_thread *t) { (void)t; }
PyMethodDef pyrec_monitor_methods[] = {{NULL, NULL, 0, NULL}};
void pyrec_natives_unwind(struct pyrec_thread *t, uint32_t n0) {
    while (t->n > n0) pyrec_pop_top(t);
}

#else

/* sys.monitoring.events bits, read from the interpreter at the start. */
static int EV_PY_START, EV_PY_RESUME, EV_PY_RETURN, EV_PY_YIELD, EV_CALL, EV_LINE, EV_PY_UNWIND, EV_PY_THROW,
    EV_C_RETURN, EV_C_RAISE;

static int tool = -1, draining, lines_on, native_on;
static int with_eval;     /* Python frames by the eval hook: only builtins here */
static long open_total;   /* entries on every thread's shadow stack */
static PyObject *DISABLE; /* sys.monitoring.DISABLE */

#define TRACK(t, stmt) do { uint32_t n0_ = (t)->n; stmt; open_total += (long)(t)->n - (long)n0_; } while (0)

static PyObject *monitoring(void) {
    PyObject *m = PySys_GetObject("monitoring");  /* borrowed */
    if (!m) PyErr_SetString(PyExc_RuntimeError, "no sys.monitoring");
    return m;
}

static int set_events(int events) {
    PyObject *m = monitoring();
    PyObject *r = m ? PyObject_CallMethod(m, "set_events", "ii", tool, events) : NULL;
    Py_XDECREF(r);
    return r ? 0 : -1;
}

static void release_tool(void) {
    if (tool < 0) return;
    if (set_events(0) < 0) PyErr_Clear();
    PyObject *m = monitoring();
    PyObject *r = m ? PyObject_CallMethod(m, "free_tool_id", "i", tool) : NULL;
    if (!r) PyErr_Clear();
    Py_XDECREF(r);
    tool = -1;
    draining = 0;
}

static void drained(void);
void pyrec_natives_unwind(struct pyrec_thread *t, uint32_t n0) {
    while (t->n > n0) TRACK(t, pyrec_pop_top(t));
    drained();
}

/* Once drained, stop the end events too (from inside a callback: the
 * change takes effect for the next event). */
static void drained(void) {
    if (draining && open_total <= 0) release_tool();
}

/* PY_START, PY_RESUME (code, offset); PY_THROW (code, offset, exc) */
static PyObject *mon_begin(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    if (nargs < 1 || draining) Py_RETURN_NONE;
    struct pyrec_code *ci = pyrec_code_get(args[0]);
    if (!ci) Py_RETURN_NONE;
    if (!ci->id) return Py_NewRef(nargs == 2 ? DISABLE : Py_None);  /* never recorded here */
    struct pyrec_thread *t = &pyrec_t;
    if (pyrec_folds_import(ci, t) && nargs == 2) {
        /* The callback runs on the started frame: it is the current one. */
        PyObject *name = pyrec_import_name_of(PyEval_GetFrame());
        TRACK(t, pyrec_import_push(t, args[0], name));
        Py_XDECREF(name);
        Py_RETURN_NONE;
    }
    pyrec_name_thread(t);
    TRACK(t, pyrec_push(t, args[0], ci->id, PYREC_ENT_PY));
    if (PYREC_UNLIKELY(ci->coro) && !t->task_lvl) {
        t->task_lvl = t->n;
        pyrec_task_step(t, &t->task_lvl);
    }
    Py_RETURN_NONE;
}

/* PY_RETURN, PY_YIELD (code, offset, value) are local; PY_UNWIND is not
 * (it may not answer DISABLE). */
static PyObject *end(PyObject *code, int local) {
    struct pyrec_thread *t = &pyrec_t;
    if (PYREC_LIKELY(t->n && t->st[t->n - 1].key == code && t->st[t->n - 1].kind == PYREC_ENT_PY)) {
        TRACK(t, pyrec_pop_top(t));
    } else if (draining) {
        while (t->n && t->st[t->n - 1].key == code && t->st[t->n - 1].kind != PYREC_ENT_NATIVE)
            TRACK(t, pyrec_pop_top(t));
    } else {
        struct pyrec_code *ci = pyrec_code_get(code);
        if (ci && !ci->id) return Py_NewRef(local ? DISABLE : Py_None);
        TRACK(t, pyrec_unwind_to(t, code));
    }
    drained();
    Py_RETURN_NONE;
}
static PyObject *mon_end(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    return nargs >= 1 ? end(args[0], 1) : Py_NewRef(Py_None);
}
static PyObject *mon_unwind(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    return nargs >= 1 ? end(args[0], 0) : Py_NewRef(Py_None);
}

/* CALL (code, offset, callable, arg0): a builtin begins.  Python callees
 * are ignored here (PY_START or the eval hook does them), and with a
 * threshold their site is switched off, as is one whose builtins were
 * all short lately (builtins.c). */
static PyObject *mon_call(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    if (nargs < 3 || draining || !native_on) Py_RETURN_NONE;
    /* Not every site watched (the default): one whose callee is not
     * recorded now is switched off. */
    PyObject *off = pyrec_cfg.builtin_min_ns ? DISABLE : Py_None;
    PyObject *callable = args[2];
    if (!PyCFunction_Check(callable) && !Py_IS_TYPE(callable, &PyMethodDescr_Type)) return Py_NewRef(off);
    struct pyrec_code *ci = pyrec_code_get(args[0]);
    uint32_t id = ci && ci->id ? pyrec_native_id(callable) : 0;
    struct pyrec_thread *t = &pyrec_t;
    uint8_t *site = NULL;
    if (id) {
        pyrec_name_thread(t);
        /* A site whose builtins were all short lately is switched off
         * (builtins.c); never a known blocking call's. */
        if (pyrec_cfg.builtin_min_ticks && !(id & PYREC_ID_WAIT) && (site = pyrec_site(ci, args[0], args[1])) &&
            *site >= PYREC_SITE_OFF_AFTER) {
            pyrec_site_off(t);
            return Py_NewRef(DISABLE);
        }
    }
    /* Pushed even when not recorded: its C_RETURN pops it. */
    uint32_t n0 = t->n;
    TRACK(t, pyrec_push(t, callable, id, PYREC_ENT_NATIVE));
    if (site && t->n > n0 && t->st[n0].id) t->st[n0].site = site;
    return Py_NewRef(id ? Py_None : off);
}

/* C_RETURN, C_RAISE (code, offset, callable, arg0) */
static PyObject *mon_c_end(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    if (nargs >= 3) {
        struct pyrec_thread *t = &pyrec_t;
        if (t->n && t->st[t->n - 1].key == args[2] && t->st[t->n - 1].kind == PYREC_ENT_NATIVE) {
            struct pyrec_ent *e = &t->st[t->n - 1];
            uint8_t *site = e->site;
            int written;
            TRACK(t, written = pyrec_pop_top(t));
            if (site) pyrec_site_ended(site, !written);
        }
        drained();
    }
    Py_RETURN_NONE;
}

/* LINE (code, line) */
static PyObject *mon_line(PyObject *m, PyObject *const *args, Py_ssize_t nargs) {
    (void)m;
    if (nargs < 2 || draining) Py_RETURN_NONE;
    PyObject *code = args[0];
    struct pyrec_thread *t = &pyrec_t;
    if (!t->n || t->st[t->n - 1].key != code || t->st[t->n - 1].kind == PYREC_ENT_NATIVE) {
        struct pyrec_code *ci = pyrec_code_get(code);
        return Py_NewRef(ci && !ci->id ? DISABLE : Py_None);
    }
    if (t->st[t->n - 1].kind == PYREC_ENT_LINE) TRACK(t, pyrec_pop_top(t));
    if (!t->n || !t->st[t->n - 1].id) Py_RETURN_NONE;
    long line = PyLong_AsLong(args[1]);
    struct pyrec_code *ci = pyrec_code_get(code);
    if (line < 0 || line > INT_MAX || !ci) {
        PyErr_Clear();
        Py_RETURN_NONE;
    }
    TRACK(t, pyrec_push(t, code, pyrec_line_id(ci, code, (int)line), PYREC_ENT_LINE));
    Py_RETURN_NONE;
}

#define FASTCALL(f) (PyCFunction)(void (*)(void))(f)
PyMethodDef pyrec_monitor_methods[] = {
    {"_mon_begin", FASTCALL(mon_begin), METH_FASTCALL, "sys.monitoring: PY_START, PY_RESUME, PY_THROW"},
    {"_mon_end", FASTCALL(mon_end), METH_FASTCALL, "sys.monitoring: PY_RETURN, PY_YIELD"},
    {"_mon_unwind", FASTCALL(mon_unwind), METH_FASTCALL, "sys.monitoring: PY_UNWIND"},
    {"_mon_call", FASTCALL(mon_call), METH_FASTCALL, "sys.monitoring: CALL"},
    {"_mon_c_end", FASTCALL(mon_c_end), METH_FASTCALL, "sys.monitoring: C_RETURN, C_RAISE"},
    {"_mon_line", FASTCALL(mon_line), METH_FASTCALL, "sys.monitoring: LINE"},
    {NULL, NULL, 0, NULL},
};

int pyrec_monitor_available(void) { return 1; }

static int reg(PyObject *mon, PyObject *module, int event, const char *fn) {
    PyObject *f = PyObject_GetAttrString(module, fn);
    PyObject *r = f ? PyObject_CallMethod(mon, "register_callback", "iiO", tool, event, f) : NULL;
    Py_XDECREF(f);
    Py_XDECREF(r);
    return r ? 0 : -1;
}

/* A free tool id: the profiler's (2) if free, else any of 0-5. */
static int claim_tool(PyObject *mon) {
    static const int order[] = {2, 3, 4, 1, 0, 5};
    for (int i = 0; i < 6; i++) {
        PyObject *r = PyObject_CallMethod(mon, "use_tool_id", "is", order[i], "recorder");
        if (r) {
            Py_DECREF(r);
            return order[i];
        }
        PyErr_Clear();
    }
    PyErr_SetString(PyExc_RuntimeError, "sys.monitoring: every tool id is in use");
    return -1;
}

static int load_events(PyObject *mon) {
    static const struct {
        const char *name;
        int *bit;
    } ev[] = {{"PY_START", &EV_PY_START}, {"PY_RESUME", &EV_PY_RESUME}, {"PY_RETURN", &EV_PY_RETURN},
              {"PY_YIELD", &EV_PY_YIELD},  {"CALL", &EV_CALL},           {"LINE", &EV_LINE},
              {"PY_UNWIND", &EV_PY_UNWIND}, {"PY_THROW", &EV_PY_THROW},  {"C_RETURN", &EV_C_RETURN},
              {"C_RAISE", &EV_C_RAISE}};
    PyObject *events = PyObject_GetAttrString(mon, "events");
    if (!events) return -1;
    for (size_t i = 0; i < sizeof ev / sizeof ev[0]; i++) {
        PyObject *v = PyObject_GetAttrString(events, ev[i].name);
        long bit = v ? PyLong_AsLong(v) : -1;
        Py_XDECREF(v);
        if (bit <= 0 || bit > INT_MAX) {
            Py_DECREF(events);
            if (!PyErr_Occurred()) PyErr_Format(PyExc_RuntimeError, "sys.monitoring.events.%s?", ev[i].name);
            return -1;
        }
        *ev[i].bit = (int)bit;
    }
    Py_DECREF(events);
    return 0;
}

int pyrec_monitor_start(PyObject *module) {
    PyObject *mon = monitoring();
    if (!mon || (!EV_PY_START && load_events(mon) < 0)) return -1;
    if (!DISABLE && !(DISABLE = PyObject_GetAttrString(mon, "DISABLE"))) return -1;
    if (tool >= 0 && draining) release_tool();   /* still draining from the last stop: start afresh */
    if (tool < 0 && (tool = claim_tool(mon)) < 0) return -1;
    native_on = pyrec_cfg.native;
    lines_on = pyrec_cfg.lines;
    int events = EV_PY_START | EV_PY_RESUME | EV_PY_THROW | EV_PY_RETURN | EV_PY_YIELD | EV_PY_UNWIND;
    if (with_eval) pyrec_eval_stop();
    with_eval = !lines_on && pyrec_eval_available();
    if (with_eval) events = 0;
    if (native_on) events |= EV_CALL | EV_C_RETURN | EV_C_RAISE;
    if (lines_on) events |= EV_LINE;
    if (reg(mon, module, EV_PY_START, "_mon_begin") < 0 || reg(mon, module, EV_PY_RESUME, "_mon_begin") < 0 ||
        reg(mon, module, EV_PY_THROW, "_mon_begin") < 0 || reg(mon, module, EV_PY_RETURN, "_mon_end") < 0 ||
        reg(mon, module, EV_PY_YIELD, "_mon_end") < 0 || reg(mon, module, EV_PY_UNWIND, "_mon_unwind") < 0 ||
        reg(mon, module, EV_CALL, "_mon_call") < 0 || reg(mon, module, EV_C_RETURN, "_mon_c_end") < 0 ||
        reg(mon, module, EV_C_RAISE, "_mon_c_end") < 0 || reg(mon, module, EV_LINE, "_mon_line") < 0) {
        release_tool();
        return -1;
    }
    /* Events switched off (DISABLE) for code filtered last time, and call
     * sites switched off for their short builtins, may be wanted now. */
    pyrec_sites_rearm();
    PyObject *r = PyObject_CallMethod(mon, "restart_events", NULL);
    Py_XDECREF(r);
    if (!r || set_events(events) < 0) {
        release_tool();
        return -1;
    }
    draining = 0;
    if (with_eval) pyrec_eval_start();
    return 0;
}

void pyrec_monitor_stop(void) {
    if (tool < 0) return;
    if (with_eval) pyrec_eval_stop();   /* its frames end their scopes as they return */
    with_eval = 0;
    draining = 1;
    if (open_total <= 0) {
        release_tool();
        return;
    }
    int events = EV_PY_RETURN | EV_PY_YIELD | EV_PY_UNWIND;
    if (native_on) events |= EV_CALL | EV_C_RETURN | EV_C_RAISE;  /* C_RETURN needs CALL on */
    if (set_events(events) < 0) PyErr_Clear();
}

/* Only the forking thread lives on in the child, with its entries. */
void pyrec_monitor_atfork_child(struct pyrec_thread *t) {
    open_total = (long)t->n;
}

#endif
