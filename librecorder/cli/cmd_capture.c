/*
 * cmd_capture.c -- `recorder capture`: stream a running program's events
 * into a capture file until it exits or we are told to stop.
 *
 * We become the segment's stream-mode consumer: the program's writers stop
 * overwriting what we have not copied, and drop (and count) instead of
 * waiting when we fall behind.  The loop polls as fast as the data comes
 * and sleeps when it does not; a signal only sets a flag, and the loop then
 * drains, writes the end record and gives the rings back to flight mode.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recorder/capture.h"

static const char usage[] =
    "usage: recorder capture PID|NAME|PATH -o FILE [--duration SEC] [--from-now] [--raw] [-q]\n"
    "\n"
    "Stream a running program's events into a capture file (FILE, e.g.\n"
    "run.rec) until the program exits, Ctrl-C, SIGTERM or --duration.  Lossless\n"
    "while it keeps up; when it falls behind, the program drops events (it\n"
    "never waits) and the capture counts them.  New threads and reused\n"
    "thread slots are followed.  On stop the rings go back to flight mode.\n"
    "The rings' current contents are captured too, unless --from-now.\n"
    "\n"
    "Shows a status line on stderr when it is a terminal and always a\n"
    "summary at the end.  `recorder convert` and `recorder report` read the\n"
    "file.\n"
    "\n"
    "  -o, --output FILE     the capture file (required; mode 0600)\n"
    "  -d, --duration SEC    stop after SEC seconds\n"
    "      --from-now        skip what the rings already hold\n"
    "      --raw             write entries as in the ring (16 bytes each), not packed\n"
    "  -q, --quiet           no status line\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

static double now_sec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_us(long us) {
    struct timespec d = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&d, NULL);  /* a signal cuts it short: fine */
}

static void status_line(const struct rec_capture_stats *st, double rate, int pid) {
    char a[32], b[32], c[32], d[32];
    fprintf(stderr, "\r\033[Kcapturing pid %d: %s events/s, %s events, %s, lost %s", pid,
            cli_count(a, sizeof a, rate), cli_count(b, sizeof b, (double)st->events),
            cli_bytes(c, sizeof c, (double)st->bytes), cli_count(d, sizeof d, (double)(st->dropped + st->overwritten)));
}

