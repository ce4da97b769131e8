/*
 * export.c -- `dump`, `convert` and `run` write a whole source the same
 * way: open it, read it once (rec_export_open_*: what it holds), say up
 * front when JSON cannot reasonably hold that (and refuse past a limit
 * without --force), then stream it to the file and print what the file
 * holds, counted as it was written.
 */
#define _GNU_SOURCE
#include <libgen.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/statvfs.h>

#include "cli.h"
#include "export.h"
#include "source.h"

int cli_export_option(const char *cmd, int c, const char *arg, struct cli_export_opts *o) {
    double v;
    switch (c) {
    case 'l':
        if (cli_parse_double(arg, &v) != 0 || v <= 0)
            return cli_usage(cmd, "--last wants a number of seconds, not '%s'", arg);
        o->last = v;
        return REC_OK;
    case CLI_OPT_FROM:
        if (cli_parse_double(arg, &v) != 0) return cli_usage(cmd, "--from wants a number of seconds, not '%s'", arg);
        o->from = v;
        return REC_OK;
    case CLI_OPT_TO:
        if (cli_parse_double(arg, &v) != 0 || v <= 0)
            return cli_usage(cmd, "--to wants a positive number of seconds, not '%s'", arg);
        o->to = v;
        return REC_OK;
    case CLI_OPT_FORCE: o->force = 1; return REC_OK;
    }
    return -1;
}

/* The one table of output names and formats, for every command that
 * writes one (dump, convert, run, capture; docs/cli.md, "Output
 * formats"; gather's .tar too): a name says what the file holds, or it
 * is refused. */
static const struct {
    const char *ext, *name;   /* the extension, and the --format name (NULL: none) */
    int fmt;
} formats[] = {
    {"json", "json", REC_EXPORT_JSON},         {"pftrace", "perfetto", REC_EXPORT_PERFETTO},
    {"perfetto-trace", NULL, REC_EXPORT_PERFETTO}, {"csv", "csv", REC_EXPORT_CSV},
    {"folded", "folded", REC_EXPORT_FOLDED},   {"rec", NULL, CLI_FORMAT_CAPTURE},
    {"tar", NULL, CLI_FORMAT_ARCHIVE},
};
#define N_FORMATS (sizeof formats / sizeof formats[0])

enum rec_export_format cli_export_format(const char *s) {
    for (size_t i = 0; i < N_FORMATS; i++)
        if (formats[i].name && !strcmp(s, formats[i].name)) return (enum rec_export_format)formats[i].fmt;
    return 0;
}

int cli_export_format_of_path(const char *p) {
    if (!strcmp(p, "-")) return 0;
    const char *slash = strrchr(p, '/'), *base = slash ? slash + 1 : p, *dot = strrchr(base, '.');
    if (!dot || dot == base) return 0;   /* no extension ("trace", ".hidden", /dev/null) */
    for (size_t i = 0; i < N_FORMATS; i++)
        if (!strcmp(dot + 1, formats[i].ext)) return formats[i].fmt;
    return -1;
}

static const char *format_word(int f) {
    return f == REC_EXPORT_JSON       ? "JSON (.json)"
           : f == REC_EXPORT_PERFETTO ? "Perfetto protobuf (.pftrace)"
           : f == REC_EXPORT_CSV      ? "CSV (.csv)"
           : f == REC_EXPORT_FOLDED   ? "folded stacks (.folded)"
           : f == CLI_FORMAT_ARCHIVE  ? "a TAR archive (.tar)"
                                      : "a capture (.rec)";
}

