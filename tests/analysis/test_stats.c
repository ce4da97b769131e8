/*
 * test_stats.c -- statistics, windows, percentiles, the call tree and the
 * per-thread utilization, against hand-built sequences with known answers.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_util.h"

#define MS 1000000ull
#define SEC 1000000000ull

#define slice tu_span

static void test_windows(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 1, 1);
    slice(m, 0, 500 * MS - 1 * MS, 500 * MS, "s");        /* ends at 0.5 s, 1 ms */
    slice(m, 0, 5500 * MS - 2 * MS, 5500 * MS, "s");      /* 5.5 s, 2 ms */
    slice(m, 0, 11200 * MS - 3 * MS, 11200 * MS, "s");    /* 11.2 s, 3 ms */
    slice(m, 0, 11950 * MS - 4 * MS, 11950 * MS, "s");    /* 11.95 s, 4 ms */
    rec_model_set_now(m, 12.0 * SEC);
    CHECK(rec_model_now(m) == 12.0 * SEC);

    struct rec_stat st[4];
    size_t total;
    /* 1 s window: ten 100 ms buckets, [11.1 s, 12.0 s] */
    REQUIRE(rec_model_stats(m, REC_WIN_1S, -1, st, 4, &total) == 1);
    CHECK(st[0].calls == 2 && st[0].total_ns == 7 * MS && st[0].min_ns == 3 * MS && st[0].max_ns == 4 * MS);
    CHECK(NEAR(rec_model_window_span(m, REC_WIN_1S), 0.9 * SEC, 1e-9));
    CHECK(NEAR(st[0].calls_per_sec, 2 / 0.9, 1e-9));
    /* 10 s window: ten 1 s buckets, [3 s, 12 s] */
    REQUIRE(rec_model_stats(m, REC_WIN_10S, -1, st, 4, &total) == 1);
    CHECK(st[0].calls == 3 && st[0].total_ns == 9 * MS);
    CHECK(NEAR(rec_model_window_span(m, REC_WIN_10S), 9.0 * SEC, 1e-9));
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 4, &total) == 1);
    CHECK(st[0].calls == 4 && st[0].total_ns == 10 * MS && NEAR(st[0].avg_ns, 2.5 * MS, 1e-12));
    CHECK(NEAR(rec_model_window_span(m, REC_WIN_ALL), 12.0 * SEC, 1e-9));

    /* Time passes with nothing new: the windows empty, the run does not. */
    rec_model_set_now(m, 25.0 * SEC);
    CHECK_EQ_U(rec_model_stats(m, REC_WIN_1S, -1, st, 4, &total), 0);
    CHECK_EQ_U(rec_model_stats(m, REC_WIN_10S, -1, st, 4, &total), 0);
    CHECK_EQ_U(rec_model_stats(m, REC_WIN_ALL, -1, st, 4, &total), 1);
    /* A bucket that comes round again starts empty: 21 s reuses 11 s's. */
    slice(m, 0, 21150 * MS, 21200 * MS, "s");
    REQUIRE(rec_model_stats(m, REC_WIN_10S, -1, st, 4, &total) == 1);
    CHECK(st[0].calls == 1 && st[0].total_ns == 50 * MS);
    rec_model_free(m);
}

