/*
 * json_write.h -- the JSON exporter's state, shared by json_events.c (how
 * each event, name and thread is written) and export_json.c (what the
 * streaming core hands over, flows, the file's start and end).
 */
#ifndef REC_ANALYSIS_JSON_WRITE_H
#define REC_ANALYSIS_JSON_WRITE_H

#include "export_stream.h"
#include "outbuf.h"

/* Internal to librecorder: not exported from the shared library. */
#pragma GCC visibility push(hidden)

#define NAME_CACHE 4096          /* direct-mapped: name id -> its "name":"..." */
#define FLOW_STARTS_MAX ((size_t)1 << 18)   /* per generation of the start table */

/* Per record (the model being exported). */
struct jrec {
    int tid;
    uint8_t prefix_len;       /* 0: not set up yet */
    uint8_t named;            /* its M events are written */
    uint8_t waiting;          /* its next item is a flow waiting for its start */
    char prefix[45];          /* "pid":P,"tid":T, */
    uint32_t pending;         /* frames whose B is deferred (window) */
    uint64_t wait_next;       /* next record waiting on the same id, + 1 */
    uint64_t wait_id;
    int64_t wait_ts;
};

/* flow id -> value, with UINT64_MAX (u64map's empty key) kept aside */
struct idmap {
    struct u64map map;
    int has_max;
    uint64_t max_val;
};

struct jctx {
    struct xs *x;
    rec_model *m, *plan;
    struct outbuf ob;
    int first;
    uint32_t cache_id[NAME_CACHE];
    char *cache_frag[NAME_CACHE];
    uint32_t cache_len[NAME_CACHE];
    char *cache_sfrag[NAME_CACHE];         /* the same for a slice: a Python scope's name and args */
    uint32_t cache_slen[NAME_CACHE];
    char *args[32];           /* per flag set: ,"cat":"..." */
    uint32_t args_len[32];
    char **temp;              /* fragments of unresolved names, freed at the end */
    size_t n_temp, cap_temp;
    int *plan_tid;            /* per plan record */
    uint8_t *plan_named;
    size_t plan_n;
    int process_named;
    struct jrec *jr;
    size_t njr;
    struct idmap starts[2];   /* flow id -> earliest start written (ns from t0); two generations */
    int cur;
    struct idmap waiters;     /* flow id -> first waiting record + 1 */
    size_t n_waiting;
    int64_t end;              /* the trace's end (now), ns */
    struct rec_export_counts c;
};

/* json_events.c */
uint64_t *idmap_get(struct idmap *m, uint64_t id);
uint64_t *idmap_put(struct idmap *m, uint64_t id, int *isnew);
void idmap_clear(struct idmap *m);
void build_args(struct jctx *c);
int assign_tids(struct jctx *c);
struct jrec *jrec_of(struct jctx *c, uint32_t rec);
void set_prefix(struct jctx *c, struct jrec *j, int tid);
void write_names(struct jctx *c, const struct jrec *j, const char *name, int64_t sort);
struct jrec *thread_of(struct jctx *c, uint32_t rec);
/* A B; with msg, a GPU slice's with its "args" instant folded in (NULL: none). */
void ev_b_args(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab, const char *msg);
static inline void ev_b(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab) {
    ev_b_args(c, j, t, name_id, ab, NULL);
}
void ev_e(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab);
/* An E with its scope's arguments (REC_ARG) in "args". */
void ev_e_args(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab, const struct xarg *a,
               uint32_t n);
void ev_point(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab);
void ev_instant(struct jctx *c, const struct jrec *j, const struct xitem *it, const char *msg);
void ev_counter(struct jctx *c, const struct jrec *j, const struct xitem *it);
void ev_flow(struct jctx *c, const struct jrec *j, const struct xitem *it);
void ev_loss(struct jctx *c, const struct jrec *j, const struct xitem *it);
void ev_late_flags(struct jctx *c, const struct jrec *j, const struct xframe *f);
/* otherData (or, for a part of several, this source's share of it); 0 or -1. */
int write_other(struct jctx *c, const struct rec_export_opts *opt);

#pragma GCC visibility pop

#endif
