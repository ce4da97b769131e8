/*
 * proc_view.h -- several programs in the views: the process filter and
 * the PROC column (proc_view.c).
 */
#ifndef TUI_PROC_VIEW_H
#define TUI_PROC_VIEW_H

#include <stddef.h>
#include <stdint.h>

#include "app.h"

/* o / O: the next or previous program, then all (1); 0 if not the key. */
int proc_view_key(struct app *a, enum action act);
/* Several programs are watched: the views show the PROC column. */
int proc_view_multi(const struct app *a);
/* "name:pid" of the program a name or a model slot belongs to. */
const char *proc_view_of_name(const struct app *a, uint32_t name_id);
const char *proc_view_of_slot(const struct app *a, uint32_t slot);
/* Whether a program is chosen, and whether a name is of it (Top's rows
 * are the program's; every name when none is chosen). */
int proc_view_filters(const struct app *a);
int proc_view_keeps(const struct app *a, uint32_t name_id);
/* The snapshot's threads and flame graph, of the program chosen. */
void proc_view_snapshot(struct app *a);
/* The title's item: "3 processes: a:1 b:2 c:3" or "process 2/3: b:2". */
void proc_view_title(const struct app *a, char *buf, size_t cap);

#endif
