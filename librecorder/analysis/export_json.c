/*
 * export_json.c -- Perfetto / Chrome trace-event JSON.
 *
 * The rules (docs/analysis.md, "JSON export"), each because an importer
 * silently drops or mangles what breaks it:
 *   - {"traceEvents":[...], "otherData":{...}}, traceEvents first;
 *   - ts in microseconds from the trace start, at most 3 decimals, written
 *     from integer nanoseconds;
 *   - slices as B/E pairs with the same name (and category), strictly
 *     nested per thread (view.h's walker).  Not X events: importers compute
 *     ts + dur in floating point, and a child can then end a hair after its
 *     parent.  A slice of zero length is a thread instant (ev_point);
 *   - pid and tid non-negative integers; M events name the process and the
 *     threads;
 *   - instants "i" with "s":"t" and a tid; counters "C" with a numeric
 *     value; flows "s"/"t"/"f" (v1) with integer ids, cat and name
 *     "flow", "bp":"e" on the end, and only inside a slice of their thread
 *     (they bind to it; one outside any slice cannot bind and is counted);
 *   - strings escaped by json_escape; never NaN or Inf;
 *   - loss shown where it happened (an instant) and totalled in otherData.
 */
#define _GNU_SOURCE 1     /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "outbuf.h"
#include "view.h"

#define NAME_CACHE 4096          /* direct-mapped: name id -> its "name":"..." */
#define SYNTH_TID_BASE 0x7ffe0000

struct jctx {
    rec_model *m;
    struct view v;
    struct outbuf ob;
    char **prefix;            /* per record: "pid":P,"tid":T, */
    uint8_t *prefix_len;
    int *tid;                 /* per record, as exported */
    uint32_t cache_id[NAME_CACHE];
    char *cache_frag[NAME_CACHE];
    uint32_t cache_len[NAME_CACHE];
    char *args[32];           /* per flag set: ,"cat":"..." */
    uint32_t args_len[32];
    char **temp;              /* fragments of unresolved names, freed at the end */
    size_t n_temp, cap_temp;
    int first;
    uint64_t unbound_flows, events;
    struct u64map flow_start; /* flow id -> earliest bound start (ns) */
};

/* ---- fragments ---------------------------------------------------------- */

static char *escaped_field(const char *key, const char *s, uint32_t *len) {
    size_t n = strlen(s), k = strlen(key);
    char *f = malloc(k + 6 * n + 8);
    if (!f) return NULL;
    char *p = f;
    *p++ = '"';
    memcpy(p, key, k);
    p += k;
    memcpy(p, "\":\"", 3);
    p += 3;
    p += json_escape(p, s, n);
    *p++ = '"';
    *len = (uint32_t)(p - f);
    return f;
}

/* "name":"..." of a string id.  Resolved names are cached in the model;
 * a fallback ("(id N)") lives for this export only, since the string may
 * still be published later. */
static const char *name_frag(struct jctx *c, uint32_t id, uint32_t *len) {
    unsigned h = (id ^ (id >> 12)) & (NAME_CACHE - 1);
    if (c->cache_frag[h] && c->cache_id[h] == id) {
        *len = c->cache_len[h];
        return c->cache_frag[h];
    }
    rec_model *m = c->m;
    uint32_t local = model_name(m, id);
    struct name *nm = &m->names[local];
    if (!nm->json) {
        const char *text = model_name_text(m, local);
        uint32_t flen;
        char *f = escaped_field("name", text, &flen);
        if (!f) {
            *len = 14;
            return "\"name\":\"(oom)\"";
        }
        if (nm->text) {
            nm->json = f;
            nm->json_len = flen;
        } else {
            if (c->n_temp == c->cap_temp) {
                size_t nc = c->cap_temp * 2 + 8;
                char **p = realloc(c->temp, nc * sizeof *p);
                if (!p) {
                    free(f);
                    *len = 14;
                    return "\"name\":\"(oom)\"";
                }
                c->temp = p;
                c->cap_temp = nc;
            }
            c->temp[c->n_temp++] = f;
            c->cache_id[h] = id;
            c->cache_frag[h] = f;
            c->cache_len[h] = flen;
            *len = flen;
            return f;
        }
    }
    c->cache_id[h] = id;
    c->cache_frag[h] = nm->json;
    c->cache_len[h] = nm->json_len;
    *len = nm->json_len;
    return nm->json;
}

