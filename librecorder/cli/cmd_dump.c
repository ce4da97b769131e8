/*
 * cmd_dump.c -- `recorder dump`: a program's rings, now, as Perfetto JSON.
 *
 * Reading never stops or slows the program: the segment is mapped
 * read-only and copied with the reader's protocol.  A dead program's
 * segment reads the same way, so this is also the post-mortem.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "dump.h"
#include "source.h"

static const char usage[] =
    "usage: recorder dump PID|NAME|PATH [-o FILE] [--last SECONDS] [--wait[=SEC]]\n"
    "\n"
    "Write what a program's rings hold right now as Perfetto / Chrome JSON\n"
    "(open it at ui.perfetto.dev or chrome://tracing).  The program keeps\n"
    "running undisturbed.  Works the same on the segment a crashed program\n"
    "left behind, and on a capture file.  Scopes still open show as slices\n"
    "that end at the snapshot.\n"
    "\n"
    "  -o, --output FILE   where to write (default trace.json; - for stdout): written\n"
    "                      aside and renamed, mode 0600; a device or FIFO written to\n"
    "  -l, --last SECONDS  only the last SECONDS of the trace\n" CLI_WAIT_HELP;

int cli_dump(const char *target, const char *out, double last_sec) {
    struct cli_source src;
    int rc = cli_source_load(target, &src);
    if (rc != REC_OK) return rc;
    struct cli_out o;
    rc = cli_out_open(&o, out);
    if (rc == REC_OK) {
        struct rec_export_opts eo = {last_sec};
        if (rec_export_json(src.model, o.f, &eo) != 0) {
            cli_out_abort(&o);
            rc = cli_error(REC_ERR_IO, "%s: writing the JSON failed", o.path);
        } else {
            rc = cli_out_commit(&o);
        }
    }
    if (rc == REC_OK) {
        const struct rec_model_thread *t;
        size_t nt = rec_model_threads(src.model, &t);
        char d[160];
        fprintf(stderr, "recorder: wrote %s: %llu events, %zu threads from %s", o.path,
                (unsigned long long)src.events, nt, cli_source_desc(&src, d, sizeof d));
        if (src.overwritten || src.dropped)
            fprintf(stderr, "; %llu entries were lost before (%llu overwritten, %llu dropped)",
                    (unsigned long long)(src.overwritten + src.dropped), (unsigned long long)src.overwritten,
                    (unsigned long long)src.dropped);
        fputc('\n', stderr);
    }
    cli_source_close(&src);
    return rc;
}

int cmd_dump(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"last", required_argument, 0, 'l'},
                                         {"wait", optional_argument, 0, 'w'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = "trace.json";
    double last = 0, wait_s = 0;
    int c, wait = 0;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":o:l:wh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'l':
            if (cli_parse_double(optarg, &last) != 0 || last <= 0)
                return cli_usage("dump", "--last wants a number of seconds, not '%s'", optarg);
            break;
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
    if (wait) {
        int rc = cli_wait(argv[optind], wait_s, NULL);
        if (rc != REC_OK) return rc;
    }
    return cli_dump(argv[optind], out, last);
}
