/*
 * test_slices.c -- begin/end pairing into slices: nesting, END 0, unmatched
 * ends, ends naming a deeper scope, open scopes at the snapshot, depth
 * overflow, generations, loss and the event log bound.  Every sequence is
 * hand-built with a known answer (ticks are ns).
 */
#include <math.h>
#include <stdio.h>

#include "check.h"
#include "model_util.h"

static void test_nesting(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 50, 100, 1);
    TU_B(m, 0, 100, "a");
    TU_B(m, 0, 200, "b");
    TU_E(m, 0, 300, "b");
    TU_B(m, 0, 400, "c");
    TU_E0(m, 0, 450);            /* END 0 closes the innermost: c */
    TU_E(m, 0, 1000, "a");
    const struct rec_item *a = tu_slice(m, 100, 0), *b = tu_slice(m, 100, 1), *c = tu_slice(m, 100, 2);
    REQUIRE(a && b && c && !tu_slice(m, 100, 3));
    CHECK(a->name_id == tu_id("a") && a->ts_ns == 100 && a->dur_ns == 900 && a->depth == 0 && a->flags == 0);
    CHECK(b->name_id == tu_id("b") && b->ts_ns == 200 && b->dur_ns == 100 && b->depth == 1 && b->flags == 0);
    CHECK(c->name_id == tu_id("c") && c->ts_ns == 400 && c->dur_ns == 50 && c->depth == 1 && c->flags == 0);

    struct rec_stat st[8];
    size_t total;
    size_t n = rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &total);
    CHECK_EQ_U(n, 3);
    CHECK_EQ_U(total, 3);
    CHECK(!strcmp(st[0].name, "a"));   /* sorted by total */
    const struct rec_stat *sa = tu_stat(st, n, "a"), *sb = tu_stat(st, n, "b");
    REQUIRE(sa && sb);
    CHECK(sa->calls == 1 && sa->total_ns == 900 && sa->self_ns == 750 && sa->min_ns == 900 && sa->max_ns == 900);
    CHECK(sb->calls == 1 && sb->total_ns == 100 && sb->self_ns == 100);

    const struct rec_model_thread *th;
    CHECK_EQ_U(rec_model_threads(m, &th), 1);
    CHECK(th[0].tid == 100 && th[0].depth == 0 && th[0].events == 7 && th[0].unmatched == 0);
    CHECK(th[0].first_ns == 50 && th[0].last_ns == 1000);
    CHECK(th[0].busy_ns == 900);
    rec_model_free(m);
}

static void test_unmatched_and_open(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 100, 7, 1);
    /* The begins of x and y were overwritten: their ends come first. */
    TU_B(m, 0, 150, "w");
    TU_E(m, 0, 180, "w");
    TU_E(m, 0, 200, "x");        /* no begin: [100, 200] */
    TU_E(m, 0, 300, "y");        /* no begin: [100, 300], encloses x and w */
    TU_B(m, 0, 400, "open");     /* never ends */
    TU_B(m, 0, 500, "inner");
    TU_E(m, 0, 600, "zz");       /* names no open scope: [500, 600] inside inner */
    TU_E(m, 0, 700, "inner");
    rec_model_set_now(m, 1000);

    const struct rec_item *it;
    size_t n = rec_model_items(m, &it);
    /* time order, longer first at equal begins */
    const char *names[] = {"y", "x", "w", "open", "inner", "zz"};
    double ts[] = {100, 100, 150, 400, 500, 500};
    double dur[] = {200, 100, 30, 600, 200, 100};
    unsigned depth[] = {0, 1, 2, 0, 1, 2};
    unsigned flags[] = {REC_SLICE_NO_BEGIN, REC_SLICE_NO_BEGIN, 0, REC_SLICE_OPEN, 0, REC_SLICE_NO_BEGIN};
    size_t k = 0;
    for (size_t i = 0; i < n; i++) {
        if (it[i].kind != REC_ITEM_SLICE) continue;
        REQUIRE(k < 6);
        CHECK(it[i].name_id == tu_id(names[k]));
        CHECK(it[i].ts_ns == ts[k]);
        CHECK(it[i].dur_ns == dur[k]);
        CHECK_EQ_U(it[i].depth, depth[k]);
        CHECK_EQ_U(it[i].flags, flags[k]);
        k++;
    }
    CHECK_EQ_U(k, 6);

    /* Only slices seen whole count. */
    struct rec_stat st[8];
    size_t total;
    rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &total);
    CHECK_EQ_U(total, 2);
    const struct rec_stat *in = tu_stat(st, 2, "inner");
    REQUIRE(in);
    CHECK(in->total_ns == 200 && in->self_ns == 100);   /* zz's 100 ns were inside it */

    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK_EQ_U(th[0].unmatched, 3);
    CHECK_EQ_U(th[0].depth, 1);
    CHECK(th[0].stack[0] == tu_id("open") && th[0].stack_ns[0] == 400);
    rec_model_free(m);
}

