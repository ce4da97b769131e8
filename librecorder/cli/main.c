/*
 * main.c -- `recorder`: one binary, one subcommand per job.
 */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "cli.h"

#ifndef RECORDER_VERSION
#define RECORDER_VERSION "unknown"
#endif

static const struct cli_cmd *commands(size_t *n) {
    static const struct cli_cmd cmds[] = {
        {"ls", cmd_ls, "list the segments on this machine"},
        {"dump", cmd_dump, "snapshot a program's rings as Perfetto JSON or protobuf (live or after a crash)"},
        {"report", cmd_report, "busy %, top scopes and idle gaps of a program or a file"},
        {"capture", cmd_capture, "stream a running program's events to a capture file"},
        {"convert", cmd_convert, "convert a capture to JSON, Perfetto protobuf, CSV or folded stacks"},
        {"run", cmd_run, "run a program with recording on and save its trace when it exits"},
        {"gather", cmd_gather, "put one job's traces (.pftrace, .rec) into one TAR that Perfetto merges, by machine"},
        {"gc", cmd_gc, "remove the segments of dead processes"},
        {"check-output", cmd_check_output, "say what -o FILE would write, or why it is refused (nothing written)"},
        {"cuda-lib", cmd_cuda_lib, "print the GPU library's path that run/capture --cuda give a command"},
    };
    *n = sizeof cmds / sizeof cmds[0];
    return cmds;
}

static void usage(FILE *f) {
    size_t n;
    const struct cli_cmd *c = commands(&n);
    fprintf(f, "usage: recorder COMMAND [ARGS...]\n\ncommands:\n");
    for (size_t i = 0; i < n; i++) fprintf(f, "  %-12s %s\n", c[i].name, c[i].summary);
    fprintf(f, "\nOutput files (-o): a new or regular file is written aside and renamed into place\n"
               "(mode 0600); a device, FIFO or - is written to; a symlink or another user's file\n"
               "in /tmp-like directories is refused.  Names from a traced program are printed\n"
               "with control bytes as \\xNN.\n");
    fprintf(f, "\n'recorder COMMAND --help' describes a command; docs/cli.md has the details and exit codes.\n");
}

int main(int argc, char **argv) {
    /* A reader that goes away (a FIFO, `| head`) makes the next write fail
     * with EPIPE, which the output code reports, instead of killing us
     * without a word with a trace half written. */
    signal(SIGPIPE, SIG_IGN);
    if (argc < 2) return cli_error(REC_ERR_USAGE, "which command? (see recorder --help)");
    const char *name = argv[1];
    if (!strcmp(name, "--help") || !strcmp(name, "-h")) {
        usage(stdout);
        return REC_OK;
    }
    if (!strcmp(name, "--version")) {
        printf("recorder %s\n", RECORDER_VERSION);
        return REC_OK;
    }
    size_t n;
    const struct cli_cmd *c = commands(&n);
    if (!strcmp(name, "help")) {
        if (argc < 3) {
            usage(stdout);
            return REC_OK;
        }
        for (size_t i = 0; i < n; i++)
            if (!strcmp(argv[2], c[i].name)) {
                char *args[] = {argv[2], "--help", NULL};
                return c[i].run(2, args);
            }
        return cli_error(REC_ERR_USAGE, "no command '%s' (see recorder --help)", argv[2]);
    }
    for (size_t i = 0; i < n; i++)
        if (!strcmp(name, c[i].name)) return c[i].run(argc - 1, argv + 1);
    return cli_error(REC_ERR_USAGE, "no command '%s' (see recorder --help)", name);
}
