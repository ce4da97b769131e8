/*
 * latlod.c -- per-scope duration histograms on the LOD grid (see latlod.h).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "latlod.h"
#include "shared.h"
#include "wire.h"

/* edge[i] = 10^(i/LAT_BPD) ns: bin i is [edge[i], edge[i+1]). */
static double edge[LAT_BINS + 1];

/* latlod_bin is on every call's path, and a binary search over the edges
 * (seven dependent loads and compares) took a tenth of the reader's time
 * on a busy program.  A duration's binary exponent and the top STEP_BITS
 * bits of its mantissa split each octave into 16 steps, each less than
 * 2^(1/16) = 1.044 wide, narrower than a bin (10^(1/10) = 1.259): a step
 * holds at most one edge.  step_bin[] is the search's answer at each
 * step's start, so one compare with the next edge gives the search's
 * answer for any duration (tests/web/latlod_bins.c checks every edge, every
 * step and random durations against latlod_bin_search). */
#define STEP_BITS 4u
#define STEP_OCTAVES 37u   /* 2^37 ns > edge[LAT_BINS] = 100 s: past it, the last bin */
static uint8_t step_bin[STEP_OCTAVES << STEP_BITS];

static unsigned bin_search(double d) {
    unsigned lo = 0, hi = LAT_BINS;   /* the last bin with edge <= d */
    while (hi - lo > 1) {
        unsigned mid = (lo + hi) / 2;
        if (edge[mid] <= d) lo = mid;
        else hi = mid;
    }
    return lo;
}

unsigned latlod_bin_search(int64_t dur) { return bin_search((double)dur); }

void latlod_init(struct latlod *t, struct lat_pub *pub) {
    memset(t, 0, sizeof *t);
    t->pub = pub;
    for (unsigned i = 0; i <= LAT_BINS; i++) edge[i] = pow(10.0, (double)i / LAT_BPD);
    for (unsigned k = 0; k < STEP_OCTAVES << STEP_BITS; k++)   /* at each step's start, exactly */
        step_bin[k] = (uint8_t)bin_search(
            ldexp(1.0 + (double)(k & ((1u << STEP_BITS) - 1)) / (1u << STEP_BITS), (int)(k >> STEP_BITS)));
}

static void free_scope(struct lat_scope *s) {
    if (!s) return;
    for (uint32_t k = 0; k < LOD_BUCKETS; k++) free(s->h[k]);
    free(s);
}

void latlod_destroy(struct latlod *t) {
    for (uint32_t i = 0; i < t->n; i++) free_scope(t->s[i]);
    t->n = 0;
    while (t->spare) {
        void *next;
        memcpy(&next, t->spare, sizeof next);
        free(t->spare);
        t->spare = next;
    }
}

/* A zeroed histogram: a spare one if any (a scope whose calls are
 * sparser than the buckets would otherwise allocate one per call and
 * free it at the next coarsening). */
static uint32_t *hist_new(struct latlod *t) {
    uint32_t *h = t->spare;
    if (!h) return calloc(LAT_BINS, sizeof *h);
    memcpy(&t->spare, h, sizeof t->spare);
    memset(h, 0, LAT_BINS * sizeof *h);
    return h;
}

static void hist_free(struct latlod *t, uint32_t *h) {
    memcpy(h, &t->spare, sizeof t->spare);
    t->spare = h;
}

unsigned latlod_bin(int64_t dur) {
    if (dur < 1) return 0;
    double d = (double)dur;
    uint64_t bits;
    memcpy(&bits, &d, sizeof bits);
    uint64_t k = ((bits >> 52) - 1023) << STEP_BITS | ((bits >> (52 - STEP_BITS)) & ((1u << STEP_BITS) - 1));
    if (k >= STEP_OCTAVES << STEP_BITS) return LAT_BINS - 1;
    unsigned b = step_bin[k];
    return b + 1 < LAT_BINS && edge[b + 1] <= d ? b + 1 : b;
}

/* Follow the LOD grid: each doubling of its width merges pairs. */
static void sync_grid(struct latlod *t, const struct lod *l) {
    if (!t->width) t->width = l->width;
    while (t->width < l->width) {
        t->width *= 2;
        for (uint32_t i = 0; i < t->n; i++) {
            struct lat_scope *s = t->s[i];
            for (uint32_t k = 0; k < LOD_BUCKETS / 2; k++) {
                uint32_t *a = s->h[2 * k], *b = s->h[2 * k + 1];
                if (a && b) {
                    for (unsigned j = 0; j < LAT_BINS; j++) {
                        uint64_t v = (uint64_t)a[j] + b[j];
                        a[j] = v > UINT32_MAX ? UINT32_MAX : (uint32_t)v;
                    }
                    hist_free(t, b);
                } else if (!a) {
                    a = b;
                }
                s->h[2 * k + 1] = NULL;
                s->h[k] = a;
                if (k) s->h[2 * k] = NULL;
            }
        }
        for (uint32_t k = 0; k < LOD_BUCKETS / 2; k++) t->lost[k] = t->lost[2 * k] | t->lost[2 * k + 1];
        memset(t->lost + LOD_BUCKETS / 2, 0, LOD_BUCKETS / 2);
    }
}

