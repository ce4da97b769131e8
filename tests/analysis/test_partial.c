/*
 * test_partial.c -- statistics of partial data (docs/analysis.md,
 * "Loss, and statistics of partial data"): what a window with lost
 * entries says about itself, and shares divided by the time the decoded
 * data covers, against hand-built sequences with known answers.
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "model_util.h"

#define MS 1000000ull
#define SEC 1000000000ull

static void feed_loss(rec_model *m, uint32_t slot, struct rec_event e, uint64_t over, uint64_t drop, uint64_t hist) {
    struct rec_loss l = {over, drop, hist, 0};
    rec_model_feed(m, slot, &e, 1, &l);
}

/* One thread busy in "work" all the time; a reader that lost three
 * quarters of every 100 ms (the writer lapped it): TOTAL% stays 100%. */
static void test_saturated(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    uint64_t t = 0;
    for (int k = 0; k < 20; k++) {           /* 2 s in 100 ms periods */
        /* 25 ms of back-to-back 1 ms scopes we read ... */
        for (int i = 0; i < 25; i++, t += MS) {
            TU_B(m, 0, t, "work");
            TU_E(m, 0, t + MS, "work");
        }
        /* ... then 75 ms overwritten before we got there. */
        t += 75 * MS;
        feed_loss(m, 0, tu_ev(REC_EV_BEGIN, t, "work"), 150, 0, 0);
        TU_E(m, 0, t + 1, "work");       /* a short one: its begin follows the gap */
        t += 1;
    }
    rec_model_set_now(m, (double)t);
    struct rec_window_cover c;
    REQUIRE(rec_model_window_cover(m, REC_WIN_1S, -1, &c) == 0);
    CHECK(c.partial);
    CHECK(c.lost > 0 && c.decoded > 0);
    CHECK(c.decoded_frac > 0.1 && c.decoded_frac < 0.4);   /* ~52 events per 150 lost */
    CHECK(c.gap_ns > 0.6 * c.span_ns && c.gap_ns < 0.8 * c.span_ns);
    struct rec_stat st[2];
    size_t n_all;
    REQUIRE(rec_model_stats(m, REC_WIN_1S, -1, st, 2, &n_all) == 1);
    /* The raw share of the window is ~25%; of the covered time, ~100%. */
    CHECK(st[0].total_ns / c.span_ns < 0.35);
    CHECK(st[0].total_frac > 0.9 && st[0].total_frac < 1.1);
    /* The same for the thread itself. */
    REQUIRE(rec_model_stats(m, REC_WIN_1S, 7, st, 2, &n_all) == 1);
    CHECK(st[0].total_frac > 0.9 && st[0].total_frac < 1.1);
    /* And its busy % per second. */
    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK(th[0].util[58] > 0.9);
    CHECK_EQ_U(th[0].history, 0);
    CHECK(th[0].overwritten == 20 * 150);
    CHECK(th[0].gap_ns > 1.4 * SEC);
    /* Busy time is time seen: not more than the time the data covers. */
    double covered = th[0].last_ns - th[0].first_ns - th[0].gap_ns;
    CHECK(th[0].busy_ns <= covered + 1 && th[0].busy_ns > 0.95 * covered);
    rec_model_free(m);
}

/* History not kept is no loss: nothing partial, no gap. */
static void test_history(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 9, 1);
    feed_loss(m, 0, tu_ev(REC_EV_BEGIN, 10 * MS, "a"), 0, 0, 5000);
    TU_E(m, 0, 20 * MS, "a");
    rec_model_set_now(m, 30.0 * MS);
    struct rec_window_cover c;
    REQUIRE(rec_model_window_cover(m, REC_WIN_ALL, -1, &c) == 0);
    CHECK(!c.partial);
    CHECK_EQ_U(c.lost, 0);
    CHECK(c.decoded_frac == 1);
    CHECK(c.gap_ns == 0);
    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK_EQ_U(th[0].history, 5000);
    CHECK_EQ_U(th[0].overwritten + th[0].dropped + th[0].bad, 0);
    /* The log has a not-kept marker, not a loss. */
    const struct rec_item *it;
    size_t n = rec_model_items(m, &it), marks = 0;
    for (size_t i = 0; i < n; i++)
        if (it[i].kind == REC_ITEM_LOSS) {
            marks++;
            CHECK(it[i].flags & REC_LOSS_NOT_KEPT);
            CHECK(it[i].value == 5000);
        }
    CHECK_EQ_U(marks, 1);
    rec_model_free(m);
}