int cli_out_format(const char *cmd, const char *fmt, const char *out, int dflt, int *f) {
    int capture = dflt == CLI_FORMAT_CAPTURE;   /* only capture writes captures */
    int archive = dflt == CLI_FORMAT_ARCHIVE;   /* gather writes archives, and only them */
    const char *names = capture   ? ".rec, .json, .pftrace, .perfetto-trace, .csv or .folded"
                        : archive ? ".tar"
                                  : ".json, .pftrace, .perfetto-trace, .csv or .folded";
    int byname = fmt ? (int)cli_export_format(fmt) : 0;
    if (fmt && !byname) return cli_usage(cmd, "unknown format '%s' (json, perfetto, csv or folded)", fmt);
    int byext = cli_export_format_of_path(out);
    if (byext < 0)
        return cli_usage(cmd, "cannot tell the format from the name '%s': name it %s (%s)", out, names,
                         capture   ? "a name without an extension is a capture"
                         : archive ? "or give a name without an extension"
                                   : "or give --format with a name without an extension");
    if (byext == CLI_FORMAT_CAPTURE && !capture)
        return cli_usage(cmd, "'%s' names a capture (.rec), which `recorder capture` writes; %s writes %s", out, cmd,
                         names);
    if (byext == CLI_FORMAT_ARCHIVE && !archive)
        return cli_usage(cmd, "'%s' names a TAR archive (.tar), which `recorder gather` writes; %s writes %s", out,
                         cmd, names);
    if (archive && byext && byext != CLI_FORMAT_ARCHIVE)
        return cli_usage(cmd, "'%s' names %s; %s writes a TAR archive: name it .tar", out, format_word(byext), cmd);
    if (byext && byname && byext != byname)
        return cli_usage(cmd, "'%s' names %s but --format %s says %s: give one or make them agree", out,
                         format_word(byext), fmt, format_word(byname));
    *f = byext ? byext : byname ? byname : dflt;
    if (!*f)
        return cli_usage(cmd, "cannot tell the format from the name '%s': name it %s, or give --format", out, names);
    return REC_OK;
}

int cli_export_timeline(const char *cmd, const char *fmt, struct cli_export_opts *o) {
    int f = 0;   /* set when rc is REC_OK; -O3 cannot tell */
    int rc = cli_out_format(cmd, fmt, o->out, REC_EXPORT_JSON, &f);
    if (rc == REC_OK) o->fmt = (enum rec_export_format)f;
    return rc;
}

int cli_export_check(const char *cmd, const struct cli_export_opts *o) {
    if (o->to > 0 && o->from >= o->to) return cli_usage(cmd, "--from %g is not before --to %g", o->from, o->to);
    return REC_OK;
}

/* Free bytes where path will be written, or -1 if unknown. */
static double free_bytes(const char *path) {
    if (!strcmp(path, "-")) return -1;
    char buf[1024];
    snprintf(buf, sizeof buf, "%s", path);
    struct statvfs sv;
    if (statvfs(dirname(buf), &sv) != 0) return -1;
    return (double)sv.f_bavail * (double)sv.f_frsize;
}

/* Before writing: JSON of this size is more than viewers load.  A warning
 * past CLI_JSON_WARN_BYTES; past CLI_JSON_LIMIT_BYTES, or past the free
 * space, a refusal unless --force.  Both name what to do instead. */
static double json_limit(void) {
    unsigned long mb;
    const char *e = getenv("RECORDER_JSON_LIMIT_MB");
    if (e && *e && cli_parse_uint(e, &mb) == 0) return (double)mb * 1024 * 1024;
    return CLI_JSON_LIMIT_BYTES;
}

