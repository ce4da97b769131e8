/*
 * wbuf.c -- the growable byte buffer the protocol encoders write into.
 */
#include <stdlib.h>

#include "wire.h"

void wb_init(struct wbuf *b, size_t cap) {
    b->len = 0;
    b->oom = 0;
    b->cap = cap ? cap : 256;
    b->mem = malloc(WIRE_PRE + b->cap);
    if (!b->mem) {
        b->cap = 0;
        b->oom = 1;
    }
}

void wb_free(struct wbuf *b) {
    free(b->mem);
    b->mem = NULL;
    b->len = b->cap = 0;
}

void wb_reset(struct wbuf *b) {
    b->len = 0;
    b->oom = !b->mem;
}

int wb_grow(struct wbuf *b, size_t need) {
    if (b->oom) return -1;
    size_t cap = b->cap ? b->cap : 256;
    while (cap < b->len + need) cap *= 2;
    unsigned char *m = realloc(b->mem, WIRE_PRE + cap);
    if (!m) {
        b->oom = 1;
        return -1;
    }
    b->mem = m;
    b->cap = cap;
    return 0;
}