int cmd_capture(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"duration", required_argument, 0, 'd'},
                                         {"from-now", no_argument, 0, 'f'},
                                         {"raw", no_argument, 0, 'r'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    double duration = 0;
    int quiet = 0, from_now = 0, raw = 0, c;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:d:qh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'd':
            if (cli_parse_double(optarg, &duration) != 0 || duration <= 0)
                return cli_usage("capture", "--duration wants seconds, not '%s'", optarg);
            break;
        case 'f': from_now = 1; break;
        case 'r': raw = 1; break;
        case 'q': quiet = 1; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("capture", c, argv);
        }
    }
    if (optind >= argc) return cli_usage("capture", "which program? give a PID, a segment name or a path");
    if (optind + 1 < argc) return cli_usage("capture", "unexpected argument '%s'", argv[optind + 1]);
    if (!out) return cli_usage("capture", "missing -o FILE");
    const char *target = argv[optind];

    char err[512];
    rec_seg *seg = NULL;
    int rc = rec_seg_open(target, 0, &seg, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    rec_seg_close(seg);
    if (!info.alive)
        return cli_error(REC_ERR_NOTFOUND, "%s: process %d is not running (recorder dump reads what it left)",
                         info.path, info.pid);
    rc = rec_seg_open(target, REC_OPEN_STREAM, &seg, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);

    struct rec_capture_opts o = {from_now, raw, 0};
    rec_capture *cap = NULL;
    rc = rec_capture_start(seg, out, &o, &cap, err, sizeof err);
    if (rc != REC_OK) {
        rec_seg_close(seg);
        return cli_error(rc, "%s", err);
    }
    int live = !quiet && isatty(2);
    double t0 = now_sec(), next_check = t0 + 0.1, next_status = t0 + 0.5, last_t = t0;
    uint64_t last_events = 0;
    long idle_us = 100;
    /* A pass that found this much comes back at once: a writer at full
     * speed fills a 1 MiB ring in about a millisecond. */
    const uint64_t busy = info.ring_entries / 8;
    enum rec_capture_end reason = REC_CAPTURE_END_STOPPED;
    for (;;) {
        size_t moved = 0;
        rc = rec_capture_poll(cap, &moved, err, sizeof err);
        if (rc != REC_OK) {
            reason = REC_CAPTURE_END_ERROR;
            break;
        }
        if (stop_signal) break;
        double t = now_sec();
        if (duration > 0 && t - t0 >= duration) break;
        if (t >= next_check) {
            next_check = t + 0.1;
            struct rec_seg_info now;
            rec_seg_get_info(seg, &now);
            if (!now.alive) {
                reason = REC_CAPTURE_END_EXITED;
                break;
            }
            if (now.mode != REC_MODE_STREAM) {
                reason = REC_CAPTURE_END_DETACHED;
                break;
            }
        }
        if (live && t >= next_status) {
            struct rec_capture_stats st;
            rec_capture_get_stats(cap, &st);
            status_line(&st, (double)(st.events - last_events) / (t - last_t), info.pid);
            last_events = st.events;
            last_t = t;
            next_status = t + 0.5;
        }
        /* Keep pace with a busy ring; back off when nothing comes. */
        if (moved >= busy) idle_us = 50;
        else if (moved) {
            idle_us = 100;
            sleep_us(idle_us);
        } else {
            sleep_us(idle_us);
            if (idle_us < 5000) idle_us *= 2;
        }
    }
    if (live) fprintf(stderr, "\r\033[K");
    struct rec_capture_stats st;
    char err2[512] = "";
    int rc2 = rec_capture_finish(cap, reason, &st, err2, sizeof err2);
    if (rc == REC_OK && rc2 != REC_OK) {
        rc = rc2;
        snprintf(err, sizeof err, "%s", err2);
    }
    rec_seg_close(seg);  /* the rings go back to flight mode */
    double secs = now_sec() - t0;
    if (rc != REC_OK) cli_error(rc, "%s", err);
    if (reason == REC_CAPTURE_END_DETACHED)
        cli_warn("pid %d stopped streaming to us (no heartbeat for %u s?); the capture ends here", info.pid,
                 REC_STREAM_STALE_SEC);
    char a[32], b[32];
    const char *why = reason == REC_CAPTURE_END_EXITED ? "program exited"
                      : reason == REC_CAPTURE_END_ERROR ? "write error"
                      : reason == REC_CAPTURE_END_DETACHED ? "detached"
                      : stop_signal ? strsignal(stop_signal) : "stopped";
    fprintf(stderr,
            "recorder: captured pid %d (%s) to %s: %llu events (%llu entries), %s in %.2f s, %s events/s; "
            "lost %llu entries: %llu dropped, %llu overwritten; ended: %s\n",
            info.pid, info.process_name, out, (unsigned long long)st.events, (unsigned long long)st.entries,
            cli_bytes(a, sizeof a, (double)st.bytes), secs, cli_count(b, sizeof b, secs > 0 ? (double)st.events / secs : 0),
            (unsigned long long)(st.dropped + st.overwritten), (unsigned long long)st.dropped,
            (unsigned long long)st.overwritten, why);
    if (st.dropped)
        fprintf(stderr,
                "recorder: hint: the capture fell behind; each ring holds %llu entries (RECORDER_RING_KB=%llu): "
                "a larger ring rides out longer pauses\n",
                (unsigned long long)info.ring_entries, (unsigned long long)(info.ring_entries * 16 / 1024));
    return rc;
}
