/*
 * json_events.c -- how the JSON exporter writes each thing: names (escaped
 * once and cached), categories, the pid/tid of a thread (tids fixed from
 * the plan before anything is written), every kind of event, and
 * otherData.  export_json.c decides what is written when.
 */
#define _GNU_SOURCE 1     /* qsort_r */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "grow.h"
#include "json_write.h"
#include "pyname.h"

/* ---- flow id maps -------------------------------------------------------- */

uint64_t *idmap_get(struct idmap *m, uint64_t id) {
    if (id == UINT64_MAX) return m->has_max ? &m->max_val : NULL;
    return u64map_get(&m->map, id);
}

uint64_t *idmap_put(struct idmap *m, uint64_t id, int *isnew) {
    if (id == UINT64_MAX) {
        *isnew = !m->has_max;
        if (*isnew) m->max_val = 0;
        m->has_max = 1;
        return &m->max_val;
    }
    return u64map_put(&m->map, id, isnew);
}

void idmap_clear(struct idmap *m) {
    u64map_clear(&m->map);
    m->has_max = 0;
}

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

/* "name":"..." of a string id, or with slice set, the fragment a slice's
 * B, E and instant carry: the same, but for a Python scope the name and
 * args that hold its file and line (pyname.c).  Resolved names are cached
 * in the model; a fallback ("(id N)") lives for this export only, since
 * the string may still be published later. */
static const char *frag_of(struct jctx *c, uint32_t id, uint32_t *len, int slice) {
    unsigned h = (id ^ (id >> 12)) & (NAME_CACHE - 1);
    if (c->cache_frag[h] && c->cache_id[h] == id) {
        *len = slice ? c->cache_slen[h] : c->cache_len[h];
        return slice ? c->cache_sfrag[h] : c->cache_frag[h];
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
            nm->pyjson = pyname_json(text, strlen(text), &nm->pyjson_len);   /* NULL: not Python's */
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
            c->cache_sfrag[h] = f;
            c->cache_len[h] = c->cache_slen[h] = flen;
            *len = flen;
            return f;
        }
    }
    c->cache_id[h] = id;
    c->cache_frag[h] = nm->json;
    c->cache_len[h] = nm->json_len;
    c->cache_sfrag[h] = nm->pyjson ? nm->pyjson : nm->json;
    c->cache_slen[h] = nm->pyjson ? nm->pyjson_len : nm->json_len;
    *len = slice ? c->cache_slen[h] : c->cache_len[h];
    return slice ? c->cache_sfrag[h] : c->cache_frag[h];
}

static const char *name_frag(struct jctx *c, uint32_t id, uint32_t *len) { return frag_of(c, id, len, 0); }

/* A slice's flags go in its category ("cat":"open,gap"), the same on its
 * B and E.  Not in args: speedscope keys frames by name and args, and
 * pairs an E with a same-named open frame first, so two nested slices of
 * one name with different args ending together would trip it. */
void build_args(struct jctx *c) {
    for (unsigned f = 0; f < 32; f++) {
        char buf[160], *p = buf;
        if (f) {
            p += sprintf(p, ",\"cat\":\"");
            p += flag_list(p, f);
            *p++ = '"';
        }
        c->args_len[f] = (uint32_t)(p - buf);
        c->args[f] = malloc(c->args_len[f] + 1);
        if (c->args[f]) memcpy(c->args[f], buf, c->args_len[f]);
        else c->args_len[f] = 0;
    }
}


/* ---- threads: tids and names, fixed from the plan (export_plan.c) -------- */

int assign_tids(struct jctx *c) {
    size_t n = c->plan->n_recs;
    c->plan_tid = xs_plan_tids(c->plan);
    c->plan_named = calloc(n ? n : 1, 1);
    if (!c->plan_tid || !c->plan_named) return -1;
    c->plan_n = n;
    return 0;
}

void set_prefix(struct jctx *c, struct jrec *j, int tid) {
    int pid = c->m->src.pid > 0 ? c->m->src.pid : 0;
    char *q = j->prefix;
    j->tid = tid;
    memcpy(q, "\"pid\":", 6);
    q = fmt_i64(q + 6, pid);
    memcpy(q, ",\"tid\":", 7);
    q = fmt_i64(q + 7, tid);
    *q++ = ',';
    j->prefix_len = (uint8_t)(q - j->prefix);
}

