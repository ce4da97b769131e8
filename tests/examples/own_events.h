/*
 * own_events.h -- test helper: what one thread of this very process
 * recorded, read back from the process's own segment with librecorder, as
 * text, one event a line ("B name", "E name", "I name msg", "C name value",
 * "s id"/"t id"/"f id").  Tests compare it with the text they expect.
 */
#ifndef TESTS_OWN_EVENTS_H
#define TESTS_OWN_EVENTS_H

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Appends the events of the thread named thread_name to out (NUL-ended,
 * cut at cap).  Returns the number of events, or -1 if there is no such
 * thread or the segment cannot be read. */
int own_events(const char *thread_name, char *out, size_t cap);

/* Compares; on a difference prints both texts and returns 1. */
int own_events_expect(const char *thread_name, const char *expected);

#ifdef __cplusplus
}
#endif

#endif