/* Without loss, the shares are the plain ones, and two threads add up. */
static void test_complete(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 1, 1);
    tu_start(m, 1, 0, 2, 1);
    TU_B(m, 0, 100 * MS, "x");
    TU_E(m, 0, 600 * MS, "x");
    TU_B(m, 1, 100 * MS, "x");
    TU_E(m, 1, 300 * MS, "x");
    rec_model_set_now(m, 1.0 * SEC);
    struct rec_window_cover c;
    REQUIRE(rec_model_window_cover(m, REC_WIN_ALL, -1, &c) == 0);
    CHECK(!c.partial && c.decoded == 6 && c.lost == 0);
    struct rec_stat st[2];
    size_t n_all;
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 2, &n_all) == 1);
    CHECK(NEAR(st[0].total_frac, st[0].total_ns / rec_model_window_span(m, REC_WIN_ALL), 1e-9));
    CHECK(NEAR(st[0].total_frac, 0.7, 1e-9));
    /* Bad entries are lost events: the window is partial. */
    rec_model_add_bad(m, 0, 3);
    REQUIRE(rec_model_window_cover(m, REC_WIN_ALL, 1, &c) == 0);
    CHECK(c.partial && c.lost == 3);
    REQUIRE(rec_model_window_cover(m, REC_WIN_ALL, 2, &c) == 0);
    CHECK(!c.partial);
    CHECK(rec_model_window_cover(m, REC_WIN_ALL, 12345, &c) == -1);
    rec_model_free(m);
}

/* A share of one thread's time never passes 100%: a slice that began
 * before the window counts only its time inside it (the window-edge bug:
 * whole slices ending in the window made 101-111% on llama-bench). */
static void test_window_edges(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 3, 1);
    /* 250 ms scopes back to back for 5 s: each crosses 100 ms buckets. */
    for (uint64_t t = 0; t < 5 * SEC; t += 250 * MS) {
        TU_B(m, 0, t, "op");
        TU_E(m, 0, t + 250 * MS, "op");
    }
    /* and one scope over the whole run, around nothing else */
    tu_start(m, 1, 0, 4, 1);
    TU_B(m, 1, 0, "long");
    TU_E(m, 1, 5 * SEC, "long");
    rec_model_set_now(m, 5.0 * SEC);
    struct rec_stat st[4];
    size_t n_all;
    enum rec_window ws[3] = {REC_WIN_1S, REC_WIN_10S, REC_WIN_ALL};
    for (int w = 0; w < 3; w++) {
        REQUIRE(rec_model_stats(m, ws[w], 3, st, 4, &n_all) == 1);
        CHECK(st[0].total_frac <= 1.0 + 1e-9 && st[0].total_frac > 0.99);
        REQUIRE(rec_model_stats(m, ws[w], 4, st, 4, &n_all) == 1);
        CHECK(st[0].total_frac <= 1.0 + 1e-9 && st[0].total_frac > 0.99);
        CHECK(st[0].self_frac <= 1.0 + 1e-9 && st[0].self_frac > 0.99);
        /* Calls and durations still go by the slice's end. */
        CHECK(st[0].calls == 1 && st[0].total_ns == 5.0 * SEC);
    }
    rec_model_free(m);
}

/* A loop's scopes open across a loss, and the loop goes on: each new
 * iteration closes the stale ones (end lost) instead of nesting under
 * them, so the stack stays as deep as the loop. */
static void test_stale_after_loss(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 5, 1);
    uint64_t t = 10;
    for (int i = 0; i < 100; i++) {
        TU_B(m, 0, t, "hot");
        TU_B(m, 0, t + 1, "inner");
        /* the ends of this iteration are lost */
        feed_loss(m, 0, tu_ev(REC_EV_BEGIN, t + 100, "hot"), 4, 0, 0);
        TU_B(m, 0, t + 101, "inner");
        TU_E(m, 0, t + 102, "inner");
        TU_E(m, 0, t + 103, "hot");
        t += 200;
    }
    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK_EQ_U((uint64_t)th[0].depth, 0);
    const struct rec_item *it;
    size_t n = rec_model_items(m, &it), stale = 0, whole = 0, deepest = 0;
    for (size_t i = 0; i < n; i++) {
        if (it[i].kind != REC_ITEM_SLICE) continue;
        if (it[i].depth > deepest) deepest = it[i].depth;
        if (it[i].flags & REC_SLICE_NO_END) stale++;
        else if (!it[i].flags) whole++;
    }
    CHECK(deepest <= 1);
    CHECK_EQ_U(stale, 200);      /* hot and inner of every iteration whose ends were lost */
    CHECK_EQ_U(whole, 200);      /* and the ones after the gap, whole */
    rec_model_free(m);
}

int main(void) {
    test_stale_after_loss();
    test_window_edges();
    test_saturated();
    test_history();
    test_complete();
    CHECK_DONE();
}
