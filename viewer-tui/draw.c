/*
 * draw.c -- fitted text on the curses screen (see draw.h).
 *
 * Everything from the traced program reaches the terminal through
 * text_fit, which replaces control characters: a scope named "\e[2J"
 * cannot clear the screen.
 */
#include "draw.h"

#include <string.h>

int draw_utf8;

const char *sym(enum sym s) {
    static const char *const u8[SYM_NSYMS] = {
        "\xe2\x94\x82", "\xe2\x80\xba", "\xe2\x97\x8f", "\xe2\x96\xbc", "\xe2\x96\xb2", "\xe2\x96\x8f",
        "\xe2\x8f\xb8", "\xe2\x96\xa0", "\xc2\xb7",
    };
    static const char *const ascii[SYM_NSYMS] = {"|", ">", "*", "v", "^", "|", "||", "#", "-"};
    return s < SYM_NSYMS ? (draw_utf8 ? u8[s] : ascii[s]) : "";
}

void draw_text(int y, int x, int w, const char *s, unsigned fit, attr_t a) {
    char buf[1024];
    if (w <= 0 || y < 0 || y >= LINES || x >= COLS) return;
    if (x + w > COLS) w = COLS - x;
    text_fit(buf, sizeof buf, s ? s : "", w, fit, draw_utf8);
    attrset(a);
    mvaddstr(y, x, buf);
    attrset(A_NORMAL);
}

int draw_put(int y, int x, const char *s, attr_t a) {
    if (x >= COLS || y < 0 || y >= LINES) return x;
    int w = text_width(s, draw_utf8);
    if (x + w > COLS) w = COLS - x;
    draw_text(y, x, w, s, FIT_NO_PAD, a);
    return x + w;
}

void draw_fill(int y, int x, int w, attr_t a) {
    if (y < 0 || y >= LINES) return;
    if (x + w > COLS) w = COLS - x;
    if (w <= 0) return;
    mvhline(y, x, ' ' | (chtype)a, w);
}

void draw_center(int y, const char *s, attr_t a) {
    int w = text_width(s, draw_utf8);
    int x = (COLS - w) / 2;
    draw_put(y, x < 0 ? 0 : x, s, a);
}
