/*
 * fileidx_check.c -- recorder-web's time index and on-demand window reads
 * of a capture file (viewer-web/fileidx.c, range.c; docs/web.md "Saved
 * traces"), checked against a full read.
 *
 * usage: fileidx_check FILE.rec
 *
 * The file is read once start to end as recorder-web reads it at open,
 * building the index (a point every 4 KiB here, so that even a small
 * file has many) and encoding every event as EVENTS chunks.  Then windows
 * across the run (at its start, a tenth, a third, the middle, near the
 * end; 20 ms and 200 ms wide) are read through the index: the slices
 * (paired as the page pairs them, open scopes from each chunk's stack)
 * that overlap each window must equal, one for one, those the full read
 * gives for it (a slice still open where the window's read stops is
 * drawn open: it must be one the full read ends after the window); the window's read must start past the file's start for
 * the later windows (the index is used) and must not be cut.
 *
 * The full read also feeds the run's summary (lod.c): per counter and
 * bucket of its grid, the lowest and highest value it sends must be those
 * of the counter's values in the full read that fall in that bucket, and
 * the last one of them (issue 20 item 4: counters over the whole file).
 * Exit 0 if all hold, 1 with what differs.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <urcu.h>

#include "batch.h"
#include "clamp.h"
#include "range.h"
#include "source.h"

struct slice {
    uint32_t lane, name;
    int64_t s, e;
};
/* recorder-web's main.c defines it (the TSan annotation of its grace
 * periods, shared.h); this test links the reader's files without main.c. */
char web_grace_period;

struct slices {
    struct slice *v;
    size_t n, cap;
};

static void add(struct slices *o, uint32_t lane, uint32_t name, int64_t s, int64_t e) {
    if (o->n == o->cap) {
        o->cap = o->cap ? 2 * o->cap : 1024;
        o->v = realloc(o->v, o->cap * sizeof *o->v);
        if (!o->v) abort();
    }
    o->v[o->n++] = (struct slice){lane, name, s, e};
}

static const unsigned char *P, *E;
static uint64_t varint(void) {
    uint64_t v = 0;
    for (int sh = 0; P < E && sh < 64; sh += 7) {
        unsigned char b = *P++;
        v |= (uint64_t)(b & 127) << sh;
        if (!(b & 128)) break;
    }
    return v;
}
static int64_t svarint(void) {
    uint64_t u = varint();
    return (int64_t)(u >> 1) ^ -(int64_t)(u & 1);
}
static double f64(void) {
    double d = 0;
    if (E - P >= 8) memcpy(&d, P, 8);
    P += 8;
    return d;
}

/* Every counter value of the full read. */
struct cval {
    uint32_t name;
    int64_t t;
    double v;
};
static struct cval *cv;
static size_t n_cv, cap_cv;
static int keep_cv;

/* Per lane (by id, small in a test): the open scopes. */
#define LANES 4096
#define DEPTH 128
static uint32_t stk_n[LANES][DEPTH];
static int64_t stk_t[LANES][DEPTH];
static int depth[LANES];

/* An EVENTS body (after its type byte) into slices, paired as the page
 * does; with open, the scopes still open at its end too, ending at
 * INT64_MAX (the page draws them open). */
static void decode(const unsigned char *p, size_t len, struct slices *out, int open) {
    P = p;
    E = p + len;
    memset(depth, 0, sizeof depth);
    varint();
    int64_t base = (int64_t)f64();
    f64();
    uint64_t chunks = varint();
    for (uint64_t c = 0; c < chunks && P < E; c++) {
        uint32_t lane = (uint32_t)varint() % LANES;
        unsigned flags = *P++;
        if (flags & 1) {
            varint();
            varint();
            svarint();
            svarint();
        }
        int d = (int)varint();
        for (int i = 0; i < d; i++) {
            uint32_t nm = (uint32_t)varint();
            int64_t t = base + svarint();
            if (i < DEPTH) stk_n[lane][i] = nm, stk_t[lane][i] = t;
        }
        depth[lane] = d < DEPTH ? d : DEPTH;
        uint64_t n = varint();
        int64_t t = base;
        for (uint64_t i = 0; i < n && P < E; i++) {
            unsigned kind = *P++;
            t += svarint();
            if (kind == 1) {
                uint32_t nm = (uint32_t)varint();
                if (depth[lane] < DEPTH) stk_n[lane][depth[lane]] = nm, stk_t[lane][depth[lane]] = t, depth[lane]++;
            } else if (kind == 2) {
                uint32_t nm = (uint32_t)varint();
                int k = depth[lane] - 1;
                if (nm)
                    while (k >= 0 && stk_n[lane][k] != nm) k--;
                for (int j = depth[lane] - 1; k >= 0 && j >= k; j--) add(out, lane, stk_n[lane][j], stk_t[lane][j], t);
                if (k >= 0) depth[lane] = k;
            } else if (kind == 3) {
                varint();
                P += varint();
            } else if (kind == 4) {
                uint32_t nm = (uint32_t)varint();
                double v = f64();
                if (keep_cv) {
                    if (n_cv == cap_cv && !(cv = realloc(cv, (cap_cv = cap_cv ? 2 * cap_cv : 4096) * sizeof *cv))) abort();
                    cv[n_cv++] = (struct cval){nm, t, v};
                }
            } else {
                varint();
                varint();
            }
        }
    }
    for (uint32_t l = 0; open && l < LANES; l++)
        for (int j = 0; j < depth[l]; j++) add(out, l, stk_n[l][j], stk_t[l][j], INT64_MAX);
}