static void test_end_names_deeper(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 9, 1);
    TU_B(m, 0, 100, "a");
    TU_B(m, 0, 200, "b");
    TU_B(m, 0, 250, "c");
    TU_E(m, 0, 400, "a");        /* b and c lost their ends: closed here too */
    TU_B(m, 0, 500, "d");        /* the stack did not drift: d is top-level */
    TU_E(m, 0, 600, "d");
    const struct rec_item *a = tu_slice(m, 9, 0), *b = tu_slice(m, 9, 1), *c = tu_slice(m, 9, 2),
                          *d = tu_slice(m, 9, 3);
    REQUIRE(a && b && c && d);
    CHECK(a->dur_ns == 300 && a->flags == 0 && a->depth == 0);
    CHECK(b->ts_ns == 200 && b->dur_ns == 200 && b->flags == REC_SLICE_NO_END && b->depth == 1);
    CHECK(c->ts_ns == 250 && c->dur_ns == 150 && c->flags == REC_SLICE_NO_END && c->depth == 2);
    CHECK(d->depth == 0 && d->flags == 0);
    struct rec_stat st[8];
    size_t total;
    rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &total);
    CHECK_EQ_U(total, 2);                       /* a and d */
    const struct rec_stat *sa = tu_stat(st, 2, "a");
    CHECK(sa && sa->self_ns == 100);            /* b's 200 ns were inside a */
    rec_model_free(m);
}

/* Scopes nest up to REC_MAX_NESTING levels, tracked (1000 is a Python
 * recursion); past that they are counted, not tracked, and their ends
 * close nothing they should not. */
static void test_depth_overflow(void) {
    const int n = REC_MAX_NESTING + 72;
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 5, 1);
    for (int i = 0; i < n; i++) TU_B(m, 0, 10 + (uint64_t)i, "r");
    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK_EQ_U(th[0].depth, REC_MAX_NESTING);
    CHECK_EQ_U(th[0].too_deep, 72);
    for (int i = 0; i < n; i++) TU_E(m, 0, 1000000 + (uint64_t)i, "r");
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK_EQ_U(th[0].depth, 0);
    CHECK_EQ_U(th[0].unmatched, 0);
    struct rec_stat st[2];
    size_t total;
    rec_model_stats(m, REC_WIN_ALL, -1, st, 2, &total);
    CHECK(total == 1 && st[0].calls == REC_MAX_NESTING);
    rec_model_free(m);
}

static void test_generations(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 3, 100, 11, 1);
    struct rec_event nm = tu_ev(REC_EV_THREAD_NAME, 110, "first\x01thread");
    tu_feed1(m, 3, nm);
    TU_B(m, 3, 120, "job");
    TU_B(m, 3, 130, "left-open");   /* the thread exits with it open */
    TU_E(m, 3, 140, "left-open");
    TU_B(m, 3, 150, "left-open");
    tu_start(m, 3, 200, 22, 2);      /* the slot is reused */
    TU_B(m, 3, 210, "job");
    TU_E(m, 3, 260, "job");
    rec_model_set_now(m, 1000);

    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 2);
    CHECK(th[0].slot == 3 && th[0].gen == 1 && th[0].tid == 11 && th[0].state == REC_SLOT_EXITED);
    CHECK(!strcmp(th[0].name, "first?thread"));
    CHECK(th[0].depth == 0);
    CHECK(th[1].slot == 3 && th[1].gen == 2 && th[1].tid == 22 && th[1].state == REC_SLOT_LIVE);
    /* The old generation's open scopes end at its last event, not at now. */
    const struct rec_item *job = tu_slice(m, 11, 0), *lo = tu_slice(m, 11, 2);
    REQUIRE(job && lo);
    CHECK(job->flags == REC_SLICE_OPEN && job->ts_ns == 120 && job->dur_ns == 30);
    CHECK(lo->flags == REC_SLICE_OPEN && lo->ts_ns == 150 && lo->dur_ns == 0 && lo->depth == 1);
    const struct rec_item *j2 = tu_slice(m, 22, 0);
    CHECK(j2 && j2->flags == 0 && j2->dur_ns == 50);

    /* Per-thread statistics. */
    struct rec_stat st[4];
    size_t total;
    rec_model_stats(m, REC_WIN_ALL, 22, st, 4, &total);
    CHECK(total == 1 && st[0].calls == 1 && st[0].total_ns == 50);
    rec_model_stats(m, REC_WIN_ALL, 11, st, 4, &total);
    CHECK(total == 1 && !strcmp(st[0].name, "left-open") && st[0].calls == 1);
    rec_model_stats(m, REC_WIN_ALL, 12345, st, 4, &total);
    CHECK_EQ_U(total, 0);
    rec_model_free(m);
}

