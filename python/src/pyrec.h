/*
 * pyrec.h -- what the C files of the extension recorder._native share.
 *
 * The extension is a thin layer over include/recorder.h: writer.c compiles
 * the writer's implementation (its own copy, which joins the process's
 * segment like any other), and everything else uses the public hot path
 * (rec_begin_id, rec_end_id, rec__intern_dyn).  A Python function's name
 * is interned once per code object (names.c); an event then costs a call
 * hook, one lookup in the code object's extra slot, and the ring writes.
 *
 * Three ways to see calls ("hooks"), chosen per interpreter and options:
 *   - eval (hook_eval.c): PEP 523's frame evaluation function wraps every
 *     Python frame's evaluation; cheapest, all threads, Python calls only;
 *   - profile (hook_profile.c): PyEval_SetProfile (+ PyEval_SetTrace for
 *     lines), for builtins and extension functions (c_call) and lines;
 *   - monitoring (hook_monitor.c, Python >= 3.12): sys.monitoring (PEP 669).
 * The profile and monitoring hooks keep a per-thread shadow stack
 * (tstack.c); the eval hook nests by construction (the C stack).
 */
#ifndef PYREC_H
#define PYREC_H

#define PY_SSIZE_T_CLEAN
#include <Python.h>
#include <frameobject.h>
#include <stdint.h>

#include "recorder.h"

/* At most this many --filter (and --filter-out) substrings: the writer's
 * REC__MAX_FILTERS (writer.c asserts they are equal). */
#define PYREC_MAX_FILTERS 32

#ifdef Py_GIL_DISABLED
#error "recorder's Python hooks rely on the GIL: free-threaded builds are not supported"
#endif

#if PY_VERSION_HEX < 0x030B0000
#error "recorder's Python package needs Python 3.11 or later"
#endif

/* The code-extra API was renamed in 3.12 (the old names are deprecated). */
#if PY_VERSION_HEX >= 0x030C0000
#define PYREC_CODE_GET_EXTRA PyUnstable_Code_GetExtra
#define PYREC_CODE_SET_EXTRA PyUnstable_Code_SetExtra
#define PYREC_REQUEST_CODE_EXTRA PyUnstable_Eval_RequestCodeExtraIndex
#else
#define PYREC_CODE_GET_EXTRA _PyCode_GetExtra
#define PYREC_CODE_SET_EXTRA _PyCode_SetExtra
#define PYREC_REQUEST_CODE_EXTRA _PyEval_RequestCodeExtraIndex
#endif

#define PYREC_LIKELY(x) __builtin_expect(!!(x), 1)
#define PYREC_UNLIKELY(x) __builtin_expect(!!(x), 0)
#define PYREC_HIDDEN __attribute__((visibility("hidden")))

/* ---- configuration (module.c) ----------------------------------------- */

enum pyrec_hook { PYREC_HOOK_NONE = 0, PYREC_HOOK_EVAL, PYREC_HOOK_PROFILE, PYREC_HOOK_MONITOR };

struct pyrec_config {
    int native;            /* scopes for builtins and extension functions */
    int lines;             /* a scope per line run */
    uint32_t max_depth;    /* recorded scopes nested deeper are not recorded; 0 = no limit */
    PyObject *filter;      /* tuple of str, or NULL: module or file must contain one */
    PyObject *filter_out;  /* tuple of str, or NULL: ... and none of these */
    PyObject *own_dir;     /* str: the recorder package's directory (its frames are not recorded) */
    int imports;           /* record imports in full; 0: each top-level import is one scope (imports.c) */
    /* Builtins shorter than this are not recorded (builtins.c); 0: every
     * builtin, and every call site stays watched for them. */
    uint64_t builtin_min_ns;
    uint64_t builtin_min_ticks;   /* the same in the ring's clock, set once the segment exists */
    unsigned gen;          /* bumped by every configure: cached verdicts carry it */
};
extern struct pyrec_config pyrec_cfg PYREC_HIDDEN;

/* ---- names (names.c) --------------------------------------------------- */

/* What a code object is recorded as.  Kept in the code object's extra slot
 * (PEP 523's co_extra), freed with the code object. */