static struct lat_scope *scope_of(struct latlod *t, uint32_t name) {
    uint32_t h = (name * 2654435761u) & (LAT_HASH - 1);
    while (t->hval[h]) {   /* never full: at most LAT_SCOPES of LAT_HASH */
        if (t->hkey[h] == name) return t->s[t->hval[h] - 1];
        h = (h + 1) & (LAT_HASH - 1);
    }
    if (t->n >= LAT_SCOPES) return NULL;
    struct lat_scope *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    s->name = name;
    t->hkey[h] = name;
    t->hval[h] = (uint16_t)(t->n + 1);
    t->s[t->n] = s;
    /* The id first, then the count that makes it visible. */
    t->pub->ids[t->n] = name;
    __atomic_store_n(&t->pub->n, t->n + 1, __ATOMIC_RELEASE);
    t->n++;
    return s;
}

static void left_out(struct latlod *t) {
    t->left_out++;
    web_store(&t->pub->left_out, t->left_out);
}

void latlod_call(struct latlod *t, struct lod *l, uint32_t name, int64_t s, int64_t e) {
    int k = lod_bucket(l, e);
    if (k < 0 || !name) return;   /* from the future (the LOD skips it too), or nameless */
    if (t->width != l->width) sync_grid(t, l);   /* rarely: a call per slice was 1% of the server's instructions */
    struct lat_scope *sc = scope_of(t, name);
    if (sc && !sc->h[k]) sc->h[k] = hist_new(t);
    if (!sc || !sc->h[k]) {
        left_out(t);
        return;
    }
    uint32_t *c = &sc->h[k][latlod_bin(e > s ? e - s : 0)];
    if (*c < UINT32_MAX) ++*c;
}

void latlod_lost(struct latlod *t, struct lod *l, int64_t a, int64_t b) {
    if (b < a) b = a;
    if (b > l->limit) b = l->limit;   /* from the future: as lod_lost */
    if (a > b) return;
    int kb = lod_bucket(l, b), ka = lod_bucket(l, a);
    if (ka < 0 || kb < 0) return;
    sync_grid(t, l);
    for (int k = ka; k <= kb; k++) t->lost[k] = 1;
}

/* MSG_LATENCY (docs/web.md, "Protocol"): name, flags, calls left out,
 * bins per decade, bins, t0, width, then per bucket with calls or loss
 * its index, flags, and its non-empty bins as (bin, count). */
static struct frame *encode(const struct latlod *t, const struct lod *l, const struct lat_scope *s) {
    struct wbuf m;
    wb_init(&m, 1024);
    wb_u8(&m, MSG_LATENCY);
    wb_varint(&m, s->name);
    wb_u8(&m, LAT_FLAG_KNOWN);
    wb_varint(&m, t->left_out);
    wb_varint(&m, LAT_BPD);
    wb_varint(&m, LAT_BINS);
    wb_f64(&m, (double)l->t0);
    wb_f64(&m, (double)t->width);
    uint32_t nb = 0;
    for (uint32_t k = 0; k < LOD_BUCKETS; k++) nb += s->h[k] || t->lost[k];
    wb_varint(&m, nb);
    for (uint32_t k = 0; k < LOD_BUCKETS; k++) {
        const uint32_t *h = s->h[k];
        if (!h && !t->lost[k]) continue;
        wb_varint(&m, k);
        wb_u8(&m, t->lost[k] ? LOD_FLAG_LOST : 0);
        unsigned nz = 0;
        for (unsigned j = 0; h && j < LAT_BINS; j++) nz += h[j] != 0;
        wb_varint(&m, nz);
        for (unsigned j = 0; h && j < LAT_BINS; j++)
            if (h[j]) {
                wb_varint(&m, j);
                wb_varint(&m, h[j]);
            }
    }
    struct frame *f = frame_from(&m);
    wb_free(&m);
    return f;
}

int latlod_publish(struct latlod *t, const struct lod *l, double now_ms) {
    int any = 0;
    struct lat_pub *p = t->pub;
    for (uint32_t i = 0; i < t->n; i++) {
        if (!web_load(&p->want[i])) {
            /* Nobody looked for a while: its answer's memory goes. */
            if (p->ans[i] && now_ms - t->asked_ms[i] > LAT_KEEP_MS) frame_publish(&p->ans[i], NULL);
            continue;
        }
        t->asked_ms[i] = now_ms;
        /* Always anew: the page waits for an answer newer than its
         * question (ws.c); the pages' asking is rate-bounded. */
        sync_grid(t, l);
        struct frame *f = encode(t, l, t->s[i]);
        if (!f) continue;   /* out of memory: tried again next pass */
        f->version = ++t->version;
        frame_publish(&p->ans[i], f);
        web_store(&p->want[i], 0);
        any = 1;
    }
    return any;
}
