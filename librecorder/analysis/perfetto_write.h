/*
 * perfetto_write.h -- the Perfetto exporter's state, shared by
 * perfetto_events.c (how each packet is encoded: descriptors, clocks,
 * interning, every kind of event, the statistics), perfetto_pyargs.c (a
 * Python scope's short name and args) and export_perfetto.c (what the
 * streaming core hands over, the file's start and end).
 */
#ifndef REC_ANALYSIS_PERFETTO_WRITE_H
#define REC_ANALYSIS_PERFETTO_WRITE_H

#include "export_stream.h"
#include "outbuf.h"
#include "pb_write.h"
#include "pyname.h"

#pragma GCC visibility push(hidden)

#define PF_SEQ_META 1u
#define PF_CLOCK_MONO 3u
#define PF_CLOCK_BOOT 6u
#define PF_CLOCK_REAL 1u
#define PF_CLOCK_INC 64u             /* sequence-scoped, incremental */
#define PF_INTERN_MAX ((size_t)1 << 20)
#define PF_NAME_MAX 1024u            /* REC_STR_MAXLEN: longer names are cut */
/* Any one event packet fits: a slice's begin holds its interned name and,
 * for a Python scope, its file (and function) as args (pyname.c), each a
 * part of a name of at most PF_NAME_MAX bytes, cleaned (3 bytes a byte at
 * worst), the file twice in a line's. */
#define PF_ROOM (8 * PF_NAME_MAX + 512)

/* TracePacket */
enum { TP_PACKET = 1, TP_CLOCK_SNAPSHOT = 6, TP_TIMESTAMP = 8, TP_SEQ_ID = 10, TP_TRACK_EVENT = 11,
       TP_INTERNED = 12, TP_SEQ_FLAGS = 13, TP_CLOCK_ID = 58, TP_DEFAULTS = 59, TP_TRACK_DESC = 60,
       TP_MACHINE_ID = 98 };
/* TrackEvent */
enum { TE_CATEGORY_IIDS = 3, TE_ANNOTATIONS = 4, TE_TYPE = 9, TE_NAME_IID = 10, TE_TRACK_UUID = 11,
       TE_NAME = 23, TE_COUNTER = 30, TE_DOUBLE_COUNTER = 44, TE_FLOW_IDS = 47, TE_TERMINATING = 48 };
enum { TYPE_SLICE_BEGIN = 1, TYPE_SLICE_END = 2, TYPE_INSTANT = 3, TYPE_COUNTER = 4 };
/* DebugAnnotation */
enum { DA_NAME_IID = 1, DA_UINT = 3, DA_INT = 4, DA_DOUBLE = 5, DA_STRING = 6, DA_NAME = 10 };
/* A Python scope's args (pyname.c), their names interned once per
 * sequence (InternedData.debug_annotation_names) with these iids. */
enum { PF_DA_FILE = 1, PF_DA_LINE = 2, PF_DA_FUNCTION = 3 };

/* A name's iid in prec.iid carries this bit when the name is a Python
 * scope's (py_of): a begin of an interned name then needs no lookup in
 * the model's name table to know whether it has args. */
#define PF_IID_PY (UINT64_C(1) << 63)

struct prec {                 /* per record of the model written */
    uint64_t uuid;            /* its thread track; 0 until described */
    struct u64map iid;        /* string id -> iid on its sequence (names published) */
    int64_t last;             /* the incremental clock: last time written, ns */
    uint64_t next_iid;
    uint32_t cats;            /* categories interned (bit = flag set) */
    uint32_t da_names;        /* the Python args' names interned (PF_DA_*) on its sequence */
    uint32_t gen;             /* pctx.gen when its sequence (re)started; 0 never */
    uint32_t pending;         /* frames whose begin is deferred (window) */
};

struct pctx {
    struct xs *x;
    rec_model *m, *plan;
    struct outbuf ob;
    int *plan_tid;
    uint64_t *plan_uuid;      /* thread tracks described from the plan, 0 if not */
    size_t plan_n;
    struct prec *pr;
    size_t npr;
    struct u64map counters;   /* model name (local) -> counter track number */
    uint64_t ncounters;
    uint32_t gen;
    size_t interned;
    uint64_t mono0;           /* CLOCK_MONOTONIC at model time 0 */
    int pid;
    uint32_t seq_base;        /* sequences of this source: seq_base + 1 (metadata), seq_base + 2 + record */
    uint64_t puuid;
    int64_t end;
    int want_da;              /* the event being opened carries a Python scope's args */
    uint32_t machine;         /* the source's machine (recorder/machine.h), 0 unknown */
    uint8_t mach[8];          /* TracePacket.machine_id as encoded on every packet; */
    uint8_t mach_len;         /* 0 bytes when unknown */
    int name_py;              /* ev_open's name is a Python scope's (PF_IID_PY) */
    struct rec_export_counts c;
};

