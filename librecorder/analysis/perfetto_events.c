/*
 * perfetto_events.c -- how the Perfetto exporter encodes each thing: the
 * clock snapshot, track descriptors, a sequence's start, interned names
 * and categories, every kind of event, and the statistics.
 * export_perfetto.c decides what is written when; a Python scope's short
 * name and args are perfetto_pyargs.c's.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "grow.h"
#include "perfetto_write.h"

/* ---- times, tracks, names ------------------------------------------------------ */

/* Text as valid UTF-8 (protobuf strings must be), at most max bytes of s. */
static size_t clean(char *dst, const char *s, size_t max) {
    return utf8_sanitize(dst, s, strnlen(s, max));
}

uint8_t *pf_da_uint(uint8_t *p, const char *name, uint64_t v) {
    uint8_t *m;
    p = pb_open(p, TE_ANNOTATIONS, &m);
    p = pb_bytes(p, DA_NAME, name, strlen(name));
    return pb_close(pb_uint(p, DA_UINT, v), m);
}

uint8_t *pf_da_int(uint8_t *p, const char *name, int64_t v) {
    uint8_t *m;
    p = pb_open(p, TE_ANNOTATIONS, &m);
    p = pb_bytes(p, DA_NAME, name, strlen(name));
    return pb_close(pb_int(p, DA_INT, v), m);
}

uint8_t *pf_da_double(uint8_t *p, const char *name, double v) {
    uint8_t *m;
    p = pb_open(p, TE_ANNOTATIONS, &m);
    p = pb_bytes(p, DA_NAME, name, strlen(name));
    return pb_close(pb_double(p, DA_DOUBLE, isfinite(v) ? v : 0), m);
}

/* A string annotation; s is cleaned (needs 3 * PF_NAME_MAX of room). */
uint8_t *pf_da_str(uint8_t *p, const char *name, const char *s, size_t n) {
    uint8_t *m, *v;
    p = pb_open(p, TE_ANNOTATIONS, &m);
    p = pb_bytes(p, DA_NAME, name, strlen(name));
    p = pb_open(p, DA_STRING, &v);
    p += utf8_sanitize((char *)p, s, n < PF_NAME_MAX ? n : PF_NAME_MAX);
    return pb_close(pb_close(p, v), m);
}

void pf_describe_thread(struct pctx *c, uint64_t uuid, int tid, const char *name) {
    uint8_t *pk, *d, *t, *s;
    uint8_t *p = pf_pk_open(c, PF_ROOM, &pk);
    p = pb_uint(p, TP_SEQ_ID, c->seq_base + PF_SEQ_META);
    p = pb_open(p, TP_TRACK_DESC, &d);
    p = pb_uint(p, 1, uuid);
    p = pb_open(p, 4, &t);             /* ThreadDescriptor: pid, tid, thread_name */
    p = pb_int(p, 1, c->pid);
    p = pb_int(p, 2, tid);
    p = pb_open(p, 5, &s);
    p += name[0] ? clean((char *)p, name, sizeof c->m->recs[0].name) : clean((char *)p, "thread", 6);
    p = pb_close(pb_close(pb_close(p, s), t), d);
    pf_pk_close(c, p, pk);
    c->c.threads++;
}

/* A lane that is not a thread (a GPU stream or device, NVTX ranges): a
 * track of its own named for it, child of the process's track. */
void pf_describe_lane(struct pctx *c, uint64_t uuid, const char *name) {
    uint8_t *pk, *d, *s;
    uint8_t *p = pf_pk_open(c, PF_ROOM, &pk);
    p = pb_uint(p, TP_SEQ_ID, c->seq_base + PF_SEQ_META);
    p = pb_open(p, TP_TRACK_DESC, &d);
    p = pb_uint(pb_uint(p, 1, uuid), 5, c->puuid);   /* uuid, parent_uuid */
    p = pb_open(p, 2, &s);
    p += name[0] ? clean((char *)p, name, sizeof c->m->recs[0].name) : clean((char *)p, "lane", 4);
    p = pb_close(pb_close(p, s), d);
    pf_pk_close(c, p, pk);
    c->c.threads++;
}

