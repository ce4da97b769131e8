/*
 * drain.c -- a bounded pass from the rings into the model (see drain.h).
 */
#include "drain.h"

#include <stdlib.h>
#include <string.h>

int drain_init(struct drain *d, uint32_t max_threads, uint64_t ring_entries, size_t per_thread, size_t per_pass) {
    memset(d, 0, sizeof *d);
    d->max_threads = (int)max_threads;
    d->per_thread = per_thread;
    d->per_pass = per_pass < per_thread ? per_thread : per_pass;
    d->ring_entries = (double)ring_entries;
    d->th = calloc(max_threads ? max_threads : 1, sizeof *d->th);
    d->ent = malloc(per_thread * sizeof *d->ent);
    if (!d->th || !d->ent) {
        drain_free(d);
        return -1;
    }
    return 0;
}

void drain_free(struct drain *d) {
    free(d->th);
    free(d->ent);
    memset(d, 0, sizeof *d);
}

/* A string id tagged with its program; an id too large to tag becomes
 * the placeholder of a full string table. */
static uint32_t tag_id(const struct drain_map *map, uint32_t id) {
    if (id <= REC_ID_OVERFLOW) return id;
    return id > DRAIN_ID_MASK ? REC_ID_OVERFLOW : id | map->tag;
}

/* Entries of another program, as the model of the first expects them. */
static void remap(const struct drain_map *map, struct rec_entry *e, size_t n) {
    for (size_t i = 0; i < n; i++) {
        unsigned type = REC_EV_TYPE(e[i].w1);
        if (type == REC_EV_CONT) continue;
        if (type == REC_EV_BEGIN || type == REC_EV_END || type == REC_EV_INSTANT || type == REC_EV_COUNTER ||
            type == REC_EV_THREAD_NAME || type == REC_EV_ARG)
            e[i].w1 = (e[i].w1 & ~(uint64_t)UINT32_MAX) | tag_id(map, REC_EV_ID(e[i].w1));
        if (!map->from) continue;
        /* Its time on the first program's clock; anything that does not
         * fit a tick count (a hostile timestamp) goes to the start. */
        double ns = rec_seg_ticks_to_ns(map->from, e[i].w0) + map->offset_ns;
        double ticks = (double)map->ticks0 + ns * map->ticks_per_ns;
        e[i].w0 = ticks >= 0 && ticks < 1.8e19 ? (uint64_t)ticks : 0;
    }
}

/* Reads one thread's new entries (at most cap) and feeds them. */
static size_t drain_thread(struct drain *d, rec_seg *s, rec_model *m, const struct rec_thread_info *t, size_t cap,
                           size_t *entries) {
    struct rec_loss loss = {0};
    uint64_t first;
    size_t got = rec_seg_read(s, t->slot, d->ent, cap, &first, &loss);
    if (d->map) remap(d->map, d->ent, got);
    uint32_t slot = d->map ? d->map->slot_base + t->slot : t->slot;
    /* Even with nothing read: the loss must reach the model. */
    size_t total = rec_model_feed_entries(m, slot, d->ent, got, first, &loss);
    *entries = got;
    /* A full read, or a writer that lapped us (the read then trims what
     * it overwrote meanwhile, so it comes back short): there is more. */
    if (got == cap || loss.overwritten) d->more = 1;
    return total;
}

size_t drain_pass(struct drain *d, rec_seg *s, rec_model *m, double *fill) {
    int n = rec_seg_threads(s, d->th, d->max_threads);
    size_t total = 0, budget = d->per_pass;
    double worst = 0;
    d->more = 0;
    if (n <= 0) {
        *fill = 0;
        return 0;
    }
    if (d->next >= n) d->next = 0;
    for (int k = 0; k < n; k++) {
        const struct rec_thread_info *t = &d->th[(d->next + k) % n];
        if (d->map) {   /* another program's slot, in the model's numbering */
            struct rec_thread_info c = *t;
            c.slot += d->map->slot_base;
            c.name_id = tag_id(d->map, c.name_id);
            rec_model_thread(m, &c);
        } else {
            rec_model_thread(m, t);
        }
        uint64_t cur = rec_seg_cursor(s, t->slot);
        double f = t->head > cur ? (double)(t->head - cur) / d->ring_entries : 0;
        if (f > worst) worst = f;
        if (t->head <= cur && t->dropped == 0) continue;   /* nothing new */
        if (budget == 0) {                                 /* next pass */
            d->more = 1;
            continue;
        }
        size_t cap = budget < d->per_thread ? budget : d->per_thread, used = 0;
        total += drain_thread(d, s, m, t, cap, &used);
        budget -= used < budget ? used : budget;
    }
    d->next = (d->next + 1) % n;
    *fill = worst;
    return total;
}
