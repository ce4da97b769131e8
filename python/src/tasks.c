/*
 * tasks.c -- asyncio tasks told apart.
 *
 * Each resume of a coroutine is its own slice, named after the coroutine:
 * three tasks running `fetch` concurrently leave a row of `fetch` slices
 * and nothing says which task each one advanced.  So the outermost
 * coroutine resumed on a thread (a task's step: the event loop sends into
 * the task's coroutine) is marked, inside its slice, with
 *   - an instant "asyncio task" whose message is the task's name
 *     (Task.get_name(): "Task-3", or the name given to create_task), and
 *   - a flow with the task's flow id, begun at its first step and stepped
 *     at each later one, so that a viewer draws an arrow from each of the
 *     task's resumes to its next one (one chain a task).
 * Coroutines it awaits, resumed inside that step, are the same task's and
 * get neither.
 *
 * The task is asyncio's current task (_asyncio.current_task() from 3.12,
 * its _current_tasks[get_running_loop()] on 3.11: C, no Python code runs), looked up only at the start of a coroutine's slice
 * with no task step open on the thread, and only once asyncio is
 * imported.  The flow id is made from the task object's address and its
 * name, with bit 52 set (and none above): a later task at a reused address has another
 * default name ("Task-N" counts up), and recorder.flow_*() ids a program
 * picks are seldom that large.
 */
#include "pyrec.h"

#define TASK_FLOW_BIT (UINT64_C(1) << 52)   /* ids below 2^53: exact as JSON numbers in a browser */

static uint32_t instant_id;

/* Tasks seen: the first step of a task begins its flow (an exporter binds
 * a step only after its begin), the others step it.  A table of ids under
 * the GIL; a task whose entry another took (more than SEEN tasks between
 * two of its steps) begins its flow again: its chain restarts. */
#define SEEN 4096
static uint64_t seen[SEEN];

static int first_step(uint64_t id) {
    size_t i = (size_t)((id * UINT64_C(0x9e3779b97f4a7c15)) >> 52) & (SEEN - 1);
    for (size_t k = 0; k < 8; k++, i = (i + 1) & (SEEN - 1)) {
        if (seen[i] == id) return 0;
        if (!seen[i]) {
            seen[i] = id;
            return 1;
        }
    }
    seen[i] = id;   /* crowded: take the last probed entry */
    return 1;
}

/* The current task, a new reference, or NULL (none, or asyncio not
 * imported); no error set. */
static PyObject *current_task(void) {
    static PyObject *modname;
    if (!modname && !(modname = PyUnicode_InternFromString("_asyncio"))) {
        PyErr_Clear();
        return NULL;
    }
    PyObject *mod = PyImport_GetModule(modname);
    if (!mod) {
        PyErr_Clear();
        return NULL;
    }
    /* 3.12+: _asyncio.current_task(); 3.11: _current_tasks[get_running_loop()] */
    PyObject *task = NULL, *fn = PyObject_GetAttrString(mod, "current_task");
    if (fn) {
        task = PyObject_CallNoArgs(fn);   /* RuntimeError: no running loop */
    } else {
        PyErr_Clear();
        PyObject *tasks = PyObject_GetAttrString(mod, "_current_tasks");
        PyObject *get_loop = tasks ? PyObject_GetAttrString(mod, "get_running_loop") : NULL;
        PyObject *loop = get_loop ? PyObject_CallNoArgs(get_loop) : NULL;
        if (loop && PyDict_Check(tasks)) task = Py_XNewRef(PyDict_GetItemWithError(tasks, loop));
        Py_XDECREF(loop);
        Py_XDECREF(get_loop);
        Py_XDECREF(tasks);
    }
    Py_DECREF(mod);
    Py_XDECREF(fn);
    if (!task || task == Py_None) {
        Py_XDECREF(task);
        PyErr_Clear();
        return NULL;
    }
    return task;
}

static uint64_t flow_id(PyObject *task, const char *name) {
    uint64_t h = UINT64_C(1469598103934665603);   /* FNV-1a of the name */
    for (const unsigned char *p = (const unsigned char *)name; *p; p++) h = (h ^ *p) * UINT64_C(1099511628211);
    uint64_t id = ((uint64_t)(uintptr_t)task >> 4) ^ (h << 20);
    return (id & (TASK_FLOW_BIT - 1)) | TASK_FLOW_BIT;
}

/* *level is set (task_lvl or etask): what opens above it is this step's. */
void pyrec_task_step(struct pyrec_thread *t, uint32_t *level) {
    (void)level;
    /* A coroutine resumed by throw() has its exception set: kept aside. */
#if PY_VERSION_HEX >= 0x030C0000
    PyObject *exc = PyErr_GetRaisedException();
#else
    PyObject *et, *ev, *tb;
    PyErr_Fetch(&et, &ev, &tb);
#endif
    PyObject *task = current_task();
    if (task) {
        PyObject *nm = PyObject_CallMethod(task, "get_name", NULL);
        const char *name = nm && PyUnicode_Check(nm) ? PyUnicode_AsUTF8(nm) : NULL;
        if (name) {
            if (!instant_id) instant_id = rec__intern_dyn("asyncio task");
            pyrec_will_write(t);
            rec__instant(instant_id, name);
            uint64_t fid = flow_id(task, name);
            rec__flow(first_step(fid) ? REC_EV_FLOW_BEGIN : REC_EV_FLOW_STEP, fid);
        }
        Py_XDECREF(nm);
        Py_DECREF(task);
        PyErr_Clear();
    }
#if PY_VERSION_HEX >= 0x030C0000
    PyErr_SetRaisedException(exc);
#else
    PyErr_Restore(et, ev, tb);
#endif
}