/* A slice's flags go in its category ("cat":"open,gap"), the same on its
 * B and E.  Not in args: speedscope keys frames by name and args, and
 * pairs an E with a same-named open frame first, so two nested slices of
 * one name with different args ending together would trip it. */
static const char *const flag_names[5] = {"open", "begin_lost", "end_lost", "gap", "clipped"};

static void build_args(struct jctx *c) {
    for (unsigned f = 0; f < 32; f++) {
        char buf[160], *p = buf;
        if (f) {
            p += sprintf(p, ",\"cat\":\"");
            int any = 0;
            for (int b = 0; b < 5; b++)
                if (f & (1u << b)) p += sprintf(p, "%s%s", any++ ? "," : "", flag_names[b]);
            *p++ = '"';
        }
        c->args_len[f] = (uint32_t)(p - buf);
        c->args[f] = malloc(c->args_len[f] + 1);
        if (c->args[f]) memcpy(c->args[f], buf, c->args_len[f]);
        else c->args_len[f] = 0;
    }
}

/* Internal flags to the 5 bits of the category: open, begin_lost, end_lost, gap, clipped. */
static unsigned arg_bits(unsigned fl) {
    return (fl & 0xfu) | ((fl & ITEM_CLIPPED) ? 16u : 0);
}

/* Exported tids: the record's, unless it is not a valid one or another
 * record with the same tid overlaps it in time (tids are reused, and a
 * hostile segment can claim anything): then a synthetic one. */
static int cmp_tid(const void *a, const void *b, void *ctx) {
    const struct trec *r = ctx;
    const struct trec *x = &r[*(const uint32_t *)a], *y = &r[*(const uint32_t *)b];
    if (x->tid != y->tid) return x->tid < y->tid ? -1 : 1;
    return (x->first_ns > y->first_ns) - (x->first_ns < y->first_ns);
}

static int assign_tids(struct jctx *c) {
    rec_model *m = c->m;
    size_t n = m->n_recs;
    uint32_t *idx = malloc((n ? n : 1) * sizeof *idx);
    if (!idx) return -1;
    for (size_t i = 0; i < n; i++) idx[i] = (uint32_t)i;
    qsort_r(idx, n, sizeof *idx, cmp_tid, m->recs);
    double busy_until = 0;
    for (size_t i = 0; i < n; i++) {
        const struct trec *r = &m->recs[idx[i]];
        int same = i > 0 && m->recs[idx[i - 1]].tid == r->tid;
        double close = (double)c->v.close[idx[i]];
        if (r->tid < 0 || (same && r->first_ns <= busy_until)) {
            c->tid[idx[i]] = SYNTH_TID_BASE + (int)idx[i];
            continue;
        }
        c->tid[idx[i]] = r->tid;
        busy_until = same && busy_until > close ? busy_until : close;
    }
    free(idx);
    return 0;
}

static int build_prefixes(struct jctx *c) {
    rec_model *m = c->m;
    size_t n = m->n_recs;
    c->prefix = calloc(n ? n : 1, sizeof *c->prefix);
    c->prefix_len = calloc(n ? n : 1, 1);
    c->tid = calloc(n ? n : 1, sizeof *c->tid);
    if (!c->prefix || !c->prefix_len || !c->tid || assign_tids(c) != 0) return -1;
    int pid = m->src.pid > 0 ? m->src.pid : 0;
    for (size_t i = 0; i < n; i++) {
        char buf[64], *p = buf;
        memcpy(p, "\"pid\":", 6);
        p = fmt_i64(p + 6, pid);
        memcpy(p, ",\"tid\":", 7);
        p = fmt_i64(p + 7, c->tid[i]);
        *p++ = ',';
        c->prefix_len[i] = (uint8_t)(p - buf);
        c->prefix[i] = malloc(c->prefix_len[i]);
        if (!c->prefix[i]) return -1;
        memcpy(c->prefix[i], buf, c->prefix_len[i]);
    }
    return 0;
}

