/*
 * cmd_dump.c -- `recorder dump`: a program's rings, now, as Perfetto JSON
 * (or Perfetto's protobuf).
 *
 * Reading never stops or slows the program: the segment is mapped
 * read-only and copied with the reader's protocol.  A dead program's
 * segment reads the same way, so this is also the post-mortem.  The
 * writing is export.c's, shared with convert and run.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export.h"

static const char usage[] =
    "usage: recorder dump PID|NAME|PATH [-o FILE] [--format json|perfetto] [--last S | --from S] [--to S]\n"
    "                     [--force] [--wait[=SEC]]\n"
    "\n"
    "Write what a program's rings hold right now as Perfetto / Chrome JSON\n"
    "(open it at ui.perfetto.dev or chrome://tracing).  The program keeps\n"
    "running undisturbed.  Works the same on the segment a crashed program\n"
    "left behind, and on a capture file.  Scopes still open show as slices\n"
    "that end at the snapshot.  Every event is written, unless a window is\n"
    "asked for; the file is written as the source is read, so memory stays\n"
    "bounded whatever its size.\n"
    "\n"
    "  -o, --output FILE   where to write (default trace.json; - for stdout): written\n"
    "                      aside and renamed, mode 0600; a device or FIFO written to\n"
    "  -f, --format FMT    json, or perfetto: Perfetto's own protobuf trace, a sixth\n"
    "                      of the size (the default for FILE.pftrace, .perfetto-trace)\n"
    "  -l, --last SECONDS  only the last SECONDS of the trace\n"
    "      --from SECONDS  only from SECONDS after the trace's start (ts 0)\n"
    "      --to SECONDS    only up to SECONDS after the trace's start\n"
    "      --force         write JSON larger than 4 GiB, or than the free space\n"
    CLI_WAIT_HELP
    "\n"
    "A summary goes to stderr: what the file holds (slices, instants,\n"
    "counters, flow events, threads), the events read and the entries lost.\n";

int cmd_dump(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'f'},
                                         CLI_EXPORT_LONGOPTS,
                                         {"wait", optional_argument, 0, 'w'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct cli_export_opts eo = {"trace.json", REC_EXPORT_JSON, 0, 0, 0, 0, NULL};
    const char *fmt = NULL;
    double wait_s = 0;
    int c, wait = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:f:l:wh", opts, NULL)) != -1) {
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
        case 'h': return cli_help(usage);
        default: return cli_bad_option("dump", c, argv);
        }
    }
    if (optind >= argc) return cli_usage("dump", "which program? give a PID, a segment name or a path");
    if (optind + 1 < argc) return cli_usage("dump", "unexpected argument '%s'", argv[optind + 1]);
    int r = cli_export_timeline("dump", fmt, &eo);
    if (r == REC_OK) r = cli_export_check("dump", &eo);
    if (r != REC_OK) return r;
    if (wait) {
        r = cli_wait(argv[optind], wait_s, NULL);
        if (r != REC_OK) return r;
    }
    return cli_export(argv[optind], &eo);
}
