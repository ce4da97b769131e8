/*
 * builtins.c -- builtins recorded only when they last long enough to
 * matter.
 *
 * A program that calls json.dumps, hashlib or list.append a million times
 * spends most of its recording cost on slices a few hundred nanoseconds
 * long that no one reads one by one.  So a builtin's begin is deferred:
 * its call notes the time and the ring's head (pyrec_defer, pyrec.h), and
 * at its return the scope is written, begin (with the noted time) and
 * end, only if it lasted pyrec_cfg.builtin_min_ns (the runner's default
 * 10 us; --all-builtins: 0, every builtin written as it begins).  Shorter
 * ones are filtered by design, not lost: each thread counts them, and a
 * counter on its lane ("builtins under the threshold") says how many, in
 * steps of COUNT_STEP and at the thread's last deferred builtin before
 * recording stops.
 *
 * Ring order stays time order: a deferred begin is written before
 * anything recorded inside the builtin (a Python callback, a scope, the
 * lane's name: pyrec_flush), and only if nothing else was written on the
 * thread's ring since the call (another copy of the writer, in a C
 * library the builtin runs, writes to the same ring: its events are then
 * already there, and the begin would land after them).  Such a builtin is
 * not recorded, and counted with the short ones.
 *
 * Call sites that only make short calls (sys.monitoring, 3.12+).  Under
 * the monitoring hook a watched call site costs two callbacks per call
 * (CALL and C_RETURN) and loses CPython's specialized call: most of the
 * default mode's price on a builtin-heavy program.  So a site whose last
 * PYREC_SITE_OFF_AFTER recorded builtins in a row were all short is
 * switched off (DISABLE at its next call) until the next start: its later
 * calls cost nothing and are not seen, long ones included.  What stops
 * being seen is said, not lost silently: a second counter on the lane,
 * "builtin call sites switched off", counts the sites (how many calls they
 * then make is not known: no callback sees them), and both counters are
 * written when a site is switched off.  A known blocking call (a wait
 * scope: sleep, a lock, select) never switches its site off, nor does a
 * builtin that calls recorded Python code (it is recorded whatever its
 * length); a threshold of 0 (--all-builtins) keeps every site watched.
 */
#include <stdio.h>
#include <string.h>

#include "pyrec.h"

#define COUNT_STEP 4096u

static uint32_t count_id, sites_id;
static unsigned site_epoch = 1;   /* bumped by each start: the sites it re-armed count from 0 */

void pyrec_builtins_configure(void) {
    uint64_t tps = pyrec_ticks_per_sec();
    uint64_t ns = pyrec_cfg.builtin_min_ns;
    /* ticks = ns * tps / 1e9, without overflow for any ns below ~584 years */
    pyrec_cfg.builtin_min_ticks = ns && tps ? (uint64_t)((double)ns * (double)tps / 1e9) | 1 : 0;
    if (ns && !pyrec_cfg.builtin_min_ticks) pyrec_cfg.builtin_min_ticks = 1;
    count_id = sites_id = 0;
    if (ns) {
        char name[128];
        snprintf(name, sizeof name, "builtins under %llu ns (not recorded)", (unsigned long long)ns);
        count_id = rec__intern_dyn(name);
        snprintf(name, sizeof name, "builtin call sites switched off (%u calls under %llu ns in a row; later calls not seen)",
                 (unsigned)PYREC_SITE_OFF_AFTER, (unsigned long long)ns);
        sites_id = rec__intern_dyn(name);
    }
}

void pyrec_sites_rearm(void) {
    if (++site_epoch == 0) site_epoch = 1;
}

uint8_t *pyrec_site(struct pyrec_code *ci, PyObject *code, PyObject *offset) {
    if (PYREC_UNLIKELY(ci->site_epoch != site_epoch)) {
        if (!ci->site_short) {
            /* A code object's size in code units (2 bytes each); offsets are in bytes. */
            Py_ssize_t n = Py_SIZE(code);
            if (n <= 0 || n > (1 << 24) || !(ci->site_short = (uint8_t *)calloc((size_t)n, 1))) return NULL;
            ci->n_units = (uint32_t)n;
        } else {
            memset(ci->site_short, 0, ci->n_units);
        }
        ci->site_epoch = site_epoch;
    }
    long off = PyLong_AsLong(offset);
    if (PYREC_UNLIKELY(off < 0 || (unsigned long)off / 2 >= ci->n_units)) {
        PyErr_Clear();
        return NULL;
    }
    return &ci->site_short[off / 2];
}

void pyrec_site_ended(uint8_t *site, int short_one) {
    if (!short_one) *site = 0;
    else if (*site < PYREC_SITE_OFF_AFTER) ++*site;
}

void pyrec_site_off(struct pyrec_thread *t) {
    t->sites_off++;
    if (!sites_id) return;
    pyrec_will_write(t);
    rec__counter(count_id, (double)t->short_builtins);
    rec__counter(sites_id, (double)t->sites_off);
}

static uint64_t head_now(void) {
    struct rec_slot *s = rec__t.slot;
    return s ? __atomic_load_n(&s->head, __ATOMIC_RELAXED) : UINT64_MAX;
}

/* Write e's begin at its time if nothing was written since its call (the
 * ring's head was h); else it is not recorded. */
static int write_begin(struct pyrec_thread *t, struct pyrec_ent *e, uint64_t h, int on_stack) {
    uint64_t t0 = e->t0;
    e->t0 = 0;
    t->npend--;
    if (e->h0 == h) {
        uint32_t id = e->id;
        uint64_t w = ((uint64_t)REC_EV_BEGIN << 56) | (id & ~PYREC_ID_WAIT);
        if (id & PYREC_ID_WAIT) w |= REC_EV_WAIT;
        pyrec_emit_at(t0, w);
        return 1;
    }
    t->short_builtins++;
    if (on_stack) {   /* popped ones were counted off already */
        t->rec--;
        e->id = 0;
    }
    return 0;
}

/* The deferred entries among the first n of the stack, bottom up: all
 * share the head of the lowest (nothing is written while one is
 * deferred), so each is compared with the head as it was before these
 * writes. */
static void flush_below(struct pyrec_thread *t, uint32_t n) {
    uint64_t h = head_now();
    for (uint32_t i = 0; i < n && t->npend; i++) {
        struct pyrec_ent *e = &t->st[i];
        if (e->t0 && e->kind == PYREC_ENT_NATIVE) write_begin(t, e, h, 1);
    }
}

void pyrec_flush(struct pyrec_thread *t) {
    flush_below(t, t->n);
}

static void count_short(struct pyrec_thread *t) {
    if (++t->short_builtins % COUNT_STEP == 0 && count_id) {
        if (t->npend) pyrec_flush(t);
        rec__counter(count_id, (double)t->short_builtins);
    }
}

int pyrec_undefer(struct pyrec_thread *t, struct pyrec_ent *e) {
    uint64_t now = rec_now();
    if (now - e->t0 < pyrec_cfg.builtin_min_ticks) {
        e->t0 = 0;
        t->npend--;
        count_short(t);
        return 0;
    }
    uint64_t h = head_now();
    if (t->npend > 1) flush_below(t, t->n);   /* e is just above the stack's top */
    return write_begin(t, e, h, 0);
}
