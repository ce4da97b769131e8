/*
 * fold.c -- folding layer numbers out of scope names (docs/analysis.md,
 * "Folding layer numbers").
 *
 * A model of a transformer names the same op once per layer: ffn_up-0 ...
 * ffn_up-31.  Folded, those are one row, ffn_up-*, whose statistics are the
 * layers' together (percentiles from the merged histograms, so they stay
 * exact to the histogram's resolution).  The rule is purely textual, the
 * same in every viewer: each maximal run of decimal digits that follows
 * '-', '.' or '_' and ends the name or is followed by '-', '.', '_' or a
 * space becomes '*' (the space: llama.cpp's "Qcur-6 (view) (permuted)").
 *
 * Each local name gets a representative: the first name with the same
 * folded text.  A name whose text the source has not resolved yet is its
 * own representative until it is (model_name_text may resolve it later).
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

static int is_sep(char c) { return c == '-' || c == '.' || c == '_'; }

size_t rec_name_fold(const char *in, char *out, size_t cap) {
    size_t n = 0, i = 0;
    if (!in) in = "";
    while (in[i]) {
        size_t j = i;
        if (i > 0 && is_sep(in[i - 1]))
            while (in[j] >= '0' && in[j] <= '9') j++;
        if (j > i && (in[j] == 0 || is_sep(in[j]) || in[j] == ' ')) {
            if (cap && n + 1 < cap) out[n] = '*';
            n++;
            i = j;
            continue;
        }
        if (cap && n + 1 < cap) out[n] = in[i];
        n++;
        i++;
    }
    if (cap) out[n < cap ? n : cap - 1] = 0;
    return n;
}

void rec_model_set_fold(rec_model *m, int on) { m->fold_on = on != 0; }

int rec_model_fold(const rec_model *m) { return m->fold_on; }

/* FNV-1a: the folded text's key in fold_idx (a collision falls back to
 * not folding that name; never to merging two different names). */
static uint64_t text_hash(const char *s) {
    uint64_t h = UINT64_C(14695981039346656037);
    for (; *s; s++) h = (h ^ (unsigned char)*s) * UINT64_C(1099511628211);
    return h == U64MAP_EMPTY ? h - 1 : h;
}

/* The folded text of a representative, or its own text. */
static const char *rep_text(rec_model *m, uint32_t local) {
    const struct name *n = &m->names[local];
    return n->fold_text ? n->fold_text : model_name_text(m, local);
}

uint32_t model_fold_rep(rec_model *m, uint32_t local) {
    if (local >= m->n_names) return local;
    struct name *n = &m->names[local];
    if (n->fold_rep) return n->fold_rep - 1;
    model_name_text(m, local);            /* resolves the text if the source can */
    if (!n->text) return local;           /* not resolved yet: ask again later */
    size_t len = rec_name_fold(n->text, NULL, 0);
    char *f = malloc(len + 1);
    if (!f) return local;
    rec_name_fold(n->text, f, len + 1);
    uint32_t rep = local;
    int isnew = 0;
    uint64_t *v = u64map_put(&m->fold_idx, text_hash(f), &isnew);
    if (v && isnew) {
        *v = local;
    } else if (v && *v < m->n_names && strcmp(rep_text(m, (uint32_t)*v), f) == 0) {
        rep = (uint32_t)*v;
    }
    if (rep == local && strcmp(f, n->text) != 0) n->fold_text = f;
    else free(f);
    n->fold_rep = rep + 1;
    return rep;
}

const char *model_fold_text(rec_model *m, uint32_t rep) {
    return rep < m->n_names ? rep_text(m, rep) : model_name_text(m, rep);
}