/* pf_prec's first call for a record: its state made, its thread
 * described (a thread the plan did not describe gets its track now). */
struct prec *pf_prec_new(struct pctx *c, uint32_t rec) {
    struct prec *pr = grow_zeroed(c->pr, &c->npr, sizeof *pr, rec, 64);
    if (!pr) {
        c->x->oom = 1;
        return NULL;
    }
    c->pr = pr;
    struct prec *P = &pr[rec];
    if (!P->uuid) {
        long pl = xs_plan_rec(c->m, c->plan, rec);
        if (pl >= 0 && c->plan_uuid[pl]) {
            P->uuid = c->plan_uuid[pl];
        } else {
            int tid = pl >= 0 ? c->plan_tid[pl] : SYNTH_TID_BASE + (int)c->plan_n + (int)rec;
            P->uuid = pf_uuid(c, 1, pl >= 0 ? (uint64_t)pl : c->plan_n + rec);
            if (c->m->recs[rec].lane_kind != REC_LANE_THREAD) pf_describe_lane(c, P->uuid, c->m->recs[rec].name);
            else pf_describe_thread(c, P->uuid, tid, c->m->recs[rec].name);
        }
    }
    return P;
}

/* The first packet of rec's sequence, or of a fresh start of it: the
 * incremental state cleared, clock 64 from MONOTONIC at `base`, defaults. */
static __attribute__((noinline)) void seq_start(struct pctx *c, uint32_t rec, struct prec *P, int64_t base) {
    uint8_t *pk, *cs, *k, *d, *e;
    if (P->gen) {   /* a fresh start: the interned names go */
        c->interned -= P->iid.n;
        u64map_free(&P->iid);
    }
    P->gen = c->gen;
    P->next_iid = 1;
    P->cats = 0;
    P->da_names = 0;
    P->last = base;
    uint64_t a = pf_abs_ns(c, base);
    uint8_t *p = pf_pk_open(c, 256, &pk);
    p = pb_uint(p, TP_SEQ_ID, c->seq_base + 2 + rec);
    p = pb_uint(p, TP_SEQ_FLAGS, 1);   /* SEQ_INCREMENTAL_STATE_CLEARED */
    p = pb_uint(p, TP_TIMESTAMP, a);
    p = pb_uint(p, TP_CLOCK_ID, PF_CLOCK_MONO);
    p = pb_open(p, TP_CLOCK_SNAPSHOT, &cs);
    p = pb_open(p, 1, &k);
    p = pb_close(pb_uint(pb_uint(p, 1, PF_CLOCK_MONO), 2, a), k);
    p = pb_open(p, 1, &k);
    p = pb_close(pb_uint(pb_uint(pb_uint(p, 1, PF_CLOCK_INC), 2, a), 3, 1), k);   /* is_incremental */
    p = pb_close(p, cs);
    p = pb_open(p, TP_DEFAULTS, &d);
    p = pb_uint(p, TP_CLOCK_ID, PF_CLOCK_INC);
    p = pb_open(p, 11, &e);            /* track_event_defaults.track_uuid */
    p = pb_close(pb_close(pb_uint(p, 11, P->uuid), e), d);
    pf_pk_close(c, p, pk);
}

/* Past the interning budget every sequence starts afresh (when it next
 * writes), so that memory stays bounded whatever the names. */
static __attribute__((noinline)) void intern_reset(struct pctx *c) {
    for (size_t i = 0; i < c->npr; i++) u64map_free(&c->pr[i].iid);
    c->interned = 0;
    c->gen++;
}

/* A name rec's sequence has not published: its EventName, if its text is
 * final (published by the source); otherwise it goes as a plain string
 * (*iid stays 0).  *in: the InternedData opened for it. */
