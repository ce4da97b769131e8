/*
 * model.c -- the model's registries: names, call-path nodes, statistics
 * series (one per tid), thread records, the clock.  The bottom of the
 * model: everything else in librecorder/analysis may call it, it calls
 * nothing above it (docs/architecture-analysis.md); its lifetime, which
 * sets up every part, is model_life.c.
 *
 * Every registry is bounded (model.h): a hostile or runaway source can
 * fill it, after which new names, paths and tids share one "(other)"
 * entry instead of growing memory without end.
 */
#define _GNU_SOURCE 1     /* qsort_r */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "model_write.h"

#define SPECIAL_UNKNOWN 0u        /* local name 0: string id 0 */
#define SPECIAL_OTHER 1u          /* local name 1: what overflowing registries share */
#define NODE_OTHER 1u             /* node 1: paths past NODE_MAX */
#define UNKNOWN_TID_BASE 0x7fff0000 /* tids for threads whose THREAD_START was lost */

/* The registries grow zeroed, from 16 entries (grow.h). */
static void *grow_array(void *p, size_t *cap, size_t need, size_t elem) {
    return grow_to(p, cap, need, elem, 16, 1);
}

/* ---- names -------------------------------------------------------------- */

static uint32_t add_name(rec_model *m, uint32_t id, const char *fixed) {
    void *p = grow_array(m->names, &m->cap_names, m->n_names + 1, sizeof *m->names);
    if (!p) return SPECIAL_OTHER;
    m->names = p;
    struct name *n = &m->names[m->n_names];
    memset(n, 0, sizeof *n);
    n->id = id;
    if (fixed) n->text = strdup(fixed);
    return (uint32_t)m->n_names++;
}

uint32_t model_name(rec_model *m, uint32_t id) {
    uint64_t *v = u64map_get(&m->name_idx, id);
    if (v) return (uint32_t)*v;
    if (m->n_names >= NAME_MAX_LOCAL) return SPECIAL_OTHER;
    int isnew;
    v = u64map_put(&m->name_idx, id, &isnew);
    if (!v) return SPECIAL_OTHER;
    uint32_t local = add_name(m, id, NULL);
    *v = local;
    return local;
}

const char *model_name_text(rec_model *m, uint32_t local) {
    if (local >= m->n_names) local = SPECIAL_OTHER;
    struct name *n = &m->names[local];
    if (n->text) return n->text;
    /* Not resolved yet: the string may have been published after the
     * event was read, so ask again rather than caching a failure. */
    const char *s = m->strings && n->id > REC_ID_OVERFLOW ? m->strings(m->ctx, n->id) : NULL;
    if (s) {
        n->text = strdup(s);
        if (n->text) return n->text;
    }
    if (n->id == REC_ID_OVERFLOW) return "(string table full)";
    if (!n->fallback) {
        char buf[32];
        snprintf(buf, sizeof buf, "(id %u)", n->id);
        n->fallback = strdup(buf);
        if (!n->fallback) return "(unknown)";
    }
    return n->fallback;
}

/* ---- call-path nodes ---------------------------------------------------- */

static uint32_t add_node(rec_model *m, uint32_t parent, uint32_t name) {
    size_t c1 = m->cap_nodes, c2 = m->cap_nodes, c3 = m->cap_nodes;
    uint32_t *a = grow_array(m->node_parent, &c1, m->n_nodes + 1, sizeof *a);
    if (a) m->node_parent = a;
    uint32_t *b = a ? grow_array(m->node_name, &c2, m->n_nodes + 1, sizeof *b) : NULL;
    if (b) m->node_name = b;
    uint32_t *c = b ? grow_array(m->node_depth, &c3, m->n_nodes + 1, sizeof *c) : NULL;
    if (c) m->node_depth = c;
    if (!a || !b || !c) return NODE_OTHER;
    m->cap_nodes = c1;
    uint32_t n = (uint32_t)m->n_nodes++;
    m->node_parent[n] = parent;
    m->node_name[n] = name;
    m->node_depth[n] = n == 0 ? 0 : m->node_depth[parent] + 1;
    return n;
}

