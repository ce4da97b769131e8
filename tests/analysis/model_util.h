/*
 * model_util.h -- building models from hand-written event sequences for
 * the analysis tests.  Ticks are nanoseconds (ticks_per_sec = 1e9,
 * ticks0 = 0), and string ids index a small table of names.
 */
#ifndef RECORDER_TEST_MODEL_UTIL_H
#define RECORDER_TEST_MODEL_UTIL_H

#include <string.h>

#include "recorder/analysis.h"

/* Name table: id i -> names[i]; ids from 8 up, so that 0..2 keep their
 * special meanings. */
static const char *tu_names[64];
static unsigned tu_n_names = 8;

static inline const char *tu_string(void *ctx, uint32_t id) {
    (void)ctx;
    return id < tu_n_names ? tu_names[id] : NULL;
}

static inline uint32_t tu_id(const char *name) {
    for (unsigned i = 8; i < tu_n_names; i++)
        if (!strcmp(tu_names[i], name)) return i;
    tu_names[tu_n_names] = name;
    return tu_n_names++;
}

/* wait_scopes: the wait names ("" for none: the environment's
 * RECORDER_WAIT_SCOPES must not change what a test sees). */
static inline rec_model *tu_model_waits(int keep_log, size_t max_events, const char *wait_scopes) {
    struct rec_source_info src;
    memset(&src, 0, sizeof src);
    src.pid = 4242;
    strcpy(src.process_name, "unit");
    src.ticks_per_sec = 1e9;
    struct rec_model_opts o = {max_events, keep_log, wait_scopes};
    return rec_model_new(&src, tu_string, NULL, &o);
}

static inline rec_model *tu_model(int keep_log, size_t max_events) { return tu_model_waits(keep_log, max_events, ""); }

static inline struct rec_event tu_ev(unsigned type, uint64_t t, const char *name) {
    struct rec_event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.ticks = t;
    if (name) e.name_id = tu_id(name);
    return e;
}

static inline void tu_feed1(rec_model *m, uint32_t slot, struct rec_event e) { rec_model_feed(m, slot, &e, 1, NULL); }

static inline void tu_start(rec_model *m, uint32_t slot, uint64_t t, int tid, uint32_t gen) {
    struct rec_event e = tu_ev(REC_EV_THREAD_START, t, NULL);
    e.tid = tid;
    e.gen = gen;
    tu_feed1(m, slot, e);
}

#define TU_B(m, slot, t, name) tu_feed1((m), (slot), tu_ev(REC_EV_BEGIN, (t), (name)))
#define TU_E(m, slot, t, name) tu_feed1((m), (slot), tu_ev(REC_EV_END, (t), (name)))
#define TU_E0(m, slot, t) tu_feed1((m), (slot), tu_ev(REC_EV_END, (t), NULL))

/* A completed slice [b, e] of a scope name on a slot. */
static inline void tu_span(rec_model *m, uint32_t slot, uint64_t b, uint64_t e, const char *name) {
    TU_B(m, slot, b, name);
    TU_E(m, slot, e, name);
}

/* The n-th slice item of a thread (by tid) in rec_model_items order, or NULL. */
static inline const struct rec_item *tu_slice(rec_model *m, int tid, size_t nth) {
    const struct rec_item *it;
    size_t n = rec_model_items(m, &it);
    for (size_t i = 0; i < n; i++)
        if (it[i].kind == REC_ITEM_SLICE && it[i].tid == tid && nth-- == 0) return &it[i];
    return NULL;
}

static inline const struct rec_stat *tu_stat(const struct rec_stat *st, size_t n, const char *name) {
    for (size_t i = 0; i < n; i++)
        if (!strcmp(st[i].name, name)) return &st[i];
    return NULL;
}

#define NEAR(a, b, rel) ((a) >= (b) * (1 - (rel)) - 1e-9 && (a) <= (b) * (1 + (rel)) + 1e-9)

#endif
