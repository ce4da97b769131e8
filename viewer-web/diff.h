/*
 * diff.h -- recorder-web A.rec B.rec: two runs side by side (docs/web.md,
 * "Two runs side by side").  Both capture files are read whole once, at
 * start, and their per-scope figures joined by name with rec_stats_diff
 * (recorder/diff.h, the same as `recorder report A --diff B`); the page
 * fetches the result as /diff.json.  The timeline shows A, served as a
 * capture file always is.
 */
#ifndef WEB_DIFF_H
#define WEB_DIFF_H

#include <stddef.h>

struct web_opts;

/* The two targets must be two different capture files (each validated as
 * recorder-web validates one); anything else is refused with err:
 *   REC_ERR_USAGE for a live program with a file, more than two files, or
 *   the same file twice; the file's own status when it cannot be read.
 * 0 if the targets are not a comparison (no capture file among them), 1
 * if they are and are fit, or minus a rec_status with err. */
int web_diff_check(const struct web_opts *o, char *err, size_t errlen);

/* Reads both files whole and builds /diff.json's body: *body is malloc'd
 * (free it), *len its length.  REC_OK, or a rec_status with err. */
int web_diff_build(const char *a, const char *b, char **body, size_t *len, char *err, size_t errlen);

/* /diff.json when recorder-web serves one file or a live program. */
extern const char web_diff_none[];

#endif
