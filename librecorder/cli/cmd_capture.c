/*
 * cmd_capture.c -- `recorder capture`: stream a running program's events
 * into a capture file until it exits or we are told to stop.
 *
 * We become the segment's stream-mode consumer: the program's writers stop
 * overwriting what we have not copied, and drop (and count) instead of
 * waiting when we fall behind.  The loop (capture_loop.c) polls as fast as
 * the data comes and sleeps when it does not; a signal only sets a flag,
 * and the loop then drains and writes the end record; closing the segment
 * gives the rings back to flight mode.
 *
 * With `-- CMD`, we start the program ourselves (capture_child.c) with
 * rings large enough to capture a full-speed thread without loss, attach
 * as soon as its segment appears, and end when it exits, with its exit
 * status.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "capture_child.h"
#include "capture_file.h"
#include "capture_loop.h"
#include "cli.h"
#include "spawn.h"
#include "recorder/capture.h"

static const char usage[] =
    "usage: recorder capture PID|NAME|PATH -o FILE [--duration SEC] [--from-now] [--raw] [-q]\n"
    "                       [--wait[=SEC]] [--consumers N]\n"
    "       recorder capture -o FILE [--ring-kb KB] [--duration SEC] [--raw] [-q] [--cuda] -- CMD [ARGS...]\n"
    "\n"
    "Stream a running program's events into a capture file (FILE, e.g.\n"
    "run.rec) until the program exits, Ctrl-C, SIGTERM or --duration.  Lossless\n"
    "while it keeps up; when it falls behind, the program drops events (it\n"
    "never waits) and the capture counts them.  New threads and reused\n"
    "thread slots are followed.  On stop the rings go back to flight mode.\n"
    "The rings' current contents are captured too, unless --from-now.\n"
    "\n"
    "With -- CMD, start CMD and capture it from its first event until it\n"
    "exits; Ctrl-C goes to CMD, and the exit status is CMD's.  CMD gets\n"
    "64 MiB rings per thread (RECORDER_RING_KB=65536, unless --ring-kb or the\n"
    "environment says otherwise): enough to capture a thread writing at full\n"
    "speed without loss.  A running program keeps the rings it started with\n"
    "(1 MiB by default: about a millisecond of a full-speed thread).\n"
    "\n"
    "Shows a status line on stderr when it is a terminal and always a\n"
    "summary at the end.  `recorder convert` and `recorder report` read the\n"
    "file.  A FILE named .pftrace, .perfetto-trace, .json, .csv or .folded is\n"
    "written in that format instead: the capture goes to a private FILE.XXXXXX.rec\n"
    "next to it, converted when the capture ends, then removed.  Any other\n"
    "extension than these and .rec is refused (a name without one is a capture).\n"
    "\n"
    "  -o, --output FILE     the capture file (required; mode 0600; - for stdout):\n"
    "                        checked before anything starts, under its name from\n"
    "                        the first record on; a device or FIFO is written to\n"
    "  -d, --duration SEC    stop after SEC seconds (with CMD: then wait for it)\n"
    "      --from-now        skip what the rings already hold\n"
    "      --raw             write entries as in the ring (16 bytes each), not packed\n"
    "      --consumers N     threads that drain the rings (1 ... 64; default: one per\n"
    "                        4 CPUs, at most 4; each takes the next ring not yet taken)\n"
    "      --ring-kb KB      with CMD: its ring size per thread in KiB (4 ... 1048576)\n"
    "      --cuda            with CMD: record its GPU work and NVTX ranges (CMD gets\n"
    "                        CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH set to\n"
    "                        librecorder-cuda.so; RECORDER_CUDA_LIB overrides;\n"
    "                        docs/gpu.md); if no GPU lane was recorded, one line\n"
    "                        says why\n"
    "  -q, --quiet           no status line\n"
    "  -w, --wait[=SEC]      a program that has not recorded yet (no segment): wait\n"
    "                        for it, at most SEC seconds (default: no limit); fails\n"
    "                        with status 12 if it exits first, 13 when time is up\n";

static volatile sig_atomic_t stop_signal;

static void on_signal(int sig) { stop_signal = sig; }

/* Opens a running program's segment for streaming; REC_OK or a status
 * with the reason printed. */