static __attribute__((noinline)) uint8_t *intern_name(struct pctx *c, struct prec *P, uint8_t *p, uint32_t name_id, uint64_t *iid,
                            uint8_t **in) {
    uint32_t local = model_name(c->m, name_id);
    const char *text = c->m->names[local].text;
    if (!text) return p;
    int isnew;
    uint64_t *v = u64map_put(&P->iid, name_id, &isnew);
    if (!v) return p;   /* out of memory: as a plain string */
    const struct pyname *py = pf_py_of(c, local);
    *iid = P->next_iid++;
    *v = *iid | (py ? PF_IID_PY : 0);
    c->name_py = py != NULL;
    c->interned++;
    uint8_t *en, *s;
    p = pb_open(p, TP_INTERNED, in);
    p = pb_open(p, 2, &en);   /* InternedData.event_names: EventName {iid, name} */
    p = pb_open(pb_uint(p, 1, *iid), 2, &s);
    p += pf_shown_name((char *)p, text, py);
    return pb_close(pb_close(p, s), en);
}

/* A category (flag bits) rec's sequence has not published: its EventCategory. */
static __attribute__((noinline)) uint8_t *intern_cat(struct prec *P, uint8_t *p, unsigned cat, uint8_t **in) {
    uint8_t *en, *s;
    P->cats |= 1u << cat;
    if (!*in) p = pb_open(p, TP_INTERNED, in);
    p = pb_open(p, 1, &en);   /* event_categories: EventCategory {iid = the bits, name} */
    p = pb_open(pb_uint(p, 1, cat), 2, &s);
    p += flag_list((char *)p, cat);
    return pb_close(pb_close(p, s), en);
}

/* Opens an event packet of rec at t: sequence, time, and interned data
 * for name (model name id, or UINT32_MAX for none) and category cat (flag
 * bits, 0 for none).  *iid: the name's iid, 0 if it goes as a string. */
static inline __attribute__((always_inline)) uint8_t *ev_open(struct pctx *c, uint32_t rec, struct prec *P,
                                                              int64_t t, uint32_t name_id, unsigned cat,
                                                              uint64_t *iid, uint8_t **pk) {
    if (c->interned >= PF_INTERN_MAX) intern_reset(c);
    if (P->gen != c->gen) seq_start(c, rec, P, P->gen ? P->last : t);
    uint8_t *p = pf_pk_open(c, PF_ROOM, pk);
    if (t >= P->last) {
        p = pb_uint(p, TP_TIMESTAMP, (uint64_t)(t - P->last));
        P->last = t;
    } else {
        p = pb_uint(pb_uint(p, TP_TIMESTAMP, pf_abs_ns(c, t)), TP_CLOCK_ID, PF_CLOCK_MONO);
    }
    p = pb_uint(p, TP_SEQ_ID, c->seq_base + 2 + rec);
    *iid = 0;
    c->name_py = 0;
    uint8_t *in = NULL;
    if (name_id != UINT32_MAX) {
        /* Interned by the source's string id: one lookup for a name the
         * sequence has published (with its Python bit), the model's name
         * table only for a new one. */
        const uint64_t *v = u64map_get(&P->iid, name_id);
        if (v) {
            *iid = *v & ~PF_IID_PY;
            c->name_py = (*v & PF_IID_PY) != 0;
        } else {
            p = intern_name(c, P, p, name_id, iid, &in);
        }
    }
    if (cat && !(P->cats & (1u << cat))) p = intern_cat(P, p, cat, &in);
    /* The Python args' names, once per sequence, with a Python scope's. */
    if (c->want_da && c->name_py && !P->da_names) p = pf_intern_da(P, p, &in);
    if (in) p = pb_close(p, in);
    return p;
}

/* The TrackEvent's name: its iid, or the text of a name not published yet. */
static uint8_t *te_name_text(struct pctx *c, uint8_t *p, uint32_t name_id) {
    uint8_t *s;
    p = pb_open(p, TE_NAME, &s);
    p += clean((char *)p, model_name_text(c->m, model_name(c->m, name_id)), PF_NAME_MAX);
    return pb_close(p, s);
}

