/*
 * cmd_convert.c -- `recorder convert`: a capture (or a segment) into
 * Perfetto JSON, Perfetto's protobuf, CSV or folded stacks, through export.c.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export.h"

static const char usage[] =
    "usage: recorder convert FILE -o OUT [--format json|perfetto|csv|folded] [--last S | --from S] [--to S] [--force]\n"
    "                        [--split]\n"
    "\n"
    "Convert a capture file (recorder capture) or a segment into another\n"
    "format, chosen by OUT's extension (.json, .pftrace, .csv, .folded) or, for\n"
    "a name without one (or -), --format; any other extension is refused:\n"
    "  json      Perfetto / Chrome trace-event JSON: every event\n"
    "  perfetto  Perfetto's own protobuf trace (.pftrace, .perfetto-trace): every\n"
    "            event, a quarter of the JSON's size; ui.perfetto.dev (docs/perfetto.md)\n"
    "  csv       one row per scope name: calls and times (docs/cli.md)\n"
    "  folded    folded stacks (\"a;b;c <ns>\") for flamegraph.pl and speedscope\n"
    "Everything the file holds is converted, unless a window is asked for,\n"
    "in memory that stays bounded whatever its size.  A capture that was cut\n"
    "short converts up to its last whole record, with a warning.  A capture\n"
    "of a process tree (capture -- CMD) is one trace with a process track per\n"
    "pid (CSV and folded stacks: of its first process; --split: all).\n"
    "\n"
    "  -o, --output OUT     where to write (- for stdout, with --format): written\n"
    "                       aside and renamed, mode 0600; a device or FIFO written to\n"
    "  -f, --format FMT     json, perfetto, csv or folded\n"
    "  -l, --last SECONDS   only the last SECONDS of the trace\n"
    "      --from SECONDS   only from SECONDS after the trace's start (ts 0)\n"
    "      --to SECONDS     only up to SECONDS after the trace's start\n"
    "      --force          write JSON larger than 4 GiB, or than the free space\n"
    "      --split          one file per process: OUT with the pid before its\n"
    "                       extension (out.<pid>.json, out.<pid>.pftrace)\n"
    "\n"
    "Large traces: JSON past 1 GiB (more than viewers load) is announced with\n"
    "what to do instead; past 4 GiB it needs --force (docs/cli.md).  A summary\n"
    "goes to stderr: what the file holds and the events read.\n";

int cmd_convert(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'f'},
                                         CLI_EXPORT_LONGOPTS,
                                         {"split", no_argument, 0, 'S'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    struct cli_export_opts eo = {NULL, 0, 0, 0, 0, 0, NULL, 0, NULL};
    const char *fmt = NULL;
    int c, split = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:f:l:h", opts, NULL)) != -1) {
        int r = cli_export_option("convert", c, optarg, &eo);
        if (r > 0) return r;
        if (r == 0) continue;
        switch (c) {
        case 'o': eo.out = optarg; break;
        case 'f': fmt = optarg; break;
        case 'S': split = 1; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("convert", c, argv);
        }
    }
    if (optind >= argc) return cli_usage("convert", "which file?");
    if (optind + 1 < argc) return cli_usage("convert", "unexpected argument '%s'", argv[optind + 1]);
    if (!eo.out) return cli_usage("convert", "missing -o OUT");
    int f;
    int r = cli_out_format("convert", fmt, eo.out, 0, &f);   /* export.c's one table */
    if (r != REC_OK) return r;
    eo.fmt = (enum rec_export_format)f;
    r = cli_export_check("convert", &eo);
    if (r != REC_OK) return r;
    if (split) {
        if (cli_split_check("convert", eo.out) != REC_OK) return REC_ERR_USAGE;
        return cli_export_many(argv + optind, NULL, 1, &eo, 1);
    }
    return cli_export(argv[optind], &eo);
}
