/*
 * cmd_run.c -- `recorder run -- CMD ARGS...`: run a program with recording
 * on, and when it exits write its trace (and one per child process), then
 * remove their segments.
 *
 * The program's whole run is kept the way `recorder capture -- CMD` keeps
 * it (capture_child.c, capture_loop.c): large rings, and us as the
 * stream-mode consumer, draining into a private capture file next to the
 * output while it runs; that file is converted when it exits, then
 * removed.  Its children (fork) get segments of their own, which
 * descendants.c finds and capture_tree.c captures live into the same
 * file; their writers keep them for us at exit (the launcher tag).
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
    "usage: recorder run [-o FILE] [--format json|perfetto|csv|folded] [--ring-kb KB] [--last S | --from S] [--to S]\n"
    "                    [--force] [--keep] [--split] [--cuda] -- CMD [ARGS...]\n"
    "\n"
    "Run CMD with recording on and, when it exits, write its trace as Perfetto\n"
    "JSON to FILE (default trace.json): its whole run, unless a window is asked\n"
    "for.  While CMD runs, its events are captured as `recorder capture -- CMD`\n"
    "does (64 MiB rings, drained as they fill) into a temporary file next to\n"
    "FILE, removed afterwards; the summary says what, if anything, was lost.\n"
    "The processes it starts (fork, exec, pipelines, workers, theirs too) are\n"
    "in the same trace, a process track per pid, on one time line, captured\n"
    "as CMD is, while they run (their segments wait for us however short\n"
    "their life).  The segments are removed afterwards, unless --keep.  Ctrl-C\n"
    "goes to CMD.\n"
    "\n"
    "Exit status: CMD's (128+N if a signal N killed it; 127 if it could not be\n"
    "started); if CMD succeeded but a trace could not be written, that\n"
    "error's status; 8 if a process of the tree could not be captured whole,\n"
    "4 if one changed user (each named; docs/cli.md).\n"
    "\n"
    "  -o, --output FILE   the program's trace (default trace.json; checked before\n"
    "                      CMD starts; written aside and renamed, mode 0600)\n"
    "      --ring-kb KB    CMD's ring size per thread in KiB (4 ... 1048576; default\n"
    "                      65536, or RECORDER_RING_KB): a smaller ring bounds its\n"
    "                      memory, and may lose events if the capture falls behind\n"
    "  -f, --format FMT    json; perfetto: Perfetto's own protobuf trace, a quarter\n"
    "                      of the size; csv: statistics per scope name; folded:\n"
    "                      folded stacks.  FILE's extension says it (.json,\n"
    "                      .pftrace, .perfetto-trace, .csv, .folded); any other is\n"
    "                      refused, and --format must agree with it\n"
    "  -l, --last SECONDS  only the last SECONDS of each trace\n"
    "      --from SECONDS  only from SECONDS after each trace's start (ts 0)\n"
    "      --to SECONDS    only up to SECONDS after each trace's start\n"
    "      --force         write JSON larger than 4 GiB, or than the free space\n"
    "  -k, --keep          keep the segments (recorder dump can read them again)\n"
    "      --split         one file per process instead: FILE with the pid before\n"
    "                      its extension (trace.<pid>.json, trace.<pid>.pftrace)\n"
    "      --cuda          record CMD's GPU work and NVTX ranges: CMD gets\n"
    "                      CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH set to\n"
    "                      librecorder-cuda.so (RECORDER_CUDA_LIB overrides;\n"
    "                      RECORDER_CUDA chooses what; docs/gpu.md); if no GPU lane\n"
    "                      was recorded, one line says why\n"
    "\n"
    "A trace refused for its size (see recorder dump --help) keeps its capture\n"
    "or segment.\n";

/* The segment of t, if it is still the process we saw start: its path
 * in path.  1 if so. */
static int tracked_path(const struct descendants *d, const struct desc_seg *t, char *path, size_t cap) {
    desc_path(t, path, cap);
    struct rec_seg_entry e;
    if (t->pid <= 0 || rec_seg_inspect(path, &e) == REC_ERR_NOTFOUND) return 0;
    return desc_is_tracked(d, t, &e);
}

/* Every process of the tree into one trace (or, split, a file each): the
 * capture, which holds them all (capture_tree.c); or, if the program's
 * own capture could not start, the segments the tree left, kept for us
 * until now (their writer keeps its segment while its launcher runs:
 * docs/configuration.md). */
static int write_tree(struct capture_child *child, const char *capfile, const char *note,
                      const struct cli_export_opts *eo, int split, int *refused) {
    struct descendants *d = &child->d;
    size_t n = 0;
    char **targets = calloc((size_t)d->n + 1, sizeof *targets);
    const char **notes = calloc((size_t)d->n + 1, sizeof *notes);
    int rc = targets && notes ? REC_OK : cli_error(REC_ERR_NOMEM, "out of memory");
    if (rc == REC_OK && capfile) {
        notes[n] = note;
        targets[n++] = strdup(capfile);
    }
    for (int i = 0; i < d->n && rc == REC_OK && !capfile; i++) {
        const struct desc_seg *t = &d->segs[i];
        char path[PATH_MAX];
        if (!tracked_path(d, t, path, sizeof path)) continue;
        targets[n++] = strdup(path);
    }
    for (size_t i = 0; i < n; i++)
        if (!targets[i]) rc = cli_error(REC_ERR_NOMEM, "out of memory");
    if (rc == REC_OK && n > 0) rc = cli_export_many(targets, notes, n, eo, split);
    *refused = rc == REC_ERR_USAGE;
    for (size_t i = 0; i < n; i++) free(targets[i]);
    free(targets);
    free(notes);
    return rc;
}