struct pyrec_code {
    uint32_t id;           /* scope name id; 0 = not recorded (filtered) */
    unsigned gen;          /* pyrec_cfg.gen when decided */
    int first_line;
    uint32_t n_lines;      /* line_ids covers first_line .. first_line + n_lines - 1 */
    uint32_t *line_ids;    /* line mode: "file:line (qualname)" ids, 0 = not yet interned */
    uint32_t fn_id;        /* the name without the filter verdict (for lines) */
    uint8_t own;           /* recorder's own code: its frames and what they call are not recorded */
    uint8_t resumable;     /* a generator or coroutine: its first evaluation only makes the object */
    uint8_t import_root;   /* importlib's _find_and_load: where an import begins (imports.c) */
    uint8_t coro;          /* an async def coroutine: its outermost resume is a task's step (tasks.c) */
    /* The monitoring hook's call sites (builtins.c, pyrec_site): per
     * instruction, how many builtin calls in a row ended under the
     * threshold there; made on a site's first recorded builtin, as long as
     * the code (n_units), and zeroed when a new start re-arms the sites. */
    uint8_t *site_short;
    uint32_t n_units;
    unsigned site_epoch;
};

int pyrec_names_init(void);
struct pyrec_code *pyrec_code_slow(PyObject *code, struct pyrec_code *old);
uint32_t pyrec_line_id(struct pyrec_code *ci, PyObject *code, int line);
/* The scope id of a called builtin or extension function; 0 = none
 * (not such a function, filtered, or one of recorder's own). */
uint32_t pyrec_native_id(PyObject *callable);

/* The interpreter's known blocking calls (waits.c): 1 if the function is one. */
int pyrec_is_wait_py(const char *module, const char *qualname) PYREC_HIDDEN;
int pyrec_is_wait_native(const char *name) PYREC_HIDDEN;

extern Py_ssize_t pyrec_extra_index PYREC_HIDDEN;

/* The hot path: the code object's record, made on first sight and remade
 * when the configuration changed.  NULL only when out of memory. */
static inline struct pyrec_code *pyrec_code_get(PyObject *code) {
    void *x = NULL;
    PYREC_CODE_GET_EXTRA(code, pyrec_extra_index, &x);
    struct pyrec_code *ci = (struct pyrec_code *)x;
    if (PYREC_LIKELY(ci != NULL && ci->gen == pyrec_cfg.gen)) return ci;
    return pyrec_code_slow(code, ci);
}

/* ---- per-thread state (tstack.c) ---------------------------------------- */

enum pyrec_kind { PYREC_ENT_PY = 0, PYREC_ENT_NATIVE = 1, PYREC_ENT_LINE = 2 };

/* A shadow stack entry: the frame (profile hook) or code object (monitoring
 * hook) or callable (native) it stands for, and the id it began, 0 if it
 * began nothing. */
struct pyrec_ent {
    const void *key;
    uint32_t id;
    uint32_t kind;
    /* A builtin whose begin is deferred (builtins.c): when it began, in
     * ticks (0: not deferred), and the thread's ring head then. */
    uint64_t t0, h0;
    /* Its call site's count of short calls in a row (monitoring hook, with
     * a threshold: builtins.c), or NULL. */
    uint8_t *site;
};

struct pyrec_thread {
    struct pyrec_ent *st;  /* the shadow stack (profile, monitoring) */
    uint32_t n, cap;
    uint32_t rec;          /* scopes open that were recorded (for max_depth) */
    uint32_t depth;        /* eval hook: frames evaluating under the hook */
    uint32_t fork_floor;   /* eval hook: frames at or below began in the parent */
    uint32_t name_tries;   /* naming the lane after the Python thread */
    int named;
    /* A top-level import being folded (imports.c): the shadow stack's
     * height (profile, monitoring) or the eval depth (eval) just above its
     * root, 0 if none; and the calls it hid. */
    uint32_t imp;
    uint64_t imp_calls;
    /* The same two levels kept by the eval hook, as eval depths: with the
     * monitoring hook both run, and the shadow stack then holds only
     * builtins, whose height is no measure of the eval depth. */
    uint32_t eimp, etask;
    /* Builtins deferred and still running (builtins.c), and those that
     * ended under the threshold, not recorded. */
    uint32_t npend;
    uint64_t short_builtins;
    /* Call sites this thread switched off (monitoring hook: builtins.c). */
    uint64_t sites_off;
    /* The asyncio task step open (tasks.c): the shadow stack's height or
     * eval depth of its coroutine, 0 if none. */
    uint32_t task_lvl;
};
extern __thread struct pyrec_thread pyrec_t __attribute__((tls_model("initial-exec"))) PYREC_HIDDEN;

int pyrec_tstack_init(void);
int pyrec_grow(struct pyrec_thread *t);
void pyrec_name_thread_slow(struct pyrec_thread *t);
/* Pop entries down to and including the one for key (kind PY or LINE);
 * for a key not on the stack, nothing.  Ends what they began. */
