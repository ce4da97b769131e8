/*
 * export_cases.c OUTDIR -- hand-built event sequences that stress the
 * exporters (unmatched ends, ends naming deeper scopes, open scopes, reused
 * slots and clashing tids, --last cuts, flows that cannot bind, zero-length
 * and touching slices, extreme counter values, loss, deep nesting, time
 * going backwards, flows next to zero-length slices, ties on a thread with
 * no loss), each exported two
 * ways:
 *
 *   OUTDIR/<case>.json .csv .folded      from a model that kept its log
 *          .pftrace                      (rec_export_json / _csv / _folded /
 *                                        _perfetto)
 *   OUTDIR/<case>.s<K>.json              streamed (rec_export_open with the
 *                                        case as its source), lookahead K
 *                                        items (0: the default), with
 *                                        <case>.s<K>.counts: what the export
 *                                        says it wrote; .s0 also .csv/.folded;
 *   OUTDIR/<case>.s<K>.pftrace           the same in Perfetto's protobuf, with
 *                                        <case>.s<K>.pcounts
 *
 * test_export_cases.py checks every file with check_trace.py, the answers
 * each case must give, that the stream with room to spare writes what the
 * log export writes, byte for byte, and that a lookahead too small to hold
 * a case still writes every slice and says what it learnt late.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "model_util.h"

#define SEC 1000000000ull

static const char *outdir;

/* ---- the two ways out ------------------------------------------------------ */

typedef void (*case_fn)(rec_model *m);

static FILE *open_out(const char *name, const char *suffix) {
    char path[1024];
    snprintf(path, sizeof path, "%s/%s%s", outdir, name, suffix);
    FILE *f = fopen(path, "w");
    if (!f) perror(path);
    return f;
}

static int save_log(case_fn fn, size_t max_events, const char *name, double last) {
    rec_model *m = tu_model(1, max_events);
    fn(m);
    const char *ext[4] = {".json", ".csv", ".folded", ".pftrace"};
    int rc = 0;
    for (int k = 0; k < 4; k++) {
        FILE *f = open_out(name, ext[k]);
        if (!f) return 1;
        struct rec_export_opts o = {.last_sec = last};
        int r = k == 0   ? rec_export_json(m, f, &o)
                : k == 1 ? rec_export_csv(m, f, &o)
                : k == 2 ? rec_export_folded(m, f, &o)
                         : rec_export_perfetto(m, f, &o);
        if (fclose(f) != 0 || r != 0) {
            fprintf(stderr, "export_cases: %s%s failed\n", name, ext[k]);
            rc = 1;
        }
    }
    rec_model_free(m);
    return rc;
}

struct feed_ctx {
    case_fn fn;
};

static int feed(void *ctx, rec_model *m, int pass) {
    (void)pass;
    ((struct feed_ctx *)ctx)->fn(m);
    return 0;
}

