/*
 * tstack.c -- per-thread state of the hooks: the shadow stack of the
 * profile and monitoring hooks, naming a thread's lane after its Python
 * thread, and what a forked child keeps.
 *
 * The shadow stack holds one entry per Python frame (and per builtin call,
 * and per line) entered while a hook was on, with the id it began (0 for
 * a frame that was filtered, too deep, or not recorded).  Keeping the
 * unrecorded ones too makes a return one compare with the top.  A return
 * for a frame that is not on top (one entered before the hook was on, or
 * whose return was missed) is looked for further down; if found, what is
 * above it is ended first, so the ring never holds an end without its
 * begin or a begin that nothing ends.
 */
#include "pyrec.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

__thread struct pyrec_thread pyrec_t __attribute__((tls_model("initial-exec")));

/* The stack's memory is freed when the thread exits. */
static pthread_key_t stack_key;
static int stack_key_ok;

static void free_stack(void *p) {
    free(p);
    pyrec_t.st = NULL;
    pyrec_t.n = pyrec_t.cap = 0;
}

/* A forked child runs in the thread that forked, with the parent's frames
 * still on its stack: their scopes were begun in the parent's segment, so
 * the child must not end them in its own.  It starts with nothing open. */
static void atfork_child(void) {
    struct pyrec_thread *t = &pyrec_t;
    for (uint32_t i = 0; i < t->n; i++) {
        t->st[i].id = 0;
        t->st[i].t0 = 0;
    }
    t->npend = 0;
    t->task_lvl = t->etask = t->eimp = 0;
    t->short_builtins = 0;
    t->rec = 0;
    t->imp = 0;   /* an import the parent was folding is not the child's */
    t->imp_calls = 0;
    t->named = 0;
    t->name_tries = 0;
    pyrec_eval_atfork_child(t);
    pyrec_monitor_atfork_child(t);
}

int pyrec_tstack_init(void) {
    stack_key_ok = pthread_key_create(&stack_key, free_stack) == 0;
    if (pthread_atfork(NULL, NULL, atfork_child) != 0) {
        PyErr_SetString(PyExc_RuntimeError, "recorder: pthread_atfork failed");
        return -1;
    }
    return 0;
}

/* Deep recursion is legal Python: grow without a fixed limit, but give up
 * (the frame goes unrecorded, its return is ignored) rather than fail. */
int pyrec_grow(struct pyrec_thread *t) {
    uint32_t cap = t->cap ? t->cap * 2 : 256;
    if (cap < t->cap || cap > (1u << 26)) return -1;
    struct pyrec_ent *p = (struct pyrec_ent *)realloc(t->st, cap * sizeof *p);
    if (!p) return -1;
    if (stack_key_ok) pthread_setspecific(stack_key, p);
    t->st = p;
    t->cap = cap;
    return 0;
}

void pyrec_unwind_to(struct pyrec_thread *t, const void *key) {
    uint32_t i = t->n;
    while (i > 0 && !(t->st[i - 1].key == key && t->st[i - 1].kind != PYREC_ENT_NATIVE)) i--;
    if (i == 0) return;  /* never entered under the hook */
    /* Entries of this frame are its PY entry and, in line mode, a LINE
     * entry above it with the same key: pop through the lowest. */
    while (i > 1 && t->st[i - 2].key == key && t->st[i - 2].kind != PYREC_ENT_NATIVE) i--;
    while (t->n >= i) pyrec_pop_top(t);
}

/* Name the lane after the Python thread (threading's name), the first time
 * this thread records.  threading registers a thread only once its
 * bootstrap runs, so early events try again, a few times.  Looks the name
 * up without running Python code: threading._active[get_ident()].name is a
 * plain attribute. */
void pyrec_name_thread_slow(struct pyrec_thread *t) {
    if (t->npend) pyrec_flush(t);   /* the name is an event in the ring */
    if (t->name_tries++ > 64) {
        t->named = 1;
        return;
    }
    PyObject *modname = PyUnicode_InternFromString("threading");
    if (!modname) {
        PyErr_Clear();
        return;
    }
    PyObject *threading = PyImport_GetModule(modname);
    Py_DECREF(modname);
    if (!threading) {
        PyErr_Clear();
        return;
    }
    PyObject *active = PyObject_GetAttrString(threading, "_active");
    Py_DECREF(threading);
    if (!active || !PyDict_Check(active)) {
        Py_XDECREF(active);
        PyErr_Clear();
        return;
    }
    PyObject *ident = PyLong_FromUnsignedLong(PyThread_get_thread_ident());
    PyObject *th = ident ? PyDict_GetItemWithError(active, ident) : NULL;  /* borrowed */
    Py_XDECREF(ident);
    if (th) {
        PyObject *dict = PyObject_GenericGetDict(th, NULL);
        PyObject *name = dict ? PyDict_GetItemString(dict, "_name") : NULL;  /* borrowed */
        const char *s = name && PyUnicode_Check(name) ? PyUnicode_AsUTF8(name) : NULL;
        if (s) {
            rec__thread_name(s);
            t->named = 1;
        }
        Py_XDECREF(dict);
    }
    Py_DECREF(active);
    PyErr_Clear();
}
