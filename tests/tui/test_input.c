/*
 * test_input.c -- input.c: every documented key maps to its action, and the
 * filter prompt edits UTF-8 text character by character.
 */
#include <curses.h>
#include <string.h>

#include "check.h"
#include "input.h"

int main(void) {
    CHECK_EQ_U(input_action('q', 0), ACT_QUIT);
    CHECK_EQ_U(input_action('\t', 0), ACT_VIEW_NEXT);
    CHECK_EQ_U(input_action(KEY_BTAB, 1), ACT_VIEW_PREV);
    CHECK_EQ_U(input_action('1', 0), ACT_VIEW_TOP);
    CHECK_EQ_U(input_action('2', 0), ACT_VIEW_FLAME);
    CHECK_EQ_U(input_action('3', 0), ACT_VIEW_THREADS);
    CHECK_EQ_U(input_action('w', 0), ACT_WINDOW);
    CHECK_EQ_U(input_action('s', 0), ACT_SORT);
    CHECK_EQ_U(input_action('S', 0), ACT_SORT_REVERSE);
    CHECK_EQ_U(input_action('/', 0), ACT_FILTER);
    CHECK_EQ_U(input_action('t', 0), ACT_THREAD_NEXT);
    CHECK_EQ_U(input_action('T', 0), ACT_THREAD_PREV);
    CHECK_EQ_U(input_action('p', 0), ACT_PAUSE);
    CHECK_EQ_U(input_action('?', 0), ACT_HELP);
    CHECK_EQ_U(input_action(KEY_F(1), 1), ACT_HELP);
    CHECK_EQ_U(input_action('\r', 0), ACT_ENTER);
    CHECK_EQ_U(input_action(KEY_ENTER, 1), ACT_ENTER);
    CHECK_EQ_U(input_action(KEY_BACKSPACE, 1), ACT_BACK);
    CHECK_EQ_U(input_action(127, 0), ACT_BACK);
    CHECK_EQ_U(input_action(27, 0), ACT_BACK);
    CHECK_EQ_U(input_action(KEY_UP, 1), ACT_UP);
    CHECK_EQ_U(input_action(KEY_DOWN, 1), ACT_DOWN);
    CHECK_EQ_U(input_action(KEY_LEFT, 1), ACT_LEFT);
    CHECK_EQ_U(input_action(KEY_RIGHT, 1), ACT_RIGHT);
    CHECK_EQ_U(input_action(KEY_NPAGE, 1), ACT_PAGE_DOWN);
    CHECK_EQ_U(input_action(KEY_RESIZE, 1), ACT_RESIZE);
    CHECK_EQ_U(input_action('x', 0), ACT_NONE);
    /* A code and a character with the same number are different keys. */
    CHECK_EQ_U(input_action(KEY_UP, 0), ACT_NONE);
    CHECK_EQ_U(input_action('q', 1), ACT_NONE);

    struct line_edit e;
    line_edit_set(&e, "");
    CHECK_EQ_U(line_edit_key(&e, 'm', 0), EDIT_MORE);
    CHECK_EQ_U(line_edit_key(&e, 'a', 0), EDIT_MORE);
    CHECK_EQ_U(line_edit_key(&e, 0xe9, 0), EDIT_MORE);   /* é */
    CHECK(!strcmp(e.buf, "ma\xc3\xa9"));
    CHECK_EQ_U(line_edit_key(&e, KEY_BACKSPACE, 1), EDIT_MORE);
    CHECK(!strcmp(e.buf, "ma"));                        /* the whole é */
    CHECK_EQ_U(line_edit_key(&e, 127, 0), EDIT_MORE);
    CHECK(!strcmp(e.buf, "m"));
    CHECK_EQ_U(line_edit_key(&e, 27, 0), EDIT_CANCEL);
    CHECK_EQ_U(line_edit_key(&e, '\r', 0), EDIT_ACCEPT);
    CHECK_EQ_U(line_edit_key(&e, KEY_ENTER, 1), EDIT_ACCEPT);
    line_edit_key(&e, 1, 0);                             /* control: ignored */
    CHECK(!strcmp(e.buf, "m"));
    line_edit_key(&e, 21, 0);                            /* Ctrl-U clears */
    CHECK(!strcmp(e.buf, ""));
    line_edit_key(&e, 127, 0);                           /* nothing to delete */
    CHECK_EQ_U(e.len, 0);
    /* Full: further characters are dropped, the buffer stays terminated. */
    for (int i = 0; i < 200; i++) line_edit_key(&e, 'z', 0);
    CHECK_EQ_U(e.len, LINE_EDIT_MAX);
    CHECK_EQ_U(strlen(e.buf), LINE_EDIT_MAX);
    line_edit_key(&e, 0x20ac, 0);                        /* € does not fit whole */
    CHECK_EQ_U(strlen(e.buf), LINE_EDIT_MAX);
    /* Moving a list's selection: clamped to the rows, 0 when empty. */
    int sel = -7;
    CHECK(list_move(ACT_DOWN, 3, 10, 5, &sel) && sel == 4);
    CHECK(list_move(ACT_UP, 0, 10, 5, &sel) && sel == 0);
    CHECK(list_move(ACT_PAGE_DOWN, 8, 10, 5, &sel) && sel == 9);
    CHECK(list_move(ACT_PAGE_UP, 8, 10, 5, &sel) && sel == 3);
    CHECK(list_move(ACT_END, 2, 10, 5, &sel) && sel == 9);
    CHECK(list_move(ACT_HOME, 7, 10, 5, &sel) && sel == 0);
    CHECK(list_move(ACT_DOWN, 0, 0, 5, &sel) && sel == 0);
    sel = 42;
    CHECK(!list_move(ACT_ENTER, 3, 10, 5, &sel) && sel == 42);
    CHECK_DONE();
}
