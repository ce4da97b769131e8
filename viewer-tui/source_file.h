/*
 * source_file.h -- a capture file as recorder-top's source, browsed with
 * a time cursor (docs/tui.md, "Capture files").
 *
 * The model holds every event of the file before the cursor and none
 * after it, so the views' windows (1 s, 10 s, all) end at the cursor:
 * "all" is the file's start up to it.  Moving the cursor forward reads
 * on; moving it back reads again from the start (the capture API reads
 * in file order only), in bounded passes, so the screen keeps answering
 * keys and says how far it has read.
 *
 * Memory does not grow with the file: the model keeps statistics only
 * (no event log), and what was read past the cursor and is held for the
 * next step is at most FILE_HOLD_MAX entries (16 MiB).  The capture
 * reader adds its strings and one record (at most 64 MiB, unpacked).
 */
#ifndef TUI_SOURCE_FILE_H
#define TUI_SOURCE_FILE_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/analysis.h"
#include "recorder/capture.h"

#define FILE_HOLD_MAX ((size_t)1 << 20)   /* entries held past the cursor */
#define FILE_GRID_NS 1e9                  /* cursor positions: whole seconds */

struct file_piece;

struct file_src {
    rec_cap *cap;
    const struct rec_cap_info *info;
    rec_model *model;
    char name[128];               /* the file's name, for the title */
    double ns_per_tick;
    double target_ns;             /* feed every event before this (NAN: not chosen yet) */
    double cursor_ns;             /* the window's end that is shown (target once read) */
    double first_window_ns;       /* the first cursor is this far past the first second's
                                     start (a whole window), or one second when 0 */
    int reading;                  /* still reading toward target */
    int at_end;                   /* the whole file was read */
    int status;                   /* REC_OK, or why reading stopped (a changed file) */
    double first_ns, last_ns;     /* first and last event read so far */
    uint64_t read_entries;        /* since the last rewind, for the progress */
    uint64_t rewinds;
    int incomplete;               /* the hold filled before the target was surely read past:
                                     the window shown may lack a few late chunks */
    /* Passes of the capture since the first chunk past the target
     * (source_file.c, "How far to read"). */
    int crossed, passes;
    uint32_t last_slot;
    uint64_t run;
    /* Read past the target and held for the next step, in file order. */
    struct file_piece *pc;
    size_t npc, cap_pc;
    struct rec_entry *pool;
    size_t npool, cap_pool;
    uint8_t *blocked;             /* per slot: its data reached the target (this target) */
    struct rec_thread_info *lane; /* per slot: its latest thread record (what it records: GPU lanes) */
    int pieces_done;              /* the held pieces were fed for this target */
};

/* Opens a capture (rec_cap_open: every record checked once) and reads its
 * first window.  REC_OK, or a status with a one-line message. */
int file_src_open(struct file_src *f, const char *path, char *err, size_t errlen);
void file_src_close(struct file_src *f);

/* The cursor moves to t_ns (rounded to the grid; INFINITY: the end).  It
 * never goes past the file's end: once that is known, a cursor past it
 * is the end itself (just past the last event, so that it is in the
 * model), off the grid. */
void file_src_seek(struct file_src *f, double t_ns);

/* One bounded pass toward the target; returns the events fed.  *more is
 * set while the target is not reached. */
size_t file_src_pass(struct file_src *f, int *more);

/* The file's last timestamp: its END record's time, or the last event
 * read once it is all read, whichever is later; NAN while unknown. */
double file_src_end_ns(const struct file_src *f);

/* The grid position just after t (the end of the window holding t). */
double file_src_grid_after(double t_ns);

/* The share of the file read toward the target, 0..1. */
double file_src_progress(const struct file_src *f);

#endif
