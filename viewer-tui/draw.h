/*
 * draw.h -- putting fitted text on the screen, and the few symbols that
 * have an ASCII stand-in when the terminal is not UTF-8.
 */
#ifndef TUI_DRAW_H
#define TUI_DRAW_H

#include <stdint.h>

#include "text.h"
#include "theme.h"

/* Set once at start: is the locale's character set UTF-8. */
extern int draw_utf8;

enum sym { SYM_VBAR, SYM_PATH, SYM_DOT, SYM_DOWN, SYM_UP, SYM_FRAME_EDGE, SYM_PAUSE, SYM_SQUARE, SYM_SEP, SYM_NSYMS };
const char *sym(enum sym s);

/* s fitted into exactly w columns at (y, x), in attribute a. */
void draw_text(int y, int x, int w, const char *s, unsigned fit, attr_t a);
/* s as is, clipped at the right edge of the screen; returns the column
 * after it. */
int draw_put(int y, int x, const char *s, attr_t a);
/* w blanks in attribute a. */
void draw_fill(int y, int x, int w, attr_t a);
/* A box of h lines and w columns at (y0, x0), filled with blanks in
 * body (the help, the details panel). */
void draw_box(int y0, int x0, int h, int w, attr_t body);
/* Text centered on a line. */
void draw_center(int y, const char *s, attr_t a);
/* Tests only: marks a whole frame for the tmux harness (draw.c). */
void draw_frame_mark(uint64_t frame);

#endif
