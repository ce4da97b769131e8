/*
 * test_names_bound.c -- the viewers' model with a million distinct names
 * (issue 22): its statistics tables stop at their stated bounds
 * (AGG_MAX_RUN sums for the whole run, AGG_MAX_BUCKET per window bucket,
 * docs/analysis.md), and what is past them is counted and shown in the
 * (other) row, never dropped: every slice's call is in some row, and
 * (other) holds exactly the slices rec_model_stats_past_limit counts.
 * The viewers ask for their rows through the same queries (recorder-top:
 * rec_model_stats_top; recorder-web: rec_model_stats), so the rows they
 * can hold are bounded by what is checked here.
 *
 * One thread, then two, call the same million names: the tables hold
 * (thread, path) sums, all threads being their sum when asked (agg.c), so
 * one thread's million paths fit the run's table and two threads' do not.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "recorder/analysis.h"

#define NAMES 1000000u
#define REGISTRY (1u << 20)   /* NAME_MAX_LOCAL and NODE_MAX, two of them fixed entries */
#define PAST_REGISTRY (REGISTRY + 4096)
#define BASE 16
#define RUN_MAX (1u << 20)      /* AGG_MAX_RUN: (thread, path) sums */
#define BUCKET_MAX (1u << 15)   /* AGG_MAX_BUCKET */

static const char *name_of(void *ctx, uint32_t id) {
    static char buf[24];   /* the model copies it at once */
    (void)ctx;
    if (id < BASE || id >= BASE + PAST_REGISTRY) return NULL;
    snprintf(buf, sizeof buf, "name-%07u", id - BASE);
    return buf;
}

/* The rows of window w: at most max_rows, every call of the threads'
 * slices in one, and (other) exactly what is counted past the limit (of
 * which there is some if past_expected). */
static uint64_t check_window(rec_model *m, enum rec_window w, unsigned threads, uint32_t names, size_t max_rows,
                             int past_expected) {
    size_t total = 0;
    rec_model_stats(m, w, -1, NULL, 0, &total);
    CHECK(total <= max_rows);
    struct rec_stat *st = calloc(total + 1, sizeof *st);
    REQUIRE(st);
    size_t n = rec_model_stats(m, w, -1, st, total + 1, &total);
    uint64_t calls = 0, other = 0;
    for (size_t i = 0; i < n; i++) {
        calls += st[i].calls;
        if (st[i].name_id == UINT32_MAX) other += st[i].calls;   /* (other)'s string id */
    }
    uint64_t past = rec_model_stats_past_limit(m, w);
    fprintf(stderr, "%u thread(s), window %d: %zu rows (bound %zu), %llu calls, (other) %llu, past the limit %llu\n",
            threads, (int)w, n, max_rows, (unsigned long long)calls, (unsigned long long)other,
            (unsigned long long)past);
    CHECK_EQ_U(calls, (uint64_t)threads * names);   /* nothing dropped */
    CHECK(past_expected ? past > 0 : past == 0);
    CHECK_EQ_U(other, past);       /* and (other) is exactly them */
    free(st);
    return past;
}

/* A model fed one slice of each of names names on each of threads threads. */
static rec_model *feed(unsigned threads, uint32_t names) {
    struct rec_source_info src;
    memset(&src, 0, sizeof src);
    src.pid = 4242;
    strcpy(src.process_name, "unit");
    src.ticks_per_sec = 1e9;
    struct rec_model_opts o = {0, 0, ""};
    rec_model *m = rec_model_new(&src, name_of, NULL, &o);
    REQUIRE(m);
    enum { CHUNK = 4096 };
    static struct rec_event ev[2 * CHUNK];
    memset(ev, 0, sizeof ev);
    for (uint32_t th = 0; th < threads; th++) {
        ev[0] = (struct rec_event){.type = REC_EV_THREAD_START, .tid = (int32_t)(th + 1), .gen = 1};
        rec_model_feed(m, th, ev, 1, NULL);
    }
    /* 2 us each, the threads side by side: the run lasts about 2.5 s, so
     * the 10 s window holds three 1 s buckets and the 1 s window ten. */
    uint64_t t = 1000;
    for (uint32_t i = 0; i < names; i += CHUNK) {
        uint64_t t0 = t;
        for (uint32_t th = 0; th < threads; th++) {
            size_t k = 0;
            t = t0;
            for (uint32_t j = i; j < i + CHUNK && j < names; j++) {
                ev[k] = (struct rec_event){.type = REC_EV_BEGIN, .ticks = t, .name_id = BASE + j};
                ev[k + 1] = (struct rec_event){.type = REC_EV_END, .ticks = t + 2000, .name_id = BASE + j};
                k += 2;
                t += 2500;
            }
            rec_model_feed(m, th, ev, k, NULL);
        }
    }
    rec_model_set_now(m, (double)t);
    return m;
}

int main(void) {
    /* Rows: names (one path each, under the root), plus (other); a table
     * holds at most its bound of (thread, path) sums, so at most that many
     * names.  One thread's million paths fit the run's table. */
    rec_model *m = feed(1, NAMES);
    check_window(m, REC_WIN_ALL, 1, NAMES, NAMES + 1, 0);
    check_window(m, REC_WIN_10S, 1, NAMES, 3 * BUCKET_MAX + 1, 1);
    rec_model_free(m);
    m = feed(2, NAMES);
    check_window(m, REC_WIN_ALL, 2, NAMES, RUN_MAX + 1, 1);
    check_window(m, REC_WIN_10S, 2, NAMES, 3 * BUCKET_MAX + 1, 1);
    rec_model_free(m);
    /* Past the registries of names and paths: each name past them is one
     * slice in (other), counted; the ones before fill the run's table
     * without overflowing it. */
    m = feed(1, PAST_REGISTRY);
    uint64_t past = check_window(m, REC_WIN_ALL, 1, PAST_REGISTRY, REGISTRY - 1, 1);
    CHECK_EQ_U(past, PAST_REGISTRY - (REGISTRY - 2));
    rec_model_free(m);
    CHECK_DONE();
}