static int cmp(const void *a, const void *b) {
    const struct slice *x = a, *y = b;
    if (x->lane != y->lane) return x->lane < y->lane ? -1 : 1;
    if (x->s != y->s) return x->s < y->s ? -1 : 1;
    if (x->name != y->name) return x->name < y->name ? -1 : 1;
    return x->e < y->e ? -1 : x->e > y->e;
}

/* The window's slices, one for one: the same lane, name and start, and
 * the same end -- or, for one still open where the window's read stopped
 * (end INT64_MAX), a full read's that ends after the window. */
static int same(const struct slices *full, const struct slices *got, int64_t b) {
    if (full->n != got->n) return 0;
    for (size_t j = 0; j < full->n; j++) {
        const struct slice *x = &full->v[j], *y = &got->v[j];
        if (x->lane != y->lane || x->s != y->s || x->name != y->name) return 0;
        if (x->e != y->e && !(y->e == INT64_MAX && x->e > b)) return 0;
    }
    return 1;
}

/* The slices of in that overlap [a, b], sorted. */
static void window(const struct slices *in, int64_t a, int64_t b, struct slices *out) {
    out->n = 0;
    for (size_t i = 0; i < in->n; i++)
        if (in->v[i].s <= b && in->v[i].e >= a) add(out, in->v[i].lane, in->v[i].name, in->v[i].s, in->v[i].e);
    if (out->n) qsort(out->v, out->n, sizeof *out->v, cmp);
}

/* The LOD message's counters against the full read's values: 0 if they
 * agree bucket for bucket. */