void pyrec_unwind_to(struct pyrec_thread *t, const void *key);

static inline void pyrec_name_thread(struct pyrec_thread *t) {
    if (PYREC_UNLIKELY(!t->named)) pyrec_name_thread_slow(t);
}

/* ---- builtins under a threshold (builtins.c) ---------------------------- */

/* Write the begins of the deferred builtins on t's stack now (something
 * is about to be recorded inside them). */
void pyrec_flush(struct pyrec_thread *t) PYREC_HIDDEN;
/* A deferred builtin e (just popped) ends: 1 if its begin is now written
 * (end it), 0 if it is not recorded. */
int pyrec_undefer(struct pyrec_thread *t, struct pyrec_ent *e) PYREC_HIDDEN;
void pyrec_builtins_configure(void) PYREC_HIDDEN;
/* The monitoring hook's call sites (3.12+): after SITE_OFF_AFTER builtin
 * calls in a row under the threshold, a site is switched off (DISABLE at
 * its next call) until the next start.  pyrec_site: the count of the
 * site at byte offset `offset` (a PyLong) of code, NULL if none;
 * pyrec_site_ended: a recorded builtin there ended, short or not;
 * pyrec_site_off: the site is switched off now (counted on t's lane). */
#define PYREC_SITE_OFF_AFTER 100
uint8_t *pyrec_site(struct pyrec_code *ci, PyObject *code, PyObject *offset) PYREC_HIDDEN;
void pyrec_site_ended(uint8_t *site, int short_one) PYREC_HIDDEN;
void pyrec_site_off(struct pyrec_thread *t) PYREC_HIDDEN;
void pyrec_sites_rearm(void) PYREC_HIDDEN;
/* writer.c: an entry with its own timestamp; the segment's clock rate. */
void pyrec_emit_at(uint64_t ts, uint64_t w1) PYREC_HIDDEN;
uint64_t pyrec_ticks_per_sec(void) PYREC_HIDDEN;

/* Before anything else writes to this thread's ring (the API, the eval
 * hook): the lane's name, and the begins of deferred builtins. */
static inline void pyrec_will_write(struct pyrec_thread *t) {
    pyrec_name_thread(t);
    if (PYREC_UNLIKELY(t->npend)) pyrec_flush(t);
}

/* A builtin's begin is deferred: written at its end if it lasted the
 * threshold, or earlier if something inside it is recorded.  Not on a
 * thread's first event (which attaches its ring). */
static inline int pyrec_defer(struct pyrec_thread *t, struct pyrec_ent *e) {
    struct rec_slot *s = rec__t.slot;
    if (PYREC_UNLIKELY(!s)) return 0;
    e->h0 = __atomic_load_n(&s->head, __ATOMIC_RELAXED);
    e->t0 = rec_now() | 1;
    t->npend++;
    return 1;
}

/* Bit 31 of an id the hooks record: the function blocks (names.c's table
 * of the interpreter's known blocking calls), so its scope is a wait
 * scope (REC_SCOPE_WAIT): the analysis counts it, and what runs under it,
 * as waiting, not work.  String ids never reach bit 31. */
#define PYREC_ID_WAIT 0x80000000u

static inline void pyrec_begin(uint32_t id) {
    if (PYREC_UNLIKELY(id & PYREC_ID_WAIT)) rec_begin_wait_id(id & ~PYREC_ID_WAIT);
    else rec_begin_id(id);
}

static inline void pyrec_end(uint32_t id) {
    if (PYREC_UNLIKELY(id & PYREC_ID_WAIT)) rec_end_wait_id(id & ~PYREC_ID_WAIT);
    else rec_end_id(id);
}

/* ---- asyncio tasks (tasks.c) ----------------------------------------------- */

/* A coroutine's slice began with no task step open on the thread: the
 * hook set *level (task_lvl: the stack's height, or etask: the eval
 * depth) to where it began; mark it with its task, if it runs in one. */
void pyrec_task_step(struct pyrec_thread *t, uint32_t *level) PYREC_HIDDEN;

/* ---- imports (imports.c) -------------------------------------------------- */

/* 1 for the code where an import begins (importlib's _find_and_load). */
int pyrec_is_import_root(const char *file, const char *qualname) PYREC_HIDDEN;
/* The scope id for a top-level import of module `name` (a str, or NULL if
 * not known): "import NAME"; 0 if recording is off. */
uint32_t pyrec_import_id(PyObject *name) PYREC_HIDDEN;
/* The folded import ends: one instant inside its scope says how many
 * calls it hid; t->imp goes back to 0. */
