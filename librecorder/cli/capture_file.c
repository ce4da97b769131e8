/*
 * capture_file.c -- a private capture converted when the capture ends
 * (capture_file.h), shared by `recorder run` and `recorder capture -o
 * x.pftrace`: one way to name the file, to convert it and to clean up.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_file.h"
#include "cli.h"
#include "recorder/outfile.h"

int capture_tmp_path(const char *out, char *path, size_t cap) {
    struct stat st;
    const char *slash = strrchr(out, '/');
    if (!strcmp(out, "-") || (stat(out, &st) == 0 && !S_ISREG(st.st_mode))) {
        const char *tmp = getenv("TMPDIR");
        snprintf(path, cap, "%s/recorder-run.XXXXXX.rec", tmp && *tmp ? tmp : "/tmp");
    } else if (slash) {
        snprintf(path, cap, "%.*s/%s.XXXXXX.rec", (int)(slash - out), out, slash + 1);
    } else {
        snprintf(path, cap, "%s.XXXXXX.rec", out);
    }
    int fd = mkstemps(path, 4);
    if (fd < 0) {
        cli_error(REC_ERR_IO, "cannot create a capture file %s: %m", path);
        return -1;
    }
    close(fd);
    return 0;
}

int capture_convert(const char *path, const struct cli_export_opts *o) {
    int rc = cli_export(path, o);
    if (rc == REC_ERR_USAGE)   /* refused (too large): the capture is all there is */
        cli_warn("kept the capture %s: recorder convert it with --force, or to CSV", path);
    else unlink(path);
    return rc;
}

int capture_conv_begin(struct capture_conv *cv, const char **out) {
    memset(cv, 0, sizeof *cv);
    int f;   /* export.c's one table: .rec (or no extension) is a capture; an unknown one is refused */
    int rc = cli_out_format("capture", NULL, *out, CLI_FORMAT_CAPTURE, &f);
    if (rc != REC_OK || f == CLI_FORMAT_CAPTURE) return rc;
    /* A trace that cannot or must not be written is found out before the
     * capture starts (it may run for hours), not after. */
    char err[1400];
    rc = rec_out_check(*out, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    if (capture_tmp_path(*out, cv->path, sizeof cv->path) != 0) return REC_ERR_IO;
    /* Only the name is kept: the capture's file appears under it with its
     * first record (recorder/outfile.h), so a capture that never starts,
     * or a signal that ends us while waiting for the program, leaves
     * nothing behind. */
    unlink(cv->path);
    cv->on = 1;
    cv->eo.out = *out;
    cv->eo.fmt = (enum rec_export_format)f;
    *out = cv->path;
    return REC_OK;
}

void capture_conv_opened(struct capture_conv *cv, int fd) {
    struct stat st;
    if (!cv->on || fd < 0 || fstat(fd, &st) != 0) return;
    cv->opened = 1;
    cv->dev = st.st_dev;
    cv->ino = st.st_ino;
}

int capture_conv_end(struct capture_conv *cv, int rc) {
    if (!cv->on) return rc;
    struct stat st;
    /* Only the file the capture wrote: its name is public while the
     * capture runs, and a file planted there (a crafted capture, when the
     * capture was refused or never started) must not become the output. */
    if (!cv->opened || lstat(cv->path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_dev != cv->dev ||
        st.st_ino != cv->ino)
        return rc;
    if (st.st_size == 0) {
        unlink(cv->path);
        return rc;
    }
    int conv = capture_convert(cv->path, &cv->eo);
    return rc ? rc : conv;
}
