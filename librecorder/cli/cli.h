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

#include <signal.h>
#include <stdint.h>
#include <stdio.h>

#include "recorder/outfile.h"
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
int cmd_check_output(int argc, char **argv);
int cmd_cuda_lib(int argc, char **argv);
int cmd_gather(int argc, char **argv);

/* "recorder: <message>" on stderr, one line; returns status.  The message
 * is escaped (cli_fputs_safe), so it may quote any path or name. */
int cli_error(int status, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void cli_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* A usage error: the message and a pointer to --help; returns REC_ERR_USAGE. */
int cli_usage(const char *cmd, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* getopt_long (optstring starting with ':') returned c: '?' or ':'. */
int cli_bad_option(const char *cmd, int c, char **argv);
/* Print a subcommand's help to stdout; returns REC_OK. */
int cli_help(const char *usage);

/* --wait[=SECONDS] (attaching commands): arg is optarg, NULL for a bare
 * --wait (no time limit, *timeout = 0).  0, or a usage error's status. */
int cli_parse_wait(const char *cmd, const char *arg, double *timeout);
/* rec_seg_wait for target with the notice on stderr; REC_OK or the
 * error's status (message printed), or -1 once *stop is set (may be
 * NULL: Ctrl-C then ends recorder). */
int cli_wait(const char *target, double timeout, const volatile sig_atomic_t *stop);
/* The --wait line of the attaching commands' --help. */
#define CLI_WAIT_HELP                                                                        \
    "  -w, --wait[=SEC]    a program that has not recorded yet (no segment): wait\n"       \
    "                      for it, at most SEC seconds (default: no limit); fails\n"      \
    "                      with status 12 if it exits first, 13 when time is up\n"

/* Parse a non-negative decimal number (seconds, counts); 0 on success. */
int cli_parse_double(const char *s, double *out);
int cli_parse_uint(const char *s, unsigned long *out);

/* The CLI's words for entries lost while reading, everywhere a summary
 * says them: "lost N entries: D dropped, O overwritten".  What a ring had
 * overwritten before a reader first looked is "not kept", never lost
 * (docs/security.md, "One loss vocabulary").  Into buf, returned. */
const char *cli_lost_words(char *buf, size_t cap, uint64_t dropped, uint64_t overwritten);

/* 1234567 -> "1.23M"; bytes -> "12.3 MiB". Into buf, returned. */
const char *cli_count(char *buf, size_t cap, double v);
const char *cli_bytes(char *buf, size_t cap, double v);

/* Text from a segment, a capture or the user, safe for a terminal:
 * control bytes (C0, DEL, C1 raw or UTF-8-encoded) as \xNN (safetext.c).
 * cli_safe writes into buf (cut to fit, always terminated) and returns it. */
const char *cli_safe(char *buf, size_t cap, const char *s);
void cli_fputs_safe(const char *s, FILE *f);

/* Output files, opened by the rule of recorder/outfile.h: "-" is stdout; a
 * new or regular file is written to a temporary file and renamed onto the
 * path by cli_out_commit, so a failed export leaves the old file as it was;
 * a device or FIFO is written straight through. */
struct cli_out {
    FILE *f;
    char path[4200];          /* the path as given, escaped for messages; "(stdout)" for - */
    int is_stdout;
    struct rec_out out;
};
int cli_out_open(struct cli_out *o, const char *path);
int cli_out_commit(struct cli_out *o);    /* REC_OK or REC_ERR_IO (message printed) */
void cli_out_abort(struct cli_out *o);

#endif