/* Exact nearest-rank percentile of a sorted array. */
static double exact_pct(const double *sorted, size_t n, double p) {
    size_t rank = (size_t)ceil(p * (double)n - 1e-9);
    if (rank < 1) rank = 1;
    return sorted[rank - 1];
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void test_percentiles(void) {
    enum { N = 1000 };
    static double d[N], sorted[N];
    for (int i = 0; i < N; i++) d[i] = round(1000 * pow(1.01, i));   /* 1 us .. 21 ms */
    /* a fixed shuffle */
    uint64_t x = 12345;
    for (int i = N - 1; i > 0; i--) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        int j = (int)((x >> 33) % (uint64_t)(i + 1));
        double t = d[i];
        d[i] = d[j];
        d[j] = t;
    }
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 1, 1);
    uint64_t t = 1000;
    double sum = 0;
    for (int i = 0; i < N; i++) {
        slice(m, 0, t, t + (uint64_t)d[i], "op");
        t += (uint64_t)d[i] + 10;
        sum += d[i];
    }
    memcpy(sorted, d, sizeof d);
    qsort(sorted, N, sizeof *sorted, cmp_d);
    struct rec_stat st[2];
    size_t total;
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 2, &total) == 1);
    CHECK(st[0].calls == N);
    CHECK(st[0].min_ns == sorted[0] && st[0].max_ns == sorted[N - 1]);
    CHECK(NEAR(st[0].total_ns, sum, 1e-12) && NEAR(st[0].avg_ns, sum / N, 1e-12));
    CHECK(NEAR(st[0].p50_ns, exact_pct(sorted, N, 0.50), 0.03));
    CHECK(NEAR(st[0].p95_ns, exact_pct(sorted, N, 0.95), 0.03));
    CHECK(NEAR(st[0].p99_ns, exact_pct(sorted, N, 0.99), 0.03));
    if (!NEAR(st[0].p50_ns, exact_pct(sorted, N, 0.50), 0.03))
        fprintf(stderr, "p50 %g vs %g\n", st[0].p50_ns, exact_pct(sorted, N, 0.50));

    /* One value: every percentile is it. */
    rec_model *one = tu_model(0, 0);
    tu_start(one, 0, 0, 1, 1);
    slice(one, 0, 100, 100 + 123457, "single");
    REQUIRE(rec_model_stats(one, REC_WIN_ALL, -1, st, 2, &total) == 1);
    CHECK(st[0].p50_ns == 123457 && st[0].p99_ns == 123457);
    rec_model_free(one);
    rec_model_free(m);
}

/* A window of several buckets holds the same bin of a name in several
 * tables; its percentiles must be those of the same slices in one table.
 * Every slice ends inside the 10 s window, so that window and the whole
 * run hold the same slices: each name's percentiles must be equal, in the
 * default order and ordered by P99 (whose key is computed per name). */
static void test_window_percentiles(void) {
    enum { NAMES = 40, PER = 250 };   /* model_util.h's table holds 56 names */
    static char names[NAMES][16];
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 1, 1);
    uint64_t x = 987654321, t = 3050 * MS;
    for (int i = 0; i < NAMES; i++) snprintf(names[i], sizeof names[i], "n%d", i);
    for (int i = 0; i < NAMES * PER; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        /* 1 us .. 200 us, log-uniform: dozens of bins a name */
        uint64_t d = (uint64_t)(1000 * pow(200.0, (double)(x >> 11) / 9007199254740992.0));
        slice(m, 0, t, t + d, names[(x >> 20) % NAMES]);
        t += d + 840000;   /* 10,000 slices over about 8.8 s */
    }
    REQUIRE(t < 12 * SEC);
    rec_model_set_now(m, 12.0 * SEC);
    static struct rec_stat w[NAMES + 1], a[NAMES + 1];
    size_t tw, ta;
    const struct rec_stat_order by_total = {REC_KEY_TOTAL, 0, NULL, NULL}, by_p99 = {REC_KEY_P99, 0, NULL, NULL};
    const struct rec_stat_order *orders[2] = {&by_total, &by_p99};
    for (int o = 0; o < 2; o++) {
        size_t nw = rec_model_stats_top(m, REC_WIN_10S, -1, orders[o], w, NAMES + 1, &tw, NULL);
        size_t na = rec_model_stats_top(m, REC_WIN_ALL, -1, orders[o], a, NAMES + 1, &ta, NULL);
        REQUIRE(nw == NAMES && na == NAMES);
        size_t same = 0;
        for (size_t i = 0; i < NAMES; i++)
            same += !strcmp(w[i].name, a[i].name) && w[i].calls == a[i].calls && w[i].p50_ns == a[i].p50_ns &&
                    w[i].p95_ns == a[i].p95_ns && w[i].p99_ns == a[i].p99_ns && w[i].min_ns <= w[i].p50_ns &&
                    w[i].p50_ns <= w[i].p95_ns && w[i].p95_ns <= w[i].p99_ns && w[i].p99_ns <= w[i].max_ns;
        CHECK_EQ_U(same, NAMES);
    }
    rec_model_free(m);
}

static const struct rec_tree_node *child(const struct rec_tree_node *t, uint32_t parent, const char *name) {
    for (uint32_t c = t[parent].first_child; c; c = t[c].next_sibling)
        if (!strcmp(t[c].name, name)) return &t[c];
    return NULL;
}

