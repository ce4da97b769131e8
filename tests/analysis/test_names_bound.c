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
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "recorder/analysis.h"

#define NAMES 1000000u
#define BASE 16
#define RUN_MAX (1u << 20)      /* AGG_MAX_RUN: (series, path) sums, a thread's and all threads' */
#define BUCKET_MAX (1u << 15)   /* AGG_MAX_BUCKET */

static const char *name_of(void *ctx, uint32_t id) {
    static char buf[24];   /* the model copies it at once */
    (void)ctx;
    if (id < BASE || id >= BASE + NAMES) return NULL;
    snprintf(buf, sizeof buf, "name-%07u", id - BASE);
    return buf;
}

static void check_window(rec_model *m, enum rec_window w, size_t max_rows) {
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
    fprintf(stderr, "window %d: %zu rows (bound %zu), %llu calls, (other) %llu, past the limit %llu\n", (int)w, n,
            max_rows, (unsigned long long)calls, (unsigned long long)other, (unsigned long long)past);
    CHECK_EQ_U(calls, NAMES);      /* nothing dropped */
    CHECK(past > 0);               /* a million names are past the bound */
    CHECK_EQ_U(other, past);       /* and (other) is exactly them */
    free(st);
}

int main(void) {
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
    ev[0].type = REC_EV_THREAD_START;
    ev[0].tid = 1;
    ev[0].gen = 1;
    rec_model_feed(m, 0, ev, 1, NULL);
    /* One slice per name, 2 us each: the run lasts about 2.5 s, so the
     * 10 s window holds three 1 s buckets and the 1 s window ten. */
    uint64_t t = 1000;
    for (uint32_t i = 0; i < NAMES; i += CHUNK) {
        size_t k = 0;
        for (uint32_t j = i; j < i + CHUNK && j < NAMES; j++) {
            ev[k] = (struct rec_event){.type = REC_EV_BEGIN, .ticks = t, .name_id = BASE + j};
            ev[k + 1] = (struct rec_event){.type = REC_EV_END, .ticks = t + 2000, .name_id = BASE + j};
            k += 2;
            t += 2500;
        }
        rec_model_feed(m, 0, ev, k, NULL);
    }
    rec_model_set_now(m, (double)t);
    /* Rows: names (one path each, under the root), plus (other). */
    check_window(m, REC_WIN_ALL, RUN_MAX / 2 + 1);
    check_window(m, REC_WIN_10S, 3 * (BUCKET_MAX / 2) + 1);
    rec_model_free(m);
    CHECK_DONE();
}
