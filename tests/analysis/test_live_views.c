/*
 * test_live_views.c -- what recorder-top's Counters, Messages and details
 * views read from the model without its log: counters' latest value and
 * min / avg / max per window, the ring of recent messages (newest first,
 * bounded, marked after a loss), and a scope's histogram, percentiles and
 * per-second P99 over the last minute.  Hand-built sequences, known
 * answers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "check.h"
#include "model_util.h"

#define MS 1000000ull
#define SEC 1000000000ull

static void counter(rec_model *m, uint32_t slot, uint64_t t, const char *name, double v) {
    struct rec_event e = tu_ev(REC_EV_COUNTER, t, name);
    e.value = v;
    tu_feed1(m, slot, e);
}

static void instant(rec_model *m, uint32_t slot, uint64_t t, const char *name, const char *msg) {
    struct rec_event e = tu_ev(REC_EV_INSTANT, t, name);
    e.msg_len = (unsigned)strlen(msg);
    memcpy(e.msg, msg, e.msg_len);
    tu_feed1(m, slot, e);
}

static void test_counters(void) {
    rec_model *m = tu_model(0, 0);   /* no log: a viewer's model */
    tu_start(m, 0, 0, 7, 1);
    /* "zeta" is used first: it is listed first whatever its name. */
    tu_id("zeta");
    tu_id("alpha");
    counter(m, 0, 500 * MS, "zeta", 10);      /* 0.5 s: only in the run */
    counter(m, 0, 5500 * MS, "zeta", 40);     /* 5.5 s: 10 s window */
    counter(m, 0, 11200 * MS, "zeta", 2);     /* 11.2 s: 1 s window */
    counter(m, 0, 11900 * MS, "zeta", 6);
    counter(m, 0, 11950 * MS, "alpha", -1);
    rec_model_set_now(m, 12.0 * SEC);
    struct rec_counter c[4];
    size_t total = 0;
    REQUIRE(rec_model_counters(m, REC_WIN_1S, c, 4, &total) == 2);
    CHECK_EQ_U(total, 2);
    CHECK(!strcmp(c[0].name, "zeta") && !strcmp(c[1].name, "alpha"));
    CHECK(c[0].last == 6 && c[0].last_ns == 11900.0 * MS && c[0].tid == 7);
    CHECK(c[0].samples == 2 && c[0].min == 2 && c[0].max == 6 && c[0].avg == 4);
    CHECK(!c[0].partial);
    REQUIRE(rec_model_counters(m, REC_WIN_10S, c, 4, &total) == 2);
    CHECK(c[0].samples == 3 && c[0].min == 2 && c[0].max == 40 && NEAR(c[0].avg, 16, 1e-12));
    REQUIRE(rec_model_counters(m, REC_WIN_ALL, c, 4, &total) == 2);
    CHECK(c[0].samples == 4 && c[0].min == 2 && c[0].max == 40 && NEAR(c[0].avg, 14.5, 1e-12));
    /* Per-second means, the current second (12 s, no sample) last. */
    CHECK(isnan(c[0].per_sec[59]));
    CHECK(c[0].per_sec[58] == 4);                  /* 11 s: (2 + 6) / 2 */
    CHECK(c[0].per_sec[59 - 7] == 40);             /* 5 s */
    CHECK(c[0].per_sec[59 - 12] == 10);            /* 0 s */
    CHECK(isnan(c[0].per_sec[57]));
    /* cap smaller than the count: the first ones, and the total. */
    REQUIRE(rec_model_counters(m, REC_WIN_ALL, c, 1, &total) == 1);
    CHECK(total == 2 && !strcmp(c[0].name, "zeta"));
    /* Time passes: windows empty (NAN), the latest value stays. */
    rec_model_set_now(m, 30.0 * SEC);
    REQUIRE(rec_model_counters(m, REC_WIN_10S, c, 4, &total) == 2);
    CHECK(c[0].samples == 0 && isnan(c[0].min) && isnan(c[0].avg) && c[0].last == 6);
    rec_model_free(m);
}

/* Entries lost on the writer's thread make its counters partial. */
static void test_counters_partial(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    counter(m, 0, 11100 * MS, "q", 1);
    struct rec_loss loss = {0};
    loss.overwritten = 5;
    struct rec_event e = tu_ev(REC_EV_COUNTER, 11500 * MS, "q");
    e.value = 3;
    rec_model_feed(m, 0, &e, 1, &loss);
    rec_model_set_now(m, 12.0 * SEC);
    struct rec_counter c[2];
    size_t total;
    REQUIRE(rec_model_counters(m, REC_WIN_1S, c, 2, &total) == 1);
    CHECK(c[0].partial && c[0].samples == 2 && c[0].last == 3);
    rec_model_set_now(m, 30.0 * SEC);
    REQUIRE(rec_model_counters(m, REC_WIN_1S, c, 2, &total) == 1);
    CHECK(!c[0].partial);
    rec_model_free(m);
}