static void test_tree(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 1, 1);
    tu_start(m, 1, 0, 2, 1);
    TU_B(m, 0, 0, "main");
    slice(m, 0, 100, 300, "load");
    TU_B(m, 0, 300, "compute");
    slice(m, 0, 300, 500, "matmul");
    slice(m, 0, 600, 800, "matmul");
    TU_E(m, 0, 900, "compute");
    TU_E(m, 0, 1000, "main");
    TU_B(m, 1, 0, "main");
    slice(m, 1, 0, 100, "load");
    TU_E(m, 1, 500, "main");

    struct rec_tree_node t[16];
    size_t n = rec_model_tree(m, REC_WIN_ALL, -1, t, 16);
    CHECK_EQ_U(n, 5);
    CHECK(t[0].name_id == 0 && t[0].parent == 0 && t[0].total_ns == 1500);
    const struct rec_tree_node *mn = child(t, 0, "main");
    REQUIRE(mn);
    uint32_t im = (uint32_t)(mn - t);
    CHECK(mn->calls == 2 && mn->total_ns == 1500 && mn->self_ns == 600 && mn->depth == 1);
    /* children by total, descending: compute (600) then load (300) */
    REQUIRE(mn->first_child);
    CHECK(!strcmp(t[mn->first_child].name, "compute"));
    CHECK(!strcmp(t[t[mn->first_child].next_sibling].name, "load"));
    const struct rec_tree_node *ld = child(t, im, "load"), *cp = child(t, im, "compute");
    REQUIRE(ld && cp);
    CHECK(ld->calls == 2 && ld->total_ns == 300 && ld->self_ns == 300 && ld->parent == im);
    CHECK(cp->calls == 1 && cp->total_ns == 600 && cp->self_ns == 200);
    const struct rec_tree_node *mm = child(t, (uint32_t)(cp - t), "matmul");
    CHECK(mm && mm->calls == 2 && mm->total_ns == 400 && mm->depth == 3);
    for (size_t i = 1; i < n; i++) CHECK(t[i].parent < i);   /* parents first */

    /* One thread. */
    n = rec_model_tree(m, REC_WIN_ALL, 2, t, 16);
    CHECK_EQ_U(n, 3);
    CHECK(t[0].total_ns == 500);
    mn = child(t, 0, "main");
    CHECK(mn && mn->total_ns == 500 && mn->self_ns == 400 && child(t, (uint32_t)(mn - t), "load"));

    /* A small cap drops the smallest subtrees. */
    n = rec_model_tree(m, REC_WIN_ALL, -1, t, 3);
    CHECK_EQ_U(n, 3);
    mn = child(t, 0, "main");
    CHECK(mn && child(t, (uint32_t)(mn - t), "compute") && !child(t, (uint32_t)(mn - t), "load"));

    /* A scope still open: its completed children keep the tree consistent. */
    tu_start(m, 2, 0, 3, 1);
    TU_B(m, 2, 2000, "outer");
    slice(m, 2, 2010, 2020, "in");
    n = rec_model_tree(m, REC_WIN_ALL, 3, t, 16);
    CHECK_EQ_U(n, 3);
    const struct rec_tree_node *ou = child(t, 0, "outer");
    CHECK(ou && ou->calls == 0 && ou->total_ns == 10 && ou->self_ns == 0 && t[0].total_ns == 10);
    rec_model_free(m);
}

static void test_utilization(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 100 * MS, 1, 1);
    slice(m, 0, 500 * MS, 999 * MS, "busy");
    rec_model_set_now(m, 1.5 * SEC);
    const struct rec_model_thread *th;
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK(NEAR(th[0].busy_ns, 499.0 * MS, 1e-9));
    CHECK(NEAR(th[0].util[58], 0.499, 1e-9));
    CHECK(th[0].util[59] == 0 && th[0].util[0] == 0);
    CHECK(th[0].events_per_sec == 3);
    /* An open top-level scope counts as busy up to now. */
    TU_B(m, 0, 1250 * MS, "open");
    rec_model_set_now(m, 1.5 * SEC);
    REQUIRE(rec_model_threads(m, &th) == 1);
    CHECK(NEAR(th[0].util[59], 0.5, 1e-9));   /* 250 ms of the 500 ms so far */
    CHECK(NEAR(th[0].busy_ns, 749.0 * MS, 1e-9));
    rec_model_free(m);
}

/* A model whose names come from fn (ids the tests make up by the
 * thousand, past model_util.h's small table). */
static rec_model *model_named(const char *(*fn)(void *, uint32_t)) {
    struct rec_source_info src;
    memset(&src, 0, sizeof src);
    src.pid = 4242;
    src.ticks_per_sec = 1e9;
    struct rec_model_opts o = {0, 0, ""};
    return rec_model_new(&src, fn, NULL, &o);
}

