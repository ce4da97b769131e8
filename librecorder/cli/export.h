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
/* A format by name (json, perfetto, csv, folded), or by an output's
 * extension (.json, .pftrace or .perfetto-trace, .csv, .folded); 0 if none. */
enum rec_export_format cli_export_format(const char *name);
enum rec_export_format cli_export_format_of_path(const char *path);
/* dump's and run's format: fmt (json or perfetto; NULL: Perfetto's if
 * o->out ends in .pftrace or .perfetto-trace, else JSON) into o->fmt;
 * REC_OK or a usage error (printed). */
int cli_export_timeline(const char *cmd, const char *fmt, struct cli_export_opts *o);
/* The options together make sense: REC_OK or a usage error (printed). */
int cli_export_check(const char *cmd, const struct cli_export_opts *o);

/* Write target (a pid, segment name or path, or a capture) to o->out;
 * prints a one-line summary or error; returns a rec_status.  A JSON
 * refused for its size returns REC_ERR_USAGE. */
int cli_export(const char *target, const struct cli_export_opts *o);

#endif