/* All threads are not stored but summed when asked (agg.c): each query
 * for tid -1 (the rows, the call tree, one scope's details) must give the
 * threads' sums, minimum, maximum and histogram together. */
static void test_all_threads(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 1, 10, 11, 1);
    tu_start(m, 2, 10, 22, 1);
    TU_B(m, 1, 100, "job");
    TU_B(m, 1, 120, "io");
    TU_E(m, 1, 150, "io");
    TU_E(m, 1, 200, "job");
    TU_B(m, 2, 300, "job");
    TU_E(m, 2, 1300, "job");
    rec_model_set_now(m, 2000);

    struct rec_stat st[4];
    size_t total;
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 4, &total) == 2);
    CHECK(!strcmp(st[0].name, "job") && st[0].calls == 2 && st[0].total_ns == 1100);
    CHECK(st[0].min_ns == 100 && st[0].max_ns == 1000 && st[0].self_ns == 1070);
    CHECK(!strcmp(st[1].name, "io") && st[1].calls == 1 && st[1].total_ns == 30);
    uint32_t job = st[0].name_id;
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, 11, st, 4, &total) == 2);
    CHECK(st[0].calls == 1 && st[0].total_ns == 100);
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, 22, st, 4, &total) == 1);
    CHECK(st[0].calls == 1 && st[0].total_ns == 1000);

    struct rec_tree_node t[4];
    REQUIRE(rec_model_tree(m, REC_WIN_ALL, -1, t, 4) == 3);
    CHECK(!strcmp(t[1].name, "job") && t[1].calls == 2 && t[1].total_ns == 1100 && t[1].self_ns == 1070);
    CHECK(!strcmp(t[2].name, "io") && t[2].calls == 1 && t[2].parent == 1);

    struct rec_scope_detail d;
    REQUIRE(rec_model_scope_detail(m, REC_WIN_ALL, -1, job, &d) == 0);
    CHECK(d.calls == 2 && d.min_ns == 100 && d.max_ns == 1000);
    CHECK(d.octave[6] == 1 && d.octave[9] == 1);   /* 100 in [64, 128), 1000 in [512, 1024) */
    REQUIRE(rec_model_scope_detail(m, REC_WIN_ALL, 22, job, &d) == 0);
    CHECK(d.calls == 1 && d.min_ns == 1000 && d.octave[9] == 1 && d.octave[6] == 0);
    rec_model_free(m);
}

/* rec_model_thread announces a generation whose THREAD_START was lost:
 * events from its start_head on are its, earlier ones an older thread's. */
static void test_announced_generation(void) {
    rec_model *m = tu_model(1, 0);
    struct rec_thread_info ti;
    memset(&ti, 0, sizeof ti);
    ti.slot = 1;
    ti.gen = 4;
    ti.state = REC_SLOT_LIVE;
    ti.tid = 77;
    strcpy(ti.name, "announced");
    ti.start_head = 10;
    rec_model_thread(m, &ti);
    struct rec_event ev[3] = {tu_ev(REC_EV_BEGIN, 100, "old"), tu_ev(REC_EV_BEGIN, 200, "new"),
                              tu_ev(REC_EV_END, 300, "new")};
    ev[0].index = 8;
    ev[1].index = 10;
    ev[2].index = 11;
    rec_model_feed(m, 1, ev, 3, NULL);
    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 2);
    CHECK(th[0].gen == 3 && th[0].events == 1 && th[0].state == REC_SLOT_EXITED);
    CHECK(th[1].gen == 4 && th[1].tid == 77 && !strcmp(th[1].name, "announced") && th[1].events == 2);
    rec_model_free(m);
}