/* Names "n0", "n1"... for ids from 16 (the model copies them at once). */
static const char *num_name(void *ctx, uint32_t id) {
    static char b[16];
    (void)ctx;
    if (id < 16 || id >= 16 + 4096) return NULL;
    snprintf(b, sizeof b, "n%u", id - 16);
    return b;
}

/* Larger total first; of equal totals the shallower (rec_model_tree's order). */
static int by_total(const void *a, const void *b) {
    const struct rec_tree_node *x = a, *y = b;
    if (x->total_ns != y->total_ns) return x->total_ns > y->total_ns ? -1 : 1;
    return (x->depth > y->depth) - (x->depth < y->depth);
}

/* A cap smaller than the tree keeps exactly its cap - 1 largest nodes, as
 * sorting every node and cutting would (rec_model_tree picks them with a
 * bounded heap): 300 top-level paths of distinct totals, every third with
 * a child of half its time. */
static void test_tree_cap(void) {
    rec_model *m = model_named(num_name);
    REQUIRE(m);
    static struct rec_event ev[1300];
    size_t k = 0;
    ev[k++] = (struct rec_event){.type = REC_EV_THREAD_START, .tid = 1, .gen = 1};
    uint64_t t = 100;
    for (uint32_t i = 0; i < 300; i++) {
        uint64_t d = 10 * (1 + (i * 7) % 1009);
        ev[k++] = (struct rec_event){.type = REC_EV_BEGIN, .ticks = t, .name_id = 16 + i};
        if (i % 3 == 0) {
            ev[k++] = (struct rec_event){.type = REC_EV_BEGIN, .ticks = t + 1, .name_id = 16 + 300 + i};
            ev[k++] = (struct rec_event){.type = REC_EV_END, .ticks = t + 1 + d / 2, .name_id = 16 + 300 + i};
        }
        ev[k++] = (struct rec_event){.type = REC_EV_END, .ticks = t + d, .name_id = 16 + i};
        t += d + 1;
    }
    rec_model_feed(m, 0, ev, k, NULL);
    rec_model_set_now(m, (double)t);
    static struct rec_tree_node all[1024], cut[50];
    size_t n = rec_model_tree(m, REC_WIN_ALL, -1, all, 1024);
    CHECK_EQ_U(n, 401);
    qsort(all + 1, n - 1, sizeof *all, by_total);
    size_t nc = rec_model_tree(m, REC_WIN_ALL, -1, cut, 50);
    CHECK_EQ_U(nc, 50);
    for (size_t i = 1; i < nc; i++) {
        int found = 0;
        for (size_t j = 1; j < 50; j++) found |= !strcmp(cut[i].name, all[j].name) && cut[i].total_ns == all[j].total_ns;
        CHECK(found);
        CHECK(cut[i].parent < i);
    }
    rec_model_free(m);
}

static int all_but_b(void *ctx, uint32_t name_id, const char *name) {
    (void)ctx;
    (void)name_id;
    return strcmp(name, "b") != 0;
}

/* A query reuses the sums of the one before it when none of their tables
 * changed (stats.c): the second of two queries, one of another order or
 * filter, one after more slices, one for a thread, one by a percentile
 * and one after the clock moved must each give what a model fed the same
 * gives from sums it adds up anew (a query of other tables comes first). */
static void check_rows(rec_model *m, rec_model *fresh, int tid, const struct rec_stat_order *o) {
    struct rec_stat a[8], b[8];
    size_t ta = 0, tb = 0;
    size_t na = rec_model_stats_top(m, REC_WIN_ALL, tid, o, a, 8, &ta, NULL);
    rec_model_stats(fresh, REC_WIN_1S, -1, b, 8, &tb);   /* other tables: fresh's next sums are new */
    size_t nb = rec_model_stats_top(fresh, REC_WIN_ALL, tid, o, b, 8, &tb, NULL);
    CHECK_EQ_U(na, nb);
    CHECK_EQ_U(ta, tb);
    for (size_t i = 0; i < na && i < nb; i++) {
        CHECK(!strcmp(a[i].name, b[i].name) && a[i].calls == b[i].calls && a[i].total_ns == b[i].total_ns);
        CHECK(a[i].p99_ns == b[i].p99_ns && a[i].total_frac == b[i].total_frac && a[i].calls_per_sec == b[i].calls_per_sec);
    }
}

