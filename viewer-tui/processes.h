/*
 * processes.h -- recorder-top PID1 PID2 ...: several programs watched at
 * once, in one model, on one time line (docs/tui.md, "Several
 * processes").
 *
 * One model keeps the views as they are: each program's thread slots come
 * after the previous one's, its string ids carry its index in their top
 * bits (DRAIN_TAG_SHIFT), and its timestamps are put on the first
 * program's clock through both segments' CLOCK_MONOTONIC origins (drain.h,
 * struct drain_map).  So scopes of two programs never merge, even with the
 * same name, and the rows say whose they are (the PROC column).
 */
#ifndef TUI_PROCESSES_H
#define TUI_PROCESSES_H

#include <stddef.h>
#include <stdint.h>

#include "drain.h"

#define PROCS_MAX 16

struct source;

struct proc {
    rec_seg *seg;
    struct rec_seg_info info;
    struct drain drain;
    struct drain_map map;
    char label[48];               /* "name:pid", printable */
    int exited, settled, truncated;
};

struct procs {
    struct proc p[PROCS_MAX];
    int n;
};

/* Attaches to every path (resolved targets) and makes the model;
 * REC_OK, or the first failure's status and message (naming which). */
int procs_open(struct source *s, char **paths, int n, char *err, size_t errlen);
void procs_close(struct source *s);
/* One bounded pass over every program; the events decoded. */
size_t procs_drain(struct source *s);
/* Each program's state; returns 1 when this tick saw one exit or shrink. */
int procs_tick(struct source *s);
/* Names: the text of a tagged id. */
const char *procs_string(void *ctx, uint32_t id);

/* Whose is a name (by its tagged id) or a model slot: an index, or -1. */
int procs_of_name(const struct source *s, uint32_t name_id);
int procs_of_slot(const struct source *s, uint32_t slot);
const char *procs_label(const struct source *s, int k);

#endif
