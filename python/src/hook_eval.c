/*
 * hook_eval.c -- the eval hook: PEP 523's frame evaluation function.
 *
 * The interpreter calls it to evaluate every Python frame (a call, and
 * each resume of a generator or coroutine), on every thread, started
 * before or after.  It begins the frame's scope, evaluates the frame with
 * the function that was there before (CPython's own, or another tool's),
 * and ends the scope: begin and end pair up by construction, through
 * returns, exceptions and yields, and a frame that was running when the
 * hook went off still ends the scope it began.
 *
 * Cheapest of the hooks: no frame object is made, no profile machinery
 * runs.  From 3.12 the monitoring hook uses it for Python frames, and
 * watches builtins itself (hook_monitor.c).  The price is that CPython no longer inlines Python-to-Python calls
 * (each call recurses in C, as before 3.11), and that builtins are not
 * seen (the profile or monitoring hook does those).
 *
 * Reading the code object of a frame: PyUnstable_InterpreterFrame_GetCode
 * from 3.12; in 3.11 the frame's layout, from CPython's internal header.
 * An import's module name (its first argument) is read from that layout
 * on every version: there is no API for a frame's locals before it runs.
 */
#include "pyrec.h"

#define Py_BUILD_CORE 1
#pragma GCC diagnostic push
#pragma GCC diagnostic ignored "-Wunused-parameter"
#pragma GCC diagnostic ignored "-Wsign-compare"
#pragma GCC diagnostic ignored "-Wmissing-field-initializers"
#include <internal/pycore_frame.h>
#pragma GCC diagnostic pop
#undef Py_BUILD_CORE

static _PyFrameEvalFunction prev_eval;
static int active;

/* Has the frame not run yet?  For a generator or coroutine function that
 * is the call that makes the object (RETURN_GENERATOR): not a slice, as
 * the profile and monitoring hooks do not see it either. */
static inline int frame_fresh(struct _PyInterpreterFrame *f) {
#if PY_VERSION_HEX < 0x030C0000
    return _PyInterpreterFrame_LASTI(f) < 0;
#elif PY_VERSION_HEX < 0x030D0000
    return PyUnstable_InterpreterFrame_GetLasti(f) < 0;   /* before the first instruction */
#else
    return PyUnstable_InterpreterFrame_GetLasti(f) <= 0;  /* at it (3.13 counts the next one) */
#endif
}

static inline PyObject *frame_code(struct _PyInterpreterFrame *f) {
#if PY_VERSION_HEX < 0x030C0000
    return (PyObject *)f->f_code;
#else
    /* A new reference; the frame holds another for as long as it runs. */
    PyObject *c = PyUnstable_InterpreterFrame_GetCode(f);
    Py_DECREF(c);
    return c;
#endif
}

/* The module an import root frame imports: its first argument (borrowed),
 * read from the frame's layout (CPython's internal header, of the version
 * built for). */
static inline PyObject *import_name(struct _PyInterpreterFrame *f) {
#if PY_VERSION_HEX >= 0x030E0000
    (void)f;
    return NULL;   /* 3.14's locals are tagged stack references: not read here ("import (a module)") */
#endif
    PyCodeObject *co = (PyCodeObject *)frame_code(f);
    return co->co_argcount >= 1 ? f->localsplus[0] : NULL;
}

static PyObject *eval_hook(PyThreadState *ts, struct _PyInterpreterFrame *f, int throwflag) {
    if (PYREC_UNLIKELY(!active)) return prev_eval(ts, f, throwflag);  /* another tool chains to us */
    struct pyrec_thread *t = &pyrec_t;
    uint32_t id = 0;
    struct pyrec_code *ci = pyrec_code_get(frame_code(f));
    if (PYREC_LIKELY(ci != NULL)) {
        id = ci->id;
        if (PYREC_UNLIKELY(ci->resumable) && frame_fresh(f)) id = 0;
    }
    uint32_t d = ++t->depth;
    int import_root = 0;
    if (PYREC_UNLIKELY(t->eimp) && id) {
        t->imp_calls++;   /* inside a folded import (imports.c): counted, not recorded */
        id = 0;
    } else if (id && pyrec_folds_import(ci, t)) {
        id = pyrec_import_id(import_name(f));
        t->eimp = d;
        t->imp_calls = 0;
        import_root = 1;
    }
    if (id) {
        if (pyrec_cfg.max_depth && t->rec >= pyrec_cfg.max_depth) {
            id = 0;
        } else {
            pyrec_will_write(t);
            t->rec++;
            pyrec_begin(id);
            if (PYREC_UNLIKELY(ci->coro) && !t->etask) {
                t->etask = d;
                pyrec_task_step(t, &t->etask);
            }
        }
    }
    uint32_t n0 = t->n;   /* builtins the monitoring hook pushes (hook_monitor.c, with the eval hook) */
    PyObject *r = prev_eval(ts, f, throwflag);
    if (PYREC_UNLIKELY(t->n > n0)) pyrec_natives_unwind(t, n0);   /* a return missed: ended with the frame */
    if (PYREC_UNLIKELY(d <= t->fork_floor)) {
        t->fork_floor = d - 1;  /* begun in the parent process: not ours to end */
    } else if (id) {
        if (PYREC_UNLIKELY(import_root)) pyrec_import_end(t);
        t->rec--;
        pyrec_end(id);
    }
    if (PYREC_UNLIKELY(import_root) && t->eimp == d) t->eimp = 0;
    if (PYREC_UNLIKELY(t->etask == d)) t->etask = 0;
    t->depth--;
    return r;
}

/* The frames on the forking thread's C stack began their scopes in the
 * parent: the child ends none of them (their depths are at or below the
 * floor), and counts what it opens from zero. */
void pyrec_eval_atfork_child(struct pyrec_thread *t) {
    t->fork_floor = t->depth;
}

int pyrec_eval_available(void) { return 1; }

int pyrec_eval_start(void) {
    PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    _PyFrameEvalFunction cur = _PyInterpreterState_GetEvalFrameFunc(interp);
    if (cur == eval_hook) return 0;
    prev_eval = cur;
    _PyInterpreterState_SetEvalFrameFunc(interp, eval_hook);
    active = 1;
    return 0;
}

/* Frames evaluating now keep running in eval_hook and end their scopes;
 * new ones are evaluated as before.  Another tool's function installed
 * after ours is left in place. */
void pyrec_eval_stop(void) {
    if (!active) return;
    PyInterpreterState *interp = PyThreadState_GetInterpreter(PyThreadState_Get());
    if (_PyInterpreterState_GetEvalFrameFunc(interp) == eval_hook) _PyInterpreterState_SetEvalFrameFunc(interp, prev_eval);
    active = 0;
}
