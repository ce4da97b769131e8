/*
 * event_log.c -- the bounded event log (rec_model_opts.keep_log).
 *
 * Items live in a ring addressed by a 64-bit sequence number: a slice is
 * appended at its BEGIN (so a thread's items come out in begin order) and
 * completed in place at its END, if it is still there.  When the log holds
 * max_events items the oldest is dropped and counted.  Instant messages
 * (up to 45 bytes, rare) sit in a second ring in the same order, so items
 * stay 32 bytes.  Both rings start small and double up to the bound.
 */
#include <stdlib.h>
#include <string.h>

#include "model.h"

void elog_init(struct elog *l, size_t max) {
    memset(l, 0, sizeof *l);
    l->max = max;
}

void elog_free(struct elog *l) {
    free(l->a);
    free(l->msgs);
    memset(l, 0, sizeof *l);
}

/* Doubles a ring of elem-sized entries holding [head, tail); cap is a power
 * of two and so is the result.  Returns the new array or NULL. */
static void *regrow(void *a, size_t *cap, uint64_t head, uint64_t tail, size_t elem) {
    size_t ncap = *cap ? *cap * 2 : 1024;
    char *b = malloc(ncap * elem);
    if (!b) return NULL;
    for (uint64_t s = head; s < tail; s++)
        memcpy(b + (s & (ncap - 1)) * elem, (char *)a + (s & (*cap - 1)) * elem, elem);
    free(a);
    *cap = ncap;
    return b;
}

static uint64_t add_msg(struct elog *l, const char *msg, unsigned len) {
    if (l->mtail - l->mhead == l->mcap) {
        void *b = l->mcap < l->max ? regrow(l->msgs, &l->mcap, l->mhead, l->mtail, sizeof *l->msgs) : NULL;
        if (b) l->msgs = b;
        else if (l->mcap) l->mhead++;   /* its instant shows no message */
        else return UINT64_MAX;
    }
    char *d = l->msgs[l->mtail & (l->mcap - 1)];
    memcpy(d, msg, len);
    d[len] = 0;
    return l->mtail++;
}

uint64_t elog_add(struct elog *l, const struct litem *it, const char *msg, unsigned msg_len) {
    if (!l->max) return UINT64_MAX;
    if (l->tail - l->head >= l->max || l->tail - l->head == l->cap) {
        void *b = NULL;
        if (l->tail - l->head < l->max) b = regrow(l->a, &l->cap, l->head, l->tail, sizeof *l->a);
        if (b) {
            l->a = b;
        } else if (l->cap) {
            l->head++;              /* the oldest goes, counted */
            l->dropped++;
        } else {
            l->dropped++;
            return UINT64_MAX;
        }
    }
    struct litem *d = &l->a[l->tail & (l->cap - 1)];
    *d = *it;
    if (it->kind == REC_ITEM_INSTANT) d->u = msg && msg_len ? add_msg(l, msg, msg_len) : UINT64_MAX;
    return l->tail++;
}

struct litem *elog_at(struct elog *l, uint64_t seq) {
    if (seq < l->head || seq >= l->tail) return NULL;
    return &l->a[seq & (l->cap - 1)];
}

const char *elog_msg(const struct elog *l, const struct litem *it) {
    if (it->kind != REC_ITEM_INSTANT || it->u == UINT64_MAX || it->u < l->mhead || it->u >= l->mtail) return "";
    return l->msgs[it->u & (l->mcap - 1)];
}