/* ---- events ------------------------------------------------------------- */

/* Starts an event: the separator, {"ph":"X", and the pid/tid prefix. */
static inline char *ev_start(struct jctx *c, const char *ph, size_t phlen, uint16_t rec, size_t extra) {
    size_t need = 2 + phlen + c->prefix_len[rec] + 32 + extra;
    char *p = ob_room(&c->ob, need);
    if (!c->first) {
        *p++ = ',';
        *p++ = '\n';
    }
    c->first = 0;
    memcpy(p, ph, phlen);
    p += phlen;
    memcpy(p, c->prefix[rec], c->prefix_len[rec]);
    p += c->prefix_len[rec];
    memcpy(p, "\"ts\":", 5);
    c->events++;
    return p + 5;
}

/* An event that is a name and a slice's flags: B, E, or a zero-length
 * slice's instant (ph is the opening up to "ph"'s value). */
static void ev_named(struct jctx *c, const char *ph, size_t phlen, uint16_t rec, int64_t t, uint32_t name_id,
                     unsigned fl) {
    uint32_t nlen;
    const char *nf = name_frag(c, name_id, &nlen);
    unsigned ab = arg_bits(fl);
    char *p = ev_start(c, ph, phlen, rec, nlen + c->args_len[ab] + 4);
    p = fmt_us(p, t - c->v.t0);
    *p++ = ',';
    memcpy(p, nf, nlen);
    p += nlen;
    memcpy(p, c->args[ab], c->args_len[ab]);
    p += c->args_len[ab];
    *p++ = '}';
    c->ob.p = p;
}

static void ev_slice(struct jctx *c, int begin, uint16_t rec, int64_t t, uint32_t name_id, unsigned fl) {
    if (begin) ev_named(c, "{\"ph\":\"B\",", 10, rec, t, name_id, fl);
    else ev_named(c, "{\"ph\":\"E\",", 10, rec, t, name_id, fl);
}

static void ev_instant(struct jctx *c, const struct litem *it, int64_t t) {
    uint32_t nlen;
    const char *nf = name_frag(c, it->name_id, &nlen);
    const char *msg = elog_msg(&c->m->log, it);
    size_t ml = strlen(msg);
    char *p = ev_start(c, "{\"ph\":\"i\",\"s\":\"t\",", 18, it->rec, nlen + 6 * ml + 32);
    p = fmt_us(p, t - c->v.t0);
    *p++ = ',';
    memcpy(p, nf, nlen);
    p += nlen;
    if (ml) {
        memcpy(p, ",\"args\":{\"msg\":\"", 16);
        p += 16;
        p += json_escape(p, msg, ml);
        memcpy(p, "\"}", 2);
        p += 2;
    }
    *p++ = '}';
    c->ob.p = p;
}

/* A slice of zero length (after rounding to ns) as a thread-scoped
 * instant.  Perfetto imports that as the very same zero-length slice; as a
 * B/E pair at a time where another slice also begins, speedscope would
 * close it before opening it and complain, and it carries no time anyway. */
static void ev_point(struct jctx *c, const struct litem *it, int64_t t, unsigned fl) {
    ev_named(c, "{\"ph\":\"i\",\"s\":\"t\",", 18, it->rec, t, it->name_id, fl);
}

static void ev_counter(struct jctx *c, const struct litem *it, int64_t t) {
    uint32_t nlen;
    const char *nf = name_frag(c, it->name_id, &nlen);
    double v;
    memcpy(&v, &it->u, sizeof v);
    char *p = ev_start(c, "{\"ph\":\"C\",", 10, it->rec, nlen + 64);
    p = fmt_us(p, t - c->v.t0);
    *p++ = ',';
    memcpy(p, nf, nlen);
    p += nlen;
    memcpy(p, ",\"args\":{\"value\":", 17);
    p = fmt_double(p + 17, v);
    *p++ = '}';
    *p++ = '}';
    c->ob.p = p;
}