/* While the program runs: its events into the capture file at path.
 * Returns 1 if it was captured (note: what the capture did not get, for
 * the summary line), 0 if not (it never recorded, or the capture could not
 * start: its segment, if any, is then written as it is). */
static int capture_program(struct capture_child *child, const char *path, char *note, size_t notecap, int cuda) {
    char err[1400];
    struct rec_out file;
    if (rec_out_open(&file, path, err, sizeof err) != REC_OK) {
        cli_error(REC_ERR_IO, "%s", err);
        capture_child_wait(child);
        return 0;
    }
    rec_seg *seg = NULL;
    int running = 1;
    if (capture_child_attach(child, &seg, &running) != REC_OK) {   /* nothing in its tree recorded */
        rec_out_abort(&file);
        capture_child_wait(child);
        child->tree_rc = capture_tree_other_users(child);
        if (child->tree_rc == REC_OK)
            cli_warn("pid %d left no segment, nor did a process it started: is the program instrumented (and did "
                     "it record an event)?", (int)child->pid);
        if (cuda) cli_warn("--cuda: no GPU lane recorded: the program never initialised CUDA");
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
    capture_set_consumers(cap, 0);
    static volatile sig_atomic_t never;   /* signals go to the program, not to us */
    struct capture_end end;
    rc = capture_loop(cap, seg, child, running, 0, 0, &never, &end);
    struct rec_seg_info last;
    rec_seg_get_info(seg, &last);   /* as it ends: threads it could not record */
    capture_warn_not_recorded(&last);
    if (cuda) cuda_report(seg);
    rec_seg_close(seg);
    capture_child_wait(child);
    if (rc != REC_OK) {
        cli_error(rc, "%s", end.err);
        child->tree_rc = rc;
    }
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
                                         {"split", no_argument, 0, 'S'},
                                         {"cuda", no_argument, 0, 'C'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct cli_export_opts eo = {"trace.json", REC_EXPORT_JSON, 0, 0, 0, 0, NULL, 0, NULL};
    const char *ring_kb = NULL;
    const char *fmt = NULL;
    int keep = 0, split = 0, cuda = 0, c;
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
        case 'S': split = 1; break;
        case 'C': cuda = 1; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("run", c, argv);
        }
    }
    int bad = cli_export_timeline("run", fmt, &eo);
    if (bad == REC_OK) bad = cli_export_check("run", &eo);
    if (bad != REC_OK) return bad;
    if (optind >= argc) return cli_usage("run", "which command? recorder run [OPTIONS] -- CMD [ARGS...]");
    if (!strcmp(eo.out, "-")) return cli_usage("run", "-o - is not supported: write the trace to a file");
    if (split && cli_split_check("run", eo.out) != REC_OK) return REC_ERR_USAGE;
    /* An output that cannot or must not be written is found out before
     * the program runs (it may run for hours), not after. */
    char err[1400];
    int unwritable = rec_out_check(eo.out, err, sizeof err);
    if (unwritable != REC_OK) return cli_error(unwritable, "%s", err);
    char cuda_lib[PATH_MAX];
    if (cuda && cuda_lib_path(cuda_lib, sizeof cuda_lib, "; the command was not started") != REC_OK) return REC_ERR_USAGE;
    char capfile[PATH_MAX];
    if (capture_tmp_path(eo.out, capfile, sizeof capfile) != 0) return REC_ERR_IO;
    struct capture_child child;
    int spawned = capture_child_start(&child, argv + optind, ring_kb, cuda ? cuda_lib : NULL);
    if (spawned != 0) {
        unlink(capfile);
        return spawned;
    }
    child.add_tree = 1;     /* every process of the tree into the capture, live */
    child.quiet_tree = 1;   /* the trace's summary names them */
    if (!child.remove_segments) keep = 1;   /* the user's own RECORDER_KEEP */
    pid_t pid = child.pid;
    cli_forward_signals(pid);
    char note[512];
    int captured = capture_program(&child, capfile, note, sizeof note, cuda);
    desc_end(&child.d);
    int refused = 0;
    int rc = write_tree(&child, captured ? capfile : NULL, note, &eo, split, &refused);
    if (refused) {   /* too large: the capture and the segments are all there is */
        if (captured) cli_warn("kept the capture %s: recorder convert it with --force, or to CSV", capfile);
        cli_warn("kept the segments of the processes it started: recorder dump PID... --force reads them");
        keep = 1;
    }
    /* The trace could not be written (a FIFO nobody read, a full disk:
     * said above): the run is not lost with it. */
    int unwritten = captured && !refused && rc != REC_OK;
    if (unwritten)
        cli_warn("kept the capture %s: recorder convert %s -o FILE writes the trace from it", capfile, capfile);
    if (!captured || !(refused || unwritten)) unlink(capfile);
    for (int i = 0; i < child.d.n && !keep; i++)
        if (child.d.segs[i].pid > 0) desc_remove(&child.d, &child.d.segs[i]);
    int status = child.d.child_status;
    capture_tree_free(&child);
    desc_free(&child.d);
    int code = cli_exit_status(status);
    /* A process of the tree not captured whole fails the run (named above). */
    if (rc == REC_OK) rc = child.tree_rc;
    return code != 0 ? code : rc;
}