uint32_t model_node(rec_model *m, uint32_t parent, uint32_t id) {
    /* Past a full registry, a scope and all it calls are node 1, where the
     * statistics count them (agg.c) instead of under a path of its own. */
    if (parent == NODE_OTHER) return NODE_OTHER;
    /* Keyed by the string id, not the name's local index: a path seen
     * before costs one lookup, not the name's and then the path's (two
     * cache misses each at a million names).  Ids and local names are one
     * to one (model_name), so the paths are the same. */
    uint64_t key = (uint64_t)parent << 32 | id;
    uint64_t *v = u64map_get(&m->node_idx, key);
    if (v) return (uint32_t)*v;
    uint32_t name = model_name(m, id);
    if (name == SPECIAL_OTHER || m->n_nodes >= NODE_MAX) return NODE_OTHER;
    int isnew;
    v = u64map_put(&m->node_idx, key, &isnew);
    if (!v) return NODE_OTHER;
    *v = add_node(m, parent, name);
    return (uint32_t)*v;
}

/* ---- series: statistics per tid ---------------------------------------- */

uint16_t model_series(rec_model *m, int tid) {
    uint64_t key = (uint64_t)(uint32_t)tid;
    uint64_t *v = u64map_get(&m->series_idx, key);
    if (v) return (uint16_t)*v;
    if (m->n_series >= SERIES_MAX - 1) return SERIES_MAX;
    int isnew;
    v = u64map_put(&m->series_idx, key, &isnew);
    if (!v) return SERIES_MAX;
    *v = ++m->n_series;
    return (uint16_t)*v;
}

/* ---- thread records ----------------------------------------------------- */


int model_record(rec_model *m, uint32_t slot, uint32_t gen) {
    uint64_t key = (uint64_t)slot << 32 | gen;
    uint64_t *v = u64map_get(&m->rec_idx, key);
    if (v) return (int)*v;
    if (m->n_recs >= REC_MAX_RECORDS) return -1;
    void *p = grow_array(m->recs, &m->cap_recs, m->n_recs + 1, sizeof *m->recs);
    if (!p) return -1;
    m->recs = p;
    int isnew;
    v = u64map_put(&m->rec_idx, key, &isnew);
    if (!v) return -1;
    struct trec *r = &m->recs[m->n_recs];
    memset(r, 0, sizeof *r);
    r->slot = slot;
    r->gen = gen;
    r->tid = UNKNOWN_TID_BASE + (int)(slot & 0xffff);
    snprintf(r->name, sizeof r->name, "slot %u (thread start not seen)", slot);
    r->state = REC_SLOT_LIVE;
    r->series = model_series(m, r->tid);
    r->exit_ns = -1;
    for (int i = 0; i < 60; i++) r->secs[i].sec = INT64_MIN;
    r->pend_id = INT64_MIN;
    r->sec_i = 60;
    r->pend_lo = r->sec_lo = INFINITY;
    r->pend_hi = r->sec_hi = -INFINITY;
    r->ev_lo = INFINITY;
    r->ev_hi = -INFINITY;
    *v = m->n_recs;
    return (int)m->n_recs++;
}

/* Where a record's open slices end: now while it runs, its exit (or last
 * event) once it exited or a newer generation took its slot. */
double model_close_ns(const rec_model *m, const struct trec *r) {
    int idx = (int)(r - m->recs);
    int current = r->slot < m->n_slots && m->slots[r->slot].cur == idx;
    if (current && r->state != REC_SLOT_EXITED) return rec_model_now(m);
    double t = r->last_ns;
    if (r->exit_ns > t) t = r->exit_ns;
    return t;
}

void model_invalidate(rec_model *m) { m->items_valid = 0; }


/* ---- the registries' fixed entries and memory (model_life.c) ------------ */

int model_registries_init(rec_model *m) {
    for (size_t i = 0; i < sizeof m->ncache / sizeof m->ncache[0]; i++) m->ncache[i].key = UINT64_MAX;
    /* Fixed entries: name 0 is string id 0, name 1 and node 1 take what
     * overflows, node 0 is the root. */
    int isnew;
    uint64_t *v = u64map_put(&m->name_idx, 0, &isnew);
    if (!v) return -1;
    *v = add_name(m, 0, "(unknown)");
    add_name(m, UINT32_MAX, "(other)");
    add_node(m, 0, SPECIAL_UNKNOWN);
    add_node(m, 0, SPECIAL_OTHER);
    return m->n_names == 2 && m->n_nodes == 2 ? 0 : -1;
}

