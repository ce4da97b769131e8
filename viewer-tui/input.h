/*
 * input.h -- keys to actions, and the one-line editor of the filter
 * prompt.  Pure: a key is what get_wch returns (a character, or a curses
 * KEY_* code when is_code), so tests feed keys without a terminal.
 */
#ifndef TUI_INPUT_H
#define TUI_INPUT_H

#include <stddef.h>
#include <stdint.h>

enum action {
    ACT_NONE,
    ACT_QUIT,
    ACT_VIEW_NEXT, ACT_VIEW_PREV, ACT_VIEW_TOP, ACT_VIEW_FLAME, ACT_VIEW_THREADS,
    ACT_VIEW_COUNTERS, ACT_VIEW_MESSAGES,
    ACT_WINDOW,          /* 1 s -> 10 s -> whole run */
    ACT_SORT, ACT_SORT_REVERSE,
    ACT_FILTER,          /* open the filter prompt */
    ACT_THREAD_NEXT, ACT_THREAD_PREV,
    ACT_PAUSE,
    ACT_FOLD,            /* fold layer numbers out of names (ffn_up-*) */
    ACT_HELP,
    ACT_UP, ACT_DOWN, ACT_LEFT, ACT_RIGHT,
    ACT_PAGE_UP, ACT_PAGE_DOWN, ACT_HOME, ACT_END,
    ACT_ENTER,           /* zoom in; Top: a scope's details */
    ACT_BACK,            /* zoom out; also clears a filter */
    ACT_REDRAW,          /* Ctrl-L */
    ACT_RESIZE
};

/* The action of a key in the views. */
enum action input_action(uint32_t key, int is_code);

/* A list's selection moved by act (up, down, page, home, end) among n rows,
 * page rows a page, clamped to [0, n-1] (0 when empty): 1 and *out, or 0
 * if act does not move a selection. */
int list_move(enum action act, int sel, int n, int page, int *out);

enum edit_result { EDIT_MORE, EDIT_ACCEPT, EDIT_CANCEL };

#define LINE_EDIT_MAX 96

struct line_edit {
    char buf[LINE_EDIT_MAX + 1];   /* UTF-8, NUL-terminated */
    size_t len;
};

void line_edit_set(struct line_edit *e, const char *s);
/* Applies a key: printable characters append, Backspace removes the last
 * character, Ctrl-U clears, Enter accepts, Esc cancels. */
enum edit_result line_edit_key(struct line_edit *e, uint32_t key, int is_code);

#endif