int cli_export_size_check(const struct cli_export_opts *o, double bytes, double events, double span_s) {
    double limit = json_limit(), warn = limit < CLI_JSON_WARN_BYTES ? limit : CLI_JSON_WARN_BYTES;
    if (o->fmt != REC_EXPORT_JSON || bytes < warn) return REC_OK;
    char sz[32], lim[32], fr[32];
    cli_bytes(sz, sizeof sz, bytes);
    cli_bytes(lim, sizeof lim, limit);
    double avail = free_bytes(o->out);
    char alt[400];
    snprintf(alt, sizeof alt,
             "for statistics write CSV or folded stacks (-o FILE.csv, -o FILE.folded); for a timeline, a window "
             "(--last S, or --from S --to S: the trace is %.1f s long); for every event, Perfetto's own format, "
             "about a quarter of the size (-o FILE.pftrace)",
             span_s);
    if (!o->force && avail >= 0 && bytes > avail) {
        cli_bytes(fr, sizeof fr, avail);
        return cli_error(REC_ERR_USAGE, "%s would be about %s of JSON (%.0f events) and only %s is free there: %s; "
                         "--force writes it anyway", o->out, sz, events, fr, alt);
    }
    if (!o->force && bytes > limit)
        return cli_error(REC_ERR_USAGE, "%s would be about %s of JSON (%.0f events), past the %s written without "
                         "--force (RECORDER_JSON_LIMIT_MB); trace viewers load JSON up to about 1-2 GB: %s; --force "
                         "writes it anyway", o->out, sz, events, lim, alt);
    cli_warn("%s will be about %s of JSON (%.0f events): ui.perfetto.dev and chrome://tracing load JSON up to about "
             "1-2 GB (trace_processor_shell more); %s", o->out, sz, events, alt);
    return REC_OK;
}

static void print_window(const struct cli_export_opts *o) {
    if (o->last > 0) fprintf(stderr, "; the last %g s", o->last);
    if (o->from > 0) fprintf(stderr, "; from %g s", o->from);
    if (o->to > 0) fprintf(stderr, "; up to %g s", o->to);
}

void cli_export_summary(const struct cli_export_opts *o, const char *path, const char *desc,
                        const struct rec_export_counts *c) {
    if (o->shown_as) fprintf(stderr, "recorder: %s", o->shown_as);
    else fprintf(stderr, "recorder: wrote %s", path);
    if (o->fmt == REC_EXPORT_PERFETTO)
        fprintf(stderr,
                " (Perfetto protobuf): %llu slices, %llu instants, %llu counters, %llu flow events "
                "(%llu track events), %llu threads",
                (unsigned long long)c->slices, (unsigned long long)c->instants, (unsigned long long)c->counters,
                (unsigned long long)c->flows, (unsigned long long)c->trace_events, (unsigned long long)c->threads);
    else if (o->fmt == REC_EXPORT_JSON)
        fprintf(stderr,
                ": %llu slices, %llu instants, %llu counters, %llu flow events (%llu trace events), %llu threads",
                (unsigned long long)c->slices, (unsigned long long)c->instants, (unsigned long long)c->counters,
                (unsigned long long)c->flows, (unsigned long long)c->trace_events, (unsigned long long)c->threads);
    else
        fprintf(stderr, ": %llu %s", (unsigned long long)c->rows,
                o->fmt == REC_EXPORT_CSV ? "rows (scope names)" : "lines (call paths)");
    fprintf(stderr, "; %llu events read from %s", (unsigned long long)c->events_read, desc);
    if (o->source_note) fprintf(stderr, "; %s", o->source_note);
    print_window(o);
    char lost[128];
    if (!o->source_note && (c->overwritten || c->dropped))
        fprintf(stderr, "; %s%s", o->losses_in_desc ? "in all, " : "",
                cli_lost_words(lost, sizeof lost, c->dropped, c->overwritten));
    if (c->unbound_flows || c->too_deep || c->deep_scopes || c->nonfinite_counters || c->untracked_events)
        fprintf(stderr, "; left out: %llu flow events that cannot bind, %llu scopes nested past %d levels, "
                "%llu NaN or infinite counter values, %llu events of threads past 65535",
                (unsigned long long)c->unbound_flows, (unsigned long long)(c->too_deep + c->deep_scopes),
                REC_MAX_NESTING, (unsigned long long)c->nonfinite_counters,
                (unsigned long long)c->untracked_events);
    if (c->forced)
        fprintf(stderr, "; %llu slices began before the lookahead and were written before they ended (%llu with "
                "flags marked late)", (unsigned long long)c->forced, (unsigned long long)c->late_flags);
    fputc('\n', stderr);
}

