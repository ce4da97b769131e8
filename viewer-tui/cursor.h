/*
 * cursor.h -- a capture file's time cursor: keys and title (cursor.c).
 */
#ifndef TUI_CURSOR_H
#define TUI_CURSOR_H

#include <stddef.h>

#include "app.h"

/* Handles [ ] < > (1), or says the action is not the cursor's (0).  On
 * a live program the keys do nothing. */
int cursor_key(struct app *a, enum action act);
/* The cursor's step for a window: its length (10 s for "all"); the
 * first window shown is this long too (file_src's first_window_ns). */
double cursor_step_ns(enum rec_window w);
/* What the title says in place of running/exited: the window's time
 * range and the file's length, or how far reading has got. */
void cursor_title(struct app *a, char *buf, size_t cap);
/* The capture reader's warning (cut short, no end record...), or NULL. */
const char *cursor_banner(struct app *a);

#endif