static void ev_flow(struct jctx *c, const struct litem *it, int64_t t) {
    const char *ph = it->flags == REC_EV_FLOW_BEGIN  ? "{\"ph\":\"s\","
                     : it->flags == REC_EV_FLOW_STEP ? "{\"ph\":\"t\","
                                                     : "{\"ph\":\"f\",\"bp\":\"e\",";
    char *p = ev_start(c, ph, strlen(ph), it->rec, 80);
    p = fmt_us(p, t - c->v.t0);
    memcpy(p, ",\"name\":\"flow\",\"cat\":\"flow\",\"id\":", 33);
    p = fmt_u64(p + 33, it->u);
    *p++ = '}';
    c->ob.p = p;
}

static void ev_loss(struct jctx *c, const struct litem *it, int64_t t) {
    char *p = ev_start(c, "{\"ph\":\"i\",\"s\":\"t\",", 18, it->rec, 128);
    p = fmt_us(p, t - c->v.t0);
    if (it->flags & REC_LOSS_NOT_KEPT) {   /* history: older than the ring when first read */
        const char hist[] = ",\"name\":\"recorder: older entries not kept\",\"args\":{\"not_kept\":";
        memcpy(p, hist, sizeof hist - 1);
        p = fmt_u64(p + sizeof hist - 1, it->u);
        *p++ = '}';
        *p++ = '}';
        c->ob.p = p;
        return;
    }
    const char mid[] = ",\"name\":\"recorder: entries lost\",\"args\":{\"overwritten\":";
    memcpy(p, mid, sizeof mid - 1);
    p = fmt_u64(p + sizeof mid - 1, it->u);
    memcpy(p, ",\"dropped\":", 11);
    p = fmt_u64(p + 11, it->name_id);
    *p++ = '}';
    *p++ = '}';
    c->ob.p = p;
}

static void ev_meta(struct jctx *c, uint16_t rec, const char *what, const char *key, const char *text,
                    int64_t num) {
    char *p = ev_start(c, "{\"ph\":\"M\",", 10, rec, 0);
    p -= 5;  /* no "ts" */
    c->ob.p = p;
    OB_LIT(&c->ob, "\"name\":\"");
    ob_write(&c->ob, what, strlen(what));
    OB_LIT(&c->ob, "\",\"args\":{\"");
    ob_write(&c->ob, key, strlen(key));
    OB_LIT(&c->ob, "\":");
    if (text) {
        ob_json_str(&c->ob, text, strlen(text));
    } else {
        p = ob_room(&c->ob, 24);
        c->ob.p = fmt_i64(p, num);
    }
    OB_LIT(&c->ob, "}}");
}

/* ---- flows ---------------------------------------------------------------
 * A flow event binds to the slice around it; one outside every slice of
 * its thread cannot, and a step or end whose start was not written (no
 * slice around it, or before --last's cut) would dangle.  A first pass
 * finds, per id, the earliest start that binds; the writing pass keeps the
 * events that bind and come after such a start. */
static int flow_ok(struct jctx *c, const struct litem *it, int64_t b, size_t depth) {
    if (!depth) return 0;
    if (it->flags == REC_EV_FLOW_BEGIN) return 1;
    /* Strictly later: at the same time, the importers' stable sort keeps
     * file order, and the start may be on a thread written after this. */
    uint64_t *s = u64map_get(&c->flow_start, it->u);
    return s && (int64_t)*s < b;
}

