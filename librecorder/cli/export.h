/*
 * export.h -- writing everything a segment or a capture holds to a file,
 * shared by `dump`, `convert` and `run`: the window options, the size
 * check before writing, the streaming export (rec_export_*), the summary.
 */
#ifndef RECORDER_CLI_EXPORT_H
#define RECORDER_CLI_EXPORT_H

#include <getopt.h>

#include "recorder/analysis.h"

struct cli_export_opts {
    const char *out;          /* "-" = stdout */
    enum rec_export_format fmt;
    double last, from, to;    /* seconds; 0 = no bound */
    int force;                /* write JSON past the size limit */
    const char *source_note;  /* said of the source in the summary, NULL for none
                                 (run: what its capture did not get; then the
                                 export's own count of lost entries is left out) */
    int losses_in_desc;       /* the source's description says each process's
                                 losses: the summary's count is "in all" */
    const char *shown_as;     /* the summary's words for what was written, in place of
                                 "wrote OUT" (gather: OUT is a temporary file), already
                                 made safe to print; NULL for "wrote OUT" */
};

/* The JSON size past which a warning is printed, and past which --force
 * is needed (docs/cli.md, "Large traces"; RECORDER_JSON_LIMIT_MB sets the
 * second, and the first follows it down). */
#define CLI_JSON_WARN_BYTES (1024.0 * 1024 * 1024)
#define CLI_JSON_LIMIT_BYTES (4.0 * 1024 * 1024 * 1024)

/* getopt_long codes of the shared options; CLI_EXPORT_LONGOPTS goes in a
 * command's option table (with 'l' in its short options). */
enum { CLI_OPT_FROM = 256, CLI_OPT_TO, CLI_OPT_FORCE };
#define CLI_EXPORT_LONGOPTS                                                                                         \
    {"last", required_argument, 0, 'l'}, {"from", required_argument, 0, CLI_OPT_FROM},                              \
        {"to", required_argument, 0, CLI_OPT_TO}, {"force", no_argument, 0, CLI_OPT_FORCE}

/* One of the shared options: -1 if c is not one, REC_OK, or a usage
 * error (printed). */
int cli_export_option(const char *cmd, int c, const char *arg, struct cli_export_opts *o);
/* Not an export: a capture (.rec), which `recorder capture` writes. */
#define CLI_FORMAT_CAPTURE 16
/* Nor is a TAR archive (.tar), which `recorder gather` alone writes. */
#define CLI_FORMAT_ARCHIVE 17
/* The one table of output formats (export.c; docs/cli.md, "Output
 * formats").  A format by its --format name (json, perfetto, csv, folded;
 * 0 if none); by an output's extension (.json, .pftrace or
 * .perfetto-trace, .csv, .folded, .rec: CLI_FORMAT_CAPTURE, .tar:
 * CLI_FORMAT_ARCHIVE): 0 for a name
 * without one ("-", "trace", /dev/null), -1 for one the table lacks. */
enum rec_export_format cli_export_format(const char *name);
int cli_export_format_of_path(const char *path);
/* What cmd writes to out, into *f: the extension's format, or fmt's (the
 * --format name, may be NULL), or dflt (0: none; CLI_FORMAT_CAPTURE: cmd
 * is capture, which alone may write .rec; CLI_FORMAT_ARCHIVE: cmd is
 * gather, which writes .tar and nothing else).  An unknown extension, a
 * .rec or .tar from another command, or an extension that --format
 * contradicts is a
 * usage error (printed), the same words for every command. */
int cli_out_format(const char *cmd, const char *fmt, const char *out, int dflt, int *f);
/* dump's and run's format (cli_out_format, JSON by default) into o->fmt:
 * REC_OK or a usage error (printed). */
int cli_export_timeline(const char *cmd, const char *fmt, struct cli_export_opts *o);
/* The options together make sense: REC_OK or a usage error (printed). */
int cli_export_check(const char *cmd, const struct cli_export_opts *o);

/* Write target (a pid, segment name or path, or a capture) to o->out;
 * prints a one-line summary or error; returns a rec_status.  A JSON
 * refused for its size returns REC_ERR_USAGE. */
int cli_export(const char *target, const struct cli_export_opts *o);

struct cli_source;
/* The same for a source already open (closed by the caller). */
int cli_export_source(struct cli_source *src, const struct cli_export_opts *o);
/* Several sources (export_many.c): targets[i] as cli_export's, each
 * process of a capture of several a source of its own.  Into one trace of
 * them all, a process track each (rec_export_write_part), or, with split,
 * one file per process: o->out with the pid before its extension
 * (cli_path_with_pid).  notes[i] (may be NULL; NULL entries) is said of
 * targets[i] in the summary.  Returns a rec_status (the first error's). */
int cli_export_many(char *const *targets, const char *const *notes, size_t n, const struct cli_export_opts *o,
                    int split);
/* CSV and folded stacks hold one process: said (a warning) when what
 * (a capture, "the run") holds procs of them and only the first's, pid,
 * is written. */
void cli_export_first_only(const char *what, size_t procs, int pid, enum rec_export_format f);
/* --split's -o: "-", a device, a FIFO, a link or a directory is a usage
 * error (printed), not a name to put files beside (/dev/null.<pid> in
 * /dev).  REC_OK for a new or regular file's name. */
int cli_split_check(const char *cmd, const char *out);
/* "trace.json" -> "trace.<pid>.json"; "trace" -> "trace.<pid>". */
void cli_path_with_pid(const char *out, int pid, char *buf, size_t cap);
/* What export.c does before and after writing, for export_many.c: the
 * size check (REC_ERR_USAGE if refused, printed) and the summary line. */
int cli_export_size_check(const struct cli_export_opts *o, double bytes, double events, double span_s);
void cli_export_summary(const struct cli_export_opts *o, const char *path, const char *desc,
                        const struct rec_export_counts *c);

#endif