void cli_export_first_only(const char *what, size_t procs, int pid, enum rec_export_format f) {
    cli_warn("%s holds %zu processes: this %s is of the first's, pid %d; the other %zu are left out (--split "
             "writes one file per process; .json and .pftrace hold them all)", what, procs,
             f == REC_EXPORT_CSV ? "CSV" : "folded file", pid, procs - 1);
}

int cli_export(const char *target, const struct cli_export_opts *o) {
    struct cli_source src;
    int rc = cli_source_open(target, &src);
    if (rc != REC_OK) return rc;
    size_t procs = src.cap ? rec_cap_processes(src.cap) : 1;
    if (procs > 1 && o->fmt != REC_EXPORT_JSON && o->fmt != REC_EXPORT_PERFETTO)
        cli_export_first_only(src.path, procs, src.pid, o->fmt);
    else if (procs > 1) {   /* a process tree: one trace of them all */
        cli_source_close(&src);
        char *t[1] = {(char *)target};
        const char *notes[1] = {o->source_note};
        return cli_export_many(t, notes, 1, o, 0);
    }
    rc = cli_export_source(&src, o);
    cli_source_close(&src);
    return rc;
}

int cli_export_source(struct cli_source *src, const struct cli_export_opts *o) {
    int rc = REC_OK;
    struct rec_export_opts eo = {o->last, o->from, o->to, 0};
    int window = o->last > 0 || o->from > 0 || o->to > 0;
    char err[512];
    rec_export *x = NULL;
    if (src->cap && !window) {
        /* A capture counts its events when it is opened: say it before
         * reading it all. */
        const struct rec_cap_info *in = rec_cap_get_info(src->cap);
        double span = in->end_ticks > in->start_ticks ? (double)(in->end_ticks - in->start_ticks) / in->ticks_per_sec : 0;
        rc = cli_export_size_check(o, 75.0 * (double)in->events, (double)in->events, span);
    }
    if (rc == REC_OK) {
        rc = src->cap ? rec_export_open_cap(src->cap, &eo, &x, err, sizeof err)
                     : rec_export_open_seg(src->seg, &eo, &x, err, sizeof err);
        if (rc != REC_OK) cli_error(rc, "%s: %s", src->path, err);
    }
    if (rc == REC_OK && (window || !src->cap)) {
        struct rec_export_info in;
        rec_export_get_info(x, &in);
        double share = in.end_ns > in.start_ns ? in.window_ns / (in.end_ns - in.start_ns) : 1;
        rc = cli_export_size_check(o, in.json_bytes, share * (double)in.events, (in.end_ns - in.start_ns) / 1e9);
    }
    struct cli_out out;
    struct rec_export_counts c;
    if (rc == REC_OK) rc = cli_out_open(&out, o->out);
    if (rc == REC_OK) {
        int e = rec_export_write(x, o->fmt, out.f, &c, err, sizeof err);
        if (e != REC_OK) {
            cli_out_abort(&out);
            rc = cli_error(e, "%s: %s", out.path, err);
        } else {
            rc = cli_out_commit(&out);
        }
        char d[256];
        if (rc == REC_OK) cli_export_summary(o, out.path, cli_source_desc(src, d, sizeof d), &c);
    }
    rec_export_free(x);
    return rc;
}

int cli_split_check(const char *cmd, const char *out) {
    struct stat st;
    if (strcmp(out, "-") && (lstat(out, &st) != 0 || S_ISREG(st.st_mode))) return REC_OK;
    return cli_usage(cmd, "--split writes one file per process named after -o (OUT.<pid>.json): give a file's "
                     "name, not %s", !strcmp(out, "-") ? "- (stdout)" : S_ISLNK(st.st_mode) ? "a symbolic link"
                     : S_ISDIR(st.st_mode) ? "a directory" : "a device or FIFO");
}

void cli_path_with_pid(const char *out, int pid, char *buf, size_t cap) {
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash) || dot == out || (slash && dot == slash + 1))
        snprintf(buf, cap, "%s.%d", out, pid);
    else snprintf(buf, cap, "%.*s.%d%s", (int)(dot - out), out, pid, dot);
}
