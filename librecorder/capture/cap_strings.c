/*
 * cap_strings.c -- a capture's strings: STRINGS records loaded into one
 * text arena (blob) per process, indexed by id in 8 bytes a string, and
 * looked up by rec_cap_string (docs/capture-format.md, "Memory").
 */
#include <stdlib.h>
#include <string.h>

#include "cap_format.h"
#include "cap_read.h"
#include "internal.h"
#include "recorder/capture.h"

/* Tables grow by half: what they hold stays over two thirds of what
 * they take. */
static size_t grown(size_t cap, size_t least) { return cap + cap / 2 > least ? cap + cap / 2 : least; }

static int add_string(rec_cap *c, uint32_t id, const char *text, uint32_t len) {
    if (c->blob_len + len + 1 > UINT32_MAX) return -1;   /* str_ent.off */
    if (c->n_str == c->cap_str) {
        size_t n = grown(c->cap_str, 256);
        struct str_ent *p = realloc(c->str, n * sizeof *p);
        if (!p) return -1;
        c->str = p;
        c->cap_str = n;
    }
    if (c->blob_len + len + 1 > c->blob_cap) {
        size_t n = grown(c->blob_cap, 16384);
        while (n < c->blob_len + len + 1) n = grown(n, 0);
        char *p = realloc(c->blob, n);
        if (!p) return -1;
        c->blob = p;
        c->blob_cap = n;
    }
    char *d = c->blob + c->blob_len;
    memcpy(d, text, len);
    for (uint32_t i = 0; i < len; i++)
        if (d[i] == 0) d[i] = '?';
    d[len] = 0;
    c->str[c->n_str] = (struct str_ent){id, (uint32_t)c->blob_len};
    c->n_str++;
    c->blob_len += len + 1;
    return 0;
}

int cap_strings(rec_cap *c, const unsigned char *p, uint32_t size, int load, uint64_t *items) {
    uint32_t off = 0;
    struct str_recs *r = &c->srec;
    if (load) {
        if (r->n == r->cap) {
            size_t n = grown(r->cap, 16);
            struct str_rec *v = realloc(r->v, n * sizeof *v);
            if (!v) return -2;
            r->v = v;
            r->cap = n;
        }
        r->v[r->n++] = (struct str_rec){c->rec_at, c->blob_len};
    }
    while (off < size) {
        struct rec_cap_string_item it;
        if (size - off < sizeof it) return -1;
        memcpy(&it, p + off, sizeof it);
        off += sizeof it;
        if (it.id < REC_ID_OVERFLOW || it.len > REC_STR_MAXLEN || it.len > size - off) return -1;
        if (load && add_string(c, it.id, (const char *)p + off, it.len) != 0) return -2;
        (*items)++;
        off += it.len;
    }
    return 0;
}

static int cmp_str(const void *a, const void *b) {
    const struct str_ent *x = a, *y = b;
    if (x->id != y->id) return x->id < y->id ? -1 : 1;
    return x->off < y->off ? -1 : x->off > y->off;
}

void cap_index_strings(rec_cap *c) {
    if (!c->n_str) return;
    qsort(c->str, c->n_str, sizeof *c->str, cmp_str);
    size_t k = 1;
    for (size_t i = 1; i < c->n_str; i++)
        if (c->str[i].id != c->str[k - 1].id) c->str[k++] = c->str[i];
    c->n_str = k;
}

const char *rec_cap_string(rec_cap *c, uint32_t id) {
    size_t lo = 0, hi = c->n_str;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (c->str[mid].id < id) lo = mid + 1;
        else hi = mid;
    }
    if (lo == c->n_str || c->str[lo].id != id) return NULL;
    /* A lazily opened file may turn out to end before the record that
     * defined it: then it is not in the valid part. */
    const struct str_recs *r = &c->srec;
    size_t a = 0, b = r->n;
    while (a < b) {   /* the first record at or past the valid part's end */
        size_t mid = a + (b - a) / 2;
        if (r->v[mid].at < c->info.valid_size) a = mid + 1;
        else b = mid;
    }
    if (a < r->n && c->str[lo].off >= r->v[a].blob) return NULL;
    return c->blob + c->str[lo].off;
}

