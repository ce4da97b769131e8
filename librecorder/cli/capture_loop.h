/*
 * capture_loop.h -- the drain loop of a stream-mode capture and its
 * summary, shared by `recorder capture` and `recorder run` (which is a
 * capture of CMD into a private file, converted when CMD exits).
 */
#ifndef RECORDER_CLI_CAPTURE_LOOP_H
#define RECORDER_CLI_CAPTURE_LOOP_H

#include <signal.h>

#include "capture_child.h"
#include "recorder/capture.h"

struct capture_end {
    enum rec_capture_end reason;
    struct rec_capture_stats st;   /* the capture's final statistics */
    double secs;                   /* from the first poll to the end */
    int stop_signal;               /* the signal that stopped it, 0 if none */
    char err[1400];                /* the error, if the returned status is not REC_OK */
};

/* Poll cap (a capture of seg) until the program exits (child, or seg's
 * process when child is NULL), *stop is set, duration (> 0) passes, an
 * error, or the program drops us; then finish it.  running = 0: the
 * program had already exited, only finish.  live: a status line on
 * stderr.  Returns REC_OK or the error's status (e->err filled). */
int capture_loop(rec_capture *cap, rec_seg *seg, struct capture_child *child, int running, double duration,
                 int live, volatile sig_atomic_t *stop, struct capture_end *e);

/* Drain with the consumer threads asked for (0: the default for this
 * machine); one, with a warning, if they cannot be started. */
void capture_set_consumers(rec_capture *cap, unsigned asked);
/* "not kept N entries (overwritten before the capture began); lost N
 * entries: X dropped, Y overwritten": the words of every summary that
 * says what a capture did not get.  Into buf, returned. */
const char *capture_loss_words(const struct capture_end *e, char *buf, size_t cap);

/* The one-line summary: "recorder: captured pid P (NAME) WHERE: ...; not
 * kept N entries (...); lost N entries: X dropped, Y overwritten; ended:
 * WHY", and a hint when entries were dropped. */
void capture_summary(const struct rec_seg_info *info, const char *where, const struct capture_end *e);
/* What capture_summary says after its line (bad data, threads not
 * recorded, the hint when entries were dropped): for a capture converted
 * at once, whose one line is the conversion's (cmd_capture.c). */
void capture_notes(const struct rec_seg_info *info, const struct capture_end *e);
/* "pid P: N threads not recorded" on stderr, if its segment counts any. */
void capture_warn_not_recorded(const struct rec_seg_info *info);

#endif