/* Slices on two threads, the second losing entries between two of them:
 * its data then covers less than the window, and a row's share of the
 * window is each thread's time over the time its data covers, not the
 * total over the span. */
static void feed_some(rec_model *m, uint64_t t0) {
    slice(m, 0, t0, t0 + 100, "a");
    slice(m, 0, t0 + 200, t0 + 250, "b");
    slice(m, 1, t0, t0 + 400, "a");
    struct rec_loss lost = {5, 0, 0, 0};
    struct rec_event c = tu_ev(REC_EV_BEGIN, t0 + 500, "c");
    rec_model_feed(m, 1, &c, 1, &lost);
    TU_E(m, 1, t0 + 530, "c");
}

static void test_sums_reuse(void) {
    rec_model *m = tu_model(0, 0);
    for (uint32_t s = 0; s < 2; s++) tu_start(m, s, 0, (int)s + 1, 1);
    feed_some(m, 1000);
    rec_model_set_now(m, 5000);
    struct rec_stat_order total = {REC_KEY_TOTAL, 0, NULL, NULL}, calls = {REC_KEY_CALLS, 1, all_but_b, NULL},
                          p99 = {REC_KEY_P99, 0, NULL, NULL};
    rec_model *f = tu_model(0, 0);
    for (uint32_t s = 0; s < 2; s++) tu_start(f, s, 0, (int)s + 1, 1);
    feed_some(f, 1000);
    rec_model_set_now(f, 5000);
    check_rows(m, f, -1, &total);
    check_rows(m, f, -1, &calls);   /* another order and a filter, the same sums */
    check_rows(m, f, -1, &total);
    check_rows(m, f, 2, &total);    /* one thread */
    check_rows(m, f, -1, &p99);
    check_rows(m, f, -1, &total);
    feed_some(m, 2000);             /* more slices, the same span: the sums are stale */
    feed_some(f, 2000);
    check_rows(m, f, -1, &total);
    feed_some(m, 6000);
    feed_some(f, 6000);
    rec_model_set_now(m, 7000);
    rec_model_set_now(f, 7000);
    check_rows(m, f, -1, &total);
    rec_model_set_now(m, 9000);     /* the clock moved: rates and shares change */
    rec_model_set_now(f, 9000);
    check_rows(m, f, -1, &total);
    struct rec_stat st[4];
    size_t n_all = 0;
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 4, &n_all) == 3);
    CHECK(!strcmp(st[0].name, "a") && st[0].calls == 6 && st[0].total_ns == 1500);
    rec_model_free(m);
    rec_model_free(f);
}

/* Names for test_sparse_nodes: "d0".."d63" (ids 16..79), "s0".."s63"
 * (80..143), then fillers "f0".. (the model copies them at once). */
#define SP_PAIRS 64u
#define SP_FILLERS 86000u
static const char *sparse_name(void *ctx, uint32_t id) {
    static char b[16];
    (void)ctx;
    if (id < 16 || id >= 16 + 2 * SP_PAIRS + SP_FILLERS) return NULL;
    id -= 16;
    if (id < SP_PAIRS) snprintf(b, sizeof b, "d%u", id);
    else if (id < 2 * SP_PAIRS) snprintf(b, sizeof b, "s%u", id - SP_PAIRS);
    else snprintf(b, sizeof b, "f%u", id - 2 * SP_PAIRS);
    return b;
}

static void sp_slice(rec_model *m, uint32_t slot, uint64_t b, uint64_t e, uint32_t id) {
    struct rec_event ev[2] = {{.type = REC_EV_BEGIN, .ticks = b, .name_id = id}, {.type = REC_EV_END, .ticks = e, .name_id = id}};
    rec_model_feed(m, slot, ev, 2, NULL);
}

static int not_filler(void *ctx, uint32_t name_id, const char *name) {
    (void)ctx;
    (void)name_id;
    return name[0] != 'f';
}

/* Nodes past the dense pending range (a million names) wait in a log of
 * slices until their bucket closes, and are folded with prefetching
 * (agg.c); below it they are summed in place.  Thread 1's names "d" get
 * the first nodes, thread 2's "s" come after more fillers than the dense
 * range holds (more than the log holds too: it folds early); then each
 * "s" slice mirrors a "d" slice to the nanosecond, some across 100 ms and
 * 1 s buckets, so every figure of every window must be the same for d_i
 * and s_i.  Both threads end before the queries: their pending slices
 * must be folded when their memory is released. */
