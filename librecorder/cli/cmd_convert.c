/*
 * cmd_convert.c -- `recorder convert`: a capture (or a segment) into
 * Perfetto JSON, CSV or folded stacks.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "source.h"

static const char usage[] =
    "usage: recorder convert FILE -o OUT [--format json|csv|folded] [--last SECONDS]\n"
    "\n"
    "Convert a capture file (recorder capture) or a segment into another\n"
    "format, chosen by OUT's extension (.json, .csv, .folded) or --format:\n"
    "  json    Perfetto / Chrome trace-event JSON\n"
    "  csv     one row per scope name: calls and times (docs/cli.md)\n"
    "  folded  folded stacks (\"a;b;c <ns>\") for flamegraph.pl and speedscope\n"
    "A capture that was cut short converts up to its last whole record, with\n"
    "a warning.\n"
    "\n"
    "  -o, --output OUT     where to write (- for stdout, with --format)\n"
    "  -f, --format FMT     json, csv or folded\n"
    "  -l, --last SECONDS   only the last SECONDS of the trace\n";

enum fmt { FMT_NONE, FMT_JSON, FMT_CSV, FMT_FOLDED };

static enum fmt parse_fmt(const char *s) {
    if (!strcmp(s, "json")) return FMT_JSON;
    if (!strcmp(s, "csv")) return FMT_CSV;
    if (!strcmp(s, "folded")) return FMT_FOLDED;
    return FMT_NONE;
}

static enum fmt fmt_of_path(const char *p) {
    const char *dot = strrchr(p, '.'), *slash = strrchr(p, '/');
    if (!dot || (slash && dot < slash)) return FMT_NONE;
    return parse_fmt(dot + 1);
}

int cmd_convert(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"format", required_argument, 0, 'f'},
                                         {"last", required_argument, 0, 'l'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = NULL;
    enum fmt fmt = FMT_NONE;
    double last = 0;
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:f:l:h", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'f':
            fmt = parse_fmt(optarg);
            if (fmt == FMT_NONE) return cli_usage("convert", "unknown format '%s' (json, csv or folded)", optarg);
            break;
        case 'l':
            if (cli_parse_double(optarg, &last) != 0 || last <= 0)
                return cli_usage("convert", "--last wants a number of seconds, not '%s'", optarg);
            break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("convert", c, argv);
        }
    }
    if (optind >= argc) return cli_usage("convert", "which file?");
    if (optind + 1 < argc) return cli_usage("convert", "unexpected argument '%s'", argv[optind + 1]);
    if (!out) return cli_usage("convert", "missing -o OUT");
    if (fmt == FMT_NONE) fmt = fmt_of_path(out);
    if (fmt == FMT_NONE)
        return cli_usage("convert", "cannot tell the format from '%s': use .json, .csv, .folded or --format", out);

    struct cli_source src;
    int rc = cli_source_load(argv[optind], &src);
    if (rc != REC_OK) return rc;
    struct cli_out o;
    rc = cli_out_open(&o, out);
    if (rc == REC_OK) {
        struct rec_export_opts eo = {.last_sec = last};
        int e = fmt == FMT_JSON  ? rec_export_json(src.model, o.f, &eo)
                : fmt == FMT_CSV ? rec_export_csv(src.model, o.f, &eo)
                                 : rec_export_folded(src.model, o.f, &eo);
        if (e != 0) {
            cli_out_abort(&o);
            rc = cli_error(REC_ERR_IO, "%s: writing failed", o.path);
        } else {
            rc = cli_out_commit(&o);
        }
    }
    if (rc == REC_OK) {
        char d[160];
        fprintf(stderr, "recorder: wrote %s: %llu events from %s", o.path, (unsigned long long)src.events,
                cli_source_desc(&src, d, sizeof d));
        if (src.overwritten || src.dropped)
            fprintf(stderr, "; lost %llu entries (%llu dropped, %llu overwritten)",
                    (unsigned long long)(src.overwritten + src.dropped), (unsigned long long)src.dropped,
                    (unsigned long long)src.overwritten);
        fputc('\n', stderr);
    }
    cli_source_close(&src);
    return rc;
}
