/*
 * bench_export.c -- how fast the analysis layer digests events and writes
 * them out as Perfetto JSON (docs/performance/export.md).
 *
 *   bench_export [-n EVENTS] [-t THREADS] [-r ROUNDS] [-o FILE] [--feed-only|--feed-log|--perfetto-only]
 *
 * Builds a synthetic recording in memory: THREADS threads (default 4) of
 * an inference-like loop (layer > matmul_blk.N / attn, a counter and an
 * instant now and then), EVENTS events in all (default 20 M).  Each round:
 *   feed   rec_model_feed of every event, with the event log (an export
 *          model) and without (a viewer's model): ns per event;
 *   json   rec_export_json of the whole log into a sink that counts
 *          bytes and keeps nothing (or into FILE):
 *          events per second, bytes per event;
 *   perfetto  rec_export_perfetto of the same log into the same kind
 *          of sink: events per second, bytes per event (target 40 M
 *          events/s, at most a quarter of the JSON's bytes);
 *   naive  the same events through a straightforward fprintf exporter
 *          over rec_model_items (to the same kind of sink: FILE.naive,
 *          removed after), the baseline the fast one is measured against
 *          (a ratio within the round);
 *   csv, folded   their time.
 * Times are wall clock and this thread's CPU time; the machine is shared,
 * so the summary is the median and the best round.  The JSON target is
 * 10 M events/s.  --feed-only times only the viewer's feed, --feed-log only
 * the export model's, --perfetto-only only the protobuf export, four
 * times a round, the best of them (for profiling, and for the
 * before/after ratio of docs/performance/export.md).
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recorder/analysis.h"

#include "../bench_args.h"

#define N_NAMES 40
static char names[N_NAMES][32];

static const char *name_of(void *ctx, uint32_t id) {
    (void)ctx;
    return id >= 8 && id < 8 + N_NAMES ? names[id - 8] : NULL;
}

static double wall(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

static double cpu(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec + ts.tv_nsec * 1e-9;
}

struct timing {
    double wall, cpu;
};

static struct timing t_start(void) { return (struct timing){wall(), cpu()}; }
static struct timing t_stop(struct timing s) { return (struct timing){wall() - s.wall, cpu() - s.cpu}; }

/* One thread's events: an inference-like loop. */
static size_t make_thread(struct rec_event *ev, size_t n, uint64_t seed) {
    size_t k = 0;
    uint64_t t = 1000 + seed * 7;
    for (unsigned it = 0; k + 12 <= n; it++) {
        struct rec_event *e;
#define EV(ty, id, dt)                                  \
    e = &ev[k++];                                       \
    memset(e, 0, offsetof(struct rec_event, msg) + 1);  \
    e->type = (ty);                                     \
    e->name_id = (id);                                  \
    t += (dt);                                          \
    e->ticks = t;                                       \
    e->index = k;
        EV(REC_EV_BEGIN, 8, 40);                           /* layer */
        EV(REC_EV_BEGIN, 10 + (it % 32), 25);              /* matmul_blk.N */
        EV(REC_EV_END, 10 + (it % 32), 900 + (it * 37) % 400);
        EV(REC_EV_BEGIN, 9, 20);                           /* attn */
        EV(REC_EV_END, 9, 300 + (it * 53) % 200);
        EV(REC_EV_END, 8, 30);
        if (it % 16 == 0) {
            EV(REC_EV_COUNTER, 42, 10);
            e->value = it * 0.5;
            EV(REC_EV_INSTANT, 43, 10);
            e->msg_len = (unsigned)snprintf(e->msg, sizeof e->msg, "token %u", it);
        }
#undef EV
    }
    return k;
}

static rec_model *feed_all(struct rec_event **ev, size_t *n, int threads, int keep_log, size_t max_events,
                           struct timing *tm) {
    struct rec_source_info src;
    memset(&src, 0, sizeof src);
    src.pid = 1234;
    strcpy(src.process_name, "bench");
    src.ticks_per_sec = 1e9;
    struct rec_model_opts o = {max_events, keep_log, NULL};
    rec_model *m = rec_model_new(&src, name_of, NULL, &o);
    if (!m) return NULL;
    struct timing s = t_start();
    for (int th = 0; th < threads; th++) {
        struct rec_event st;
        memset(&st, 0, sizeof st);
        st.type = REC_EV_THREAD_START;
        st.tid = 100 + th;
        st.gen = 1;
        st.ticks = 500;
        rec_model_feed(m, (uint32_t)th, &st, 1, NULL);
    }
    /* Chunks of 16 K events per thread in turn, as a poll would. */
    size_t chunk = 16384;
    for (size_t off = 0;; off += chunk) {
        int any = 0;
        for (int th = 0; th < threads; th++) {
            if (off >= n[th]) continue;
            size_t k = n[th] - off < chunk ? n[th] - off : chunk;
            rec_model_feed(m, (uint32_t)th, ev[th] + off, k, NULL);
            any = 1;
        }
        if (!any) break;
    }
    *tm = t_stop(s);
    return m;
}