static inline uint8_t *te_name(struct pctx *c, uint8_t *p, uint32_t name_id, uint64_t iid) {
    return iid ? pb_uint(p, TE_NAME_IID, iid) : te_name_text(c, p, name_id);
}

static uint8_t *te_lit_name(uint8_t *p, const char *name) { return pb_bytes(p, TE_NAME, name, strlen(name)); }

/* ---- events ---------------------------------------------------------------------- */

/* A begin's name when it is not the common case (an interned name that
 * is not a Python scope's): a Python scope's shows short, and its file
 * and line are args, as in the JSON (pyname.c): interned once split, or
 * split here for a name not published yet (as its text goes each time).
 * Out of line: its buffers would cost every begin the stack check. */
static __attribute__((noinline)) uint8_t *te_name_rare(struct pctx *c, struct prec *P, uint8_t *p,
                                                       uint32_t name_id, uint64_t iid) {
    struct pyname tmp;
    const struct pyname *py = NULL;
    if (iid) {   /* the model's name table only for a Python scope's */
        if (c->name_py) py = pf_py_of(c, model_name(c->m, name_id));
        p = pb_uint(p, TE_NAME_IID, iid);
    } else {
        const char *text = model_name_text(c->m, model_name(c->m, name_id));
        size_t n = strnlen(text, PF_NAME_MAX);
        if (pyname_split(text, n, &tmp)) py = &tmp;
        uint8_t *s;
        p = pb_open(p, TE_NAME, &s);
        p += pf_shown_name((char *)p, text, py);
        p = pb_close(p, s);
    }
    if (py && iid && P->da_names) {   /* the names interned (ev_open) */
        p = pf_py_args_iid(p, py);
    } else if (py) {
        if (py->kind == PYNAME_LINE) p = pf_da_str(p, "function", py->func, py->func_len);
        p = pf_da_uint(pf_da_str(p, "file", py->file, py->file_len), "line", py->line);
    }
    return p;
}

static inline __attribute__((always_inline)) void slice_event(struct pctx *c, uint32_t rec, struct prec *P,
                                                              int type, int64_t t, uint32_t name_id, unsigned ab) {
    uint64_t iid;
    uint8_t *pk, *te;
    /* A published Python name: its args' names are interned with it. */
    c->want_da = type != TYPE_SLICE_END;
    uint8_t *p = ev_open(c, rec, P, t, type == TYPE_SLICE_END ? UINT32_MAX : name_id, ab, &iid, &pk);
    c->want_da = 0;
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = pb_uint(p, TE_TYPE, (uint64_t)type);
    if (type != TYPE_SLICE_END) {
        if (ab) p = pb_uint(p, TE_CATEGORY_IIDS, ab);
        if (iid && !c->name_py) p = pb_uint(p, TE_NAME_IID, iid);
        else p = te_name_rare(c, P, p, name_id, iid);
    }
    pf_pk_close(c, pb_close(p, te), pk);
    if (type == TYPE_SLICE_END) c->c.slices++;
    else if (type == TYPE_INSTANT) c->c.instants++;
}

/* A begin and an end: each compiled with its type known (the two that
 * make nearly every event). */
void pf_slice_begin(struct pctx *c, uint32_t rec, struct prec *P, int64_t t, uint32_t name_id, unsigned ab) {
    slice_event(c, rec, P, TYPE_SLICE_BEGIN, t, name_id, ab);
}

void pf_slice_end(struct pctx *c, uint32_t rec, struct prec *P, int64_t t) {
    slice_event(c, rec, P, TYPE_SLICE_END, t, UINT32_MAX, 0);
}

/* A GPU slice's begin with its "args" instant folded in (gpu_args.c), as
 * debug annotations: numbers as uint, the rest as strings. */
