/*
 * cmd_dump.c -- `recorder dump`: a program's rings, now, as Perfetto JSON
 * (or Perfetto's protobuf, CSV or folded stacks: export.c's one table of
 * output names).
 *
 * Reading never stops or slows the program: the segment is mapped
 * read-only and copied with the reader's protocol.  A dead program's
 * segment reads the same way, so this is also the post-mortem.  The
 * writing is export.c's, shared with convert and run.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/capture.h"

#include "cli.h"
#include "export.h"

static const char usage[] =
    "usage: recorder dump PID|NAME|PATH... [-o FILE] [--format json|perfetto|csv|folded] [--last S | --from S] [--to S]\n"
    "                     [--force] [--wait[=SEC]] [--split]\n"
    "       recorder dump --tree PID [-o FILE] [--split] [...]\n"
    "\n"
    "Write what a program's rings hold right now as Perfetto / Chrome JSON\n"
    "(open it at ui.perfetto.dev or chrome://tracing).  The program keeps\n"
    "running undisturbed.  Works the same on the segment a crashed program\n"
    "left behind, and on a capture file.  Scopes still open show as slices\n"
    "that end at the snapshot.  Every event is written, unless a window is\n"
    "asked for; the file is written as the source is read, so memory stays\n"
    "bounded whatever its size.\n"
    "\n"
    "Several programs (PID1 PID2 ..., or --tree PID: that process and every\n"
    "process it started that has a segment, living or dead) go into one trace,\n"
    "a process track each, on one CLOCK_MONOTONIC time line; a capture of a\n"
    "process tree, the same.\n"
    "\n"
    "  -o, --output FILE   where to write (default trace.json; - for stdout): written\n"
    "                      aside and renamed, mode 0600; a device or FIFO written to\n"
    "  -f, --format FMT    json; perfetto: Perfetto's own protobuf trace, a quarter\n"
    "                      of the size; csv: statistics per scope name; folded:\n"
    "                      folded stacks.  FILE's extension says it (.json,\n"
    "                      .pftrace, .perfetto-trace, .csv, .folded); any other is\n"
    "                      refused, and --format must agree with it\n"
    "  -l, --last SECONDS  only the last SECONDS of the trace\n"
    "      --from SECONDS  only from SECONDS after the trace's start (ts 0)\n"
    "      --to SECONDS    only up to SECONDS after the trace's start\n"
    "      --force         write JSON larger than 4 GiB, or than the free space\n"
    CLI_WAIT_HELP
    "  -t, --tree          PID and the processes it started (rec_seg_tree)\n"
    "      --split         one file per process: FILE with the pid before its\n"
    "                      extension (trace.<pid>.json, trace.<pid>.pftrace)\n"
    "\n"
    "A summary goes to stderr: what the file holds (slices, instants,\n"
    "counters, flow events, threads), the events read and the entries lost.\n";

/* --tree PID: its segments by rec_seg_tree, written as dump PID1 PID2 ... */
static int dump_tree(const char *arg, const struct cli_export_opts *eo, int split) {
    unsigned long pid;
    if (cli_parse_uint(arg, &pid) != 0 || pid == 0 || pid > 0x7fffffffUL)
        return cli_usage("dump", "--tree wants a pid, not '%s'", arg);
    struct rec_seg_entry *v = NULL;
    size_t n = 0;
    char err[512];
    int rc = rec_seg_tree(NULL, (int)pid, &v, &n, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    char **targets = malloc(n * sizeof *targets);
    if (!targets) {
        free(v);
        return cli_error(REC_ERR_NOMEM, "out of memory");
    }
    for (size_t i = 0; i < n; i++) targets[i] = v[i].path;
    rc = cli_export_many(targets, NULL, n, eo, split);
    free(targets);
    free(v);
    return rc;
}

int cmd_dump(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'f'},
                                         CLI_EXPORT_LONGOPTS,
                                         {"wait", optional_argument, 0, 'w'},
                                         {"tree", no_argument, 0, 't'},
                                         {"split", no_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct cli_export_opts eo = {"trace.json", REC_EXPORT_JSON, 0, 0, 0, 0, NULL, 0, NULL};
    const char *fmt = NULL;
    double wait_s = 0;
    int c, wait = 0, tree = 0, split = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:f:l:wth", opts, NULL)) != -1) {
        int r = cli_export_option("dump", c, optarg, &eo);
        if (r > 0) return r;
        if (r == 0) continue;
        switch (c) {
        case 'o': eo.out = optarg; break;
        case 'f': fmt = optarg; break;
        case 'w':
            if (cli_parse_wait("dump", optarg, &wait_s) != 0) return REC_ERR_USAGE;
            wait = 1;
            break;
        case 't': tree = 1; break;
        case 'S': split = 1; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("dump", c, argv);
        }
    }
    if (optind >= argc) return cli_usage("dump", "which program? give a PID, a segment name or a path");
    int n = argc - optind;
    if (tree && n > 1) return cli_usage("dump", "--tree takes one PID, not %d", n);
    if (wait && n > 1) return cli_usage("dump", "--wait waits for one program, not %d", n);
    if (split && cli_split_check("dump", eo.out) != REC_OK) return REC_ERR_USAGE;
    int r = cli_export_timeline("dump", fmt, &eo);
    if (r == REC_OK) r = cli_export_check("dump", &eo);
    if (r != REC_OK) return r;
    if (wait) {
        r = cli_wait(argv[optind], wait_s, NULL);
        if (r != REC_OK) return r;
    }
    if (tree) return dump_tree(argv[optind], &eo, split);
    if (n == 1 && !split) return cli_export(argv[optind], &eo);
    return cli_export_many(argv + optind, NULL, (size_t)n, &eo, split);
}
