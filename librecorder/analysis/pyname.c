/*
 * pyname.c -- a Python scope's recorded name, split into the name a JSON
 * trace shows and the args that hold its file and line (docs/python.md,
 * "Names in the JSON").
 *
 * A segment has no room for arguments, so python/recorder records a
 * function as "qualname (file.py:LINE)" and a line (-l) as
 * "file.py:LINE (qualname)": recorder-top and recorder-web show that.  The
 * JSON exporter writes such a slice as
 *
 *     "name":"fib","args":{"file":"bench.py","line":12}
 *     "name":"bench.py:12","args":{"function":"fib","file":"bench.py","line":12}
 *
 * on its begin and its end alike, so a reader pairs them as before and
 * Perfetto shows file and line as arguments.  Here, once per name, so the
 * export stays at its own speed.  The forms are exact: FILE is "<...>"
 * (<string>, <stdin>) or ends in ".py" or ".pyw", and holds no parentheses;
 * LINE is 1 to 9 ASCII digits; the line form's function holds no
 * parentheses and is not empty.  Any other name is left as it is, so a C
 * scope named "layer (blk.c:3)" keeps its name.
 */
#include "pyname.h"

#include <stdlib.h>
#include <string.h>

#include "outbuf.h"

#define LINE_DIGITS_MAX 9   /* < 10^9: fits the args' number exactly */

static int has_paren(const char *s, size_t n) {
    return memchr(s, '(', n) != NULL || memchr(s, ')', n) != NULL;
}

static int ends_with(const char *s, size_t n, const char *tail) {
    size_t k = strlen(tail);
    return n >= k && !memcmp(s + n - k, tail, k);
}

/* "FILE:LINE" (s, n): FILE a Python file, LINE digits.  1 if so. */
static int file_line(const char *s, size_t n, struct pyname *p) {
    if (has_paren(s, n)) return 0;
    const char *colon = NULL;
    for (size_t i = n; i > 0; i--)
        if (s[i - 1] == ':') {
            colon = s + i - 1;
            break;
        }
    if (!colon) return 0;
    size_t flen = (size_t)(colon - s), dlen = n - flen - 1;
    if (dlen == 0 || dlen > LINE_DIGITS_MAX) return 0;
    uint32_t line = 0;
    for (size_t i = 0; i < dlen; i++) {
        char d = colon[1 + i];
        if (d < '0' || d > '9') return 0;
        line = line * 10 + (uint32_t)(d - '0');
    }
    int pyfile = ends_with(s, flen, ".py") || ends_with(s, flen, ".pyw") ||
                 (flen >= 2 && s[0] == '<' && s[flen - 1] == '>');
    if (!pyfile) return 0;
    p->file = s;
    p->file_len = flen;
    p->digits = colon + 1;
    p->digits_len = dlen;
    p->line = line;
    return 1;
}

int pyname_split(const char *s, size_t n, struct pyname *p) {
    memset(p, 0, sizeof *p);
    if (n < 2 || s[n - 1] != ')') return 0;
    /* The tail " (...)": its '(' is the last one, since neither form has
     * parentheses after it. */
    const char *open = NULL;
    for (size_t i = n - 1; i > 0; i--)
        if (s[i - 1] == '(') {
            open = s + i - 1;
            break;
        }
    if (!open || open == s || open[-1] != ' ') return 0;
    const char *head = s, *in = open + 1;
    size_t head_len = (size_t)(open - 1 - s), in_len = (size_t)(s + n - 1 - in);
    if (has_paren(in, in_len)) return 0;
    /* The line form first: "file.py:LINE (function)". */
    if (in_len > 0 && file_line(head, head_len, p)) {
        p->kind = PYNAME_LINE;
        p->func = in;
        p->func_len = in_len;
        return 1;
    }
    /* The function form: "qualname (file.py:LINE)"; qualname may hold
     * anything (it may have parentheses of its own), but not be empty. */
    if (head_len > 0 && file_line(in, in_len, p)) {
        p->kind = PYNAME_FUNC;
        p->name = head;
        p->name_len = head_len;
        return 1;
    }
    memset(p, 0, sizeof *p);
    return 0;
}

char *pyname_json(const char *s, size_t n, uint32_t *len) {
    struct pyname p;
    if (!pyname_split(s, n, &p)) return NULL;
    /* Every piece is a part of s: escaped, each byte takes at most 6. */
    char *f = malloc(6 * (2 * n) + 96);
    if (!f) return NULL;
    char *q = f;
    memcpy(q, "\"name\":\"", 8);
    q += 8;
    if (p.kind == PYNAME_FUNC) {
        q += json_escape(q, p.name, p.name_len);
        memcpy(q, "\",\"args\":{", 10);
        q += 10;
    } else {
        q += json_escape(q, p.file, p.file_len);
        *q++ = ':';
        memcpy(q, p.digits, p.digits_len);
        q += p.digits_len;
        memcpy(q, "\",\"args\":{\"function\":\"", 22);
        q += 22;
        q += json_escape(q, p.func, p.func_len);
        memcpy(q, "\",", 2);
        q += 2;
    }
    memcpy(q, "\"file\":\"", 8);
    q += 8;
    q += json_escape(q, p.file, p.file_len);
    memcpy(q, "\",\"line\":", 9);
    q = fmt_u64(q + 9, p.line);
    *q++ = '}';
    *len = (uint32_t)(q - f);
    return f;
}
