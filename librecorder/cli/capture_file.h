/*
 * capture_file.h -- a private capture file next to a trace, converted when
 * the capture ends: what `recorder run` does with every program, and what
 * `recorder capture -o x.pftrace` (or .json, .csv, .folded) does instead
 * of writing a capture under a name that says it is something else.
 */
#ifndef RECORDER_CLI_CAPTURE_FILE_H
#define RECORDER_CLI_CAPTURE_FILE_H

#include <limits.h>
#include <sys/types.h>

#include "export.h"

/* A new private file (mode 0600) for a capture that will be converted to
 * out: "<dir of out>/<name>.XXXXXX.rec", or in $TMPDIR when out is a
 * device, a FIFO or stdout.  0, or -1 with the reason printed. */
int capture_tmp_path(const char *out, char *path, size_t cap);

/* Convert the capture at path to o->out (cli_export: its summary or
 * error is printed) and remove it, unless the conversion was refused for
 * its size (then it is kept, and said so).  Returns a rec_status. */
int capture_convert(const char *path, const struct cli_export_opts *o);

/* `recorder capture -o FILE` where FILE names a trace format: the capture
 * goes to a private file, converted to FILE at the end. */
struct capture_conv {
    int on;
    struct cli_export_opts eo;   /* eo.out: the trace asked for */
    char path[PATH_MAX];         /* the private capture */
    int opened;                  /* the capture opened it: ... */
    dev_t dev;                   /* ... this file, the only one converted */
    ino_t ino;
    char note[320];              /* the capture's loss, said in the conversion's one line */
};

/* Before anything starts: if *out names a trace format, check it can be
 * written, make the private file and point *out at it.  REC_OK (cv->on
 * says whether it converts), or a status with the reason printed. */
int capture_conv_begin(struct capture_conv *cv, const char **out);
/* The capture opened its file (rec_out_open at cv->path): fd is the file
 * it writes, and only that file is converted at the end. */
void capture_conv_opened(struct capture_conv *cv, int fd);
/* After the capture (rc: its status): convert what it wrote, if anything,
 * and remove the private file.  Anything else found under its name (the
 * capture was refused, or never started, and someone put a file there) is
 * neither converted nor removed.  Returns rc if it is not 0, else the
 * conversion's status. */
int capture_conv_end(struct capture_conv *cv, int rc);

#endif