static inline uint64_t pf_abs_ns(const struct pctx *c, int64_t t) {
    int64_t a = (int64_t)c->mono0 + t;
    return a > 0 ? (uint64_t)a : 0;
}

/* Track uuids (kind: 0 process, 1 thread, 2 counter): the pid in the high
 * half, so that traces of several processes can be merged without
 * clashes; its top 10 bits (above any Linux pid, < 2^22) XORed with the
 * machine's, so that the same pid on two machines gets other uuids too
 * (1023 times in 1024), whether or not a reader keeps uuids apart by
 * machine. */
static inline uint64_t pf_uuid(const struct pctx *c, uint32_t kind, uint64_t n) {
    uint32_t hi = (uint32_t)c->pid ^ (c->machine << 22);
    return (uint64_t)hi << 32 | (uint64_t)kind << 28 | (n & 0x0fffffffu);
}

/* A packet opened with room for need bytes, its machine_id written (when
 * known: trace processor attributes each packet by its own, a sequence
 * has no default for it; export_perfetto.c encodes it once). */
static inline uint8_t *pf_pk_open(struct pctx *c, size_t need, uint8_t **mark) {
    uint8_t *p = pb_open((uint8_t *)ob_room(&c->ob, need + sizeof c->mach), TP_PACKET, mark);
    memcpy(p, c->mach, sizeof c->mach);   /* a fixed size: one move, whatever mach_len */
    return p + c->mach_len;
}

static inline void pf_pk_close(struct pctx *c, uint8_t *p, uint8_t *mark) { c->ob.p = (char *)pb_close(p, mark); }

/* perfetto_events.c */
uint8_t *pf_da_uint(uint8_t *p, const char *name, uint64_t v);
uint8_t *pf_da_int(uint8_t *p, const char *name, int64_t v);
uint8_t *pf_da_double(uint8_t *p, const char *name, double v);
uint8_t *pf_da_str(uint8_t *p, const char *name, const char *s, size_t n);
void pf_describe_thread(struct pctx *c, uint64_t uuid, int tid, const char *name);
void pf_describe_lane(struct pctx *c, uint64_t uuid, const char *name);
void pf_describe_process(struct pctx *c);
void pf_clock_snapshot(struct pctx *c);
/* The record's state, its thread described; NULL if memory ran out. */
struct prec *pf_prec_new(struct pctx *c, uint32_t rec);
static inline struct prec *pf_prec(struct pctx *c, uint32_t rec) {
    return rec < c->npr && c->pr[rec].uuid ? &c->pr[rec] : pf_prec_new(c, rec);
}
void pf_slice_begin(struct pctx *c, uint32_t rec, struct prec *P, int64_t t, uint32_t name_id, unsigned ab);
void pf_slice_end(struct pctx *c, uint32_t rec, struct prec *P, int64_t t);
/* A slice's end: with its scope's arguments if it has any (n), else pf_slice_end's. */
void pf_slice_end_args(struct pctx *c, uint32_t rec, struct prec *P, int64_t t, const struct xarg *a, uint32_t n);
void pf_slice_args(struct pctx *c, uint32_t rec, struct prec *P, int64_t t, uint32_t name_id, unsigned ab,
                   const char *msg);
void pf_instant(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it, const char *msg);
void pf_counter(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it);
void pf_flow(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it);
void pf_loss(struct pctx *c, uint32_t rec, struct prec *P, const struct xitem *it);
void pf_late_flags(struct pctx *c, uint32_t rec, struct prec *P, const struct xframe *f);
void pf_write_stats(struct pctx *c, const struct rec_export_opts *o);

/* perfetto_pyargs.c: a Python scope's name and args (pyname.c's forms). */
const struct pyname *pf_py_split(struct pctx *c, uint32_t local);
/* A published name's Python parts, or NULL: not one of the forms.  Split
 * once per name (the check inline: it runs for every begin). */
static inline const struct pyname *pf_py_of(struct pctx *c, uint32_t local) {
    const struct name *nm = &c->m->names[local];
    if (!nm->text) return NULL;
    return nm->py_checked ? nm->py : pf_py_split(c, local);
}
/* The name a slice shows, cleaned: a Python function's qualified name, a
 * line's "file.py:LINE"; else text as recorded (py NULL). */
size_t pf_shown_name(char *dst, const char *text, const struct pyname *py);
/* The Python args' names (file, line, function) interned on P's sequence,
 * in the InternedData *in (opened here if not yet). */
uint8_t *pf_intern_da(struct prec *P, uint8_t *p, uint8_t **in);
/* py's args (file, line; a line's function) under their interned names. */
uint8_t *pf_py_args_iid(uint8_t *p, const struct pyname *py);

#pragma GCC visibility pop

#endif
