/*
 * test_wait.c -- wait scopes (REC_SCOPE_WAIT, and the wait names): their
 * time, and everything inside them, is not busy; their statistics rows
 * still show it, marked.  Hand-built sequences (ticks are ns).
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "model_util.h"

static void feed_wait(rec_model *m, unsigned type, uint64_t t, const char *name) {
    struct rec_event e = tu_ev(type, t, name);
    e.wait = 1;
    tu_feed1(m, 0, e);
}

static const struct rec_model_thread *thread0(rec_model *m) {
    const struct rec_model_thread *th;
    return rec_model_threads(m, &th) == 1 ? &th[0] : NULL;
}

/* step [0, 1000] holds a barrier [100, 900] with a spin inside it. */
static void test_marked(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 10, 1);
    TU_B(m, 0, 0, "step");
    feed_wait(m, REC_EV_BEGIN, 100, "barrier");
    TU_B(m, 0, 200, "spin");     /* inside a wait: waiting too */
    TU_E(m, 0, 300, "spin");
    feed_wait(m, REC_EV_END, 900, "barrier");
    TU_E(m, 0, 1000, "step");
    const struct rec_model_thread *t = thread0(m);
    REQUIRE(t);
    CHECK(t->busy_ns == 200 && t->wait_ns == 800);
    struct rec_stat st[8];
    size_t total, n = rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &total);
    const struct rec_stat *b = tu_stat(st, n, "barrier"), *s = tu_stat(st, n, "step"), *sp = tu_stat(st, n, "spin");
    REQUIRE(b && s && sp);
    CHECK(b->wait && b->total_ns == 800 && b->calls == 1);   /* its time is still shown */
    CHECK(!s->wait && s->total_ns == 1000 && !sp->wait);
    CHECK(rec_model_name_is_wait(m, tu_id("barrier")) && !rec_model_name_is_wait(m, tu_id("step")));
    rec_model_free(m);
}

/* The same through rec_model_feed_entries: the flag read from the entry. */
static void test_entries(void) {
    rec_model *m = tu_model(0, 0);
    struct rec_entry e[] = {
        {0, (uint64_t)REC_EV_THREAD_START << 56 | (uint64_t)1 << 32 | 11},
        {0, (uint64_t)REC_EV_BEGIN << 56 | tu_id("step")},
        {100, (uint64_t)REC_EV_BEGIN << 56 | REC_EV_WAIT | tu_id("barrier")},
        {950, (uint64_t)REC_EV_END << 56 | REC_EV_WAIT | tu_id("barrier")},
        {1000, (uint64_t)REC_EV_END << 56 | tu_id("step")},
    };
    CHECK_EQ_U(rec_model_feed_entries(m, 0, e, 5, 0, NULL), 5);
    const struct rec_model_thread *t = thread0(m);
    REQUIRE(t);
    CHECK(t->busy_ns == 150 && t->wait_ns == 850);
    struct rec_event ev[5];
    size_t used;
    CHECK_EQ_U(rec_decode(e, 5, 0, ev, 5, &used, NULL), 5);
    CHECK(!ev[1].wait && ev[2].wait && ev[3].wait && ev[2].name_id == tu_id("barrier"));
    rec_model_free(m);
}

/* A wait at the top level, one still open, and one whose begin was lost. */
static void test_top_open_unmatched(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 12, 1);
    feed_wait(m, REC_EV_BEGIN, 0, "barrier");
    feed_wait(m, REC_EV_END, 900, "barrier");
    TU_B(m, 0, 900, "work");
    TU_E(m, 0, 1000, "work");
    const struct rec_model_thread *t = thread0(m);
    REQUIRE(t);
    CHECK(t->busy_ns == 100 && t->wait_ns == 900);
    TU_B(m, 0, 1000, "step");
    feed_wait(m, REC_EV_BEGIN, 1500, "barrier");
    rec_model_set_now(m, 2000);
    t = thread0(m);
    REQUIRE(t);
    CHECK(t->busy_ns == 600 && t->wait_ns == 1400);   /* open: up to now */
    rec_model_free(m);

    m = tu_model(1, 0);
    tu_start(m, 0, 100, 13, 1);
    feed_wait(m, REC_EV_END, 500, "barrier");   /* its begin was lost: [100, 500] waited */
    t = thread0(m);
    REQUIRE(t);
    CHECK(t->busy_ns == 0 && t->wait_ns == 400);
    rec_model_free(m);
}

/* Busy per second: 10% busy, 80% waiting inside a scope. */
static void test_util(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 14, 1);
    TU_B(m, 0, 0, "step");
    feed_wait(m, REC_EV_BEGIN, 100000000, "barrier");
    feed_wait(m, REC_EV_END, 900000000, "barrier");
    TU_E(m, 0, 1000000000, "step");
    rec_model_set_now(m, 1999999999);
    const struct rec_model_thread *t = thread0(m);
    REQUIRE(t);
    CHECK(NEAR(t->util[58], 0.2, 1e-6));
    CHECK(t->util[59] == 0);
    /* A wait still open at now: not busy. */
    TU_B(m, 0, 2000000000, "step");
    feed_wait(m, REC_EV_BEGIN, 2500000000, "barrier");
    rec_model_set_now(m, 2999999999);
    t = thread0(m);
    REQUIRE(t);
    CHECK(NEAR(t->util[59], 0.5, 1e-6));
    rec_model_free(m);
}

/* The naming rule: exact names, or a prefix ending in '*'. */
static void test_named(void) {
    rec_model *m = tu_model_waits(1, 0, " barrier , ggml_barrier*");
    tu_start(m, 0, 0, 15, 1);
    TU_B(m, 0, 0, "step");
    TU_B(m, 0, 100, "barrier");
    TU_E(m, 0, 300, "barrier");
    TU_B(m, 0, 300, "ggml_barrier_wait");
    TU_E(m, 0, 500, "ggml_barrier_wait");
    TU_B(m, 0, 500, "barriers");   /* not a wait name */
    TU_E(m, 0, 600, "barriers");
    TU_E(m, 0, 1000, "step");
    const struct rec_model_thread *t = thread0(m);
    REQUIRE(t);
    CHECK(t->busy_ns == 600 && t->wait_ns == 400);
    struct rec_stat st[8];
    size_t total, n = rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &total);
    const struct rec_stat *b = tu_stat(st, n, "barrier"), *g = tu_stat(st, n, "ggml_barrier_wait"),
                          *x = tu_stat(st, n, "barriers");
    REQUIRE(b && g && x);
    CHECK(b->wait && g->wait && !x->wait && b->total_ns == 200);
    rec_model_free(m);
    /* Without wait names, the same scopes are work. */
    m = tu_model(1, 0);
    tu_start(m, 0, 0, 16, 1);
    TU_B(m, 0, 0, "step");
    TU_B(m, 0, 100, "barrier");
    TU_E(m, 0, 300, "barrier");
    TU_E(m, 0, 1000, "step");
    t = thread0(m);
    REQUIRE(t);
    CHECK(t->busy_ns == 1000 && t->wait_ns == 0);
    rec_model_free(m);
}

int main(void) {
    test_marked();
    test_entries();
    test_top_open_unmatched();
    test_util();
    test_named();
    CHECK_DONE();
}
