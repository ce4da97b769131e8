/*
 * cmd_run.c -- `recorder run -- CMD ARGS...`: run a program with recording
 * on, and when it exits write its trace (and one per child process), then
 * remove their segments.
 *
 * The program runs with RECORDER_KEEP=1, so its segment outlives it.  Its
 * children (fork) get segments of their own, which descendants.c finds.
 */
#define _GNU_SOURCE
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <sys/types.h>

#include "cli.h"
#include "descendants.h"
#include "export.h"
#include "recorder/capture.h"
#include "spawn.h"

static const char usage[] =
    "usage: recorder run [-o FILE] [--format json|perfetto] [--last S | --from S] [--to S] [--force] [--keep] -- CMD [ARGS...]\n"
    "\n"
    "Run CMD with recording on (RECORDER_KEEP=1 in its environment) and, when\n"
    "it exits, write its trace as Perfetto JSON to FILE (default trace.json).\n"
    "Child processes it forked get their own files, with their pid before the\n"
    "extension (trace.<pid>.json).  The segments are removed afterwards,\n"
    "unless --keep.  Ctrl-C goes to CMD; the trace is written when it exits:\n"
    "every event its rings hold, unless a window is asked for.\n"
    "\n"
    "Exit status: CMD's (128+N if a signal N killed it; 127 if it could not be\n"
    "started); if CMD succeeded but a trace could not be written, that\n"
    "error's status (docs/cli.md).\n"
    "\n"
    "  -o, --output FILE   the program's trace (default trace.json; checked before\n"
    "                      CMD starts; written aside and renamed, mode 0600)\n"
    "  -f, --format FMT    json, or perfetto: Perfetto's own protobuf trace, a sixth\n"
    "                      of the size (the default for FILE.pftrace, .perfetto-trace)\n"
    "  -l, --last SECONDS  only the last SECONDS of each trace\n"
    "      --from SECONDS  only from SECONDS after each trace's start (ts 0)\n"
    "      --to SECONDS    only up to SECONDS after each trace's start\n"
    "      --force         write JSON larger than 4 GiB, or than the free space\n"
    "  -k, --keep          keep the segments (recorder dump can read them again)\n"
    "\n"
    "A trace refused for its size (see recorder dump --help) keeps its segment.\n";

/* "trace.json" -> "trace.<pid>.json"; "trace" -> "trace.<pid>". */
static void with_pid(const char *out, int pid, char *buf, size_t cap) {
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash) || dot == out || (slash && dot == slash + 1))
        snprintf(buf, cap, "%s.%d", out, pid);
    else snprintf(buf, cap, "%.*s.%d%s", (int)(dot - out), out, pid, dot);
}

/* Write one tracked segment's trace and remove it (unless keep).  Returns
 * a rec_status. */
static int finish_one(const struct descendants *d, const struct desc_seg *t, pid_t child,
                      const struct cli_export_opts *o, int keep) {
    char path[PATH_MAX], file[PATH_MAX];
    desc_path(t, path, sizeof path);
    struct rec_seg_entry e;
    if (rec_seg_inspect(path, &e) == REC_ERR_NOTFOUND) {
        if (t->pid == child)
            cli_warn("pid %d left no segment: is the program instrumented (and did it record an event)?", t->pid);
        return REC_OK;
    }
    /* The same process as the one we saw start, in a file of its user's? */
    if (!desc_is_tracked(d, t, &e)) return REC_OK;
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

int cmd_run(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'f'},
                                         CLI_EXPORT_LONGOPTS,
                                         {"keep", no_argument, 0, 'k'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct cli_export_opts eo = {"trace.json", REC_EXPORT_JSON, 0, 0, 0, 0};
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
    char **cmd = argv + optind;
    struct descendants d;
    desc_start(&d, "only the program's own trace will be written");
    const char *const env[] = {"RECORDER_KEEP", "1", "RECORDER_LAUNCHER", d.launcher, NULL};
    pid_t pid;
    int spawned = cli_spawn(cmd, env, &pid);
    if (spawned != 0) {
        desc_end(&d);
        return spawned;
    }
    desc_child(&d, pid);
    /* We wait for it to exit and then write its trace. */
    cli_forward_signals(pid);
    while (!desc_poll(&d, 20)) {}
    desc_end(&d);
    int rc = REC_OK;
    for (int i = 0; i < d.n; i++) {
        if (d.segs[i].pid <= 0) continue;
        int r = finish_one(&d, &d.segs[i], pid, &eo, keep);
        if (r != REC_OK && rc == REC_OK) rc = r;
    }
    int status = d.child_status;
    desc_free(&d);
    int code = cli_exit_status(status);
    return code != 0 ? code : rc;
}