static int save_stream(case_fn fn, const char *name, double last, size_t lookahead) {
    struct rec_source_info src;
    memset(&src, 0, sizeof src);
    src.pid = 4242;
    strcpy(src.process_name, "unit");
    src.ticks_per_sec = 1e9;
    struct feed_ctx fc = {fn};
    struct rec_export_opts o = {.last_sec = last, .lookahead = lookahead};
    rec_export *x;
    char err[256];
    if (rec_export_open(&src, tu_string, NULL, feed, &fc, &o, &x, err, sizeof err) != 0) {
        fprintf(stderr, "export_cases: %s: %s\n", name, err);
        return 1;
    }
    int rc = 0;
    const char *ext[4] = {"json", "pftrace", "csv", "folded"};
    enum rec_export_format fmt[4] = {REC_EXPORT_JSON, REC_EXPORT_PERFETTO, REC_EXPORT_CSV, REC_EXPORT_FOLDED};
    for (int k = 0; k < (lookahead ? 2 : 4); k++) {
        char suffix[64];
        snprintf(suffix, sizeof suffix, ".s%zu.%s", lookahead, ext[k]);
        FILE *f = open_out(name, suffix);
        if (!f) return 1;
        struct rec_export_counts c;
        int r = rec_export_write(x, fmt[k], f, &c, err, sizeof err);
        if (fclose(f) != 0 || r != 0) {
            fprintf(stderr, "export_cases: %s%s failed: %s\n", name, suffix, err);
            rc = 1;
        }
        if (k > 1) continue;
        snprintf(suffix, sizeof suffix, ".s%zu.%s", lookahead, k ? "pcounts" : "counts");
        f = open_out(name, suffix);
        if (!f) return 1;
        fprintf(f, "{\"slices\":%llu,\"instants\":%llu,\"counters\":%llu,\"flows\":%llu,\"threads\":%llu,"
                   "\"trace_events\":%llu,\"forced\":%llu,\"late_flags\":%llu}\n",
                (unsigned long long)c.slices, (unsigned long long)c.instants, (unsigned long long)c.counters,
                (unsigned long long)c.flows, (unsigned long long)c.threads, (unsigned long long)c.trace_events,
                (unsigned long long)c.forced, (unsigned long long)c.late_flags);
        fclose(f);
    }
    rec_export_free(x);
    return rc;
}

/* ---- the cases ------------------------------------------------------------- */

static void slice(rec_model *m, uint32_t slot, uint64_t b, uint64_t e, const char *name) {
    TU_B(m, slot, b, name);
    TU_E(m, slot, e, name);
}

static void flow(rec_model *m, uint32_t slot, unsigned type, uint64_t t, uint64_t id) {
    struct rec_event e = tu_ev(type, t, NULL);
    e.flow_id = id;
    tu_feed1(m, slot, e);
}

static void case_unmatched(rec_model *m) {
    /* unmatched: ends before their begins, an end naming nothing open,
     * and a scope open at the snapshot. */
    tu_start(m, 0, 100, 7, 1);
    slice(m, 0, 150, 180, "w");
    TU_E(m, 0, 200, "x");
    TU_E(m, 0, 300, "y");
    TU_B(m, 0, 400, "open");
    TU_B(m, 0, 500, "inner");
    TU_E(m, 0, 600, "zz");
    TU_E(m, 0, 700, "inner");
    TU_E0(m, 0, 800);            /* closes open */
    TU_E0(m, 0, 900);            /* nothing open, no name */
    TU_B(m, 0, 950, "at-end");
    rec_model_set_now(m, 1000);
}

static void case_deeper(rec_model *m) {
    /* deeper: an end naming a scope below the innermost. */
    tu_start(m, 0, 0, 9, 1);
    TU_B(m, 0, 100, "a");
    TU_B(m, 0, 200, "b");
    TU_B(m, 0, 250, "c");
    TU_E(m, 0, 400, "a");
    slice(m, 0, 500, 600, "d");
}

static void case_generations(rec_model *m) {
    /* generations: a slot reused by a thread with the same tid (fine, one
     * after the other), and two slots claiming one tid at the same time
     * (a hostile segment: one of them must get another tid). */
    tu_start(m, 0, 0, 11, 1);
    TU_B(m, 0, 10, "job");       /* left open when the thread goes */
    tu_start(m, 0, 100, 11, 2);
    slice(m, 0, 110, 150, "job");
    tu_start(m, 1, 0, 11, 1);    /* the same tid, overlapping */
    slice(m, 1, 20, 130, "other");
    tu_start(m, 2, 0, -5, 1);    /* a negative tid */
    slice(m, 2, 30, 40, "neg");
}

static void case_last(rec_model *m) {
    /* last: --last 1 s at now = 3 s cuts at 2 s. */
    tu_start(m, 0, 0, 1, 1);
    slice(m, 0, 0, 1 * SEC, "before");
    TU_B(m, 0, 1500000000, "straddles");
    struct rec_event inst = tu_ev(REC_EV_INSTANT, 1900000000, "early-mark");
    tu_feed1(m, 0, inst);
    slice(m, 0, 2200000000, 2300000000, "child");
    TU_E(m, 0, 2500000000, "straddles");
    inst = tu_ev(REC_EV_INSTANT, 2600000000, "late-mark");
    tu_feed1(m, 0, inst);
    rec_model_set_now(m, 3.0 * SEC);
}