static void test_sparse_nodes(void) {
    rec_model *m = model_named(sparse_name);
    REQUIRE(m);
    tu_start(m, 0, 0, 1, 1);
    tu_start(m, 1, 0, 2, 1);
    uint64_t t = 1000;
    for (uint32_t i = 0; i < SP_PAIRS; i++, t += 100) sp_slice(m, 0, t, t + 50, 16 + i);
    uint64_t tf = t;
    for (uint32_t i = 0; i < SP_FILLERS; i++, t += 10) sp_slice(m, 0, t, t + 5, 16 + 2 * SP_PAIRS + i);
    for (uint32_t i = 0; i < SP_PAIRS; i++, tf += 100) sp_slice(m, 1, tf - SP_PAIRS * 100, tf - SP_PAIRS * 100 + 50, 16 + SP_PAIRS + i);
    /* Mirrored slices, in time order, across buckets of 100 ms and 1 s. */
    uint64_t at = 50 * MS;
    for (int round = 0; round < 3; round++) {
        for (uint32_t i = 0; i < SP_PAIRS; i++) {
            uint64_t d = (uint64_t)(1 + (i * 37 + (uint32_t)round * 11) % 97) * 3 * MS / 2 + i * 1000;
            sp_slice(m, 0, at, at + d, 16 + i);
            sp_slice(m, 1, at, at + d, 16 + SP_PAIRS + i);
            at += d + 7 * MS;
        }
    }
    /* Both threads end (their slots' next generations start): what they
     * had pending is folded as their memory is released, not lost. */
    tu_start(m, 0, at + 500, 3, 2);
    tu_start(m, 1, at + 500, 4, 2);
    rec_model_set_now(m, (double)at + 1000);
    struct rec_stat_order ord = {REC_KEY_TOTAL, 0, not_filler, NULL};
    enum rec_window wins[3] = {REC_WIN_1S, REC_WIN_10S, REC_WIN_ALL};
    static struct rec_stat rows[2 * SP_PAIRS];
    for (int w = 0; w < 3; w++) {
        size_t total = 0;
        size_t n = rec_model_stats_top(m, wins[w], -1, &ord, rows, 2 * SP_PAIRS, &total, NULL);
        CHECK(n > 0 && n % 2 == 0);
        size_t pairs = 0;
        for (size_t a = 0; a < n; a++) {
            if (rows[a].name[0] != 'd') continue;
            for (size_t b = 0; b < n; b++) {
                if (rows[b].name[0] != 's' || strcmp(rows[a].name + 1, rows[b].name + 1)) continue;
                const struct rec_stat *x = &rows[a], *y = &rows[b];
                CHECK(x->calls == y->calls && x->total_ns == y->total_ns && x->self_ns == y->self_ns);
                if (wins[w] == REC_WIN_ALL) CHECK_EQ_U(x->calls, 4);   /* the first slice and three rounds */
                CHECK(x->min_ns == y->min_ns && x->max_ns == y->max_ns && x->p50_ns == y->p50_ns && x->p99_ns == y->p99_ns);
                CHECK(fabs(x->total_frac - y->total_frac) <= 1e-12 * fabs(x->total_frac));
                CHECK(fabs(x->self_frac - y->self_frac) <= 1e-12 * fabs(x->self_frac));
                pairs++;
            }
        }
        CHECK_EQ_U(2 * pairs, n);
        if (wins[w] == REC_WIN_ALL) CHECK_EQ_U(n, 2 * SP_PAIRS);
    }
    /* The fillers, those past the log's bound included, are there: one
     * call each. */
    size_t total = 0, cap = 2 * SP_PAIRS + SP_FILLERS;
    struct rec_stat *all = malloc(cap * sizeof *all);
    REQUIRE(all);
    size_t n = rec_model_stats(m, REC_WIN_ALL, -1, all, cap, &total);
    CHECK_EQ_U(n, cap);
    CHECK_EQ_U(total, cap);
    uint64_t fillers = 0;
    for (size_t i = 0; i < n; i++)
        if (all[i].name[0] == 'f') fillers += all[i].calls == 1;
    CHECK_EQ_U(fillers, SP_FILLERS);
    free(all);
    rec_model_free(m);
}

int main(void) {
    test_windows();
    test_percentiles();
    test_window_percentiles();
    test_tree();
    test_tree_cap();
    test_sums_reuse();
    test_sparse_nodes();
    test_utilization();
    CHECK_DONE();
}
