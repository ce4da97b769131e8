/*
 * theme.c -- color pairs for each role (see theme.h).
 *
 * Pairs use the terminal's default background (-1) where text sits on the
 * screen, so a light or dark terminal both read well; solid bars set both.
 */
#include "theme.h"

#include <string.h>

#define NFLAME 8

static attr_t roles[R_NROLES];
static attr_t flame[NFLAME];
static int nflame = 1;

struct spec {
    short fg, bg;     /* -1: terminal default */
    attr_t extra;
};

/* 256-color palette, then the 8-color one; order of enum role. */
static const struct spec spec256[R_NROLES] = {
    [R_NORMAL] = {-1, -1, 0},
    [R_TITLE] = {231, 24, A_BOLD},
    [R_TITLE_KEY] = {220, 24, A_BOLD},
    [R_TAB] = {250, 237, 0},
    [R_TAB_ACTIVE] = {16, 214, A_BOLD},
    [R_COLHEAD] = {16, 37, 0},
    [R_COLHEAD_SORT] = {16, 44, A_BOLD},
    [R_SELECTED] = {16, 117, 0},
    [R_DIM] = {245, -1, 0},
    [R_KEY] = {16, 37, A_BOLD},
    [R_KEYLABEL] = {252, 236, 0},
    [R_ALIVE] = {114, 24, A_BOLD},
    [R_EXITED] = {231, 124, A_BOLD},
    [R_BANNER] = {231, 124, A_BOLD},
    [R_PAUSED] = {16, 220, A_BOLD},
    [R_WARN] = {209, -1, A_BOLD},
    [R_HOT] = {203, -1, A_BOLD},
    [R_WARM] = {221, -1, 0},
    [R_SPARK] = {78, -1, 0},
    [R_FLAME_ROOT] = {16, 250, 0},
    [R_FLAME_SEL] = {231, 25, A_BOLD},
    [R_PROMPT] = {231, 236, A_BOLD},
};
static const struct spec spec8[R_NROLES] = {
    [R_NORMAL] = {-1, -1, 0},
    [R_TITLE] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
    [R_TITLE_KEY] = {COLOR_YELLOW, COLOR_BLUE, A_BOLD},
    [R_TAB] = {-1, -1, 0},
    [R_TAB_ACTIVE] = {COLOR_BLACK, COLOR_YELLOW, 0},
    [R_COLHEAD] = {COLOR_BLACK, COLOR_GREEN, 0},
    [R_COLHEAD_SORT] = {COLOR_BLACK, COLOR_CYAN, 0},
    [R_SELECTED] = {COLOR_BLACK, COLOR_CYAN, 0},
    [R_DIM] = {-1, -1, A_DIM},
    [R_KEY] = {COLOR_BLACK, COLOR_CYAN, 0},
    [R_KEYLABEL] = {-1, -1, 0},
    [R_ALIVE] = {COLOR_GREEN, COLOR_BLUE, A_BOLD},
    [R_EXITED] = {COLOR_WHITE, COLOR_RED, A_BOLD},
    [R_BANNER] = {COLOR_WHITE, COLOR_RED, A_BOLD},
    [R_PAUSED] = {COLOR_BLACK, COLOR_YELLOW, 0},
    [R_WARN] = {COLOR_RED, -1, A_BOLD},
    [R_HOT] = {COLOR_RED, -1, A_BOLD},
    [R_WARM] = {COLOR_YELLOW, -1, 0},
    [R_SPARK] = {COLOR_GREEN, -1, 0},
    [R_FLAME_ROOT] = {COLOR_BLACK, COLOR_WHITE, 0},
    [R_FLAME_SEL] = {COLOR_WHITE, COLOR_BLUE, A_BOLD},
    [R_PROMPT] = {-1, -1, A_BOLD},
};
/* Without color: the same meaning from reverse, bold and underline. */
static const attr_t mono[R_NROLES] = {
    [R_NORMAL] = A_NORMAL,
    [R_TITLE] = A_REVERSE,
    [R_TITLE_KEY] = A_REVERSE | A_BOLD,
    [R_TAB] = A_NORMAL,
    [R_TAB_ACTIVE] = A_REVERSE | A_BOLD,
    [R_COLHEAD] = A_BOLD | A_UNDERLINE,
    [R_COLHEAD_SORT] = A_BOLD | A_UNDERLINE | A_REVERSE,
    [R_SELECTED] = A_REVERSE,
    [R_DIM] = A_DIM,
    [R_KEY] = A_REVERSE,
    [R_KEYLABEL] = A_NORMAL,
    [R_ALIVE] = A_REVERSE | A_BOLD,
    [R_EXITED] = A_REVERSE | A_BOLD,
    [R_BANNER] = A_REVERSE | A_BOLD,
    [R_PAUSED] = A_BOLD | A_BLINK,
    [R_WARN] = A_BOLD,
    [R_HOT] = A_BOLD,
    [R_WARM] = A_NORMAL,
    [R_SPARK] = A_NORMAL,
    [R_FLAME_ROOT] = A_REVERSE,
    [R_FLAME_SEL] = A_BOLD | A_UNDERLINE,
    [R_PROMPT] = A_BOLD,
};

/* Warm colors, as flame graphs are drawn (flamegraph.pl's "hot"). */
static const short flame256[NFLAME] = {166, 172, 208, 214, 178, 209, 215, 202};
static const short flame8[3] = {COLOR_RED, COLOR_YELLOW, COLOR_MAGENTA};

enum theme_depth theme_init(int want_color) {
    enum theme_depth d = THEME_MONO;
    if (want_color && has_colors() && start_color() == OK) {
        use_default_colors();
        d = COLORS >= 256 && COLOR_PAIRS >= 64 ? THEME_256 : COLORS >= 8 && COLOR_PAIRS >= 32 ? THEME_8 : THEME_MONO;
    }
    if (d == THEME_MONO) {
        memcpy(roles, mono, sizeof roles);
        flame[0] = A_REVERSE;
        nflame = 1;
        return d;
    }
    const struct spec *sp = d == THEME_256 ? spec256 : spec8;
    short pair = 1;
    for (int r = 0; r < R_NROLES; r++, pair++) {
        init_pair(pair, sp[r].fg, sp[r].bg);
        roles[r] = COLOR_PAIR(pair) | sp[r].extra;
    }
    nflame = d == THEME_256 ? NFLAME : 3;
    for (int i = 0; i < nflame; i++, pair++) {
        init_pair(pair, d == THEME_256 ? 16 : COLOR_BLACK, d == THEME_256 ? flame256[i] : flame8[i]);
        flame[i] = COLOR_PAIR(pair);
    }
    return d;
}

attr_t theme_attr(enum role r) { return r < R_NROLES ? roles[r] : A_NORMAL; }

attr_t theme_flame(const char *name) {
    uint32_t h = 2166136261u;   /* FNV-1a */
    for (const unsigned char *p = (const unsigned char *)name; p && *p; p++) h = (h ^ *p) * 16777619u;
    return flame[h % (uint32_t)nflame];
}
