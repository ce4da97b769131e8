/*
 * event_log.c -- the bounded event log (rec_model_opts.keep_log).
 *
 * Items are addressed by a 64-bit sequence number: a slice is appended at
 * its BEGIN (so a thread's items come out in begin order) and completed in
 * place at its END, if it is still there.  When the log holds max_events
 * items the oldest is dropped and counted.  Items live in 2 MiB blocks
 * taken as the log grows and handed back as its head moves on: every page
 * is touched once, never copied (growing one array by doubling spent more
 * time in the kernel clearing pages than in the model).  Instant messages
 * (up to 45 bytes, rare) sit in a ring of their own in the same order, so
 * items stay 32 bytes.
 *
 * A model being exported as it is fed (export_stream.h) has no log: its
 * items go to the streaming export instead, through the same two calls
 * (elog_add when an item is logged, elog_close when a slice ends), so the
 * model does not know which of the two it feeds.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "model_write.h"

void elog_init(struct elog *l, size_t max) {
    memset(l, 0, sizeof *l);
    l->max = max;
}

void elog_free(struct elog *l) {
    for (size_t i = 0; i < l->nblk; i++) free(l->blk[i]);
    free(l->blk);
    free(l->spare);
    free(l->msgs);
    memset(l, 0, sizeof *l);
}

/* Doubles a ring of elem-sized entries holding [head, tail); cap is a power
 * of two and so is the result.  Returns the new array or NULL. */
static void *regrow(void *a, size_t *cap, uint64_t head, uint64_t tail, size_t elem) {
    size_t ncap = *cap ? *cap * 2 : 1024;
    char *b = malloc(ncap * elem);
    if (!b) return NULL;
    /* Copy in runs that are contiguous in both rings. */
    for (uint64_t s = head; s < tail;) {
        size_t from = (size_t)(s & (*cap - 1)), to = (size_t)(s & (ncap - 1));
        uint64_t run = tail - s;
        if (run > *cap - from) run = *cap - from;
        if (run > ncap - to) run = ncap - to;
        memcpy(b + to * elem, (char *)a + from * elem, (size_t)run * elem);
        s += run;
    }
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

/* The oldest item goes. */
static void drop_head(struct elog *l) {
    l->head++;
    l->dropped++;
    if ((l->head & (ELOG_BLOCK - 1)) == 0) {   /* it left a block */
        struct litem **b = &l->blk[((l->head - 1) >> ELOG_BLOCK_BITS) & (l->nblk - 1)];
        if (!l->spare) l->spare = *b;
        else free(*b);
        *b = NULL;
    }
}

/* A block is one 2 MiB huge page where the kernel gives them (transparent
 * huge pages, "madvise" or "always"): the log is written through memory
 * that has left every cache, and with 4 KiB pages each of its pages cost
 * a page walk, which under a hypervisor is a long one.  Two recorder-web
 * servers watching the same program at once, alternating which started
 * first: the log cost 22% of the server's CPU with 4 KiB pages, 9% with
 * huge ones (docs/performance/watch.md, "The event log").  The kernel
 * zeroes a huge page at its first touch, once per block: the head's old
 * block is reused (spare), so a full log takes no new pages.  The price:
 * a log holding a few events is 2 MiB resident, not a few pages. */
#define ELOG_BLOCK_BYTES ((size_t)ELOG_BLOCK * sizeof(struct litem))
_Static_assert(ELOG_BLOCK_BYTES == 2u << 20, "a block is one huge page");

static struct litem *block_alloc(void) {
    void *p = aligned_alloc(ELOG_BLOCK_BYTES, ELOG_BLOCK_BYTES);
#ifdef MADV_HUGEPAGE
    if (p) (void)madvise(p, ELOG_BLOCK_BYTES, MADV_HUGEPAGE);   /* a hint: refused, the block still works */
#endif
    return p;
}

/* A block for the tail, which is at a block boundary; 0 or -1. */
static int new_block(struct elog *l) {
    if (!l->nblk) {
        size_t n = 2;   /* the head's block, the tail's, and whatever max needs */
        while (n < l->max / ELOG_BLOCK + 2) n *= 2;
        l->blk = calloc(n, sizeof *l->blk);
        if (!l->blk) return -1;
        l->nblk = n;
    }
    struct litem **b = &l->blk[(l->tail >> ELOG_BLOCK_BITS) & (l->nblk - 1)];
    if (*b) return 0;   /* cannot happen: the head left it */
    if (l->spare) {
        *b = l->spare;
        l->spare = NULL;
    } else {
        *b = block_alloc();
    }
    return *b ? 0 : -1;
}

uint64_t elog_add_slow(struct elog *l, const struct litem *it, const char *msg, unsigned msg_len) {
    if (l->tap) return l->tap->add(l->tap_ctx, it, msg, msg_len);
    if (!l->max) return UINT64_MAX;
    if (l->tail - l->head >= l->max) drop_head(l);
    if ((l->tail & (ELOG_BLOCK - 1)) == 0 && new_block(l) != 0) {
        l->dropped++;   /* out of memory: this one is lost, counted */
        return UINT64_MAX;
    }
    struct litem *d = elog_item(l, l->tail);
    *d = *it;
    if (it->kind == REC_ITEM_INSTANT) d->u = msg && msg_len ? add_msg(l, msg, msg_len) : UINT64_MAX;
    return l->tail++;
}

const char *elog_msg(const struct elog *l, const struct litem *it) {
    if (it->kind != REC_ITEM_INSTANT || it->u == UINT64_MAX || it->u < l->mhead || it->u >= l->mtail) return "";
    return l->msgs[it->u & (l->mcap - 1)];
}

void elog_close(struct elog *l, uint64_t seq, double end, unsigned flags) {
    int64_t e = model_round_ns(end);
    if (l->tap) {
        l->tap->close(l->tap_ctx, seq, e, flags);
        return;
    }
    struct litem *it = elog_at(l, seq);
    if (!it) return;   /* dropped meanwhile */
    it->end = e < it->ts ? it->ts : e;
    it->flags = (uint8_t)flags;
}