static int attach_running(const char *target, rec_seg **seg) {
    char err[512];
    rec_seg *s = NULL;
    int rc = rec_seg_open(target, 0, &s, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    rec_seg_close(s);
    if (!info.alive)
        return cli_error(REC_ERR_NOTFOUND, "%s: process %d is not running (recorder dump reads what it left)",
                         info.path, info.pid);
    rc = rec_seg_open(target, REC_OPEN_STREAM, seg, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    return REC_OK;
}

static int capture_cmd(int argc, char **argv, struct capture_conv *cv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"duration", required_argument, 0, 'd'},
                                         {"from-now", no_argument, 0, 'f'},
                                         {"raw", no_argument, 0, 'r'},
                                         {"ring-kb", required_argument, 0, 'R'},
                                         {"cuda", no_argument, 0, 'C'},
                                         {"consumers", required_argument, 0, 'J'},
                                         {"quiet", no_argument, 0, 'q'},
                                         {"wait", optional_argument, 0, 'w'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL, *ring_kb = NULL;
    double duration = 0, wait_s = 0;
    int quiet = 0, from_now = 0, raw = 0, wait = 0, cuda = 0, c, rc;
    unsigned consumers = 0;
    /* Everything after "--" is the command to start, never our options. */
    char **cmd = NULL;
    for (int i = 1; i < argc; i++)
        if (!strcmp(argv[i], "--")) {
            cmd = argv + i + 1;
            argc = i;
            break;
        }
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:d:qwh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'd':
            if (cli_parse_double(optarg, &duration) != 0 || duration <= 0)
                return cli_usage("capture", "--duration wants seconds, not '%s'", optarg);
            break;
        case 'f': from_now = 1; break;
        case 'r': raw = 1; break;
        case 'R': {
            unsigned long kb;
            if (cli_parse_uint(optarg, &kb) != 0 || kb < 4 || kb > 1048576)
                return cli_usage("capture", "--ring-kb wants KiB from 4 to 1048576, not '%s'", optarg);
            ring_kb = optarg;
            break;
        }
        case 'q': quiet = 1; break;
        case 'C': cuda = 1; break;
        case 'J': {
            unsigned long n;
            if (cli_parse_uint(optarg, &n) != 0 || n < 1 || n > 64)
                return cli_usage("capture", "--consumers wants 1 to 64 threads, not '%s'", optarg);
            consumers = (unsigned)n;
            break;
        }
        case 'w':
            if (cli_parse_wait("capture", optarg, &wait_s) != 0) return REC_ERR_USAGE;
            wait = 1;
            break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("capture", c, argv);
        }
    }
    if (cmd) {
        if (!cmd[0]) return cli_usage("capture", "which command? recorder capture -o FILE -- CMD [ARGS...]");
        if (optind < argc)
            return cli_usage("capture", "give a program to attach to (%s) or a command after --, not both",
                             argv[optind]);
        if (from_now) return cli_usage("capture", "--from-now is for attaching: with -- CMD everything is captured");
        if (wait) return cli_usage("capture", "--wait is for attaching: with -- CMD the capture waits for CMD anyway");
    } else {
        if (ring_kb) return cli_usage("capture", "--ring-kb is for a command started with -- CMD");
        if (cuda) return cli_usage("capture", "--cuda is for a command started with -- CMD (the library must be "
                                              "loaded when the program starts)");
        if (optind >= argc)
            return cli_usage("capture", "which program? give a PID, a segment name or a path, or -- CMD");
        if (optind + 1 < argc) return cli_usage("capture", "unexpected argument '%s'", argv[optind + 1]);
    }
    if (!out) return cli_usage("capture", "missing -o FILE");
    char cuda_lib[PATH_MAX];
    if (cuda && cuda_lib_path(cuda_lib, sizeof cuda_lib, "; the command was not started") != REC_OK) return REC_ERR_USAGE;
    /* -o x.pftrace (or another trace format): capture to a private file,
     * converted by cmd_capture when this returns. */
    rc = capture_conv_begin(cv, &out);
    if (rc != REC_OK) return rc;

    char err[1400];
    rec_seg *seg = NULL;
    struct capture_child child;
    int running = 1;
    /* The file first (recorder/outfile.h): one we cannot or must not write
     * is found out before the program starts (it may run for hours) or is
     * switched to stream mode.  Until the capture's first record it is a
     * temporary file; a capture that never starts leaves FILE as it was. */
    struct rec_out file;
    rc = rec_out_open(&file, out, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    capture_conv_opened(cv, file.fd);
    /* A capture is binary and holds the program's strings as they are. */
    if (isatty(file.fd)) {
        rec_out_abort(&file);
        return cli_usage("capture", "-o %s is a terminal: a capture is binary; write it to a file", out);
    }
    if (cmd && file.is_stdout) {
        rec_out_abort(&file);
        return cli_usage("capture", "-o - with -- CMD would mix CMD's own output into the capture");
    }
    char shown_out[4200];
    if (file.is_stdout) snprintf(shown_out, sizeof shown_out, "(stdout)");
    else cli_safe(shown_out, sizeof shown_out, cv->on ? cv->eo.out : out);   /* never the private file's name */
    /* Caught from here on: a Ctrl-C while we wait for the program must
     * still remove the temporary file. */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigemptyset(&sa.sa_mask);
    if (!cmd) {   /* with a command, these go to it (cli_forward_signals) */
        sigaction(SIGINT, &sa, NULL);
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGHUP, &sa, NULL);
    }
    signal(SIGPIPE, SIG_IGN);
    if (cmd) {
        rc = capture_child_start(&child, cmd, ring_kb, cuda ? cuda_lib : NULL);
        if (rc != 0) {
            rec_out_abort(&file);
            return rc;
        }
        child.add_tree = 1;
        cli_forward_signals(child.pid);
        rc = capture_child_attach(&child, &seg, &running);
        if (rc != REC_OK) {   /* nothing in its tree recorded */
            rec_out_abort(&file);
            int code = capture_child_wait(&child);
            int other = capture_tree_other_users(&child);
            if (other != REC_OK) rc = other;   /* said why */
            else
                cli_error(rc, "pid %d exited (status %d) without recording anything, nor did a process it started: "
                          "is the program instrumented (see docs/quickstart.md)?", (int)child.pid, code);
            if (cuda) cli_warn("--cuda: no GPU lane recorded: the program never initialised CUDA");
            capture_child_cleanup(&child);
            return code ? code : rc;
        }
    } else {
        /* After the output is checked: a wrong -o is said at once, not
         * after the program has started. */
        rc = wait ? cli_wait(argv[optind], wait_s, &stop_signal) : REC_OK;
        if (rc == REC_OK) rc = attach_running(argv[optind], &seg);
        if (rc != REC_OK) {
            rec_out_abort(&file);
            if (rc < 0) {   /* stopped while waiting: end as the signal says */
                signal(stop_signal, SIG_DFL);
                raise(stop_signal);
                return 128 + stop_signal;
            }
            return rc;
        }
    }
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);


    struct rec_capture_opts o = {from_now, raw, 0};
    rec_capture *cap = NULL;
    rc = rec_capture_start_out(seg, &file, &o, &cap, err, sizeof err);
    if (rc == REC_OK) capture_set_consumers(cap, consumers);
    if (rc != REC_OK) {
        rec_seg_close(seg);
        cli_error(rc, "%s", err);
        if (cmd) {   /* the command runs on without us; its status still counts */
            int code = capture_child_wait(&child);
            capture_child_cleanup(&child);
            return code ? code : rc;
        }
        return rc;
    }
    struct capture_end end;
    rc = capture_loop(cap, seg, cmd ? &child : NULL, running, duration, !quiet && isatty(2), &stop_signal, &end);
    rec_seg_get_info(seg, &info);   /* its counters as it ends: threads not recorded meanwhile */
    if (cuda) cuda_report(seg);
    rec_seg_close(seg);  /* the rings go back to flight mode */
    int code = 0;
    if (cmd) {
        if (!capture_child_exited(&child) && !quiet)
            fprintf(stderr, "recorder: capture stopped; waiting for pid %d to exit\n", (int)child.pid);
        code = capture_child_wait(&child);
        capture_child_cleanup(&child);
    }
    if (rc != REC_OK) cli_error(rc, "%s", end.err);
    if (end.reason == REC_CAPTURE_END_DETACHED)
        cli_warn("pid %d stopped streaming to us (no heartbeat for %u s?); the capture ends here", info.pid,
                 REC_STREAM_STALE_SEC);
    char where[4300];
    if (cmd && child.source_pid != child.pid)   /* the command had not recorded when the capture began */
        snprintf(where, sizeof where, "(started by pid %d) to %s", (int)child.pid, shown_out);
    else
        snprintf(where, sizeof where, "to %s", shown_out);
    if (cv->on && rc == REC_OK && end.reason == REC_CAPTURE_END_EXITED) {
        /* Converted at once: one line, the conversion's, says what the
         * capture did not get (as `recorder run` does); the private
         * file is never named. */
        char loss[256];
        snprintf(cv->note, sizeof cv->note, "captured while it ran: %s",
                 capture_loss_words(&end, loss, sizeof loss));
        cv->eo.source_note = cv->note;
        capture_notes(&info, &end);
    } else {
        capture_summary(&info, where, &end);
    }
    return code ? code : rc;
}

int cmd_capture(int argc, char **argv) {
    struct capture_conv cv = {0};
    int rc = capture_cmd(argc, argv, &cv);
    return capture_conv_end(&cv, rc);
}