static void test_loss(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 5, 1);
    TU_B(m, 0, 100, "main");
    TU_B(m, 0, 200, "step");
    struct rec_loss loss = {40, 2, 0, 0};
    struct rec_event e[2] = {tu_ev(REC_EV_END, 900, "step"), tu_ev(REC_EV_END, 1000, "main")};
    rec_model_feed(m, 0, e, 2, &loss);
    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK(th[0].overwritten == 40 && th[0].dropped == 2);
    /* The 40 overwritten entries are older than what the read returned:
     * marked at its first event.  The 2 dropped ones are newer (a
     * stream-mode writer drops only with its ring full): counted and
     * marked at its last event, where the gap begins. */
    struct rec_event later = tu_ev(REC_EV_INSTANT, 1100, "after");
    rec_model_feed(m, 0, &later, 1, NULL);
    const struct rec_item *it;
    size_t n = rec_model_items(m, &it), nloss = 0;
    for (size_t i = 0; i < n; i++) {
        if (it[i].kind == REC_ITEM_LOSS) {
            nloss++;
            if (nloss == 1) CHECK(it[i].ts_ns == 900 && it[i].value == 40);
            else CHECK(it[i].ts_ns == 1000 && it[i].value == 2);
        }
        if (it[i].kind == REC_ITEM_SLICE) CHECK(it[i].flags == REC_SLICE_GAP);
    }
    CHECK_EQ_U(nloss, 2);
    struct rec_stat st[4];
    size_t total;
    rec_model_stats(m, REC_WIN_ALL, -1, st, 4, &total);
    CHECK_EQ_U(total, 0);   /* the begin and end around a gap may not pair up */

    /* Loss with no event yet is placed at the next one. */
    rec_model_feed(m, 0, NULL, 0, &loss);
    TU_B(m, 0, 2000, "after");
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK(th[0].overwritten == 80);
    rec_model_free(m);
}

static void test_log_bound(void) {
    rec_model *m = tu_model(1, 10);
    tu_start(m, 0, 0, 5, 1);
    for (int i = 0; i < 100; i++) {
        struct rec_event e = tu_ev(REC_EV_INSTANT, 10 + (uint64_t)i, "tick");
        e.msg_len = (unsigned)snprintf(e.msg, sizeof e.msg, "message %d", i);
        tu_feed1(m, 0, e);
    }
    const struct rec_item *it;
    size_t n = rec_model_items(m, &it);
    CHECK_EQ_U(n, 10);
    CHECK_EQ_U(rec_model_items_dropped(m), 90);
    CHECK(n == 10 && it[0].ts_ns == 100 && !strcmp(it[0].msg, "message 90"));
    CHECK(n == 10 && !strcmp(it[9].msg, "message 99"));

    /* Past the log's 64 Ki-item blocks: the oldest blocks are recycled. */
    rec_model *big = tu_model(1, 100000);
    tu_start(big, 0, 0, 5, 1);
    for (uint64_t i = 0; i < 300000; i++) {
        TU_B(big, 0, 10 + 2 * i, "s");
        TU_E(big, 0, 11 + 2 * i, "s");
    }
    n = rec_model_items(big, &it);
    CHECK_EQ_U(n, 100000);
    CHECK_EQ_U(rec_model_items_dropped(big), 200000);
    int ordered = n == 100000;
    for (size_t i = 0; ordered && i < n; i++) ordered = it[i].ts_ns == 10 + 2 * (200000 + (double)i) && it[i].dur_ns == 1;
    CHECK(ordered);
    rec_model_free(big);

    /* Without keep_log there is no log, and statistics still work. */
    rec_model *s = tu_model(0, 0);
    tu_start(s, 0, 0, 5, 1);
    TU_B(s, 0, 10, "x");
    TU_E(s, 0, 20, "x");
    CHECK_EQ_U(rec_model_items(s, &it), 0);
    struct rec_stat st[2];
    size_t total;
    CHECK_EQ_U(rec_model_stats(s, REC_WIN_ALL, -1, st, 2, &total), 1);
    rec_model_free(s);
    rec_model_free(m);
}

static void test_counters_flows(void) {
    rec_model *m = tu_model(1, 0);
    tu_start(m, 0, 0, 5, 1);
    struct rec_event c = tu_ev(REC_EV_COUNTER, 10, "kv");
    c.value = 1.5;
    tu_feed1(m, 0, c);
    c.value = NAN;   /* never exported */
    c.ticks = 20;
    tu_feed1(m, 0, c);
    struct rec_event f = tu_ev(REC_EV_FLOW_BEGIN, 30, NULL);
    f.flow_id = 99;
    tu_feed1(m, 0, f);
    const struct rec_item *it;
    size_t n = rec_model_items(m, &it), nc = 0, nf = 0;
    for (size_t i = 0; i < n; i++) {
        if (it[i].kind == REC_ITEM_COUNTER) {
            nc++;
            CHECK(it[i].value == 1.5);
        }
        if (it[i].kind == REC_ITEM_FLOW) {
            nf++;
            CHECK(it[i].flow_id == 99 && it[i].flow_phase == REC_EV_FLOW_BEGIN);
        }
    }
    CHECK(nc == 1 && nf == 1);
    rec_model_free(m);
}

int main(void) {
    test_nesting();
    test_unmatched_and_open();
    test_end_names_deeper();
    test_depth_overflow();
    test_generations();
    test_all_threads();
    test_announced_generation();
    test_loss();
    test_log_bound();
    test_counters_flows();
    CHECK_DONE();
}
