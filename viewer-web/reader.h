/*
 * reader.h -- the reader thread: drains the segment's rings, feeds the
 * analysis model, and turns what it read into frames for the pages.
 */
#ifndef WEB_READER_H
#define WEB_READER_H

#include <pthread.h>

#include "web.h"

struct reader;

/* Set up (names, lanes, model) before the server starts, so the first
 * page finds a published name table; then start the thread. */
struct reader *reader_new(struct web *w, char *err, size_t errlen);
int reader_start(struct reader *r);
/* Waits for the thread to end (after w->stop is set). */
void reader_stop(struct reader *r);
/* Stops it if needed, and frees everything. */
void reader_join_free(struct reader *r);

#endif