/* More names than REC_COUNTERS_MAX: the first are kept, the rest counted. */
static void test_counters_bound(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    for (uint32_t i = 0; i < REC_COUNTERS_MAX + 10; i++) {
        struct rec_event e = tu_ev(REC_EV_COUNTER, 1000 + i, NULL);
        e.name_id = 100000 + i;   /* unresolved names: "(id N)" */
        e.value = i;
        tu_feed1(m, 0, e);
    }
    size_t total = 0;
    rec_model_counters(m, REC_WIN_ALL, NULL, 0, &total);
    CHECK_EQ_U(total, REC_COUNTERS_MAX);
    CHECK_EQ_U(rec_model_counters_untracked(m), 10);
    rec_model_free(m);
}

/* Hostile values: non-finite samples are not kept, huge ones are, and a
 * time no bucket can index is kept in the run's figures only. */
static void test_counters_hostile(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    counter(m, 0, 100, "h", NAN);
    counter(m, 0, 200, "h", INFINITY);
    counter(m, 0, 300, "h", 1e308);
    counter(m, 0, 400, "h", 1e308);
    counter(m, 0, UINT64_MAX, "h", 5);   /* 1.8e19 ns: past what a bucket index holds */
    struct rec_counter c[2];
    size_t total;
    REQUIRE(rec_model_counters(m, REC_WIN_ALL, c, 2, &total) == 1);
    CHECK(c[0].samples == 3 && c[0].max == 1e308 && c[0].min == 5 && c[0].last == 5);
    CHECK(isinf(c[0].avg));   /* the sum overflowed: shown as such, not as a number */
    rec_model_free(m);
}

static void test_messages(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    tu_start(m, 1, 0, 8, 1);
    instant(m, 0, 1 * SEC, "checkpoint", "first");
    instant(m, 0, 3 * SEC, "checkpoint", "third");
    instant(m, 1, 2 * SEC, "token", "\x1b[2J second");   /* kept as recorded */
    static struct rec_message out[REC_MESSAGES_MAX];
    uint64_t seen = 0;
    REQUIRE(rec_model_messages(m, out, 8, &seen) == 3);
    CHECK_EQ_U(seen, 3);
    /* Newest first, across threads. */
    CHECK(!strcmp(out[0].msg, "third") && out[0].tid == 7 && out[0].ts_ns == 3.0 * SEC);
    CHECK(!strcmp(out[1].msg, "\x1b[2J second") && out[1].tid == 8 && !strcmp(out[1].name, "token"));
    CHECK(!strcmp(out[2].msg, "first") && !strcmp(out[2].name, "checkpoint"));
    CHECK(!out[0].after_loss && !out[1].after_loss);
    /* A loss on thread 7 before its next message: marked. */
    struct rec_loss loss = {0};
    loss.overwritten = 3;
    struct rec_event e = tu_ev(REC_EV_INSTANT, 4 * SEC, "checkpoint");
    e.msg_len = 5;
    memcpy(e.msg, "after", 5);
    rec_model_feed(m, 0, &e, 1, &loss);
    instant(m, 0, 5 * SEC, "checkpoint", "next");
    REQUIRE(rec_model_messages(m, out, 8, &seen) == 5);
    CHECK(!strcmp(out[1].msg, "after") && out[1].after_loss);
    CHECK(!strcmp(out[0].msg, "next") && !out[0].after_loss);
    /* Bounded: the most recent REC_MESSAGES_MAX are kept. */
    for (int i = 0; i < REC_MESSAGES_MAX + 100; i++) instant(m, 1, 10 * SEC + (uint64_t)i, "token", "x");
    size_t n = rec_model_messages(m, out, REC_MESSAGES_MAX, &seen);
    CHECK_EQ_U(n, REC_MESSAGES_MAX);
    CHECK_EQ_U(seen, 5 + REC_MESSAGES_MAX + 100);
    CHECK(out[0].ts_ns == 10.0 * SEC + REC_MESSAGES_MAX + 99);
    CHECK(out[n - 1].ts_ns == 10.0 * SEC + 100);
    rec_model_free(m);
}

#define slice tu_span