static void case_flows(rec_model *m) {
    /* flows: a start outside any slice cannot bind (and its end would
     * dangle); a step and end inside slices, on another thread. */
    tu_start(m, 0, 0, 1, 1);
    tu_start(m, 1, 0, 2, 1);
    flow(m, 0, REC_EV_FLOW_BEGIN, 5, 1);          /* unbound */
    TU_B(m, 0, 10, "producer");
    flow(m, 0, REC_EV_FLOW_BEGIN, 20, 2);
    TU_E(m, 0, 30, "producer");
    TU_B(m, 1, 40, "consumer");
    flow(m, 1, REC_EV_FLOW_STEP, 45, 2);
    flow(m, 1, REC_EV_FLOW_END, 50, 1);           /* its start did not bind */
    flow(m, 1, REC_EV_FLOW_END, 60, 2);
    TU_E(m, 1, 70, "consumer");
    flow(m, 1, REC_EV_FLOW_END, 80, 2);           /* outside any slice */
}

static void case_zero(rec_model *m) {
    /* zero: zero-length and touching slices, same names back to back. */
    tu_start(m, 0, 0, 1, 1);
    slice(m, 0, 100, 200, "a");
    slice(m, 0, 200, 300, "a");
    slice(m, 0, 300, 300, "z");
    TU_B(m, 0, 400, "p");
    slice(m, 0, 450, 450, "z");
    slice(m, 0, 500, 500, "z");
    TU_E(m, 0, 500, "p");
}

/* same: begins, ends and instants at one time, on a thread with no loss
 * (the stream enters its slices as they begin): a slice of no length
 * holding one of no length, an instant at its time, a slice beginning
 * where another ends, ties at the end of a longer one. */
static void case_same(rec_model *m) {
    tu_start(m, 0, 0, 1, 1);
    TU_B(m, 0, 100, "p");
    TU_B(m, 0, 100, "c");
    TU_E(m, 0, 100, "c");
    tu_feed1(m, 0, tu_ev(REC_EV_INSTANT, 100, "mark"));
    TU_E(m, 0, 100, "p");
    tu_feed1(m, 0, tu_ev(REC_EV_INSTANT, 100, "after"));
    TU_B(m, 0, 100, "q");
    tu_feed1(m, 0, tu_ev(REC_EV_INSTANT, 150, "in-q"));
    TU_B(m, 0, 150, "r");
    TU_E(m, 0, 200, "r");
    tu_feed1(m, 0, tu_ev(REC_EV_INSTANT, 200, "end-r"));
    slice(m, 0, 200, 200, "s");
    TU_B(m, 0, 200, "t");
    TU_E(m, 0, 250, "t");
    TU_E(m, 0, 250, "q");
    slice(m, 0, 250, 300, "u");
}

/* nested: random well-nested scopes with instants and counters, many at
 * one time, on two threads with no loss: what the stream enters as it
 * begins must come out as the log export writes it. */
/* nested's threads as they are fed: what is open on each, since when. */
struct nest {
    rec_model *m;
    FILE *want;
    uint64_t t[2], begun[2][8];
    const char *open[2][8];
    int depth[2];
};

static void nest_b(struct nest *n, uint32_t s, const char *name) {
    n->begun[s][n->depth[s]] = n->t[s];
    n->open[s][n->depth[s]++] = name;
    TU_B(n->m, s, n->t[s], name);
}

/* An end, and the slice it closes as every export must show it. */
static void nest_e(struct nest *n, uint32_t s) {
    int d = --n->depth[s];
    fprintf(n->want, "%u %s %llu %llu\n", s + 1, n->open[s][d], (unsigned long long)n->begun[s][d],
            (unsigned long long)n->t[s]);
    TU_E(n->m, s, n->t[s], n->open[s][d]);
}