struct jrec *jrec_of(struct jctx *c, uint32_t rec) {
    struct jrec *jr = grow_zeroed(c->jr, &c->njr, sizeof *jr, rec, 64);
    if (!jr) return NULL;
    c->jr = jr;
    struct jrec *j = &jr[rec];
    if (!j->prefix_len) {
        long p = xs_plan_rec(c->m, c->plan, rec);
        j->named = p >= 0 && c->plan_named[p];
        set_prefix(c, j, p >= 0 ? c->plan_tid[p] : SYNTH_TID_BASE + (int)c->plan_n + (int)rec);
    }
    return j;
}

/* ---- events ------------------------------------------------------------- */

/* Starts an event: the separator, {"ph":"X", and the pid/tid prefix. */
static inline char *ev_start(struct jctx *c, const char *ph, size_t phlen, const struct jrec *j, size_t extra) {
    size_t need = 2 + phlen + j->prefix_len + 32 + extra;
    char *p = ob_room(&c->ob, need);
    if (!c->first) {
        *p++ = ',';
        *p++ = '\n';
    }
    c->first = 0;
    memcpy(p, ph, phlen);
    p += phlen;
    memcpy(p, j->prefix, j->prefix_len);
    p += j->prefix_len;
    memcpy(p, "\"ts\":", 5);
    return p + 5;
}