static int find_flow_starts(struct jctx *c, struct nest *ns) {
    const struct view *v = &c->v;
    for (size_t g = 0; g < v->nrec; g++) {
        ns->n = 0;
        for (size_t i = v->start[g]; i < v->start[g + 1]; i++) {
            const struct litem *it = view_item(v, v->off[i]);
            int64_t b, e;
            unsigned fl;
            view_span(v, it, &b, &e, &fl);
            while (nest_should_pop(ns, b, e)) ns->n--;
            e = nest_clamp(ns, e);
            if (it->kind == REC_ITEM_SLICE && e > b && nest_push(ns, b, e, it->name_id, fl) != 0) return -1;
            if (it->kind == REC_ITEM_FLOW && it->flags == REC_EV_FLOW_BEGIN && ns->n) {
                int isnew;
                uint64_t *s = u64map_put(&c->flow_start, it->u, &isnew);
                if (!s) return -1;
                if (isnew || (int64_t)*s > b) *s = (uint64_t)b;
            }
        }
    }
    return 0;
}

/* ---- one thread ----------------------------------------------------------- */

static int write_thread(struct jctx *c, size_t g, struct nest *ns) {
    const struct view *v = &c->v;
    ns->n = 0;
    for (size_t i = v->start[g]; i < v->start[g + 1]; i++) {
        const struct litem *it = view_item(v, v->off[i]);
        int64_t b, e;
        unsigned fl;
        view_span(v, it, &b, &e, &fl);
        while (nest_should_pop(ns, b, e)) {
            const struct nest_frame *f = &ns->f[--ns->n];
            ev_slice(c, 0, it->rec, f->end, f->name_id, f->flags);
        }
        e = nest_clamp(ns, e);
        switch (it->kind) {
        case REC_ITEM_SLICE:
            if (e == b) {   /* zero length: see ev_point */
                ev_point(c, it, b, fl);
                break;
            }
            ev_slice(c, 1, it->rec, b, it->name_id, fl);
            if (nest_push(ns, b, e, it->name_id, fl) != 0) return -1;
            break;
        case REC_ITEM_INSTANT: ev_instant(c, it, b); break;
        case REC_ITEM_COUNTER: ev_counter(c, it, b); break;
        case REC_ITEM_FLOW:
            if (flow_ok(c, it, b, ns->n)) ev_flow(c, it, b);
            else c->unbound_flows++;
            break;
        case REC_ITEM_LOSS: ev_loss(c, it, b); break;
        }
    }
    uint16_t rec = (uint16_t)v->order[g];
    while (ns->n) {
        const struct nest_frame *f = &ns->f[--ns->n];
        ev_slice(c, 0, rec, f->end, f->name_id, f->flags);
    }
    return 0;
}

/* ---- otherData ---------------------------------------------------------- */

static void num_field(struct outbuf *o, const char *key, uint64_t v, int comma) {
    char *p = ob_room(o, strlen(key) + 32);
    if (comma) *p++ = ',';
    *p++ = '"';
    memcpy(p, key, strlen(key));
    p += strlen(key);
    *p++ = '"';
    *p++ = ':';
    o->p = fmt_u64(p, v);
}