void model_registries_free(rec_model *m) {
    for (size_t i = 0; i < m->n_names; i++) {
        free(m->names[i].text);
        free(m->names[i].fallback);
        free(m->names[i].json);
        free(m->names[i].pyjson);
        free(m->names[i].py);
        free(m->names[i].fold_text);
    }
    free(m->names);
    for (size_t i = 0; i < m->n_wait_pats; i++) free(m->wait_pats[i]);
    free(m->wait_pats);
    u64map_free(&m->name_idx);
    u64map_free(&m->fold_idx);
    u64map_free(&m->node_idx);
    free(m->node_parent);
    free(m->node_name);
    free(m->node_depth);
    u64map_free(&m->series_idx);
    for (size_t i = 0; i < m->n_recs; i++) {
        free(m->recs[i].stack);
        free(m->recs[i].pacc);
        free(m->recs[i].touched);
        free(m->recs[i].plog);
        u64map_free(&m->recs[i].pcells);
    }
    free(m->recs);
    u64map_free(&m->rec_idx);
    free(m->slots);
    free(m->ent_buf);
    free(m->th_buf);
    free(m->th_out);
    free(m->items_out);
}

void rec_model_set_now(rec_model *m, double now_ns) {
    if (!isfinite(now_ns)) return;
    m->set_now_ns = now_ns;
    m->have_set_now = 1;
    model_invalidate(m);
}

double rec_model_now(const rec_model *m) {
    if (m->have_set_now && m->set_now_ns > m->newest_ns) return m->set_now_ns;
    return m->newest_ns > -INFINITY ? m->newest_ns : 0.0;
}

/* ---- rec_model_thread --------------------------------------------------- */

struct slot_state *model_slot(rec_model *m, uint32_t slot) {
    if (slot >= (1u << 20)) return NULL;
    if (slot >= m->n_slots) {
        size_t n = m->n_slots ? m->n_slots : 16;
        while (n <= slot) n *= 2;
        struct slot_state *p = realloc(m->slots, n * sizeof *p);
        if (!p) return NULL;
        for (size_t i = m->n_slots; i < n; i++) {
            p[i].cur = p[i].latest = -1;
            p[i].pend_over = p[i].pend_drop = p[i].pend_hist = 0;
        }
        m->slots = p;
        m->n_slots = n;
    }
    return &m->slots[slot];
}

void model_set_tid(rec_model *m, struct trec *r, int tid) {
    if (r->tid_known && r->tid == tid) return;
    if (!r->tid_known && strncmp(r->name, "slot ", 5) == 0) r->name[0] = 0;
    r->tid = tid;
    r->tid_known = 1;
    r->series = model_series(m, tid);
}

void rec_model_thread(rec_model *m, const struct rec_thread_info *t) {
    struct slot_state *s = model_slot(m, t->slot);
    if (!s) return;
    int idx = model_record(m, t->slot, t->gen);
    struct trec *r = model_rec(m, idx);
    if (!r) return;
    model_set_tid(m, r, t->tid);
    if (t->name[0]) snprintf(r->name, sizeof r->name, "%s", t->name);
    r->lane_kind = t->lane_kind < REC_LANE_KINDS ? t->lane_kind : REC_LANE_THREAD;
    r->lane_device = t->lane_device;
    r->lane_stream = t->lane_stream;
    if (t->state == REC_SLOT_EXITED || t->state == REC_SLOT_LIVE) r->state = t->state;
    if (t->exit_ticks) r->exit_ns = model_ticks_to_ns(m, t->exit_ticks);
    r->start_head = t->start_head;
    r->has_start_head = 1;
    struct trec *latest = model_rec(m, s->latest);
    if (!latest || t->gen >= latest->gen) s->latest = idx;
    model_invalidate(m);
}


/* ---- rec_model_threads -------------------------------------------------- */