static void ev_meta(struct jctx *c, const struct jrec *j, const char *what, const char *key, const char *text,
                    int64_t num) {
    char *p = ev_start(c, "{\"ph\":\"M\",", 10, j, 0);
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

void write_names(struct jctx *c, const struct jrec *j, const char *name, int64_t sort) {
    if (!c->process_named) {
        const char *pn = c->m->src.process_name[0] ? c->m->src.process_name : "process";
        ev_meta(c, j, "process_name", "name", pn, 0);
        c->process_named = 1;
    }
    char nm[96];
    snprintf(nm, sizeof nm, "%s", name[0] ? name : "thread");
    ev_meta(c, j, "thread_name", "name", nm, 0);
    ev_meta(c, j, "thread_sort_index", "sort_index", NULL, sort);
    c->c.threads++;
}

/* The record's thread as written: set up, and named if the plan did not. */
struct jrec *thread_of(struct jctx *c, uint32_t rec) {
    struct jrec *j = jrec_of(c, rec);
    if (!j) {
        c->x->oom = 1;
        return NULL;
    }
    if (!j->named) {
        j->named = 1;
        write_names(c, j, c->m->recs[rec].name, (int64_t)(c->plan_n + rec));
    }
    return j;
}

/* An event that is a name and a slice's flags: B, E, or a zero-length
 * slice's instant (ph is the opening up to "ph"'s value).  A Python
 * scope's file and line go in its args, the same on its B and E; a GPU slice's
 * B may carry its "args" instant instead (gpu_args.c), with the plain name. */
static void ev_named(struct jctx *c, const char *ph, size_t phlen, const struct jrec *j, int64_t t, uint32_t name_id,
                     unsigned ab, const char *msg) {
    uint32_t nlen;
    const char *nf = frag_of(c, name_id, &nlen, !msg);
    size_t ml = msg ? strlen(msg) : 0;
    char *p = ev_start(c, ph, phlen, j, nlen + c->args_len[ab] + 6 * ml + 32);
    p = fmt_us(p, t - c->x->t0);
    *p++ = ',';
    memcpy(p, nf, nlen);
    p += nlen;
    memcpy(p, c->args[ab], c->args_len[ab]);
    p += c->args_len[ab];
    if (msg) {
        memcpy(p, ",\"args\":", 8);
        p += gpu_args_json(p + 8, msg) + 8;
    }
    *p++ = '}';
    c->ob.p = p;
}

void ev_b_args(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab, const char *msg) {
    ev_named(c, "{\"ph\":\"B\",", 10, j, t, name_id, ab, msg);
}

void ev_e(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab) {
    ev_named(c, "{\"ph\":\"E\",", 10, j, t, name_id, ab, NULL);
    c->c.slices++;
}

/* The plain name, the flags' args, then the arguments: on the E, which
 * Perfetto and chrome://tracing merge into the slice's args. */
void ev_e_args(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab, const struct xarg *a,
               uint32_t n) {
    if (n == 0) {
        ev_e(c, j, t, name_id, ab);
        return;
    }
    uint32_t nlen;
    const char *nf = name_frag(c, name_id, &nlen);
    size_t room = nlen + c->args_len[ab] + 32;
    for (uint32_t i = 0; i < n; i++) room += 6 * (XS_ARG_KEY_BUF + REC_MSG_MAX) + 8;
    char *p = ev_start(c, "{\"ph\":\"E\",", 10, j, room);
    p = fmt_us(p, t - c->x->t0);
    *p++ = ',';
    memcpy(p, nf, nlen);
    p += nlen;
    memcpy(p, c->args[ab], c->args_len[ab]);
    p += c->args_len[ab];
    memcpy(p, ",\"args\":{", 9);
    p += 9;
    for (uint32_t i = 0; i < n; i++) {
        size_t kl;
        char kb[XS_ARG_KEY_BUF];
        const char *k = xs_arg_key(c->x, a, i, kb, &kl);
        if (i) *p++ = ',';
        *p++ = '"';
        p += json_escape(p, k, kl);
        memcpy(p, "\":\"", 3);
        p += 3;
        p += json_escape(p, a[i].val, strlen(a[i].val));
        *p++ = '"';
    }
    memcpy(p, "}}", 2);
    c->ob.p = p + 2;
    c->c.slices++;
}

/* A slice of zero length (after rounding to ns): a B and an E at the same
 * time, written together, so that it is a slice of duration 0 to every
 * reader (Perfetto, speedscope, a count of B events), and closed before
 * anything else at that time (a flow after it binds to its parent). */
void ev_point(struct jctx *c, const struct jrec *j, int64_t t, uint32_t name_id, unsigned ab) {
    ev_b(c, j, t, name_id, ab);
    ev_e(c, j, t, name_id, ab);
}

void ev_instant(struct jctx *c, const struct jrec *j, const struct xitem *it, const char *msg) {
    uint32_t nlen;
    const char *nf = name_frag(c, it->name_id, &nlen);
    size_t ml = strlen(msg);
    char *p = ev_start(c, "{\"ph\":\"i\",\"s\":\"t\",", 18, j, nlen + 6 * ml + 32);
    p = fmt_us(p, it->b - c->x->t0);
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
    c->c.instants++;
}

void ev_counter(struct jctx *c, const struct jrec *j, const struct xitem *it) {
    uint32_t nlen;
    const char *nf = name_frag(c, it->name_id, &nlen);
    double v;
    memcpy(&v, &it->u, sizeof v);
    char *p = ev_start(c, "{\"ph\":\"C\",", 10, j, nlen + 64);
    p = fmt_us(p, it->b - c->x->t0);
    *p++ = ',';
    memcpy(p, nf, nlen);
    p += nlen;
    memcpy(p, ",\"args\":{\"value\":", 17);
    p = fmt_double(p + 17, v);
    *p++ = '}';
    *p++ = '}';
    c->ob.p = p;
    c->c.counters++;
}

/* A flow event as Perfetto's slice-level form: a zero-length slice "flow"
 * at the flow's time, inside the slice it binds to, carrying the flow
 * ("bind_id", "flow_out" on a start, "flow_in" on an end, both on a step).
 * Perfetto binds these to that very slice, as the .pftrace's "flow"
 * instants; the legacy s/t/f events bind to whatever is on top of the
 * thread's stack when they are read, which can be a finished zero-length
 * slice at the same time, or draw an end back to the start of a slice
 * that began before the flow's source (docs/perfetto.md, "Flows"). */
void ev_flow(struct jctx *c, const struct jrec *j, const struct xitem *it) {
    const char *dir = it->flags == REC_EV_FLOW_BEGIN  ? ",\"flow_out\":true}"
                      : it->flags == REC_EV_FLOW_STEP ? ",\"flow_in\":true,\"flow_out\":true}"
                                                      : ",\"flow_in\":true}";
    char *p = ev_start(c, "{\"ph\":\"X\",\"dur\":0,", 18, j, 120);
    p = fmt_us(p, it->b - c->x->t0);
    memcpy(p, ",\"name\":\"flow\",\"cat\":\"flow\",\"bind_id\":", 38);
    p = fmt_u64(p + 38, it->u);
    size_t dl = strlen(dir);
    memcpy(p, dir, dl);
    c->ob.p = p + dl;
    c->c.flows++;
}

void ev_loss(struct jctx *c, const struct jrec *j, const struct xitem *it) {
    char *p = ev_start(c, "{\"ph\":\"i\",\"s\":\"t\",", 18, j, 128);
    p = fmt_us(p, it->b - c->x->t0);
    if (it->flags & REC_LOSS_NOT_KEPT) {   /* history: older than the ring when the reader attached */
        const char hist[] = ",\"name\":\"recorder: older entries not kept\",\"args\":{\"not_kept\":";
        memcpy(p, hist, sizeof hist - 1);
        p = fmt_u64(p + sizeof hist - 1, it->u);
        *p++ = '}';
        *p++ = '}';
        c->ob.p = p;
        c->c.instants++;
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
    c->c.instants++;
}

/* Just before the E of a slice whose B went out before its end was known:
 * the flags it turned out to have, which its category could not say. */
void ev_late_flags(struct jctx *c, const struct jrec *j, const struct xframe *f) {
    uint32_t nlen;
    const char *nf = name_frag(c, f->name_id, &nlen);   /* "name":"..." */
    char *p = ev_start(c, "{\"ph\":\"i\",\"s\":\"t\",", 18, j, nlen + 160);
    p = fmt_us(p, f->e - c->x->t0);
    const char mid[] = ",\"name\":\"recorder: flags known late\",\"args\":{\"slice";
    memcpy(p, mid, sizeof mid - 1);
    p += sizeof mid - 1;
    memcpy(p, nf + 5, nlen - 5);   /* ":"...", the name's value */
    p += nlen - 5;
    memcpy(p, ",\"flags\":\"", 10);
    p += 10;
    p += flag_list(p, arg_bits(f->flags));
    memcpy(p, "\"}}", 3);
    c->ob.p = p + 3;
    c->c.instants++;
    c->c.late_flags++;
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

static void dbl_field(struct outbuf *o, const char *key, double v) {
    char *p = ob_room(o, strlen(key) + 48);
    *p++ = ',';
    *p++ = '"';
    memcpy(p, key, strlen(key));
    p += strlen(key);
    *p++ = '"';
    *p++ = ':';
    o->p = fmt_double(p, isfinite(v) && v > 0 ? v : 0);
}

/* The object that describes the source: otherData.recorder of a
 * single-source file, one of its "processes" in a trace of several. */
static void write_source(struct jctx *c, const struct rec_export_opts *opt) {
    rec_model *m = c->m;
    struct outbuf *o = &c->ob;
    struct model_loss_sum sum;
    model_loss_totals(m, &sum);
    const uint64_t over = sum.overwritten, drop = sum.dropped, bad = sum.bad, unmatched = sum.unmatched,
                   hist = sum.history;
    c->c.overwritten = over;
    c->c.dropped = drop;
    c->c.bad = bad;
    OB_LIT(o, "\"process\":");
    ob_json_str(o, m->src.process_name, strnlen(m->src.process_name, sizeof m->src.process_name));
    num_field(o, "pid", (uint64_t)(m->src.pid > 0 ? m->src.pid : 0), 1);
    num_field(o, "real_ns0", m->src.real_ns0, 1);
    char *p = ob_room(o, 32);
    memcpy(p, ",\"t0_ns\":", 9);
    o->p = fmt_i64(p + 9, c->x->t0);
    p = ob_room(o, 32);
    memcpy(p, ",\"end_ns\":", 10);
    o->p = fmt_i64(p + 10, c->end);
    dbl_field(o, "last_sec", opt ? opt->last_sec : 0);
    dbl_field(o, "from_sec", opt ? opt->from_sec : 0);
    dbl_field(o, "to_sec", opt ? opt->to_sec : 0);
    uint64_t trace_events = 2 * c->c.slices + c->c.instants + c->c.counters + c->c.flows;
    num_field(o, "events_written", trace_events, 1);
    OB_LIT(o, ",\"written\":{");
    num_field(o, "slices", c->c.slices, 0);
    num_field(o, "instants", c->c.instants, 1);
    num_field(o, "counters", c->c.counters, 1);
    num_field(o, "flows", c->c.flows, 1);
    num_field(o, "threads", c->c.threads, 1);
    OB_LIT(o, "}");
    num_field(o, "entries_not_kept", hist, 1);
    num_field(o, "entries_overwritten", over, 1);
    num_field(o, "entries_dropped", drop, 1);
    num_field(o, "entries_bad", bad, 1);
    num_field(o, "unmatched_ends", unmatched, 1);
    num_field(o, "log_dropped", m->log.tap ? 0 : m->log.dropped, 1);
    num_field(o, "untracked_events", m->untracked_events, 1);
    num_field(o, "nonfinite_counters", m->nonfinite_counters, 1);
    num_field(o, "unbound_flows", c->c.unbound_flows, 1);
    num_field(o, "forced_slices", c->x->forced, 1);
    num_field(o, "late_flags", c->c.late_flags, 1);
    num_field(o, "too_deep_slices", c->x->too_deep, 1);
    num_field(o, "args_over", c->x->args_over, 1);
    num_field(o, "args_outside", c->x->args_outside, 1);
    OB_LIT(o, ",\"threads\":[");
    uint32_t *order = malloc((m->n_recs ? m->n_recs : 1) * sizeof *order);
    size_t n = order ? model_record_order(m, order) : 0;
    for (size_t g = 0; g < n; g++) {
        uint32_t i = order[g];
        const struct trec *r = &m->recs[i];
        struct jrec *j = jrec_of(c, i);
        if (g) OB_LIT(o, ",");
        OB_LIT(o, "{");
        num_field(o, "tid", (uint64_t)(j ? j->tid : 0), 0);
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
    free(order);
    OB_LIT(o, "]");
}

/* Appends this source's object to what part carries; -1 if out of memory. */
static int keep_block(struct jctx *c, const struct rec_export_opts *opt, struct rec_export_part *part) {
    char *buf = NULL;
    size_t len = 0;
    FILE *mf = open_memstream(&buf, &len);
    struct outbuf saved = c->ob;
    if (!mf || ob_init(&c->ob, mf, 4096) != 0) {
        if (mf) fclose(mf);
        free(buf);
        c->ob = saved;
        return -1;
    }
    OB_LIT(&c->ob, "{");
    write_source(c, opt);
    OB_LIT(&c->ob, "}");
    int rc = ob_finish(&c->ob);
    c->ob = saved;
    if (fclose(mf) != 0) rc = -1;
    char *all = rc == 0 ? realloc(part->blocks, part->blocks_len + len + 2) : NULL;
    if (all) {
        if (part->blocks_len) all[part->blocks_len++] = ',';
        memcpy(all + part->blocks_len, buf, len);
        part->blocks_len += len;
        all[part->blocks_len] = 0;
        part->blocks = all;
    }
    free(buf);
    return all ? 0 : -1;
}

int write_other(struct jctx *c, const struct rec_export_opts *opt) {
    struct rec_export_part *part = c->x->part;
    if (!part) {
        OB_LIT(&c->ob, "\n],\n\"otherData\":{\"recorder\":{\"format\":\"recorder trace 1\",");
        write_source(c, opt);
        OB_LIT(&c->ob, "}}}\n");
        return 0;
    }
    if (keep_block(c, opt, part) != 0) {
        c->x->oom = 1;   /* said as "out of memory", not as a failed write */
        return -1;
    }
    if (part->index + 1 < part->count) return 0;
    OB_LIT(&c->ob, "\n],\n\"otherData\":{\"recorder\":{\"format\":\"recorder trace 1\",");
    num_field(&c->ob, "sources", part->count, 0);
    char *p = ob_room(&c->ob, 48);
    memcpy(p, ",\"origin_mono_ns\":", 18);
    c->ob.p = fmt_i64(p + 18, model_round_ns(part->origin_mono_ns));
    OB_LIT(&c->ob, ",\"processes\":[");
    ob_write(&c->ob, part->blocks, part->blocks_len);
    OB_LIT(&c->ob, "]}}}\n");
    return 0;
}

