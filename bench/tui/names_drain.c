/*
 * names_drain.c -- what a million distinct names cost the viewers'
 * analysis model, in one process and in CPU time (the machine is shared:
 * time spent waiting for a core is not the model's cost).  Issue 22 item 3.
 *
 * The program writes scopes of run-time names (REC_SCOPE_DYN) out of
 * --names distinct ones into its own segment, in bursts a ring holds,
 * and feeds them to a model as recorder-top does (rec_model_feed_entries).
 * Every --frame events (100000: ten frames a second at 1 M events/s) it
 * asks for a frame's rows, two ways:
 *   - top: the 5000 first rows in Top's order (rec_model_stats_top, what
 *     recorder-top and recorder-web ask since issue 22);
 *   - all: every name's row, sorted (rec_model_stats with room for all:
 *     what they asked before).
 * It prints ns per event of the feed, ms per frame of each query, the
 * cores a viewer needs at --rate events/s with 10 frames a second (the
 * frames and the feed), the peak resident memory, and the slices the
 * model put in (other) because its tables were full.
 *
 *   names_drain [--names 1000000] [--events 4000000] [--frame 100000] [--rate 1e6] [--all 1]
 *
 * Built with -DNAMES_DRAIN_BEFORE it runs against a library from before
 * issue 22 (no rec_model_stats_top): the feed and the every-row frame
 * only, for the before and after in docs/performance/names.md.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "recorder/analysis.h"

#include "../bench_args.h"

#define BURST 16384            /* scopes per burst: 32768 entries, half a 1 MiB ring */
#define ROWS 5000

static double cpu_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec;
}

static double peak_rss_mib(void) {
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    double kb = 0;
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "VmHWM:", 6)) kb = atof(line + 6);
    if (f) fclose(f);
    return kb / 1024;
}

#define USAGE "usage: names_drain [--names N] [--events N] [--frame N] [--rate R] [--all 0|1]\n"

static void usage(FILE *f) {
    fprintf(f, USAGE
               "  --names N   distinct run-time names, taken in turn (default 1000000)\n"
               "  --events N  events to write and feed (default 4000000)\n"
               "  --frame N   events between two frames' queries (default 100000)\n"
               "  --rate R    events/s the cores needed are given for (default 1e6)\n"
               "  --all 0|1   also time the frame of every row sorted (default 1)\n"
               "  -h, --help  this text\n");
}

/* A bad command line: why, the usage line, exit status 2 (bench_args.h). */
static int bad(const char *why, const char *arg) { return bench_bad("names_drain", USAGE, why, arg); }

int main(int argc, char **argv) {
    unsigned names = 1000000;
    uint64_t want = 4000000, frame = 100000;
    double rate = 1e6;
    int all = 1;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        long long x;
        if (bench_is_help(a)) {
            usage(stdout);
            return 0;
        }
        if (strcmp(a, "--names") && strcmp(a, "--events") && strcmp(a, "--frame") && strcmp(a, "--rate") &&
            strcmp(a, "--all"))
            return bad("unknown option", a);
        if (!v) return bad("missing value after", a);
        i++;
        if (!strcmp(a, "--rate")) {
            char *end = NULL;
            rate = strtod(v, &end);
            if (end == v || *end || !(rate >= 0 && rate < 1e15)) return bad("--rate wants a number of events/s", v);
        } else if (!strcmp(a, "--all")) {
            if (bench_parse_ll(v, 0, 1, &x)) return bad("--all wants 0 or 1", v);
            all = (int)x;
        } else if (!strcmp(a, "--names")) {
            if (bench_parse_ll(v, 1, UINT_MAX, &x)) return bad("--names wants a positive integer", v);
            names = (unsigned)x;
        } else if (bench_parse_ll(v, 1, LLONG_MAX, &x)) {
            return bad(!strcmp(a, "--events") ? "--events wants a positive integer" : "--frame wants a positive integer",
                       v);
        } else if (!strcmp(a, "--events")) {
            want = x;
        } else {
            frame = x;
        }
    }
    setenv("RECORDER_RING_KB", "1024", 1);
    if (rec_init() != 0) return 1;
    rec_seg *s;
    char err[256];
    if (rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "%s\n", err);
        return 1;
    }
    struct rec_model_opts o = {0, 0, NULL};
    rec_model *m = rec_model_new_seg(s, &o);
    static struct rec_entry ent[2 * BURST + 64];
    struct rec_thread_info th;
    REC_THREAD_NAME("bench");
    rec_seg_threads(s, &th, 1);
