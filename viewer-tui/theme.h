/*
 * theme.h -- colors and attributes by role, chosen once for the terminal:
 * 256 colors, 8 colors, or none (NO_COLOR, --no-color, or a terminal
 * without colors), where reverse video, bold and underline carry the
 * meaning alone.
 */
#ifndef TUI_THEME_H
#define TUI_THEME_H

#include <curses.h>
#include <stdint.h>

enum role {
    R_NORMAL,
    R_TITLE,         /* the top bar */
    R_TITLE_KEY,     /* emphasized text in the top bar */
    R_TAB,           /* inactive view tab */
    R_TAB_ACTIVE,
    R_COLHEAD,       /* table column titles */
    R_COLHEAD_SORT,  /* the column sorted by */
    R_SELECTED,      /* the cursor row */
    R_DIM,
    R_KEY,           /* a key in the bottom bar */
    R_KEYLABEL,      /* what it does */
    R_ALIVE,
    R_EXITED,
    R_BANNER,        /* "the program has exited" */
    R_PAUSED,
    R_WARN,          /* losses */
    R_HOT,           /* >= 50 % */
    R_WARM,          /* >= 10 % */
    R_SPARK,
    R_FLAME_ROOT,
    R_FLAME_SEL,
    R_PROMPT,
    R_NROLES
};

enum theme_depth { THEME_MONO = 0, THEME_8 = 1, THEME_256 = 2 };

/* Call after initscr; want_color = 0 forces monochrome. */
enum theme_depth theme_init(int want_color);
attr_t theme_attr(enum role r);
/* A flame frame's attribute, from its name: the same name keeps its color
 * from one refresh to the next. */
attr_t theme_flame(const char *name);

#endif
