/*
 * input.c -- key bindings and the filter prompt's editor (see input.h).
 *
 * The bindings follow the tools users know: q quits (top, htop), arrows and
 * PgUp/PgDn move, / filters (less, htop), ? helps, Tab cycles (Tracy).
 */
#include "input.h"

#include <curses.h>
#include <string.h>

#include "text.h"

#define CTRL(c) ((c) & 0x1f)
#define ESC 27
#define DEL 127

enum action input_action(uint32_t key, int is_code) {
    if (is_code) {
        switch (key) {
        case KEY_UP: return ACT_UP;
        case KEY_DOWN: return ACT_DOWN;
        case KEY_LEFT: return ACT_LEFT;
        case KEY_RIGHT: return ACT_RIGHT;
        case KEY_PPAGE: return ACT_PAGE_UP;
        case KEY_NPAGE: return ACT_PAGE_DOWN;
        case KEY_HOME: return ACT_HOME;
        case KEY_END: return ACT_END;
        case KEY_ENTER: return ACT_ENTER;
        case KEY_BACKSPACE: return ACT_BACK;
        case KEY_BTAB: return ACT_VIEW_PREV;
        case KEY_RESIZE: return ACT_RESIZE;
        case KEY_F(1): return ACT_HELP;
        case KEY_F(10): return ACT_QUIT;
        default: return ACT_NONE;
        }
    }
    switch (key) {
    case 'q': case 'Q': return ACT_QUIT;
    case '\t': return ACT_VIEW_NEXT;
    case '1': return ACT_VIEW_TOP;
    case '2': return ACT_VIEW_FLAME;
    case '3': return ACT_VIEW_THREADS;
    case '4': return ACT_VIEW_COUNTERS;
    case '5': return ACT_VIEW_MESSAGES;
    case 'w': case 'W': return ACT_WINDOW;
    case 's': return ACT_SORT;
    case 'S': return ACT_SORT_REVERSE;
    case '/': return ACT_FILTER;
    case 't': return ACT_THREAD_NEXT;
    case 'T': return ACT_THREAD_PREV;
    case 'p': case 'P': case ' ': return ACT_PAUSE;
    case 'f': case 'F': return ACT_FOLD;
    case '?': case 'h': return ACT_HELP;
    case 'k': return ACT_UP;
    case 'j': return ACT_DOWN;
    case '\r': case '\n': return ACT_ENTER;
    case DEL: case CTRL('H'): case ESC: return ACT_BACK;
    case CTRL('L'): return ACT_REDRAW;
    case 'g': return ACT_HOME;
    case 'G': return ACT_END;
    default: return ACT_NONE;
    }
}

int list_move(enum action act, int sel, int n, int page, int *out) {
    switch (act) {
    case ACT_UP: sel--; break;
    case ACT_DOWN: sel++; break;
    case ACT_PAGE_UP: sel -= page; break;
    case ACT_PAGE_DOWN: sel += page; break;
    case ACT_HOME: sel = 0; break;
    case ACT_END: sel = n - 1; break;
    default: return 0;
    }
    if (sel >= n) sel = n - 1;
    if (sel < 0) sel = 0;
    *out = sel;
    return 1;
}

void line_edit_set(struct line_edit *e, const char *s) {
    size_t n = strlen(s);
    if (n > LINE_EDIT_MAX) n = LINE_EDIT_MAX;
    memcpy(e->buf, s, n);
    e->buf[n] = 0;
    e->len = n;
}

enum edit_result line_edit_key(struct line_edit *e, uint32_t key, int is_code) {
    if (is_code) {
        if (key == KEY_ENTER) return EDIT_ACCEPT;
        if (key != KEY_BACKSPACE) return EDIT_MORE;
        key = DEL;
    }
    switch (key) {
    case '\r': case '\n': return EDIT_ACCEPT;
    case ESC: return EDIT_CANCEL;
    case CTRL('U'):
        e->len = 0;
        e->buf[0] = 0;
        return EDIT_MORE;
    case DEL: case CTRL('H'):
        /* Drop a whole character, not a byte of one. */
        while (e->len > 0) {
            unsigned char c = (unsigned char)e->buf[--e->len];
            if ((c & 0xc0) != 0x80) break;
        }
        e->buf[e->len] = 0;
        return EDIT_MORE;
    default:
        if (key < 0x20 || key == DEL || (key >= 0x80 && key < 0xa0) || key > 0x10ffff) return EDIT_MORE;
        e->len += utf8_put(e->buf + e->len, LINE_EDIT_MAX - e->len, key);
        e->buf[e->len] = 0;
        return EDIT_MORE;
    }
}
