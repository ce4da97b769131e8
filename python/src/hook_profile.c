/*
 * hook_profile.c -- the profile hook: PyEval_SetProfile for calls, returns
 * and builtins (c_call), and PyEval_SetTrace for lines.
 *
 * The hook for builtins and extension functions, and for lines, on Python
 * 3.11 (from 3.12 the monitoring hook is cheaper where it exists).  It
 * costs what CPython's profiling machinery costs -- a frame object for
 * every Python call, and the call of the hook -- which cProfile pays too;
 * what it adds is a shadow-stack push or pop and the ring write.
 *
 * Threads: a profile function is per thread.  Threads running when it
 * starts get it through their thread states (PyEval_SetProfileAllThreads
 * from 3.12, its equivalent over _PyEval_SetProfile in 3.11); threads that
 * threading starts later get it through threading.setprofile, whose hook
 * (pyrec_profile_install_thread) swaps itself for the C function on the
 * new thread's first event.  Threads started some other way after the
 * start (_thread.start_new_thread, or native threads calling into Python)
 * are not covered: the eval and monitoring hooks cover them.
 *
 * Stopping: every thread's function becomes drain_func, which records no
 * new scope but ends the open ones as their frames return, then removes
 * itself.  A scope never stays open because recording stopped under it.
 */
#include "pyrec.h"

static int active, lines_on;

static int prof_func(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg) {
    (void)obj;
    struct pyrec_thread *t = &pyrec_t;
    switch (what) {
    case PyTrace_CALL: {
        PyCodeObject *code = PyFrame_GetCode(frame);
        struct pyrec_code *ci = pyrec_code_get((PyObject *)code);
        Py_DECREF(code);
        if (ci && pyrec_folds_import(ci, t)) {
            PyObject *name = pyrec_import_name_of(frame);
            pyrec_import_push(t, frame, name);
            Py_XDECREF(name);
            break;
        }
        uint32_t id = ci ? ci->id : 0;
        if (id) pyrec_name_thread(t);
        pyrec_push(t, frame, id, PYREC_ENT_PY);
        if (id && PYREC_UNLIKELY(ci->coro) && !t->task_lvl) {
            t->task_lvl = t->n;
            pyrec_task_step(t, &t->task_lvl);
        }
        break;
    }
    case PyTrace_RETURN:
        pyrec_ret(t, frame);
        break;
    case PyTrace_C_CALL:
        if (pyrec_cfg.native) {
            /* A builtin is recorded if its caller's code is (not filtered
             * out, not recorder's own) and its own module passes too. */
            PyCodeObject *code = PyFrame_GetCode(frame);
            struct pyrec_code *ci = pyrec_code_get((PyObject *)code);
            Py_DECREF(code);
            uint32_t id = ci && ci->id ? pyrec_native_id(arg) : 0;
            if (id) pyrec_name_thread(t);
            pyrec_push(t, arg, id, PYREC_ENT_NATIVE);
        }
        break;
    case PyTrace_C_RETURN:
    case PyTrace_C_EXCEPTION:
        pyrec_native_ret(t, arg);
        break;
    default:
        break;
    }
    return 0;
}

/* Line mode: a LINE event in a frame whose entry is on top (its own, or
 * the scope of its previous line) ends the previous line and begins this
 * one.  Lines of frames entered before the start, or not recorded, are
 * not recorded either. */
static int trace_func(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg) {
    (void)obj;
    (void)arg;
    if (what != PyTrace_LINE) return 0;
    struct pyrec_thread *t = &pyrec_t;
    if (!t->n) return 0;
    struct pyrec_ent *top = &t->st[t->n - 1];
    if (top->key != (const void *)frame || top->kind == PYREC_ENT_NATIVE) return 0;
    if (top->kind == PYREC_ENT_LINE) {
        pyrec_pop_top(t);
        top = &t->st[t->n - 1];
    }
    if (!top->id) return 0;
    PyCodeObject *code = PyFrame_GetCode(frame);
    struct pyrec_code *ci = pyrec_code_get((PyObject *)code);
    uint32_t id = ci ? pyrec_line_id(ci, (PyObject *)code, PyFrame_GetLineNumber(frame)) : 0;
    Py_DECREF(code);
    pyrec_push(t, frame, id, PYREC_ENT_LINE);
    return 0;
}

