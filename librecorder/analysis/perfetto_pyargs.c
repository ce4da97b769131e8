/*
 * perfetto_pyargs.c -- a Python scope in the Perfetto export: the short
 * name its slice shows and its file, line (and function) as debug
 * annotations, as the JSON shows them (pyname.c splits the name).
 *
 * Apart from perfetto_events.c because it is one job of its own: the
 * split is cached per name (pf_py_of), the args' names are interned once
 * per sequence (pf_intern_da) and then written by iid.  Only
 * perfetto_events.c calls it; it calls nothing of the encoders back.
 */
#include <stdlib.h>
#include <string.h>

#include "perfetto_write.h"

/* pf_py_of's first call for a name: split it once; the parts point into
 * the model's copy of its text. */
const struct pyname *pf_py_split(struct pctx *c, uint32_t local) {
    struct name *nm = &c->m->names[local];
    struct pyname p;
    nm->py_checked = 1;
    /* Only a name within PF_NAME_MAX: its parts then fit PF_ROOM. */
    size_t n = strlen(nm->text);
    if (n <= PF_NAME_MAX && pyname_split(nm->text, n, &p)) {
        nm->py = malloc(sizeof *nm->py);
        if (nm->py) *nm->py = p;   /* out of memory: the name as it is */
    }
    return nm->py;
}

size_t pf_shown_name(char *dst, const char *text, const struct pyname *py) {
    if (!py) return utf8_sanitize(dst, text, strnlen(text, PF_NAME_MAX));
    if (py->kind == PYNAME_FUNC) return utf8_sanitize(dst, py->name, py->name_len);
    return utf8_sanitize(dst, py->file, (size_t)(py->digits + py->digits_len - py->file));
}

__attribute__((noinline)) uint8_t *pf_intern_da(struct prec *P, uint8_t *p, uint8_t **in) {
    static const char *const da[] = {NULL, "file", "line", "function"};
    uint8_t *en;
    if (!*in) p = pb_open(p, TP_INTERNED, in);
    for (unsigned k = PF_DA_FILE; k <= PF_DA_FUNCTION; k++) {
        p = pb_open(p, 3, &en);   /* debug_annotation_names: DebugAnnotationName {iid, name} */
        p = pb_close(pb_bytes(pb_uint(p, 1, k), 2, da[k], strlen(da[k])), en);
    }
    P->da_names = 1;
    return p;
}

/* A Python arg under its interned name (PF_DA_*): a string, or a number. */
static uint8_t *da_str_iid(uint8_t *p, unsigned iid, const char *s, size_t n) {
    uint8_t *m, *v;
    p = pb_open(p, TE_ANNOTATIONS, &m);
    p = pb_uint(p, DA_NAME_IID, iid);
    p = pb_open(p, DA_STRING, &v);
    p += utf8_sanitize((char *)p, s, n < PF_NAME_MAX ? n : PF_NAME_MAX);
    return pb_close(pb_close(p, v), m);
}

static uint8_t *da_uint_iid(uint8_t *p, unsigned iid, uint64_t v) {
    uint8_t *m;
    p = pb_open(p, TE_ANNOTATIONS, &m);
    return pb_close(pb_uint(pb_uint(p, DA_NAME_IID, iid), DA_UINT, v), m);
}

uint8_t *pf_py_args_iid(uint8_t *p, const struct pyname *py) {
    if (py->kind == PYNAME_LINE) p = da_str_iid(p, PF_DA_FUNCTION, py->func, py->func_len);
    return da_uint_iid(da_str_iid(p, PF_DA_FILE, py->file, py->file_len), PF_DA_LINE, py->line);
}
