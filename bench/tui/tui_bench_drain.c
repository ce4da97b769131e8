/*
 * tui_bench_drain.c -- what one event costs recorder-top's drain, stage by
 * stage, without a second process or the scheduler in the way.
 *
 * The program writes bursts of scopes into its own segment (fewer than a
 * ring holds, so nothing is lost), then reads them back the way
 * recorder-top does, timing each stage: rec_seg_read (copy out of the
 * ring), rec_decode, rec_model_feed (the analysis model: stacks, windows,
 * histograms, call tree), rec_model_feed_entries (decode and feed in one
 * pass, as recorder-top does) and rec_model_poll_seg (all of it).  From the ns per event it derives the share of a
 * core each stage needs at 20 M events/s.
 *
 *   tui_bench_drain [--events N]
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recorder/analysis.h"

#include "../bench_args.h"

#define BURST 16384            /* scopes per burst: 32768 entries, half a 1 MiB ring */

/* CPU time of this thread: the machine is shared, and time spent waiting
 * for a core is not the drain's cost. */
static double now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static void write_burst(void) {
    for (int i = 0; i < BURST / 4; i++) {
        REC_SCOPE("layer");
        { REC_SCOPE("matmul"); }
        { REC_SCOPE("softmax"); }
        { REC_SCOPE("norm"); }
    }
}

static rec_model *new_model(rec_seg *s) {
    struct rec_model_opts o = {0, 0, NULL};
    return rec_model_new_seg(s, &o);
}

#define USAGE "usage: tui_bench_drain [--events N]\n"

/* A bad command line: why, the usage line, exit status 2 (bench_args.h). */
static int bad(const char *why, const char *arg) { return bench_bad("tui_bench_drain", USAGE, why, arg); }

int main(int argc, char **argv) {
    double target = 20e6;
    uint64_t want = 8000000;
    for (int i = 1; i < argc; i++) {
        if (bench_is_help(argv[i])) {
            fputs(USAGE "  --events N  events to write and read back, each stage timed (default 8000000)\n"
                        "  -h, --help  this text\n", stdout);
            return 0;
        }
        if (strcmp(argv[i], "--events")) return bad("unknown option", argv[i]);
        if (i + 1 == argc) return bad("missing value after", argv[i]);
        const char *v = argv[++i];
        long long x;
        if (bench_parse_ll(v, 1, LLONG_MAX, &x)) return bad("--events wants a positive integer", v);
        want = (uint64_t)x;
    }
    setenv("RECORDER_RING_KB", "1024", 1);
    if (rec_init() != 0) return 1;
    rec_seg *s;
    char err[256];
    if (rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    rec_model *split = new_model(s), *fused = new_model(s), *whole = new_model(s);
    static struct rec_entry ent[2 * BURST + 64];
    static struct rec_event ev[2 * BURST + 64];
    struct rec_thread_info th;
    REC_THREAD_NAME("bench");
    rec_seg_threads(s, &th, 1);
    double t_read = 0, t_decode = 0, t_feed = 0, t_fused = 0, t_poll = 0;
    uint64_t n_split = 0, n_poll = 0, lost = 0;
    while (n_split < want) {
        /* Stages one by one. */
        write_burst();
        double a = now_ns();
        uint64_t first;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(s, th.slot, ent, sizeof ent / sizeof ent[0], &first, &loss);
        double b = now_ns();
        size_t used;
        uint64_t bad = 0;
        size_t k = rec_decode(ent, got, first, ev, sizeof ev / sizeof ev[0], &used, &bad);
        double c = now_ns();
        rec_model_feed(split, th.slot, ev, k, &loss);
        double d = now_ns();
        rec_model_feed_entries(fused, th.slot, ent, got, first, &loss);
        t_read += b - a, t_decode += c - b, t_feed += d - c, t_fused += now_ns() - d;
        n_split += k;
        lost += loss.overwritten;
        /* The same burst again, through rec_model_poll_seg as recorder-top
         * calls it: move the cursor back over it. */
        rec_seg_set_cursor(s, th.slot, first);
        double e = now_ns();
        n_poll += rec_model_poll_seg(whole, s);
        t_poll += now_ns() - e;
    }
    printf("tui_bench_drain: %llu events (%d-scope bursts, 4 names, 2 levels), lost %llu\n",
           (unsigned long long)n_split, BURST, (unsigned long long)lost);
    printf("%-22s %10s %18s\n", "stage", "ns/event", "cores at 20 M/s");
    const struct { const char *name; double t; uint64_t n; } row[] = {
        {"rec_seg_read", t_read, n_split},
        {"rec_decode", t_decode, n_split},
        {"rec_model_feed", t_feed, n_split},
        {"rec_model_feed_entries", t_fused, n_split},
        {"rec_model_poll_seg", t_poll, n_poll},
    };
    for (size_t i = 0; i < sizeof row / sizeof row[0]; i++) {
        double per = row[i].t / (double)row[i].n;
        printf("%-22s %10.1f %18.3f\n", row[i].name, per, per * target / 1e9);
    }
    double poll = t_poll / (double)n_poll;
    printf("one core drains at most %.1f M events/s; half a core %.1f M events/s\n", 1e3 / poll, 0.5e3 / poll);
    rec_model_free(split);
    rec_model_free(fused);
    rec_model_free(whole);
    rec_seg_close(s);
    return 0;
}
