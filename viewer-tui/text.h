/*
 * text.h -- terminal-safe text: decode UTF-8, measure display width, and
 * fit a string into an exact number of columns.
 *
 * Scope and thread names come from the traced program and may hold any
 * byte.  Everything drawn goes through text_fit, which turns control bytes
 * and invalid UTF-8 into '?', and, on a terminal that is not UTF-8, every
 * non-ASCII character too.  Pure: no curses, so it is unit-tested alone.
 * Widths use wcwidth(), so the caller sets an LC_CTYPE locale first.
 */
#ifndef TUI_TEXT_H
#define TUI_TEXT_H

#include <stddef.h>
#include <stdint.h>

enum {
    FIT_LEFT = 0,       /* pad on the right */
    FIT_RIGHT = 1,      /* pad on the left (numbers) */
    FIT_KEEP_END = 2,   /* too long: cut the start ("…b › c"), not the end */
    FIT_NO_PAD = 4,     /* do not pad a short string */
    FIT_MIDDLE = 8      /* too long: cut the middle ("matmul_b…0.ffn_up"), so names
                           that differ only at the end stay distinct */
};

/* Decodes one character at s (n bytes left); returns its length (>= 1)
 * and the code point in *cp, or U+FFFD for a bad sequence (length 1). */
size_t utf8_next(const char *s, size_t n, uint32_t *cp);
/* Appends cp as UTF-8; returns the bytes written (0 if it does not fit). */
size_t utf8_put(char *out, size_t cap, uint32_t cp);

/* Display width of s as text_fit would draw it. */
int text_width(const char *s, int utf8);

/* Writes s into out (NUL-terminated, at most cap bytes) exactly `width`
 * columns wide unless FIT_NO_PAD: cut with an ellipsis when too long,
 * padded with spaces when short.  Returns the columns used. */
int text_fit(char *out, size_t cap, const char *s, int width, unsigned flags, int utf8);

/* text_fit for one of several names shown together (a table's visible
 * rows: peers, s among them or not): too long, s loses what it shares
 * with the most similar of them, not a fixed middle, so that rows that
 * differ only inside ("matmul_blk.3.ffn_down", "matmul_blk.11.ffn_down")
 * read "…blk.3.ffn_down" and "…blk.11.ffn_down".  A short head up to the
 * first separator is kept when it fits ("matmul_…ention.ffn_up"); where
 * even what differs is too long, it is cut in its middle; a name that
 * shares nothing is cut in the middle (FIT_MIDDLE).  flags: FIT_NO_PAD. */
int text_elide(char *out, size_t cap, const char *s, const char *const *peers, size_t n_peers, int width,
               unsigned flags, int utf8);

/* The bytes of s's start that fit in width columns, whole characters (a
 * long name wrapped over lines). */
size_t text_take(const char *s, int width, int utf8);

/* Case-insensitive (ASCII) substring test; an empty needle matches. */
int text_contains(const char *hay, const char *needle);

#endif