static void test_scope_detail(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    /* 1000 calls in second 0: 990 of 1 us, 9 of 1 ms, 1 of 100 ms. */
    uint64_t t = 0;
    for (int i = 0; i < 1000; i++) {
        uint64_t d = i < 990 ? 1000 : i < 999 ? MS : 100 * MS;
        slice(m, 0, t, t + d, "op");
        t += d + 100;
    }
    rec_model_set_now(m, 0.5 * SEC);
    struct rec_scope_detail d;
    REQUIRE(rec_model_scope_detail(m, REC_WIN_ALL, -1, tu_id("op"), &d) == 0);
    CHECK_EQ_U(d.calls, 1000);
    CHECK(d.min_ns == 1000 && d.max_ns == 100.0 * MS);
    CHECK(NEAR(d.p50_ns, 1000, 0.03) && NEAR(d.p90_ns, 1000, 0.03));
    CHECK(NEAR(d.p99_ns, 1000, 0.03));          /* rank 990: still 1 us */
    CHECK(NEAR(d.p999_ns, 1.0 * MS, 0.03));     /* rank 999 */
    /* 1 us is octave 9 ([512, 1024)) or 10; 1 ms octave 19; 100 ms 26. */
    uint64_t sum = 0;
    for (int k = 0; k < REC_HIST_OCTAVES; k++) sum += d.octave[k];
    CHECK_EQ_U(sum, 1000);
    CHECK_EQ_U(d.octave[9], 990);    /* 1000 ns: [512, 1024) */
    CHECK_EQ_U(d.octave[19], 9);     /* 1e6: [524288, 1048576) */
    CHECK_EQ_U(d.octave[26], 1);     /* 1e8: [67108864, 134217728) */
    CHECK(!d.partial);
    CHECK(NEAR(d.p99_sec[59], 1000, 0.03));
    /* Unknown thread: -1; unknown name: nothing. */
    CHECK(rec_model_scope_detail(m, REC_WIN_ALL, 999, tu_id("op"), &d) == -1);
    REQUIRE(rec_model_scope_detail(m, REC_WIN_ALL, -1, tu_id("nothing"), &d) == 0);
    CHECK(d.calls == 0 && isnan(d.p99_sec[59]));

    /* A minute: second s has calls of (s + 1) us, so P99 = (s + 1) us.
     * Seconds older than the 10 s ring come from what it kept at eviction. */
    rec_model *m2 = tu_model(0, 0);
    tu_start(m2, 0, 0, 7, 1);
    for (uint64_t s = 0; s < 70; s++)
        for (int i = 0; i < 10; i++) {
            uint64_t b = s * SEC + (uint64_t)i * 10 * MS;
            slice(m2, 0, b, b + (s + 1) * 1000, "tick");
        }
    rec_model_set_now(m2, 69.5 * SEC);
    REQUIRE(rec_model_scope_detail(m2, REC_WIN_10S, -1, tu_id("tick"), &d) == 0);
    CHECK_EQ_U(d.calls, 100);
    for (int j = 0; j < REC_HISTORY_SECS; j++) {
        double want = (double)(69 - 59 + j + 1) * 1000;   /* second 10 + j */
        if (!NEAR(d.p99_sec[j], want, 0.03)) {
            printf("p99_sec[%d] = %g, want %g\n", j, d.p99_sec[j], want);
            CHECK(0);
        }
    }
    /* One thread, the last second (calls end in its first 100 ms). */
    REQUIRE(rec_model_scope_detail(m2, REC_WIN_1S, 7, tu_id("tick"), &d) == 0);
    CHECK(d.calls == 10 && NEAR(d.p50_ns, 70000, 0.03));
    rec_model_free(m2);
    rec_model_free(m);
}

/* A second of more names than the minute keeps for each (P99_NAMES,
 * 1024, in scope_detail.c): the busiest are kept once the second leaves
 * the 10 s ring, ties to the name seen first, each with its own P99. */
static void span_id(rec_model *m, uint64_t b, uint64_t e, uint32_t id) {
    struct rec_event x = tu_ev(REC_EV_BEGIN, b, NULL);
    x.name_id = id;
    tu_feed1(m, 0, x);
    x = tu_ev(REC_EV_END, e, NULL);
    x.name_id = id;
    tu_feed1(m, 0, x);
}

static void test_p99_busiest(void) {
    enum { KEEP = 1024, MORE = 200, ID = 200000 };
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    /* Names 0..999 three calls each, of (i % 5 + 1) us; names 1000 on
     * two calls of 1 us: 24 of them fit, the ones seen first.  The calls
     * are spread over second 0, name by name, in order. */
    uint64_t t = 0;
    for (uint32_t i = 0; i < KEEP + MORE; i++)
        for (int k = 0; k < (i < 1000 ? 3 : 2); k++) {
            uint64_t d = i < 1000 ? (i % 5 + 1) * 1000 : 1000;
            span_id(m, t, t + d, ID + i);
            t += d + 50000;
        }
    REQUIRE(t < SEC);
    for (uint64_t sec = 10; sec <= 15; sec++)   /* second 10 takes second 0's place in the 10 s ring */
        span_id(m, sec * SEC, sec * SEC + 1000, ID + 5000);
    rec_model_set_now(m, 15.5 * SEC);
    struct rec_scope_detail d;
    int bad = 0;
    for (uint32_t i = 0; i < KEEP + MORE; i++) {
        REQUIRE(rec_model_scope_detail(m, REC_WIN_10S, -1, ID + i, &d) == 0);
        double got = d.p99_sec[REC_HISTORY_SECS - 1 - 15];   /* second 0 */
        double want = i < 1000 ? (i % 5 + 1) * 1000.0 : i < KEEP ? 1000.0 : NAN;
        if (isnan(want) ? !isnan(got) : !NEAR(got, want, 0.03)) {
            if (bad++ < 5) printf("name %u: p99 of second 0 = %g, want %g\n", i, got, want);
        }
    }
    CHECK(bad == 0);
    rec_model_free(m);
}

int main(void) {
    test_counters();
    test_counters_partial();
    test_counters_bound();
    test_counters_hostile();
    test_messages();
    test_scope_detail();
    test_p99_busiest();
    CHECK_DONE();
}
