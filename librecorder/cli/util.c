/*
 * util.c -- messages, number parsing and formatting, output files.
 *
 * Messages are escaped as a whole on their way to stderr (safetext.c):
 * whatever they quote (a path, a process or thread name, an argument)
 * cannot reach the terminal as a control sequence.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"

/* One line on stderr: prefix, the message escaped, suffix. */
static void message(const char *prefix, const char *fmt, va_list ap, const char *suffix) {
    char *msg = NULL;
    fputs(prefix, stderr);
    if (vasprintf(&msg, fmt, ap) >= 0) cli_fputs_safe(msg, stderr);
    else fputs("(out of memory)", stderr);
    free(msg);
    fputs(suffix, stderr);
    fputc('\n', stderr);
}

int cli_error(int status, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    message("recorder: ", fmt, ap, "");
    va_end(ap);
    return status;
}

void cli_warn(const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    message("recorder: warning: ", fmt, ap, "");
    va_end(ap);
}

int cli_usage(const char *cmd, const char *fmt, ...) {
    char prefix[64], suffix[64];
    snprintf(prefix, sizeof prefix, "recorder %s: ", cmd);
    snprintf(suffix, sizeof suffix, " (see recorder %s --help)", cmd);
    va_list ap;
    va_start(ap, fmt);
    message(prefix, fmt, ap, suffix);
    va_end(ap);
    return REC_ERR_USAGE;
}

int cli_help(const char *usage) {
    fputs(usage, stdout);
    return REC_OK;
}

int cli_parse_double(const char *s, double *out) {
    char *end = NULL;
    errno = 0;
    double v = strtod(s, &end);
    if (errno || end == s || *end || !isfinite(v) || v < 0) return -1;
    *out = v;
    return 0;
}

int cli_parse_wait(const char *cmd, const char *arg, double *timeout) {
    *timeout = 0;
    if (!arg) return 0;
    if (cli_parse_double(arg, timeout) != 0 || *timeout <= 0)
        return cli_usage(cmd, "--wait=SECONDS wants a number of seconds above 0, not '%s'", arg);
    return 0;
}

int cli_wait(const char *target, double timeout, const volatile sig_atomic_t *stop) {
    struct rec_wait_opts o = {timeout, "recorder", 0, NULL, NULL, stop};
    char err[512];
    int rc = rec_seg_wait(target, &o, err, sizeof err);
    return rc == REC_OK || rc < 0 ? rc : cli_error(rc, "%s", err);
}

int cli_parse_uint(const char *s, unsigned long *out) {
    char *end = NULL;
    errno = 0;
    if (*s == '-' || *s == '+') return -1;
    unsigned long v = strtoul(s, &end, 10);
    if (errno || end == s || *end) return -1;
    *out = v;
    return 0;
}

const char *cli_lost_words(char *buf, size_t cap, uint64_t dropped, uint64_t overwritten) {
    snprintf(buf, cap, "lost %llu entries: %llu dropped, %llu overwritten",
             (unsigned long long)rec_sat_add(dropped, overwritten), (unsigned long long)dropped,
             (unsigned long long)overwritten);
    return buf;
}

const char *cli_count(char *buf, size_t cap, double v) {
    if (v < 10000) snprintf(buf, cap, "%.0f", v);
    else if (v < 1e6) snprintf(buf, cap, "%.1fk", v / 1e3);
    else if (v < 1e9) snprintf(buf, cap, "%.2fM", v / 1e6);
    else snprintf(buf, cap, "%.2fG", v / 1e9);
    return buf;
}

const char *cli_bytes(char *buf, size_t cap, double v) {
    if (v < 1024) snprintf(buf, cap, "%.0f B", v);
    else if (v < 1024.0 * 1024) snprintf(buf, cap, "%.1f KiB", v / 1024);
    else if (v < 1024.0 * 1024 * 1024) snprintf(buf, cap, "%.1f MiB", v / (1024.0 * 1024));
    else snprintf(buf, cap, "%.2f GiB", v / (1024.0 * 1024 * 1024));
    return buf;
}

int cli_out_open(struct cli_out *o, const char *path) {
    memset(o, 0, sizeof o[0]);
    cli_safe(o->path, sizeof o->path, path);
    char err[1400];
    int rc = rec_out_open(&o->out, path, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    if (o->out.is_stdout) {
        o->f = stdout;
        o->is_stdout = 1;
        snprintf(o->path, sizeof o->path, "(stdout)");
        return REC_OK;
    }
    o->f = fdopen(o->out.fd, "w");
    if (!o->f) {
        rec_out_abort(&o->out);
        return cli_error(REC_ERR_NOMEM, "%s: out of memory", o->path);
    }
    setvbuf(o->f, NULL, _IOFBF, 1u << 20);
    return REC_OK;
}

int cli_out_commit(struct cli_out *o) {
    int bad = ferror(o->f);
    if (o->is_stdout) {
        if (fflush(stdout) != 0 || bad) return cli_error(REC_ERR_IO, "writing to stdout failed");
        return REC_OK;
    }
    int e = 0;
    errno = 0;
    if (fclose(o->f) != 0 || bad) e = errno ? errno : EIO;
    o->f = NULL;
    o->out.fd = -1;   /* fclose closed it */
    if (e) {
        rec_out_abort(&o->out);
        return cli_error(REC_ERR_IO, "%s: %s", o->path, strerror(e));
    }
    char err[1400];
    int rc = rec_out_commit(&o->out, err, sizeof err);
    return rc == REC_OK ? REC_OK : cli_error(rc, "%s", err);
}

void cli_out_abort(struct cli_out *o) {
    if (o->is_stdout || !o->f) return;
    fclose(o->f);
    o->f = NULL;
    o->out.fd = -1;
    rec_out_abort(&o->out);
}

int cli_bad_option(const char *cmd, int c, char **argv) {
    const char *arg = optind > 0 ? argv[optind - 1] : "?";
    if (c == ':') return cli_usage(cmd, "option '%s' needs a value", arg);
    return cli_usage(cmd, "unknown option '%s'", arg);
}