static void case_nested(rec_model *m) {
    uint64_t x = 0x2545f4914f6cdd1dull;
    const char *names[4] = {"a", "b", "c", "d"};
    /* nested.expect: each slice as fed (tid name b e, ns), which
     * test_export_cases.py compares every export's with.  Each call
     * writes the same lines. */
    struct nest n = {m, open_out("nested", ".expect"), {10, 10}, {{0}}, {{0}}, {0, 0}};
    if (!n.want) exit(1);
    tu_start(m, 0, 0, 1, 1);
    tu_start(m, 1, 0, 2, 1);
    for (int i = 0; i < 4000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(x >> 33), s = r & 1;
        n.t[s] += (r >> 1) % 3;   /* a third of the events at the time of the one before */
        uint32_t what = (r >> 3) % 8;
        if (what < 3 && n.depth[s] < 8) {
            nest_b(&n, s, names[(r >> 6) % 4]);
        } else if (what < 6 && n.depth[s] > 0) {
            nest_e(&n, s);
        } else if (what == 6) {
            tu_feed1(m, s, tu_ev(REC_EV_INSTANT, n.t[s], "i"));
        } else {
            struct rec_event c = tu_ev(REC_EV_COUNTER, n.t[s], "n");
            c.value = (double)(r % 100);
            tu_feed1(m, s, c);
        }
    }
    for (uint32_t s = 0; s < 2; s++) {
        while (n.depth[s] > 0) {
            n.t[s]++;
            nest_e(&n, s);
        }
    }
    if (fclose(n.want) != 0) exit(1);
}

static void case_bind(rec_model *m) {
    /* bind: flows Perfetto must tie to the slice recorder means.  Flow 7
     * starts in "outer" right after a zero-length "tiny" at the same time,
     * and ends in "enqueue", which began before the flow's source; flow 8
     * the same with a step in between, in "hop". */
    tu_start(m, 0, 0, 1, 1);
    tu_start(m, 1, 0, 2, 1);
    TU_B(m, 1, 50, "enqueue");
    TU_B(m, 0, 100, "outer");
    slice(m, 0, 200, 200, "tiny");
    flow(m, 0, REC_EV_FLOW_BEGIN, 200, 7);
    flow(m, 1, REC_EV_FLOW_END, 250, 7);
    TU_E(m, 0, 300, "outer");
    TU_B(m, 0, 500, "work");
    slice(m, 0, 600, 600, "tiny");
    flow(m, 0, REC_EV_FLOW_BEGIN, 600, 8);
    TU_E(m, 0, 700, "work");
    TU_B(m, 0, 720, "hop");
    slice(m, 0, 730, 730, "tiny");
    flow(m, 0, REC_EV_FLOW_STEP, 730, 8);
    TU_E(m, 0, 740, "hop");
    flow(m, 1, REC_EV_FLOW_END, 760, 8);
    TU_E(m, 1, 800, "enqueue");
}

static void case_counters(rec_model *m) {
    /* counters: values JSON and importers must read back exactly. */
    tu_start(m, 0, 0, 1, 1);
    const double vals[] = {1e300, -0.0, 1e-300, 1152921504606846976.0, 0.1, -2.5, 123456789.125, NAN, INFINITY};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        struct rec_event c = tu_ev(REC_EV_COUNTER, 10 + i, "v");
        c.value = vals[i];
        tu_feed1(m, 0, c);
    }
}

static void case_loss(rec_model *m) {
    /* loss: entries lost mid-way, with scopes open across the gap. */
    tu_start(m, 0, 0, 1, 1);
    TU_B(m, 0, 100, "main");
    TU_B(m, 0, 200, "step");
    struct rec_loss loss = {40, 2, 0, 0};
    struct rec_event after[3] = {tu_ev(REC_EV_END, 900, "zzz"), tu_ev(REC_EV_END, 950, "step"),
                                 tu_ev(REC_EV_END, 1000, "main")};
    rec_model_feed(m, 0, after, 3, &loss);
}

