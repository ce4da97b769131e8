/*
 * cmd_run.c -- `recorder run -- CMD ARGS...`: run a program with recording
 * on, and when it exits write its trace (and one per child process), then
 * remove their segments.
 *
 * The program's whole run is kept the way `recorder capture -- CMD` keeps
 * it (capture_child.c, capture_loop.c): large rings, and us as the
 * stream-mode consumer, draining into a private capture file next to the
 * output while it runs; that file is converted when it exits, then
 * removed.  Everything runs with RECORDER_KEEP=1, so segments outlive
 * their processes.  Its children (fork) get segments of their own, which
 * descendants.c finds, and are written from what their rings hold.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <unistd.h>

#include "capture_child.h"
#include "capture_file.h"
#include "capture_loop.h"
#include "cli.h"
#include "descendants.h"
#include "export.h"
#include "recorder/capture.h"
#include "spawn.h"

static const char usage[] =
    "usage: recorder run [-o FILE] [--format json|perfetto] [--ring-kb KB] [--last S | --from S] [--to S]\n"
    "                    [--force] [--keep] -- CMD [ARGS...]\n"
    "\n"
    "Run CMD with recording on and, when it exits, write its trace as Perfetto\n"
    "JSON to FILE (default trace.json): its whole run, unless a window is asked\n"
    "for.  While CMD runs, its events are captured as `recorder capture -- CMD`\n"
    "does (64 MiB rings, drained as they fill) into a temporary file next to\n"
    "FILE, removed afterwards; the summary says what, if anything, was lost.\n"
    "Child processes it forked get their own files, with their pid before the\n"
    "extension (trace.<pid>.json): what their rings hold when they exit.  The\n"
    "segments are removed afterwards, unless --keep.  Ctrl-C goes to CMD.\n"
    "\n"
    "Exit status: CMD's (128+N if a signal N killed it; 127 if it could not be\n"
    "started); if CMD succeeded but a trace could not be written, that\n"
    "error's status (docs/cli.md).\n"
    "\n"
    "  -o, --output FILE   the program's trace (default trace.json; checked before\n"
    "                      CMD starts; written aside and renamed, mode 0600)\n"
    "      --ring-kb KB    CMD's ring size per thread in KiB (4 ... 1048576; default\n"
    "                      65536, or RECORDER_RING_KB): a smaller ring bounds its\n"
    "                      memory, and may lose events if the capture falls behind\n"
    "  -f, --format FMT    json, or perfetto: Perfetto's own protobuf trace, a sixth\n"
    "                      of the size (the default for FILE.pftrace, .perfetto-trace)\n"
    "  -l, --last SECONDS  only the last SECONDS of each trace\n"
    "      --from SECONDS  only from SECONDS after each trace's start (ts 0)\n"
    "      --to SECONDS    only up to SECONDS after each trace's start\n"
    "      --force         write JSON larger than 4 GiB, or than the free space\n"
    "  -k, --keep          keep the segments (recorder dump can read them again)\n"
    "\n"
    "A trace refused for its size (see recorder dump --help) keeps its capture\n"
    "or segment.\n";

/* "trace.json" -> "trace.<pid>.json"; "trace" -> "trace.<pid>". */
static void with_pid(const char *out, int pid, char *buf, size_t cap) {
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash) || dot == out || (slash && dot == slash + 1))
        snprintf(buf, cap, "%s.%d", out, pid);
    else snprintf(buf, cap, "%.*s.%d%s", (int)(dot - out), out, pid, dot);
}

/* Write one tracked segment's trace and remove it (unless keep).  The
 * program's own segment (captured: its trace is written from the capture)
 * is only removed.  Returns a rec_status. */
static int finish_one(const struct descendants *d, const struct desc_seg *t, pid_t child, int captured,
                      const struct cli_export_opts *o, int keep) {
    char path[PATH_MAX], file[PATH_MAX];
    desc_path(t, path, sizeof path);
    struct rec_seg_entry e;
    if (rec_seg_inspect(path, &e) == REC_ERR_NOTFOUND) {
        if (t->pid == child && !captured)
            cli_warn("pid %d left no segment: is the program instrumented (and did it record an event)?", t->pid);
        return REC_OK;
    }
    /* The same process as the one we saw start, in a file of its user's? */
    if (!desc_is_tracked(d, t, &e)) return REC_OK;
    if (t->pid == child && captured) {
        if (!keep) desc_remove(d, t);
        return REC_OK;
    }
    if (t->pid == child) snprintf(file, sizeof file, "%s", o->out);
    else with_pid(o->out, t->pid, file, sizeof file);
    struct cli_export_opts one = *o;
    one.out = file;
    int rc = cli_export(path, &one);
    if (rc == REC_ERR_USAGE && !keep) {   /* refused (too large): the segment is all there is */
        cli_warn("kept %s: recorder dump %s --force, or recorder convert it to CSV", path, path);
        keep = 1;
    }
    if (!keep) desc_remove(d, t);
    return rc;
}