static int cmp_rec(const void *a, const void *b, void *ctx) {
    const struct trec *recs = ctx;
    const struct trec *x = &recs[*(const uint32_t *)a], *y = &recs[*(const uint32_t *)b];
    if (x->slot != y->slot) return x->slot < y->slot ? -1 : 1;
    if (x->gen != y->gen) return x->gen < y->gen ? -1 : 1;
    return 0;
}

size_t model_record_order(rec_model *m, uint32_t *order) {
    for (size_t i = 0; i < m->n_recs; i++) order[i] = (uint32_t)i;
    qsort_r(order, m->n_recs, sizeof *order, cmp_rec, m->recs);
    return m->n_recs;
}

static unsigned lane_rank(unsigned kind) {
    return kind == REC_LANE_THREAD ? 0 : kind == REC_LANE_RANGES ? 1 : kind == REC_LANE_GPU_DEVICE ? 2 : 3;
}

static int cmp_track(const void *a, const void *b, void *ctx) {
    const struct trec *recs = ctx;
    const struct trec *x = &recs[*(const uint32_t *)a], *y = &recs[*(const uint32_t *)b];
    unsigned gx = lane_rank(x->lane_kind) >= 2, gy = lane_rank(y->lane_kind) >= 2;
    unsigned rx = lane_rank(x->lane_kind), ry = lane_rank(y->lane_kind);
    if (gx != gy || (!gx && rx != ry)) return rx < ry ? -1 : 1;
    if (gx) {
        if (x->lane_device != y->lane_device) return x->lane_device < y->lane_device ? -1 : 1;
        if (rx != ry) return rx < ry ? -1 : 1;
    }
    return cmp_rec(a, b, ctx);
}

int model_has_lanes(const rec_model *m) {
    for (size_t i = 0; i < m->n_recs; i++)
        if (m->recs[i].lane_kind != REC_LANE_THREAD) return 1;
    return 0;
}

size_t model_track_order(rec_model *m, uint32_t *order) {
    for (size_t i = 0; i < m->n_recs; i++) order[i] = (uint32_t)i;
    qsort_r(order, m->n_recs, sizeof *order, cmp_track, m->recs);
    return m->n_recs;
}

static void fill_thread(const rec_model *m, const struct trec *r, struct rec_model_thread *o) {
    memset(o, 0, sizeof *o);
    o->slot = r->slot;
    o->gen = r->gen;
    o->tid = r->tid;
    memcpy(o->name, r->name, sizeof o->name);
    o->state = r->state;
    o->lane_kind = r->lane_kind;
    o->lane_device = r->lane_device;
    o->lane_stream = r->lane_stream;
    o->events = r->events;
    o->overwritten = r->overwritten;
    o->dropped = r->dropped;
    o->bad = r->bad;
    o->history = r->history;
    o->gap_ns = r->gap_ns;
    o->first_ns = r->first_ns;
    o->last_ns = r->last_ns;
    o->depth = r->depth;
    for (int i = 0; i < r->depth && i < REC_MAX_DEPTH; i++) {
        o->stack[i] = r->stack[i].name_id;
        o->stack_ns[i] = r->stack[i].ts;
    }
    o->unmatched = r->unmatched;
    o->too_deep = r->too_deep;

    double now = model_close_ns(m, r);
    o->end_ns = now > r->last_ns ? now : r->last_ns;
    double open_b = r->depth > 0 ? r->stack[0].ts : now;  /* busy since the open top-level scope began */
    double open_gap = r->depth > 0 ? r->gap_ns - r->stack[0].gap_at : 0;   /* minus the gaps since */
    double open_busy = now > open_b ? now - open_b - open_gap : 0;
    /* The same for the outermost wait scope open, if any: not busy. */
    double open_w = now, open_wait = 0;
    int k = 0;
    while (k < r->depth && !r->stack[k].wait) k++;
    if (k < r->depth) {
        open_w = r->stack[k].ts;
        open_wait = now > open_w ? now - open_w - (r->gap_ns - r->stack[k].gap_at) : 0;
        if (open_wait < 0) open_wait = 0;
    }
    o->wait_ns = r->wait_ns + open_wait;
    double busy_all = r->busy_ns + (open_busy > 0 ? open_busy : 0) - o->wait_ns;
    o->busy_ns = busy_all > 0 ? busy_all : 0;
    int64_t now_sec = (int64_t)floor(now / 1e9);
    for (int i = 0; i < 60; i++) {
        int64_t sec = now_sec - 59 + i;
        const struct sec_slot *ss = &r->secs[((sec % 60) + 60) % 60];
        double busy = ss->sec == sec ? ss->busy_ns - ss->wait_ns : 0;
        double gap = ss->sec == sec ? ss->gap_ns : 0;
        double s0 = (double)sec * 1e9, s1 = s0 + 1e9;
        double lo = open_b > s0 ? open_b : s0, hi = now < s1 ? now : s1;
        if (hi > lo) busy += hi - lo;
        lo = open_w > s0 ? open_w : s0;
        if (hi > lo) busy -= hi - lo;
        /* Of the part of the second the data covers: a thread busy all
         * the time we saw it is 100% busy, not 26% of a second. */
        double span = (i == 59 ? now - s0 : 1e9) - gap;
        double u = span > 0 ? busy / span : 0;
        o->util[i] = u < 0 ? 0 : u > 1 ? 1 : u;
    }
    const struct sec_slot *prev = &r->secs[(((now_sec - 1) % 60) + 60) % 60];
    o->events_per_sec = prev->sec == now_sec - 1 ? (double)prev->events : 0;
}