static void case_deep(rec_model *m) {
    /* deep: 1000 levels (a Python recursion; all of them written), then
     * time going backwards. */
    tu_start(m, 0, 0, 1, 1);
    for (int i = 0; i < 1000; i++) TU_B(m, 0, 10 + (uint64_t)i, "r");
    for (int i = 0; i < 1000; i++) TU_E(m, 0, 2000 + (uint64_t)i, "r");
    slice(m, 0, 5000, 4000, "backwards");
    slice(m, 0, 3000, 6000, "earlier");
}

/* random: hostile sequences (any type, unknown and special name ids,
 * time jumping back and forth, reused slots, loss) must still export as a
 * valid, strictly nested trace. */
static int seed;

static void case_random(rec_model *m) {
    uint64_t x = (uint64_t)seed * 0x9e3779b97f4a7c15ull, t = 1000;
    const char *pool[] = {"a", "b", "c", "d\"q", "e\\", "f\x01", "g\xff"};
    for (int i = 0; i < 20000; i++) {
        x = x * 6364136223846793005ull + 1442695040888963407ull;
        uint32_t r = (uint32_t)(x >> 32);
        uint32_t slot = r % 5;
        struct rec_event e = tu_ev(1 + (r >> 3) % 9, 0, NULL);
        if ((r >> 8) % 4) e.type = (r >> 10) % 2 ? REC_EV_BEGIN : REC_EV_END;
        uint32_t pick = (r >> 12) % 10;
        e.name_id = pick < 7 ? tu_id(pool[pick]) : pick == 7 ? 0 : pick == 8 ? 2 : 60000;
        t += (r >> 16) % 1000;
        if ((r >> 23) % 512 == 0) t -= 5000;   /* time goes back */
        e.ticks = t;
        e.tid = 100 + (int)slot;
        e.gen = 1 + (r >> 28) % 3;   /* THREAD_START: 1 in 36 events */
        e.flow_id = (r >> 4) % 8;
        e.value = (double)(r % 1000) / 7;
        e.msg_len = (unsigned)snprintf(e.msg, sizeof e.msg, "m%u\"\\", r % 100);
        struct rec_loss loss = {(r >> 20) % 97 == 0 ? 5 : 0, 0, 0, 0};
        rec_model_feed(m, slot, &e, 1, &loss);
    }
}

/* empty: nothing at all. */
static void case_empty(rec_model *m) { (void)m; }

static const struct {
    const char *name;
    case_fn fn;
    double last;
} cases[] = {
    {"unmatched", case_unmatched, 0}, {"deeper", case_deeper, 0}, {"generations", case_generations, 0},
    {"last", case_last, 1.0},         {"flows", case_flows, 0},   {"zero", case_zero, 0},
    {"counters", case_counters, 0},   {"loss", case_loss, 0},     {"deep", case_deep, 0},
    {"empty", case_empty, 0},         {"bind", case_bind, 0},     {"same", case_same, 0},
    {"nested", case_nested, 0},
};

static const size_t lookaheads[] = {0, 1, 2, 3, 5};

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: export_cases OUTDIR\n");
        return 2;
    }
    outdir = argv[1];
    int rc = 0;
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        rc |= save_log(cases[i].fn, 0, cases[i].name, cases[i].last);
        for (size_t k = 0; k < sizeof lookaheads / sizeof lookaheads[0]; k++)
            rc |= save_stream(cases[i].fn, cases[i].name, cases[i].last, lookaheads[k]);
    }
    for (seed = 1; seed <= 3; seed++) {
        char name[32];
        snprintf(name, sizeof name, "random%d", seed);
        double last = seed == 3 ? 0.00001 : 0;
        rc |= save_log(case_random, 5000, name, last);
        for (size_t k = 0; k < sizeof lookaheads / sizeof lookaheads[0]; k++)
            rc |= save_stream(case_random, name, last, lookaheads[k]);
    }
    return rc;
}