/* The baseline: what one would write first, one fprintf per event. */
static void naive_json(rec_model *m, FILE *f) {
    const struct rec_item *it;
    size_t n = rec_model_items(m, &it);
    fputs("{\"traceEvents\":[\n", f);
    for (size_t i = 0; i < n; i++) {
        const struct rec_item *x = &it[i];
        const char *nm = name_of(NULL, x->name_id);
        if (x->kind == REC_ITEM_SLICE) {
            fprintf(f, "{\"ph\":\"X\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"dur\":%.3f,\"name\":\"%s\"},\n", 1234, x->tid,
                    x->ts_ns / 1e3, x->dur_ns / 1e3, nm ? nm : "?");
        } else if (x->kind == REC_ITEM_COUNTER) {
            fprintf(f, "{\"ph\":\"C\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"name\":\"%s\",\"args\":{\"value\":%.17g}},\n",
                    1234, x->tid, x->ts_ns / 1e3, nm ? nm : "?", x->value);
        } else if (x->kind == REC_ITEM_INSTANT) {
            fprintf(f, "{\"ph\":\"i\",\"s\":\"t\",\"pid\":%d,\"tid\":%d,\"ts\":%.3f,\"name\":\"%s\",\"args\":{\"msg\":\"%s\"}},\n",
                    1234, x->tid, x->ts_ns / 1e3, nm ? nm : "?", x->msg);
        }
    }
    fputs("{}]}\n", f);
}

/* The default sink: counts bytes, keeps nothing (no disk in the figure). */
static ssize_t count_write(void *c, const char *buf, size_t n) {
    (void)buf;
    *(size_t *)c += n;
    return (ssize_t)n;
}

static FILE *open_out(const char *out, size_t *count) {
    *count = 0;
    if (out) return fopen(out, "w");
    cookie_io_functions_t io = {NULL, count_write, NULL, NULL};
    return fopencookie(count, "w", io);
}

static int cmp_d(const void *a, const void *b) {
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

static void summary(const char *what, double *v, int n, const char *unit) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    printf("  %-34s median %10.2f  best %10.2f  %s\n", what, v[n / 2], v[n - 1], unit);
}

static void summary_low(const char *what, double *v, int n, const char *unit) {
    qsort(v, (size_t)n, sizeof *v, cmp_d);
    printf("  %-34s median %10.2f  best %10.2f  %s\n", what, v[n / 2], v[0], unit);
}

#define USAGE                                                                              \
    "usage: bench_export [-n EVENTS] [-t THREADS] [-r ROUNDS] [-o FILE] [--feed-only|--feed-log|--perfetto-only]\n"