static int check_counters(struct frame *lf) {
    P = frame_data(lf) + 1;
    E = frame_data(lf) + lf->len;
    double t0 = f64(), width = f64();
    uint64_t nb = varint(), nl = varint();
    for (uint64_t i = 0; i < nl && P < E; i++) {
        varint();
        varint();
        uint64_t count = varint();
        for (uint64_t j = 0; j < count && P < E; j++) {
            P++;
            varint();
            varint();
            P++;
        }
    }
    uint64_t nc = varint();
    size_t buckets = 0, bad = 0;
    for (uint64_t c = 0; c < nc && P < E; c++) {
        uint32_t name = (uint32_t)varint();
        uint64_t first = varint(), count = varint();
        for (uint64_t j = 0; j < count && P < E; j++) {
            int has = *P++ & 1;
            double mn = has ? f64() : 0, mx = has ? f64() : 0, last = has ? f64() : 0;
            /* The full read's values in bucket first + j. */
            double wmn = 0, wmx = 0, wlast = 0;
            int64_t tl = INT64_MIN;
            size_t n = 0;
            for (size_t i = 0; i < n_cv; i++) {
                if (cv[i].name != name) continue;
                double off = (double)cv[i].t - t0;
                uint64_t k = off <= 0 ? 0 : (uint64_t)(off / width);
                if (k >= nb) k = nb - 1;
                if (k != first + j) continue;
                wmn = !n || cv[i].v < wmn ? cv[i].v : wmn;
                wmx = !n || cv[i].v > wmx ? cv[i].v : wmx;
                if (cv[i].t >= tl) tl = cv[i].t, wlast = cv[i].v;
                n++;
            }
            if (has != (n > 0) || (has && (mn != wmn || mx != wmx || last != wlast))) {
                if (bad++ < 3)
                    printf("counter %u bucket %" PRIu64 ": summary %s %g..%g last %g, full read %zu values %g..%g last %g  <-- differs\n",
                           name, first + j, has ? "has" : "has none", mn, mx, last, n, wmn, wmx, wlast);
            }
            buckets += has;
        }
    }
    printf("counters: %" PRIu64 " in the summary, %zu buckets with values, %zu differ\n", nc, buckets, bad);
    return nc < 1 || buckets < 100 || bad || P != E;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fileidx_check FILE.rec\n");
        return 2;
    }
    rcu_register_thread();
    struct wsrc src;
    struct rec_seg_info info;
    char err[512];
    if (wsrc_open_file(argv[1], &src, &info, err, sizeof err) != 1) {
        fprintf(stderr, "fileidx_check: %s: %s\n", argv[1], err);
        return 1;
    }
    struct strtab_pub *pub = NULL;
    struct threads_pub *tp = NULL;
    struct strtab names;
    struct lanes lanes;
    struct batch full;
    struct range g;
    struct lod lod;
    struct frame *lod_slot = NULL;
    if (strtab_init(&names, &pub) || lanes_init(&lanes, src.max_threads, &tp) || batch_init(&full) ||
        range_init(&g, src.max_threads, 64u << 20) || lod_init(&lod, LANES_CAP + 1, &lod_slot))
        return 1;
    full.lod = &lod;   /* as recorder-web's reader at open */
    g.idx.step = 4096;
    size_t cap = 65536;
    struct rec_event *evs = malloc(cap * sizeof *evs);
    struct rec_cap_item it;
    struct rec_cap_pos pos;
    rec_cap_tell(src.cap, &pos);
    int64_t tmin = INT64_MAX, tmax = INT64_MIN;
    while (rec_cap_next(src.cap, &it) == 1) {
        if (it.kind == REC_CAP_ITEM_THREAD) {
            wsrc_note_thread(&src, &it.thread);
            lanes_update(&lanes, &it.thread);
            rec_cap_tell(src.cap, &pos);
            continue;
        }
        fidx_mark(&g.idx, &pos, &lanes);
        size_t off = 0;
        int first = 1;
        while (off < it.n || first) {
            size_t used = 0;
            uint64_t bad = 0;
            size_t n = rec_decode(it.entries + off, it.n - off, it.first + off, evs, cap, &used, &bad);
            int64_t a = INT64_MAX, b = INT64_MIN;
            for (size_t i = 0; i < n; i++) {
                int64_t t = web_ns(wsrc_ns(&src, evs[i].ticks));
                a = t < a ? t : a;
                b = t > b ? t : b;
            }
            if (n) fidx_note(&g.idx, a, b);
            tmin = a < tmin ? a : tmin;
            tmax = b > tmax ? b : tmax;
            batch_add(&full, &lanes, &names, &src, it.slot, evs, n, first ? &it.loss : NULL);
            first = 0;
            if (!used) break;
            off += used;
        }
        rec_cap_tell(src.cap, &pos);
    }
    struct frame *ff = batch_flush(&full, 1, 0);
    if (!ff || g.idx.n < 8) {
        fprintf(stderr, "fileidx_check: too small a file: %zu index points\n", g.idx.n);
        return 1;
    }
    struct slices all = {0}, ra = {0}, w1 = {0}, w2 = {0};
    keep_cv = 1;
    decode(frame_data(ff) + 1, ff->len - 1, &all, 0);
    keep_cv = 0;
    lod_publish(&lod, &lanes);
    int fails = !lod_slot || check_counters(lod_slot);
    size_t nonempty = 0;
    const double at[] = {0, 0.1, 0.33, 0.5, 0.9};
    const int64_t widths[] = {20000000, 200000000};
    for (size_t i = 0; i < sizeof at / sizeof *at; i++)
        for (size_t k = 0; k < 2; k++) {
            int64_t a = tmin + (int64_t)(at[i] * (double)(tmax - tmin)), b = a + widths[k];
            size_t from = 0, to = 0;
            fidx_find(&g.idx, a, b, &from, &to);
            struct frame *f = range_read(&g, &src, &lanes, &names, evs, cap, 7, (double)a, (double)b, 0);
            if (!f) return 1;
            P = frame_data(f) + 1;
            E = frame_data(f) + f->len;
            unsigned id = (unsigned)varint();
            double fa = f64(), fb = f64();
            unsigned flags = *P++;
            ra.n = 0;
            decode(P, (size_t)(E - P), &ra, 1);
            window(&all, a, b, &w1);
            window(&ra, a, b, &w2);
            int ok = same(&w1, &w2, b) && id == 7 && flags == 0 && fa == (double)a && fb == (double)b && (at[i] < 0.3 || from > 0);
            printf("window %.2f +%" PRId64 " ms: %zu slices in the full read, %zu from the index (points %zu..%zu of %zu)%s\n",
                   at[i], widths[k] / 1000000, w1.n, w2.n, from, to, g.idx.n, ok ? "" : "  <-- differs");
            if (!ok)
                for (size_t j = 0; j < w1.n && j < w2.n; j++)
                    if (cmp(&w1.v[j], &w2.v[j]) && !(w2.v[j].e == INT64_MAX && w1.v[j].e > b && w1.v[j].s == w2.v[j].s)) {
                        printf("  first difference: lane %u %" PRId64 "-%" PRId64 " vs lane %u %" PRId64 "-%" PRId64 " (window %" PRId64 "-%" PRId64 ")\n",
                               w1.v[j].lane, w1.v[j].s, w1.v[j].e, w2.v[j].lane, w2.v[j].s, w2.v[j].e, a, b);
                        break;
                    }
            fails += !ok;
            nonempty += w1.n > 0;
            frame_unref(f);
        }
    if (nonempty < 8) {
        printf("too few windows with slices: %zu\n", nonempty);
        fails++;
    }
    frame_unref(ff);
    free(all.v);
    free(ra.v);
    free(w1.v);
    free(w2.v);
    free(evs);
    free(cv);
    frame_unref(lod_slot);
    lod_destroy(&lod);
    range_destroy(&g);
    batch_destroy(&full);
    lanes_destroy(&lanes);
    strtab_destroy(&names);
    wsrc_close(&src);
    rcu_barrier();
    rcu_unregister_thread();
    return fails ? 1 : 0;
}