void pf_slice_args(struct pctx *c, uint32_t rec, struct prec *P, int64_t t, uint32_t name_id, unsigned ab,
                   const char *msg) {
    uint64_t iid;
    uint8_t *pk, *te;
    uint8_t *p = ev_open(c, rec, P, t, name_id, ab, &iid, &pk);
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = pb_uint(p, TE_TYPE, TYPE_SLICE_BEGIN);
    if (ab) p = pb_uint(p, TE_CATEGORY_IIDS, ab);
    p = te_name(c, p, name_id, iid);
    struct gpu_arg a[GPU_ARGS_MAX];
    int n = gpu_args_parse(msg, a, GPU_ARGS_MAX);
    if (n == 0) p = pf_da_str(p, "msg", msg, strlen(msg));
    for (int i = 0; i < n; i++) {
        char k[GPU_ARG_KEY_MAX];
        memcpy(k, a[i].k, a[i].kl);
        k[a[i].kl] = 0;
        if (a[i].num) p = pf_da_uint(p, k, strtoull(a[i].v, NULL, 10));
        else p = pf_da_str(p, k, a[i].v, a[i].vl);
    }
    pf_pk_close(c, pb_close(p, te), pk);
}

/* A slice's end with its scope's arguments (REC_ARG) as debug
 * annotations (Perfetto merges an end's into its slice); without any, the
 * plain end (pf_slice_end). */
void pf_slice_end_args(struct pctx *c, uint32_t rec, struct prec *P, int64_t t, const struct xarg *a, uint32_t n) {
    if (n == 0) {
        pf_slice_end(c, rec, P, t);
        return;
    }
    uint64_t iid;
    uint8_t *pk, *te;
    uint8_t *p = ev_open(c, rec, P, t, UINT32_MAX, 0, &iid, &pk);
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = pb_uint(p, TE_TYPE, TYPE_SLICE_END);
    for (uint32_t i = 0; i < n && i < XS_ARGS_MAX; i++) {
        size_t kl;
        char kb[XS_ARG_KEY_BUF];
        const char *k = xs_arg_key(c->x, a, i, kb, &kl);
        char key[3 * XS_ARG_KEY_BUF + 1];   /* a key is any bytes: cleaned */
        key[utf8_sanitize(key, k, kl)] = 0;
        p = pf_da_str(p, key, a[i].val, strlen(a[i].val));
    }
    pf_pk_close(c, pb_close(p, te), pk);
    c->c.slices++;
}

void pf_instant(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it, const char *msg) {
    uint64_t iid;
    uint8_t *pk, *te;
    uint8_t *p = ev_open(c, rec, P, it->b, it->name_id, 0, &iid, &pk);
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = te_name(c, pb_uint(p, TE_TYPE, TYPE_INSTANT), it->name_id, iid);
    if (msg[0]) p = pf_da_str(p, "msg", msg, strlen(msg));
    pf_pk_close(c, pb_close(p, te), pk);
    c->c.instants++;
}

/* Counters are per process (as in the JSON): one counter track per name,
 * described when first used. */
void pf_counter(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it) {
    uint32_t local = model_name(c->m, it->name_id);
    int isnew;
    uint64_t *k = u64map_put(&c->counters, local, &isnew);
    if (!k) {
        c->x->oom = 1;
        return;
    }
    if (isnew) {
        *k = c->ncounters++;
        uint8_t *pk, *d, *s;
        uint8_t *p = pf_pk_open(c, PF_ROOM, &pk);
        p = pb_uint(p, TP_SEQ_ID, c->seq_base + PF_SEQ_META);
        p = pb_open(p, TP_TRACK_DESC, &d);
        p = pb_uint(pb_uint(p, 1, pf_uuid(c, 2, *k)), 5, c->puuid);   /* uuid, parent_uuid */
        p = pb_open(p, 2, &s);
        p += clean((char *)p, model_name_text(c->m, local), PF_NAME_MAX);
        p = pb_close(p, s);
        p = pb_bytes(p, 8, "", 0);   /* counter: a CounterDescriptor, defaults */
        pf_pk_close(c, pb_close(p, d), pk);
    }
    double v;
    memcpy(&v, &it->u, sizeof v);
    uint64_t iid;
    uint8_t *pk, *te;
    uint8_t *p = ev_open(c, rec, P, it->b, UINT32_MAX, 0, &iid, &pk);
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = pb_uint(pb_uint(p, TE_TYPE, TYPE_COUNTER), TE_TRACK_UUID, pf_uuid(c, 2, *k));
    /* The range test first: converting a double outside int64's range is
     * undefined (the value comes from the segment: anything). */
    if (fabs(v) < 9007199254740992.0 && v == (double)(int64_t)v) p = pb_int(p, TE_COUNTER, (int64_t)v);
    else p = pb_double(p, TE_DOUBLE_COUNTER, v);
    pf_pk_close(c, pb_close(p, te), pk);
    c->c.counters++;
}