/* While the program runs: its events into the capture file at path.
 * Returns 1 if it was captured (note: what the capture did not get, for
 * the summary line), 0 if not (it never recorded, or the capture could not
 * start: its segment, if any, is then written as it is). */
static int capture_program(struct capture_child *child, const char *path, char *note, size_t notecap) {
    char err[1400];
    struct rec_out file;
    if (rec_out_open(&file, path, err, sizeof err) != REC_OK) {
        cli_error(REC_ERR_IO, "%s", err);
        capture_child_wait(child);
        return 0;
    }
    rec_seg *seg = NULL;
    int running = 1;
    if (capture_child_attach(child, &seg, &running) != REC_OK) {
        rec_out_abort(&file);
        return 0;
    }
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    struct rec_capture_opts co = {0, 0, 0};
    rec_capture *cap = NULL;
    int rc = rec_capture_start_out(seg, &file, &co, &cap, err, sizeof err);
    if (rc != REC_OK) {
        rec_seg_close(seg);
        cli_error(rc, "%s", err);
        capture_child_wait(child);
        return 0;
    }
    static volatile sig_atomic_t never;   /* signals go to the program, not to us */
    struct capture_end end;
    rc = capture_loop(cap, seg, child, running, 0, 0, &never, &end);
    rec_seg_close(seg);
    capture_child_wait(child);
    if (rc != REC_OK) cli_error(rc, "%s", end.err);
    char loss[256];
    int n = snprintf(note, notecap, "captured while it ran: %s", capture_loss_words(&end, loss, sizeof loss));
    if (end.st.dropped && n > 0 && (size_t)n < notecap)
        snprintf(note + n, notecap - (size_t)n, " (its rings of %llu KiB filled faster than they were drained: "
                 "--ring-kb sets a larger ring)", (unsigned long long)(info.ring_entries * 16 / 1024));
    return 1;
}

int cmd_run(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'f'},
                                         CLI_EXPORT_LONGOPTS,
                                         {"ring-kb", required_argument, 0, 'R'},
                                         {"keep", no_argument, 0, 'k'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct cli_export_opts eo = {"trace.json", REC_EXPORT_JSON, 0, 0, 0, 0, NULL};
    const char *ring_kb = NULL;
    const char *fmt = NULL;
    int keep = 0, c;
    optind = 0;
    /* '+': stop at the command, so its own options stay its own. */
    while ((c = getopt_long(argc, argv, "+:o:f:l:kh", opts, NULL)) != -1) {
        int r = cli_export_option("run", c, optarg, &eo);
        if (r > 0) return r;
        if (r == 0) continue;
        switch (c) {
        case 'o': eo.out = optarg; break;
        case 'R': {
            unsigned long kb;
            if (cli_parse_uint(optarg, &kb) != 0 || kb < 4 || kb > 1048576)
                return cli_usage("run", "--ring-kb wants KiB from 4 to 1048576, not '%s'", optarg);
            ring_kb = optarg;
            break;
        }
        case 'f': fmt = optarg; break;
        case 'k': keep = 1; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("run", c, argv);
        }
    }
    int bad = cli_export_timeline("run", fmt, &eo);
    if (bad == REC_OK) bad = cli_export_check("run", &eo);
    if (bad != REC_OK) return bad;
    if (optind >= argc) return cli_usage("run", "which command? recorder run [OPTIONS] -- CMD [ARGS...]");
    if (!strcmp(eo.out, "-")) return cli_usage("run", "-o - is not supported: each process needs its own file");
    /* An output that cannot or must not be written is found out before
     * the program runs (it may run for hours), not after. */
    char err[1400];
    int unwritable = rec_out_check(eo.out, err, sizeof err);
    if (unwritable != REC_OK) return cli_error(unwritable, "%s", err);
    char capfile[PATH_MAX];
    if (capture_tmp_path(eo.out, capfile, sizeof capfile) != 0) return REC_ERR_IO;
    struct capture_child child;
    int spawned = capture_child_start(&child, argv + optind, ring_kb, 1);
    if (spawned != 0) {
        unlink(capfile);
        return spawned;
    }
    pid_t pid = child.pid;
    cli_forward_signals(pid);
    char note[512];
    int captured = capture_program(&child, capfile, note, sizeof note);
    desc_end(&child.d);
    int rc = REC_OK;
    if (captured) {
        struct cli_export_opts own = eo;
        own.source_note = note;
        rc = capture_convert(capfile, &own);
    } else {
        unlink(capfile);
    }
    for (int i = 0; i < child.d.n; i++) {
        if (child.d.segs[i].pid <= 0) continue;
        int r = finish_one(&child.d, &child.d.segs[i], pid, captured, &eo, keep);
        if (r != REC_OK && rc == REC_OK) rc = r;
    }
    int status = child.d.child_status;
    desc_free(&child.d);
    int code = cli_exit_status(status);
    return code != 0 ? code : rc;
}
