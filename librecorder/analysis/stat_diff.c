/*
 * stat_diff.c -- rec_stats_diff (recorder/diff.h): two runs' per-scope
 * statistics joined by name and ordered by a change, one mechanism for
 * `recorder report --diff` and recorder-top's diff view.  Memory follows
 * the names: two index arrays and the rows.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/diff.h"

const char *const rec_diff_key_name[REC_DIFF_NKEYS] = {"mean", "p50", "p99", "calls", "total", "name"};

int rec_diff_key_parse(const char *s) {
    for (int i = 0; i < REC_DIFF_NKEYS; i++)
        if (!strcmp(s, rec_diff_key_name[i])) return i;
    return -1;
}

double rec_diff_value(const struct rec_stat *s, enum rec_diff_key key) {
    if (!s) return 0;
    switch (key) {
    case REC_DIFF_MEAN: return s->calls ? s->total_ns / (double)s->calls : 0;
    case REC_DIFF_P50: return s->p50_ns;
    case REC_DIFF_P99: return s->p99_ns;
    case REC_DIFF_CALLS: return (double)s->calls;
    case REC_DIFF_TOTAL: return s->total_ns;
    default: return 0;
    }
}

static const char *name_of(const struct rec_stat *s) { return s->name ? s->name : ""; }

static int by_name(const void *x, const void *y) {
    return strcmp(name_of(*(const struct rec_stat *const *)x), name_of(*(const struct rec_stat *const *)y));
}

struct keyed {
    struct rec_diff_row r;
    double key;
};

static int by_key(const void *x, const void *y) {
    const struct keyed *p = x, *q = y;
    if (p->key != q->key) return p->key < q->key ? 1 : -1;
    return strcmp(name_of(p->r.a ? p->r.a : p->r.b), name_of(q->r.a ? q->r.a : q->r.b));
}

/* Pointers to s[n], sorted by name; NULL if out of memory. */
static const struct rec_stat **sorted(const struct rec_stat *s, size_t n) {
    const struct rec_stat **p = malloc((n ? n : 1) * sizeof *p);
    if (!p) return NULL;
    for (size_t i = 0; i < n; i++) p[i] = &s[i];
    qsort(p, n, sizeof *p, by_name);
    return p;
}

int rec_stats_diff(const struct rec_stat *a, size_t na, const struct rec_stat *b, size_t nb, enum rec_diff_key key,
                   struct rec_diff_row **out, size_t *n) {
    *out = NULL;
    *n = 0;
    const struct rec_stat **pa = sorted(a, na), **pb = sorted(b, nb);
    struct keyed *k = malloc((na + nb + 1) * sizeof *k);
    struct rec_diff_row *rows = malloc((na + nb + 1) * sizeof *rows);
    int rc = -1;
    if (pa && pb && k && rows) {
        size_t i = 0, j = 0, m = 0;
        while (i < na || j < nb) {   /* both sorted by name: merge */
            int c = i == na ? 1 : j == nb ? -1 : strcmp(name_of(pa[i]), name_of(pb[j]));
            k[m].r.a = c <= 0 ? pa[i++] : NULL;
            k[m].r.b = c >= 0 ? pb[j++] : NULL;
            k[m].key = key == REC_DIFF_NAME ? 0 : fabs(rec_diff_value(k[m].r.b, key) - rec_diff_value(k[m].r.a, key));
            m++;
        }
        qsort(k, m, sizeof *k, by_key);
        for (size_t x = 0; x < m; x++) rows[x] = k[x].r;
        *out = rows;
        *n = m;
        rows = NULL;
        rc = 0;
    }
    free(pa);
    free(pb);
    free(k);
    free(rows);
    return rc;
}