int main(int argc, char **argv) {
    size_t total = 20000000;
    int threads = 4, rounds = 3;
    const char *out = NULL;
    int feed_only = 0, pf_only = 0;
    for (int i = 1; i < argc; i++) {
        if (bench_is_help(argv[i])) {
            printf(USAGE
                   "  -n EVENTS        events, at least 1000 (default 20000000)\n"
                   "  -t THREADS       threads they are spread over, 1-64 (default 4)\n"
                   "  -r ROUNDS        rounds, 1-50 (default 3)\n"
                   "  -o FILE          the JSON export into FILE (default: a counting sink, no I/O)\n"
                   "  --feed-only      time only the viewer's feed (no event log)\n"
                   "  --feed-log       time only the export model's feed (with the log)\n"
                   "  --perfetto-only  time only the Perfetto protobuf export\n"
                   "  -h, --help       this text\n");
            return 0;
        } else if ((!strcmp(argv[i], "-n") || !strcmp(argv[i], "-t") || !strcmp(argv[i], "-r")) && i + 1 < argc) {
            char o = argv[i][1];
            long long x;
            if (bench_parse_ll(argv[++i], o == 'n' ? 1000 : 1, o == 'n' ? LLONG_MAX : o == 't' ? 64 : 50, &x))
                return bench_bad("bench_export", USAGE,
                                 o == 'n'   ? "-n wants a whole number of events, at least 1000"
                                 : o == 't' ? "-t wants 1-64 threads"
                                            : "-r wants 1-50 rounds",
                                 argv[i]);
            if (o == 'n') total = (size_t)x;
            else if (o == 't') threads = (int)x;
            else rounds = (int)x;
        } else if (!strcmp(argv[i], "-o") && i + 1 < argc) out = argv[++i];
        else if (!strcmp(argv[i], "--feed-only")) feed_only = 1;
        else if (!strcmp(argv[i], "--feed-log")) feed_only = 2;
        else if (!strcmp(argv[i], "--perfetto-only")) pf_only = 1;
        else
            return bench_bad("bench_export", USAGE,
                             strlen(argv[i]) == 2 && strchr("ntro", argv[i][1]) && argv[i][0] == '-'
                                 ? "missing value after"
                                 : "unknown option",
                             argv[i]);
    }
    snprintf(names[0], 32, "layer");
    snprintf(names[1], 32, "attn");
    for (int i = 0; i < 32; i++) snprintf(names[2 + i], 32, "matmul_blk.%d", i);
    snprintf(names[34], 32, "kv_cache");
    snprintf(names[35], 32, "token");

    struct rec_event **ev = calloc((size_t)threads, sizeof *ev);
    size_t *n = calloc((size_t)threads, sizeof *n), events = 0;
    for (int th = 0; th < threads; th++) {
        size_t want = total / (size_t)threads;
        ev[th] = malloc(want * sizeof **ev);
        if (!ev[th]) {
            fprintf(stderr, "bench_export: out of memory\n");
            return 1;
        }
        n[th] = make_thread(ev[th], want, (uint64_t)th);
        events += n[th];
    }
    printf("bench_export: %zu events, %d threads, %d rounds, JSON to %s\n", events, threads, rounds,
           out ? out : "a counting sink (no I/O)");

    double pf_rate[50], pf_cpu_rate[50], pf_bytes_per_ev = 0;
    double feed_log[50], feed_nolog[50], json_rate[50], json_cpu_rate[50], naive_rate[50], ratio[50], csv_ms[50],
        folded_ms[50], bytes_per_ev = 0;
    for (int r = 0; r < rounds; r++) {
        struct timing tf, tn, tj, tb, tc, tfo;
        rec_model *v = feed_all(ev, n, threads, feed_only == 2, events + 1024, &tn);
        rec_model_free(v);
        if (feed_only) {
            printf("round %d: feed %.1f ns/ev (%s)\n", r + 1, tn.cpu * 1e9 / (double)events,
                   feed_only == 2 ? "log" : "no log");
            continue;
        }
        rec_model *m = feed_all(ev, n, threads, 1, events + 1024, &tf);
        if (!m) return 1;
        size_t bytes;
        FILE *f = open_out(out, &bytes);
        if (!f) {
            perror(out ? out : "fopencookie");
            return 1;
        }
        struct timing s = t_start();
        if (!pf_only && rec_export_json(m, f, NULL) != 0) {
            fprintf(stderr, "bench_export: export failed\n");
            return 1;
        }
        tj = t_stop(s);
        fflush(f);
        bytes_per_ev = (double)(out ? (size_t)ftell(f) : bytes) / (double)events;
        fclose(f);

        /* Perfetto's protobuf of the same log, into the same kind of sink
         * (with --perfetto-only, four times: the best, and a profile that
         * is mostly the export's). */
        pf_rate[r] = pf_cpu_rate[r] = 0;
        for (int k = 0; k < (pf_only ? 4 : 1); k++) {
            f = open_out(NULL, &bytes);
            s = t_start();
            if (rec_export_perfetto(m, f, NULL) != 0) {
                fprintf(stderr, "bench_export: perfetto export failed\n");
                return 1;
            }
            struct timing tp = t_stop(s);
            fflush(f);
            pf_bytes_per_ev = (double)bytes / (double)events;
            fclose(f);
            if ((double)events / tp.wall / 1e6 > pf_rate[r]) pf_rate[r] = (double)events / tp.wall / 1e6;
            if ((double)events / tp.cpu / 1e6 > pf_cpu_rate[r]) pf_cpu_rate[r] = (double)events / tp.cpu / 1e6;
        }
        if (pf_only) {
            rec_model_free(m);
            printf("round %d: perfetto %.2f M ev/s (cpu %.2f), %.1f bytes/event\n", r + 1, pf_rate[r], pf_cpu_rate[r],
                   pf_bytes_per_ev);
            fflush(stdout);
            continue;
        }

        /* The baseline formats the items rec_model_items hands out: their
         * materialization is not counted against it. */
        const struct rec_item *items;
        rec_model_items(m, &items);
        char naive_path[1100];
        if (out) snprintf(naive_path, sizeof naive_path, "%s.naive", out);
        f = open_out(out ? naive_path : NULL, &bytes);
        s = t_start();
        naive_json(m, f);
        tb = t_stop(s);
        fclose(f);
        if (out) unlink(naive_path);

        f = open_out(NULL, &bytes);
        s = t_start();
        rec_export_csv(m, f, NULL);
        tc = t_stop(s);
        s = t_start();
        rec_export_folded(m, f, NULL);
        tfo = t_stop(s);
        fclose(f);
        rec_model_free(m);

        feed_log[r] = tf.cpu * 1e9 / (double)events;
        feed_nolog[r] = tn.cpu * 1e9 / (double)events;
        json_rate[r] = (double)events / tj.wall / 1e6;
        json_cpu_rate[r] = (double)events / tj.cpu / 1e6;
        naive_rate[r] = (double)events / tb.wall / 1e6;
        ratio[r] = tb.wall / tj.wall;
        csv_ms[r] = tc.wall * 1e3;
        folded_ms[r] = tfo.wall * 1e3;
        printf("round %d: feed %.1f ns/ev (log) %.1f ns/ev (no log); json %.2f M ev/s (cpu %.2f); perfetto %.2f M ev/s "
               "(cpu %.2f); naive %.2f M ev/s; x%.2f; csv %.1f ms; folded %.1f ms\n",
               r + 1, feed_log[r], feed_nolog[r], json_rate[r], json_cpu_rate[r], pf_rate[r], pf_cpu_rate[r],
               naive_rate[r], ratio[r], csv_ms[r], folded_ms[r]);
        fflush(stdout);
    }
    if (feed_only) return 0;
    printf("summary (%d rounds):\n", rounds);
    if (pf_only) {
        summary("Perfetto protobuf export, wall", pf_rate, rounds, "M events/s");
        summary("Perfetto protobuf export, CPU", pf_cpu_rate, rounds, "M events/s");
        return 0;
    }
    summary_low("feed, export model (log)", feed_log, rounds, "ns/event (CPU)");
    summary_low("feed, viewer model (no log)", feed_nolog, rounds, "ns/event (CPU)");
    summary("JSON export, wall", json_rate, rounds, "M events/s");
    summary("JSON export, CPU", json_cpu_rate, rounds, "M events/s");
    summary("Perfetto protobuf export, wall", pf_rate, rounds, "M events/s");
    summary("Perfetto protobuf export, CPU", pf_cpu_rate, rounds, "M events/s");
    summary("naive fprintf exporter, wall", naive_rate, rounds, "M events/s");
    summary("JSON speed-up over naive (ratio)", ratio, rounds, "x");
    summary_low("CSV export", csv_ms, rounds, "ms");
    summary_low("folded export", folded_ms, rounds, "ms");
    printf("  JSON size: %.1f bytes/event; Perfetto protobuf: %.1f bytes/event (%.1f%% of the JSON)\n", bytes_per_ev,
           pf_bytes_per_ev, 100 * pf_bytes_per_ev / bytes_per_ev);
    qsort(pf_rate, (size_t)rounds, sizeof *pf_rate, cmp_d);
    printf("target: Perfetto export >= 40 M events/s: %s (median %.2f); size <= 1/4 of the JSON: %s\n",
           pf_rate[rounds / 2] >= 40 ? "met" : "MISSED", pf_rate[rounds / 2],
           4 * pf_bytes_per_ev <= bytes_per_ev ? "met" : "MISSED");
    qsort(json_rate, (size_t)rounds, sizeof *json_rate, cmp_d);
    printf("target: JSON export >= 10 M events/s: %s (median %.2f)\n", json_rate[rounds / 2] >= 10 ? "met" : "MISSED",
           json_rate[rounds / 2]);
    for (int th = 0; th < threads; th++) free(ev[th]);
    free(ev);
    free(n);
    return 0;
}
