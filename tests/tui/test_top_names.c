/*
 * test_top_names.c -- Top's rows from the model's partial selection
 * (rec_model_stats_top: a bounded heap, issue 22) are exactly the first
 * rows of the full sort recorder-top did before (top_rows_filter and
 * top_rows_sort over every name), for every column, both ways, with and
 * without a filter, on a crafted set full of ties: equal calls, equal
 * totals, equal percentiles, names whose text order is not their id's.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "text.h"
#include "top_rows.h"

#define NAMES 3000
#define BASE 16               /* string ids from here: 0..2 are special */
#define K 40

static char text[NAMES][16];

static const char *name_of(void *ctx, uint32_t id) {
    (void)ctx;
    return id >= BASE && id < BASE + NAMES ? text[id - BASE] : NULL;
}

static void feed(rec_model *m, unsigned type, uint64_t t, uint32_t id) {
    struct rec_event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.ticks = t;
    e.name_id = id;
    if (type == REC_EV_THREAD_START) e.tid = 1, e.gen = 1;
    rec_model_feed(m, 0, &e, 1, NULL);
}

static rec_model *crafted(void) {
    struct rec_source_info src;
    memset(&src, 0, sizeof src);
    src.pid = 4242;
    strcpy(src.process_name, "unit");
    src.ticks_per_sec = 1e9;
    struct rec_model_opts o = {0, 0, ""};
    rec_model *m = rec_model_new(&src, name_of, NULL, &o);
    /* Text order differs from id order; few distinct calls and
     * durations, so most keys tie and the tie-break decides. */
    for (unsigned i = 0; i < NAMES; i++) snprintf(text[i], sizeof text[i], "n%04u", (i * 7919u) % NAMES);
    feed(m, REC_EV_THREAD_START, 0, 0);
    uint64_t t = 1000;
    for (unsigned i = 0; i < NAMES; i++) {
        unsigned calls = 1 + i % 5;
        for (unsigned c = 0; c < calls; c++) {
            uint64_t dur = 1000u * (1 + (i * 13u + c * 7u) % 9);
            feed(m, REC_EV_BEGIN, t, BASE + i);
            feed(m, REC_EV_END, t + dur, BASE + i);
            t += dur + 10;
        }
    }
    rec_model_set_now(m, (double)t);
    return m;
}

static const char *needle;

static int keep(void *ctx, uint32_t name_id, const char *name) {
    (void)ctx;
    (void)name_id;
    return text_contains(name, needle);
}

static int same_rows(const struct rec_stat *a, const struct rec_stat *b, size_t n) {
    for (size_t i = 0; i < n; i++)
        if (a[i].name_id != b[i].name_id || a[i].calls != b[i].calls || a[i].total_ns != b[i].total_ns ||
            a[i].self_ns != b[i].self_ns || a[i].p50_ns != b[i].p50_ns || a[i].p99_ns != b[i].p99_ns ||
            a[i].max_ns != b[i].max_ns || strcmp(a[i].name, b[i].name) != 0) {
            fprintf(stderr, "row %zu: %s (%u) against %s (%u)\n", i, a[i].name, a[i].name_id, b[i].name, b[i].name_id);
            return 0;
        }
    return 1;
}

int main(void) {
    rec_model *m = crafted();
    static struct rec_stat all[NAMES + 8], ref[NAMES + 8], got[K];
    size_t total = 0, kept = 0;
    size_t n = rec_model_stats(m, REC_WIN_ALL, -1, all, NAMES + 8, &total);
    REQUIRE(n == NAMES && total == NAMES);
    /* rec_model_stats's own order: by total, ties by string id. */
    for (size_t i = 1; i < n; i++)
        CHECK(all[i - 1].total_ns > all[i].total_ns ||
              (all[i - 1].total_ns == all[i].total_ns && all[i - 1].name_id < all[i].name_id));
    CHECK_EQ_U(rec_model_stats(m, REC_WIN_ALL, -1, got, K, &total), K);
    CHECK(same_rows(got, all, K));
    const char *needles[] = {"", "7", "n00"};
    for (size_t f = 0; f < sizeof needles / sizeof needles[0]; f++)
        for (int col = TOP_NAME; col < TOP_NCOLS; col++)
            for (int rev = 0; rev < 2; rev++) {
                needle = needles[f];
                memcpy(ref, all, n * sizeof *ref);
                size_t nr = top_rows_filter(ref, n, needle);
                top_rows_sort(ref, nr, (enum top_col)col, rev);
                struct rec_stat_order o = {(enum rec_stat_key)col, rev, *needle ? keep : NULL, NULL};
                size_t k = rec_model_stats_top(m, REC_WIN_ALL, -1, &o, got, K, &total, &kept);
                CHECK_EQ_U(total, NAMES);
                CHECK_EQ_U(kept, nr);
                CHECK_EQ_U(k, nr < K ? nr : K);
                if (!same_rows(got, ref, k)) {
                    fprintf(stderr, "  column %d, reverse %d, filter \"%s\"\n", col, rev, needle);
                    CHECK(0);
                }
            }
    /* Room for every row: the whole sort, the same. */
    struct rec_stat_order o = {REC_KEY_P99, 1, NULL, NULL};
    static struct rec_stat every[NAMES];
    CHECK_EQ_U(rec_model_stats_top(m, REC_WIN_ALL, -1, &o, every, NAMES, &total, &kept), NAMES);
    memcpy(ref, all, n * sizeof *ref);
    top_rows_sort(ref, n, TOP_P99, 1);
    CHECK(same_rows(every, ref, NAMES));
    /* Nothing was past a limit. */
    CHECK_EQ_U(rec_model_stats_past_limit(m, REC_WIN_ALL), 0);
    rec_model_free(m);
    CHECK_DONE();
}