/* After the stop: end what is open as it returns, begin nothing, and go
 * away once nothing is open on this thread. */
static int drain_func(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg) {
    (void)obj;
    struct pyrec_thread *t = &pyrec_t;
    if (what == PyTrace_RETURN) {
        while (t->n && t->st[t->n - 1].key == (const void *)frame && t->st[t->n - 1].kind != PYREC_ENT_NATIVE)
            pyrec_pop_top(t);
    } else if (what == PyTrace_C_RETURN || what == PyTrace_C_EXCEPTION) {
        pyrec_native_ret(t, arg);
    }
    if (!t->n) PyEval_SetProfile(NULL, NULL);
    return 0;
}

/* Every thread of the interpreter gets func as its profile (or trace)
 * function, NULL to remove it. */
static void set_all(Py_tracefunc func, int trace) {
#if PY_VERSION_HEX >= 0x030C0000
    if (trace) PyEval_SetTraceAllThreads(func, NULL);
    else PyEval_SetProfileAllThreads(func, NULL);
#else
    PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    for (PyThreadState *ts = PyInterpreterState_ThreadHead(interp); ts; ts = PyThreadState_Next(ts)) {
        int rc = trace ? _PyEval_SetTrace(ts, func, NULL) : _PyEval_SetProfile(ts, func, NULL);
        if (rc != 0) PyErr_Clear();  /* an audit hook said no: that thread goes without */
    }
#endif
}

int pyrec_profile_start(PyObject *module) {
    (void)module;
    active = 1;
    set_all(prof_func, 0);
    lines_on = pyrec_cfg.lines;
    if (lines_on) set_all(trace_func, 1);
    return 0;
}

void pyrec_profile_stop(void) {
    if (!active) return;
    active = 0;
    if (lines_on) set_all(NULL, 1);
    lines_on = 0;
    set_all(drain_func, 0);
    if (!pyrec_t.n) PyEval_SetProfile(NULL, NULL);
}

/* The floor of any profile hook: CPython's machinery with a C function that
 * does nothing (bench/python: what the profile hook adds above it is
 * ours, the rest is CPython's). */
static int noop_func(PyObject *obj, PyFrameObject *frame, int what, PyObject *arg) {
    (void)obj;
    (void)frame;
    (void)what;
    (void)arg;
    return 0;
}

void pyrec_profile_floor(int on) {
    PyEval_SetProfile(on ? noop_func : NULL, NULL);
}

static int event_code(PyObject *event) {
    static const char *const names[] = {"call", "exception", "line", "return", "c_call", "c_exception", "c_return"};
    static const int codes[] = {PyTrace_CALL, PyTrace_EXCEPTION, PyTrace_LINE, PyTrace_RETURN,
                                PyTrace_C_CALL, PyTrace_C_EXCEPTION, PyTrace_C_RETURN};
    for (int i = 0; i < 7; i++)
        if (PyUnicode_CompareWithASCIIString(event, names[i]) == 0) return codes[i];
    return -1;
}

/* threading's hook on a new thread (threading.setprofile / settrace): put
 * the C function in its place, and give it this first event. */
int pyrec_profile_install_thread(PyObject *frame, PyObject *event, PyObject *arg, int trace) {
    if (!active || (trace && !lines_on)) {
        if (trace) PyEval_SetTrace(NULL, NULL);
        else PyEval_SetProfile(NULL, NULL);
        return 0;
    }
    if (trace) PyEval_SetTrace(trace_func, NULL);
    else PyEval_SetProfile(prof_func, NULL);
    int what = PyUnicode_Check(event) ? event_code(event) : -1;
    if (what < 0 || !PyFrame_Check(frame)) return 0;
    if (trace) trace_func(NULL, (PyFrameObject *)frame, what, arg == Py_None ? NULL : arg);
    else prof_func(NULL, (PyFrameObject *)frame, what, arg);
    return 0;
}
