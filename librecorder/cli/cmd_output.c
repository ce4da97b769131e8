/*
 * cmd_output.c -- `recorder check-output FILE`: what `-o FILE` of run and
 * capture would write, said without writing or starting anything.
 *
 * Why a command: `python3 -m recorder -o FILE` must know the format before
 * it starts the program (a timeline goes through `recorder run`, the rest
 * through `recorder capture`), and must refuse a wrong FILE before the
 * program runs, with the CLI's own message.  Asking here keeps the one
 * table of extensions (export.c, cli_export_format_of_path) and the one
 * output rule (recorder/outfile.h) in C, not copied into Python.
 */
#include <getopt.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"
#include "export.h"

static const char usage[] =
    "usage: recorder check-output FILE\n"
    "\n"
    "Say what -o FILE would write, without writing or starting anything: the\n"
    "format FILE's extension names, on stdout (json, perfetto, csv, folded, or\n"
    "rec for a capture), once FILE is known to be writable by the output rule\n"
    "(recorder --help: a planted link, another user's file in /tmp, a missing\n"
    "directory are refused).  python3 -m recorder asks this before it starts a\n"
    "program, so a wrong -o is refused with this message and nothing runs.\n"
    "\n"
    "Extensions: .json, .pftrace or .perfetto-trace, .csv, .folded, .rec.\n"
    "Exit status: 0; 2 if the extension names no format; else the output\n"
    "rule's (4: refused, 8: cannot be written; docs/cli.md).\n";

/* The format's word, or NULL when the name says none (export.c's table:
 * .rec is a capture, what `recorder capture` writes). */
static const char *format_word(const char *path) {
    switch (cli_export_format_of_path(path)) {
    case REC_EXPORT_JSON: return "json";
    case REC_EXPORT_PERFETTO: return "perfetto";
    case REC_EXPORT_CSV: return "csv";
    case REC_EXPORT_FOLDED: return "folded";
    case CLI_FORMAT_CAPTURE: return "rec";
    }
    return NULL;
}

int cmd_check_output(int argc, char **argv) {
    static const struct option opts[] = {{"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int c;
    optind = 0;
    while ((c = getopt_long(argc, argv, "+:h", opts, NULL)) != -1) {
        if (c == 'h') return cli_help(usage);
        return cli_bad_option("check-output", c, argv);
    }
    if (optind >= argc) return cli_usage("check-output", "which file? recorder check-output FILE");
    if (optind + 1 < argc) return cli_usage("check-output", "unexpected argument '%s'", argv[optind + 1]);
    const char *path = argv[optind];
    const char *word = format_word(path);
    if (!word)
        return cli_error(REC_ERR_USAGE, "-o %s: the extension says the format: .json, .pftrace (or .perfetto-trace), "
                         ".csv, .folded or .rec", path);
    char err[1400];
    int rc = rec_out_check(path, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    printf("%s\n", word);
    return fflush(stdout) == 0 ? REC_OK : cli_error(REC_ERR_IO, "cannot write to stdout");
}
