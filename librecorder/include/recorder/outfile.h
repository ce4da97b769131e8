/*
 * recorder/outfile.h -- how librecorder and the `recorder` command open an
 * output file (`-o FILE`): one rule for every writer, safe to run as root
 * next to other users' files (docs/cli.md, "Output files").
 *
 *  - A new file, or an existing regular file, is written to a temporary
 *    file created in the same directory (O_CREAT|O_EXCL|O_NOFOLLOW, an
 *    unpredictable name, mode 0600) and renamed onto FILE when complete, so
 *    the old file is never written into and a failed export leaves it as
 *    it was.
 *  - An existing character device or FIFO (/dev/null, a pipe), "-"
 *    (stdout), and a socket that is our own stdout or stderr, are written
 *    straight through: never replaced, truncated or removed.  A FIFO is
 *    given up to REC_OUT_FIFO_WAIT_SEC seconds to get a reader.
 *  - In a sticky directory others can write (like /tmp), a symbolic link,
 *    or a file, FIFO or device owned by someone other than us and the
 *    directory's owner, is refused, as fs.protected_symlinks,
 *    fs.protected_regular and fs.protected_fifos do.
 *  - Elsewhere, a symbolic link is followed only when it belongs to us or
 *    to root and leads to a character device, a FIFO, or our own stdout or
 *    stderr whatever that is (/dev/stdout); a link to another file is
 *    refused rather than replaced or written through.
 *  - A directory, a block device, or a path whose directory does not exist
 *    is an error.
 * Error messages name the path as given, never the temporary file.
 */
#ifndef RECORDER_OUTFILE_H
#define RECORDER_OUTFILE_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

#define REC_OUT_FIFO_WAIT_SEC 5

struct rec_out {
    int fd;                   /* write here; -1 once closed */
    int direct;               /* 1: the target itself (stdout, a device, a FIFO): nothing to rename */
    int is_stdout;            /* "-": fd is 1, never closed here */
    char path[1024];          /* as given, for messages (may hold any bytes: escape before printing) */
    /* private */
    int dirfd;                /* the target's directory (O_PATH), -1 if direct */
    char base[256];           /* the target's name in dirfd */
    char tmp[256];            /* the temporary file's name in dirfd, "" once renamed or removed */
};

/* Open path for writing by the rule above.  Returns REC_OK, or a status
 * (REC_ERR_USAGE, REC_ERR_ACCESS, REC_ERR_IO, ...) with a one-line message
 * in err naming path. */
int rec_out_open(struct rec_out *o, const char *path, char *err, size_t errlen);
/* The same rule, checked without creating or opening anything (a FIFO's
 * reader is not disturbed): for a writer that opens path later, after a
 * program it starts has run.  REC_OK or a status with err filled. */
int rec_out_check(const char *path, char *err, size_t errlen);
/* Rename the temporary file onto the target now and keep writing to it
 * (a capture that grows under its final name).  No-op when direct. */
int rec_out_publish(struct rec_out *o, char *err, size_t errlen);
/* Close fd (if the caller has not: then set o->fd = -1 first) and publish.
 * On a close error the temporary file is removed and the target left as
 * it was (unless already published). */
int rec_out_commit(struct rec_out *o, char *err, size_t errlen);
/* Give up: close fd and remove the temporary file; the target is left as
 * it was (unless already published). */
void rec_out_abort(struct rec_out *o);

#ifdef __cplusplus
}
#endif

#endif
