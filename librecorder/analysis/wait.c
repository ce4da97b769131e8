/*
 * wait.c -- which scopes are waits (docs/analysis.md, "Wait scopes").
 *
 * A scope is a wait when its begin or end carried REC_EV_WAIT
 * (REC_SCOPE_WAIT), or when its name is one of the wait names: for code
 * that cannot easily be changed, and for traces already recorded.  A name
 * is checked once, when its text is known (a string may be published after
 * the event that uses it was read: until then it is asked again).
 */
#include <stdlib.h>
#include <string.h>

#include "model_write.h"

void model_wait_names(rec_model *m, const char *list) {
    if (!list) list = getenv("RECORDER_WAIT_SCOPES");
    if (!list) return;
    for (const char *p = list; *p;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        const char *a = p, *b = p + len;
        while (a < b && (*a == ' ' || *a == '\t')) a++;
        while (b > a && (b[-1] == ' ' || b[-1] == '\t')) b--;
        if (b > a) {
            char **v = realloc(m->wait_pats, (m->n_wait_pats + 1) * sizeof *v);
            if (!v) return;   /* out of memory: fewer wait names, nothing worse */
            m->wait_pats = v;
            char *s = strndup(a, (size_t)(b - a));
            if (!s) return;
            m->wait_pats[m->n_wait_pats++] = s;
        }
        p = e ? e + 1 : p + len;
    }
}

static int matches(const char *pat, const char *name) {
    size_t n = strlen(pat);
    if (n && pat[n - 1] == '*') return strncmp(pat, name, n - 1) == 0;
    return strcmp(pat, name) == 0;
}

int model_name_wait(rec_model *m, uint32_t local) {
    if (local >= m->n_names) return 0;
    struct name *n = &m->names[local];
    if (n->wait_marked) return 1;
    if (n->wait_named == 0) {
        if (!m->n_wait_pats) {
            n->wait_named = 1;
        } else {
            model_name_text(m, local);
            if (!n->text) return 0;   /* not resolved yet: ask again later */
            n->wait_named = 1;
            for (size_t i = 0; i < m->n_wait_pats; i++)
                if (matches(m->wait_pats[i], n->text)) n->wait_named = 2;
        }
    }
    return n->wait_named == 2;
}

int rec_model_name_is_wait(rec_model *m, uint32_t name_id) {
    uint64_t *v = u64map_get(&m->name_idx, name_id);
    return v ? model_name_wait(m, (uint32_t)*v) : 0;
}