#ifndef NAMES_DRAIN_BEFORE
    static struct rec_stat rows[ROWS];
    struct rec_stat_order top = {REC_KEY_TOTAL, 0, NULL, NULL};
#endif
    struct rec_stat *every = NULL;
    size_t cap_every = 0, total = 0;
    double t_feed = 0, t_top = 0, t_all = 0;
    uint64_t n = 0, lost = 0, next_frame = frame, frames = 0;
    unsigned k = 0;
    while (n < want) {
        for (int i = 0; i < BURST; i++) {
            char name[24];
            snprintf(name, sizeof name, "name-%07u", k);
            k = k + 1 == names ? 0 : k + 1;
            REC_SCOPE_DYN(name);
        }
        uint64_t first;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(s, th.slot, ent, sizeof ent / sizeof ent[0], &first, &loss);
        double a = cpu_ns();
        rec_model_feed_entries(m, th.slot, ent, got, first, &loss);
        t_feed += cpu_ns() - a;
        n += got;
        lost += loss.overwritten;
        if (n < next_frame) continue;
        next_frame += frame;
        frames++;
        rec_model_set_now_live(m, s);
        a = cpu_ns();
#ifndef NAMES_DRAIN_BEFORE
        rec_model_stats_top(m, REC_WIN_10S, -1, &top, rows, ROWS, &total, NULL);
#endif
        double b = cpu_ns();
        t_top += b - a;
        if (!all) continue;
        if (total > cap_every) {
            cap_every = total + total / 2;
            every = realloc(every, cap_every * sizeof *every);
            if (!every) return 1;
        }
        rec_model_stats(m, REC_WIN_10S, -1, every, cap_every, &total);
        t_all += cpu_ns() - b;
    }
    double feed = t_feed / (double)n, ftop = t_top / 1e6 / (double)frames, fall = all ? t_all / 1e6 / (double)frames : 0;
    printf("names_drain: %llu events of %u names, %llu frames (one per %llu events), lost %llu, last frame %zu names\n",
           (unsigned long long)n, names, (unsigned long long)frames, (unsigned long long)frame,
           (unsigned long long)lost, total);
    printf("feed (rec_model_feed_entries)  %8.1f ns/event\n", feed);
    printf("frame, top %d rows             %8.2f ms\n", ROWS, ftop);
    if (all) printf("frame, every row sorted        %8.2f ms   (%.1fx the top rows')\n", fall, fall / ftop);
    printf("cores at %.2g events/s, 10 frames/s: top rows %.3f", rate, (feed * rate + 10 * ftop * 1e6) / 1e9);
    if (all) printf(", every row %.3f", (feed * rate + 10 * fall * 1e6) / 1e9);
    printf("\npeak RSS %.0f MiB (the segment's rings and names included)", peak_rss_mib());
#ifndef NAMES_DRAIN_BEFORE
    printf("; slices in (other), 10 s window: %llu, whole run: %llu",
           (unsigned long long)rec_model_stats_past_limit(m, REC_WIN_10S),
           (unsigned long long)rec_model_stats_past_limit(m, REC_WIN_ALL));
#endif
    printf("\n");
    free(every);
    rec_model_free(m);
    rec_seg_close(s);
    return 0;
}
