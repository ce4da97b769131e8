/*
 * target.h -- which recorded program to watch: a PID, a segment name or
 * path, a process name, or (no argument) the only one running.
 */
#ifndef WEB_TARGET_H
#define WEB_TARGET_H

#include <stddef.h>

#include "recorder/reader.h"

/* A pid, as the command line gives one: all digits. */
int target_all_digits(const char *s);
/* Opens the segment; on failure returns a rec_status and a message. */
int target_open(const char *arg, rec_seg **out, char *err, size_t errlen);
/* --wait: until arg (a pid, segment name or path, or a process name) has
 * a segment to open; timeout_s 0 = no limit.  A rec_status and a message. */
int target_wait(const char *arg, double timeout_s, char *err, size_t errlen);

#endif