void pf_flow(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it) {
    uint64_t iid;
    uint8_t *pk, *te;
    uint8_t *p = ev_open(c, rec, P, it->b, UINT32_MAX, 0, &iid, &pk);
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = te_lit_name(pb_uint(p, TE_TYPE, TYPE_INSTANT), "flow");
    p = pb_fixed64(p, it->flags == REC_EV_FLOW_END ? TE_TERMINATING : TE_FLOW_IDS, it->u);
    pf_pk_close(c, pb_close(p, te), pk);
    c->c.flows++;
}

void pf_loss(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it) {
    uint64_t iid;
    uint8_t *pk, *te;
    uint8_t *p = ev_open(c, rec, P, it->b, UINT32_MAX, 0, &iid, &pk);
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = pb_uint(p, TE_TYPE, TYPE_INSTANT);
    if (it->flags & REC_LOSS_NOT_KEPT) {   /* history: older than the ring when the reader attached */
        p = te_lit_name(p, "recorder: older entries not kept");
        p = pf_da_uint(p, "not_kept", it->u);
    } else {
        p = te_lit_name(p, "recorder: entries lost");
        p = pf_da_uint(pf_da_uint(p, "overwritten", it->u), "dropped", it->name_id);
    }
    pf_pk_close(c, pb_close(p, te), pk);
    c->c.instants++;
}

/* Just before the end of a slice whose begin went out before its end was
 * known: the flags it turned out to have. */
void pf_late_flags(struct pctx *c, uint32_t rec, struct prec *P, const struct xframe *f) {
    uint64_t iid;
    uint8_t *pk, *te;
    char fl[64];
    size_t n = flag_list(fl, arg_bits(f->flags));
    const char *name = model_name_text(c->m, model_name(c->m, f->name_id));
    uint8_t *p = ev_open(c, rec, P, f->e, UINT32_MAX, 0, &iid, &pk);
    p = pb_open(p, TP_TRACK_EVENT, &te);
    p = te_lit_name(pb_uint(p, TE_TYPE, TYPE_INSTANT), "recorder: flags known late");
    p = pf_da_str(pf_da_str(p, "slice", name, strlen(name)), "flags", fl, n);
    pf_pk_close(c, pb_close(p, te), pk);
    c->c.instants++;
    c->c.late_flags++;
}

