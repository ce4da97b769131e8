/*
 * view_diff.h -- recorder-top A.rec B.rec: two captures side by side
 * (view_diff.c, docs/tui.md "Two runs side by side").
 */
#ifndef TUI_VIEW_DIFF_H
#define TUI_VIEW_DIFF_H

#include <stddef.h>

struct diff_state;

/* Reads both capture files whole into models without a log (before the
 * screen is taken: errors go to err); REC_OK or a status. */
int diff_open(struct diff_state **out, const char *a, const char *b, char *err, size_t errlen);
/* The diff table until q (curses started); 0. */
int diff_run(struct diff_state *d);
void diff_free(struct diff_state *d);

#endif