size_t rec_model_threads(const rec_model *mc, const struct rec_model_thread **out) {
    rec_model *m = (rec_model *)mc;  /* the result buffer is the model's */
    *out = NULL;
    if (!m->n_recs) return 0;
    uint32_t *order = malloc(m->n_recs * sizeof *order);
    struct rec_model_thread *th = realloc(m->th_out, (m->n_recs < LIST_MAX_THREADS ? m->n_recs : LIST_MAX_THREADS) * sizeof *th);
    if (!order || !th) {
        free(order);
        if (th) m->th_out = th;
        return 0;
    }
    m->th_out = th;
    model_record_order(m, order);
    /* Past the listing bound, keep the live threads and the newest records. */
    size_t skip = m->n_recs > LIST_MAX_THREADS ? m->n_recs - LIST_MAX_THREADS : 0, n = 0;
    for (size_t i = 0; i < m->n_recs && n < LIST_MAX_THREADS; i++) {
        const struct trec *r = &m->recs[order[i]];
        if (skip && r->state == REC_SLOT_EXITED && order[i] < m->n_recs - LIST_MAX_THREADS) {
            skip--;
            continue;
        }
        fill_thread(m, r, &th[n++]);
    }
    free(order);
    *out = th;
    return n;
}

void model_loss_totals(const rec_model *m, struct model_loss_sum *out) {
    *out = (struct model_loss_sum){0, 0, 0, 0, 0};
    for (size_t i = 0; i < m->n_recs; i++) {
        out->overwritten = rec_sat_add(out->overwritten, m->recs[i].overwritten);
        out->history = rec_sat_add(out->history, m->recs[i].history);
        out->dropped = rec_sat_add(out->dropped, m->recs[i].dropped);
        out->bad = rec_sat_add(out->bad, m->recs[i].bad);
        out->unmatched += m->recs[i].unmatched;
    }
}

/* ---- per-thread seconds and series ---------------------------------------- */

struct sec_slot *model_sec_at(struct trec *r, int64_t sec) {
    struct sec_slot *ss = &r->secs[((sec % 60) + 60) % 60];
    if (ss->sec != sec) {
        if (ss->sec != INT64_MIN && ss->sec > sec) return NULL;   /* older than the ring */
        ss->sec = sec;
        ss->busy_ns = 0;
        ss->wait_ns = 0;
        ss->gap_ns = 0;
        ss->events = 0;
    }
    return ss;
}

int model_series_of(rec_model *m, int tid) {
    if (tid == -1) return 0;
    uint64_t *v = u64map_get(&m->series_idx, (uint64_t)(uint32_t)tid);
    return v ? (int)*v : -1;
}