void pyrec_import_end(struct pyrec_thread *t) PYREC_HIDDEN;
struct pyrec_thread;
void pyrec_import_push(struct pyrec_thread *t, const void *key, PyObject *name) PYREC_HIDDEN;
PyObject *pyrec_import_name_of(PyFrameObject *frame) PYREC_HIDDEN;

static inline int pyrec_folds_import(const struct pyrec_code *ci, const struct pyrec_thread *t) {
    return PYREC_UNLIKELY(ci->import_root) && !t->imp && !t->eimp && !pyrec_cfg.imports && ci->id;
}

static inline void pyrec_push(struct pyrec_thread *t, const void *key, uint32_t id, uint32_t kind) {
    if (PYREC_UNLIKELY(t->n == t->cap) && pyrec_grow(t) != 0) return;  /* unpushed: its return is ignored */
    if (PYREC_UNLIKELY(t->imp | t->eimp) && id) {
        t->imp_calls++;   /* inside a folded import: counted, not recorded */
        id = 0;
    }
    if (id && pyrec_cfg.max_depth && t->rec >= pyrec_cfg.max_depth) id = 0;
    struct pyrec_ent *e = &t->st[t->n++];
    e->key = key;
    e->id = id;
    e->kind = kind;
    e->t0 = 0;
    e->site = NULL;
    if (id) {
        t->rec++;
        if (kind == PYREC_ENT_NATIVE && pyrec_cfg.builtin_min_ticks && pyrec_defer(t, e)) return;
        if (PYREC_UNLIKELY(t->npend)) {
            t->n--;   /* the deferred ones below first, in order */
            pyrec_flush(t);
            t->n++;
        }
        pyrec_begin(id);
    }
}

/* 1 if the entry's scope is written (it ends now), 0 if it began nothing
 * or was not recorded (a deferred builtin under the threshold). */
static inline int pyrec_pop_top(struct pyrec_thread *t) {
    struct pyrec_ent *e = &t->st[--t->n];
    if (PYREC_UNLIKELY(t->imp > t->n)) pyrec_import_end(t);  /* the folded import's root leaves */
    if (PYREC_UNLIKELY(t->task_lvl > t->n)) t->task_lvl = 0;  /* the task step's coroutine leaves */
    if (e->id) {
        t->rec--;
        if (PYREC_UNLIKELY(e->t0) && !pyrec_undefer(t, e)) return 0;
        pyrec_end(e->id);
        return 1;
    }
    return 0;
}

/* A Python frame (or code object) returns. */
static inline void pyrec_ret(struct pyrec_thread *t, const void *key) {
    if (PYREC_LIKELY(t->n && t->st[t->n - 1].key == key && t->st[t->n - 1].kind == PYREC_ENT_PY)) {
        pyrec_pop_top(t);
        return;
    }
    pyrec_unwind_to(t, key);
}

/* A builtin or extension function returns (or raises). */
static inline void pyrec_native_ret(struct pyrec_thread *t, const void *callable) {
    if (t->n && t->st[t->n - 1].key == callable && t->st[t->n - 1].kind == PYREC_ENT_NATIVE) pyrec_pop_top(t);
}

/* ---- hooks --------------------------------------------------------------- */

int pyrec_eval_available(void);
int pyrec_eval_start(void);
void pyrec_eval_stop(void);
void pyrec_eval_atfork_child(struct pyrec_thread *t);

int pyrec_profile_start(PyObject *module);
void pyrec_profile_stop(void);
int pyrec_profile_install_thread(PyObject *frame, PyObject *event, PyObject *arg, int trace);
void pyrec_profile_floor(int on);

int pyrec_monitor_available(void);
/* Pop the shadow stack down to n0 (builtins whose return was not seen). */
void pyrec_natives_unwind(struct pyrec_thread *t, uint32_t n0) PYREC_HIDDEN;
void pyrec_monitor_atfork_child(struct pyrec_thread *t);
int pyrec_monitor_start(PyObject *module);
void pyrec_monitor_stop(void);
extern PyMethodDef pyrec_monitor_methods[] PYREC_HIDDEN;

/* ---- the API objects (api.c, scope.c) ------------------------------------ */

extern PyMethodDef pyrec_api_methods[] PYREC_HIDDEN;
extern PyMethodDef pyrec_procs_methods[] PYREC_HIDDEN;   /* procs.c */
int pyrec_scope_types_ready(PyObject *module);
/* Intern a str as a name; 0 if filtered or recording is off. */
uint32_t pyrec_intern_str(PyObject *name);

#endif /* PYREC_H */