static void write_other(struct jctx *c, double last_sec) {
    rec_model *m = c->m;
    struct outbuf *o = &c->ob;
    uint64_t over = 0, drop = 0, bad = 0, unmatched = 0, hist = 0;
    for (size_t i = 0; i < m->n_recs; i++) {
        hist += m->recs[i].history;
        over += m->recs[i].overwritten;
        drop += m->recs[i].dropped;
        bad += m->recs[i].bad;
        unmatched += m->recs[i].unmatched;
    }
    OB_LIT(o, "\n],\n\"otherData\":{\"recorder\":{\"format\":\"recorder trace 1\",\"process\":");
    ob_json_str(o, m->src.process_name, strnlen(m->src.process_name, sizeof m->src.process_name));
    num_field(o, "pid", (uint64_t)(m->src.pid > 0 ? m->src.pid : 0), 1);
    num_field(o, "real_ns0", m->src.real_ns0, 1);
    char *p = ob_room(o, 96);
    memcpy(p, ",\"t0_ns\":", 9);
    p = fmt_i64(p + 9, c->v.t0);
    memcpy(p, ",\"last_sec\":", 12);
    c->ob.p = fmt_double(p + 12, last_sec > 0 ? last_sec : 0);
    num_field(o, "events_written", c->events, 1);
    num_field(o, "entries_not_kept", hist, 1);
    num_field(o, "entries_overwritten", over, 1);
    num_field(o, "entries_dropped", drop, 1);
    num_field(o, "entries_bad", bad, 1);
    num_field(o, "unmatched_ends", unmatched, 1);
    num_field(o, "log_dropped", m->log.dropped, 1);
    num_field(o, "untracked_events", m->untracked_events, 1);
    num_field(o, "nonfinite_counters", m->nonfinite_counters, 1);
    num_field(o, "unbound_flows", c->unbound_flows, 1);
    OB_LIT(o, ",\"threads\":[");
    for (size_t g = 0; g < c->v.nrec; g++) {
        uint32_t i = c->v.order[g];
        const struct trec *r = &m->recs[i];
        if (g) OB_LIT(o, ",");
        OB_LIT(o, "{");
        num_field(o, "tid", (uint64_t)c->tid[i], 0);
        num_field(o, "slot", r->slot, 1);
        num_field(o, "gen", r->gen, 1);
        OB_LIT(o, ",\"name\":");
        ob_json_str(o, r->name, strnlen(r->name, sizeof r->name));
        num_field(o, "events", r->events, 1);
        num_field(o, "not_kept", r->history, 1);
        num_field(o, "overwritten", r->overwritten, 1);
        num_field(o, "dropped", r->dropped, 1);
        num_field(o, "bad", r->bad, 1);
        num_field(o, "unmatched_ends", r->unmatched, 1);
        num_field(o, "too_deep", r->too_deep, 1);
        OB_LIT(o, "}");
    }
    OB_LIT(o, "]}}}\n");
}

/* ---- the export ------------------------------------------------------------ */

int rec_export_json(rec_model *m, FILE *out, const struct rec_export_opts *o) {
    double last = o ? o->last_sec : 0;
    struct jctx *c = calloc(1, sizeof *c);
    if (!c) return -1;
    c->m = m;
    c->first = 1;
    struct nest ns = {0};
    int rc = -1;
    if (view_build(m, last, &c->v) != 0) goto done;
    if (ob_init(&c->ob, out, (size_t)1 << 20) != 0) goto done;
    build_args(c);
    if (build_prefixes(c) != 0) {
        ob_finish(&c->ob);
        goto done;
    }
    OB_LIT(&c->ob, "{\"traceEvents\":[\n");
    /* Process and thread names first; records by slot and generation. */
    if (m->n_recs || m->src.process_name[0]) {
        if (m->n_recs) {
            ev_meta(c, (uint16_t)c->v.order[0], "process_name", "name",
                    m->src.process_name[0] ? m->src.process_name : "process", 0);
        }
    }
    for (size_t g = 0; g < c->v.nrec; g++) {
        uint32_t i = c->v.order[g];
        const struct trec *r = &m->recs[i];
        char nm[96];
        snprintf(nm, sizeof nm, "%s", r->name[0] ? r->name : "thread");
        ev_meta(c, (uint16_t)i, "thread_name", "name", nm, 0);
        ev_meta(c, (uint16_t)i, "thread_sort_index", "sort_index", NULL, (int64_t)g);
    }
    if (c->v.n_flows && find_flow_starts(c, &ns) != 0) {
        ob_finish(&c->ob);
        goto done;
    }
    for (size_t g = 0; g < c->v.nrec; g++)
        if (write_thread(c, g, &ns) != 0) {
            ob_finish(&c->ob);
            goto done;
        }
    write_other(c, last);
    rc = ob_finish(&c->ob);
done:
    nest_free(&ns);
    u64map_free(&c->flow_start);
    for (size_t i = 0; c->prefix && i < m->n_recs; i++) free(c->prefix[i]);
    free(c->prefix);
    free(c->prefix_len);
    free(c->tid);
    for (int i = 0; i < 32; i++) free(c->args[i]);
    for (size_t i = 0; i < c->n_temp; i++) free(c->temp[i]);
    free(c->temp);
    view_free(&c->v);
    free(c);
    return rc;
}