static uint64_t clock_ns(clockid_t id) {
    struct timespec ts;
    if (clock_gettime(id, &ts) != 0) return 0;
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* BOOTTIME - MONOTONIC: the time this machine spent suspended, read
 * now, to the millisecond (the reads themselves differ by some ns, and
 * two exports of one source must be the same bytes). */
static uint64_t boot_offset(void) {
    uint64_t a = clock_ns(CLOCK_MONOTONIC), boot = clock_ns(CLOCK_BOOTTIME), b = clock_ns(CLOCK_MONOTONIC);
    uint64_t mid = a + (b - a) / 2;
    uint64_t off = boot > mid ? boot - mid : 0;
    return (off + 500000) / 1000000 * 1000000;
}

/* Sequence 1's first packet: MONOTONIC, BOOTTIME and REALTIME at the
 * trace start.  REALTIME is the source's own reading; BOOTTIME is
 * MONOTONIC plus the offset between the two now (the time this machine
 * spent suspended since the trace was recorded is not known). */
void pf_clock_snapshot(struct pctx *c) {
    int64_t t0 = c->x->t0;
    uint64_t mono = pf_abs_ns(c, t0);
    uint64_t off = boot_offset();
    int64_t real = (int64_t)c->m->src.real_ns0 + t0;
    uint8_t *pk, *cs, *k;
    uint8_t *p = pf_pk_open(c, 256, &pk);
    p = pb_uint(p, TP_SEQ_ID, c->seq_base + PF_SEQ_META);
    p = pb_uint(p, TP_SEQ_FLAGS, 1);
    p = pb_uint(pb_uint(p, TP_TIMESTAMP, mono), TP_CLOCK_ID, PF_CLOCK_MONO);
    p = pb_open(p, TP_CLOCK_SNAPSHOT, &cs);
    p = pb_open(p, 1, &k);
    p = pb_close(pb_uint(pb_uint(p, 1, PF_CLOCK_MONO), 2, mono), k);
    p = pb_open(p, 1, &k);
    p = pb_close(pb_uint(pb_uint(p, 1, PF_CLOCK_BOOT), 2, mono + off), k);
    if (c->m->src.real_ns0 && real > 0) {
        p = pb_open(p, 1, &k);
        p = pb_close(pb_uint(pb_uint(p, 1, PF_CLOCK_REAL), 2, (uint64_t)real), k);
    }
    pf_pk_close(c, pb_close(p, cs), pk);
}

void pf_describe_process(struct pctx *c) {
    const char *pn = c->m->src.process_name[0] ? c->m->src.process_name : "process";
    char name[sizeof c->m->src.process_name];
    snprintf(name, sizeof name, "%.*s", (int)sizeof name - 1, pn);
    uint8_t *pk, *d, *pd, *s;
    uint8_t *p = pf_pk_open(c, 1024, &pk);
    p = pb_uint(p, TP_SEQ_ID, c->seq_base + PF_SEQ_META);
    p = pb_open(p, TP_TRACK_DESC, &d);
    p = pb_uint(p, 1, c->puuid);
    p = pb_open(p, 3, &pd);   /* ProcessDescriptor: pid, process_name */
    p = pb_int(p, 1, c->pid);
    p = pb_open(p, 6, &s);
    p += clean((char *)p, name, sizeof name);
    pf_pk_close(c, pb_close(pb_close(pb_close(p, s), pd), d), pk);
}


/* ---- statistics -------------------------------------------------------------------
 * What the JSON keeps in otherData, where Perfetto's UI shows it: the
 * arguments of an instant "recorder: statistics" on the process track at
 * the trace's end (totals), and of "recorder: thread statistics" on each
 * thread's track (the process's for a thread the file does not show).
 * Sequence 1, absolute times; they are not counted as instants. */
static uint8_t *stat_open(struct pctx *c, int64_t t, uint64_t track, const char *name, uint8_t **pk, uint8_t **te) {
    uint8_t *p = pf_pk_open(c, PF_ROOM, pk);
    p = pb_uint(p, TP_SEQ_ID, c->seq_base + PF_SEQ_META);
    p = pb_uint(pb_uint(p, TP_TIMESTAMP, pf_abs_ns(c, t)), TP_CLOCK_ID, PF_CLOCK_MONO);
    p = pb_open(p, TP_TRACK_EVENT, te);
    p = pb_uint(pb_uint(p, TE_TYPE, TYPE_INSTANT), TE_TRACK_UUID, track);
    return te_lit_name(p, name);
}

void pf_write_stats(struct pctx *c, const struct rec_export_opts *o) {
    rec_model *m = c->m;
    struct model_loss_sum sum;
    model_loss_totals(m, &sum);
    const uint64_t over = sum.overwritten, drop = sum.dropped, bad = sum.bad, unmatched = sum.unmatched,
                   hist = sum.history;
    c->c.overwritten = over;
    c->c.dropped = drop;
    c->c.bad = bad;
    int64_t t = c->end < c->x->to ? c->end : c->x->to;
    if (t < c->x->t0) t = c->x->t0;
    uint8_t *pk, *te;
    uint8_t *p = stat_open(c, t, c->puuid, "recorder: statistics", &pk, &te);
    p = pf_da_str(p, "format", "recorder trace 1", 16);
    p = pf_da_str(p, "process", m->src.process_name, strnlen(m->src.process_name, sizeof m->src.process_name));
    p = pf_da_int(p, "pid", c->pid);
    p = pf_da_uint(p, "real_ns0", m->src.real_ns0);
    p = pf_da_uint(p, "mono_ns0", m->src.mono_ns0);
    p = pf_da_int(p, "t0_ns", c->x->t0);
    p = pf_da_int(p, "end_ns", c->end);
    p = pf_da_double(p, "last_sec", o ? o->last_sec : 0);
    p = pf_da_double(p, "from_sec", o ? o->from_sec : 0);
    p = pf_da_double(p, "to_sec", o ? o->to_sec : 0);
    p = pf_da_uint(p, "events_written", 2 * c->c.slices + c->c.instants + c->c.counters + c->c.flows);
    p = pf_da_uint(p, "slices", c->c.slices);
    p = pf_da_uint(p, "instants", c->c.instants);
    p = pf_da_uint(p, "counters", c->c.counters);
    p = pf_da_uint(p, "flows", c->c.flows);
    p = pf_da_uint(p, "threads", c->c.threads);
    p = pf_da_uint(p, "entries_not_kept", hist);
    p = pf_da_uint(p, "entries_overwritten", over);
    p = pf_da_uint(p, "entries_dropped", drop);
    p = pf_da_uint(p, "entries_bad", bad);
    p = pf_da_uint(p, "unmatched_ends", unmatched);
    p = pf_da_uint(p, "log_dropped", m->log.tap ? 0 : m->log.dropped);
    p = pf_da_uint(p, "untracked_events", m->untracked_events);
    p = pf_da_uint(p, "nonfinite_counters", m->nonfinite_counters);
    p = pf_da_uint(p, "unbound_flows", c->c.unbound_flows);
    p = pf_da_uint(p, "forced_slices", c->x->forced);
    p = pf_da_uint(p, "late_flags", c->c.late_flags);
    p = pf_da_uint(p, "too_deep_slices", c->x->too_deep);
    p = pf_da_uint(p, "args_over", c->x->args_over);
    p = pf_da_uint(p, "args_outside", c->x->args_outside);
    pf_pk_close(c, pb_close(p, te), pk);
    uint32_t *order = malloc((m->n_recs ? m->n_recs : 1) * sizeof *order);
    size_t n = order ? model_record_order(m, order) : 0;
    if (!order) c->x->oom = 1;
    for (size_t g = 0; g < n; g++) {
        uint32_t i = order[g];
        const struct trec *r = &m->recs[i];
        long pl = xs_plan_rec(m, c->plan, i);
        uint64_t track = i < c->npr && c->pr[i].uuid ? c->pr[i].uuid : pl >= 0 && c->plan_uuid[pl] ? c->plan_uuid[pl] : c->puuid;
        int tid = pl >= 0 ? c->plan_tid[pl] : SYNTH_TID_BASE + (int)c->plan_n + (int)i;
        p = stat_open(c, t, track, "recorder: thread statistics", &pk, &te);
        p = pf_da_int(p, "tid", tid);
        p = pf_da_uint(p, "slot", r->slot);
        p = pf_da_uint(p, "gen", r->gen);
        p = pf_da_str(p, "name", r->name, strnlen(r->name, sizeof r->name));
        p = pf_da_uint(p, "events", r->events);
        p = pf_da_uint(p, "not_kept", r->history);
        p = pf_da_uint(p, "overwritten", r->overwritten);
        p = pf_da_uint(p, "dropped", r->dropped);
        p = pf_da_uint(p, "bad", r->bad);
        p = pf_da_uint(p, "unmatched_ends", r->unmatched);
        p = pf_da_uint(p, "too_deep", r->too_deep);
        pf_pk_close(c, pb_close(p, te), pk);
    }
    free(order);
}
