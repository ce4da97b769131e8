/*
 * cli.h -- what the `recorder` subcommands share: error reporting, option
 * parsing helpers, number formatting, output files.
 *
 * Every subcommand is `int cmd_x(int argc, char **argv)` with argv[0] the
 * subcommand's name; it returns the process's exit status, an enum
 * rec_status (docs/cli.md).
 */
#ifndef RECORDER_CLI_H
#define RECORDER_CLI_H

#include <stdint.h>
#include <stdio.h>

#include "recorder/reader.h"

struct cli_cmd {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *summary;
};

int cmd_ls(int argc, char **argv);
int cmd_gc(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_dump(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_convert(int argc, char **argv);
int cmd_run(int argc, char **argv);

/* "recorder: <message>" on stderr, one line; returns status. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: the message and a pointer to --help; returns REC_ERR_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* getopt_long (optstring starting with ':') returned c: '?' or ':'. */
int cli_bad_option(const char *cmd, int c, char **argv);
/* Print a subcommand's help to stdout; returns REC_OK. */
int cli_help(const char *usage);

/* Parse a non-negative decimal number (seconds, counts); 0 on success. */
int cli_parse_double(const char *s, double *out);
int cli_parse_uint(const char *s, unsigned long *out);

/* 1234567 -> "1.23M"; bytes -> "12.3 MiB". Into buf, returned. */
const char *cli_count(char *buf, size_t cap, double v);
const char *cli_bytes(char *buf, size_t cap, double v);

/* Output files: "-" is stdout.  A file is written to "<path>.tmp" and
 * renamed over path by cli_out_commit, so a failed export never leaves a
 * half-written file under the real name. */
struct cli_out {
    FILE *f;
    char path[1024];
    char tmp[1040];
    int is_stdout;
};
int cli_out_open(struct cli_out *o, const char *path);
int cli_out_commit(struct cli_out *o);    /* REC_OK or REC_ERR_IO (message printed) */
void cli_out_abort(struct cli_out *o);

#endif
