/*
 * lanes.c -- the bounded lane table and the lanes' open-scope stacks (see
 * lanes.h).  Publishing what changed is threads_pub.c's.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "clamp.h"
#include "lanes.h"

int lanes_init(struct lanes *l, uint32_t max_slots, struct threads_pub **slot) {
    memset(l, 0, sizeof *l);
    size_t ns = max_slots ? max_slots : 1;
    l->cap = 16;
    l->v = calloc(l->cap, sizeof *l->v);
    l->free_h = calloc(LANES_CAP, sizeof *l->free_h);
    l->order = calloc(LANES_CAP, sizeof *l->order);
    l->retired_ids = calloc(LANES_CAP, sizeof *l->retired_ids);
    l->cur = calloc(ns, sizeof *l->cur);
    l->gone = calloc(ns, sizeof *l->gone);
    l->folded_gen = calloc(ns, sizeof *l->folded_gen);
    l->top = 1;
    l->next_id = 1;
    l->max_slots = max_slots;
    l->slot = slot;
    l->dirty = 1;
    if (!l->v || !l->free_h || !l->order || !l->retired_ids || !l->cur || !l->gone || !l->folded_gen) {
        lanes_destroy(l);
        return -1;
    }
    return 0;
}

void lanes_destroy(struct lanes *l) {
    free(l->v);
    free(l->free_h);
    free(l->order);
    free(l->retired_ids);
    free(l->cur);
    free(l->gone);
    free(l->folded_gen);
    memset(l, 0, sizeof *l);
}

/* A free handle, or 0 when the table is at LANES_CAP (or out of memory). */
static uint32_t new_handle(struct lanes *l) {
    if (l->n >= LANES_CAP) return 0;
    if (l->n_free) return l->free_h[--l->n_free];
    if (l->top == l->cap) {
        uint32_t cap = l->cap * 2 > LANES_CAP + 1 ? LANES_CAP + 1 : l->cap * 2;
        struct lane *v = realloc(l->v, cap * sizeof *v);
        if (!v) return 0;
        l->v = v;
        l->cap = cap;
    }
    return l->top++;
}

/* Count a thread that gets no lane because the table is full, once. */
static void fold(struct lanes *l, uint32_t slot, uint32_t gen) {
    if (l->folded_gen[slot] == gen + 1) return;
    l->folded_gen[slot] = gen + 1;
    l->folded++;
    l->dirty = 1;
}

uint32_t lanes_find(const struct lanes *l, uint32_t slot, uint32_t gen) {
    if (slot >= l->max_slots) return 0;
    gen &= LANE_GEN_MASK;
    for (uint32_t i = 0; i < l->n; i++) {
        uint32_t h = l->order[i];
        if (l->v[h].slot == slot && l->v[h].gen == gen) return h;
    }
    return 0;
}

uint32_t lanes_get(struct lanes *l, uint32_t slot, uint32_t gen) {
    if (slot >= l->max_slots) return 0;
    gen &= LANE_GEN_MASK;
    if (gen < l->gone[slot]) return 0;   /* retired: its events are not shown */
    uint32_t c = l->cur[slot];
    if (c && l->v[c].gen == gen) return c;
    if (c && gen < l->v[c].gen) {
        /* An older generation read late (a ring's tail before THREAD_START). */
        for (uint32_t i = 0; i < l->n; i++) {
            uint32_t h = l->order[i];
            if (l->v[h].slot == slot && l->v[h].gen == gen) return h;
        }
    }
    uint32_t h = l->next_id == UINT32_MAX ? 0 : new_handle(l);
    if (!h) {
        fold(l, slot, gen);
        return 0;
    }
    struct lane *ln = &l->v[h];
    memset(ln, 0, offsetof(struct lane, stk_name));
    ln->id = l->next_id++;
    ln->slot = slot;
    ln->gen = gen;
    ln->state = REC_SLOT_LIVE;
    ln->changed = 1;
    l->order[l->n++] = h;
    /* The newest generation of a slot is its current thread; the ones
     * before it have exited. */
    if (!c || l->v[c].gen < gen) {
        if (c && l->v[c].state != REC_SLOT_EXITED) {
            l->v[c].state = REC_SLOT_EXITED;
            l->v[c].changed = 1;
        }
        l->cur[slot] = h;
    } else {
        ln->state = REC_SLOT_EXITED;
    }
    l->dirty = 1;
    return h;
}

static void changed(struct lanes *l, struct lane *ln) {
    ln->changed = 1;
    l->dirty = 1;
}

void lanes_update(struct lanes *l, const struct rec_thread_info *t) {
    uint32_t h = lanes_get(l, t->slot, t->gen);
    if (!h) return;
    struct lane *ln = &l->v[h];
    unsigned state = t->state == REC_SLOT_LIVE ? REC_SLOT_LIVE : REC_SLOT_EXITED;
    /* A newer generation already made this one exited, whatever the
     * slot table said when it was read. */
    if (l->cur[t->slot] != h) state = REC_SLOT_EXITED;
    unsigned kind = t->lane_kind;   /* the reader reads an unknown kind as a thread */
    uint32_t device = kind == REC_LANE_THREAD ? 0 : t->lane_device;
    uint64_t stream = kind == REC_LANE_GPU_STREAM ? t->lane_stream : 0;
    if (ln->tid != t->tid || ln->state != state || strncmp(ln->name, t->name, sizeof ln->name - 1) ||
        ln->kind != kind || ln->device != device || ln->stream != stream) {
        ln->kind = kind;
        ln->device = device;
        ln->stream = stream;
        ln->tid = t->tid;
        ln->state = state;
        memcpy(ln->name, t->name, sizeof ln->name);
        ln->name[sizeof ln->name - 1] = 0;
        changed(l, ln);
    }
}

void lanes_set_tid(struct lanes *l, uint32_t h, int tid) {
    if (h && h < l->top && l->v[h].tid != tid) {
        l->v[h].tid = tid;
        changed(l, &l->v[h]);
    }
}

void lanes_set_name(struct lanes *l, uint32_t h, const char *name) {
    if (!h || h >= l->top || !name) return;
    struct lane *ln = &l->v[h];
    if (strncmp(ln->name, name, sizeof ln->name - 1)) {
        strncpy(ln->name, name, sizeof ln->name - 1);
        ln->name[sizeof ln->name - 1] = 0;
        changed(l, ln);
    }
}

/* Oldest exited lanes first, until at most LANES_MAX remain.  Live lanes
 * stay whatever their age; if more than LANES_MAX are live, the table
 * stays over (up to LANES_CAP) and new threads are folded. */
void lanes_retire(struct lanes *l) {
    if (l->n <= LANES_MAX) return;
    uint32_t over = l->n - LANES_MAX, k = 0;
    for (uint32_t i = 0; i < l->n; i++) {
        uint32_t h = l->order[i];
        struct lane *ln = &l->v[h];
        /* retired_ids holds LANES_CAP: if a failed publish left it full,
         * the rest waits for the next one. */
        if (over == 0 || ln->state != REC_SLOT_EXITED || l->n_retired == LANES_CAP) {
            l->order[k++] = h;
            continue;
        }
        over--;
        l->retired_ids[l->n_retired++] = ln->id;
        l->retired++;
        if (l->gone[ln->slot] <= ln->gen) l->gone[ln->slot] = ln->gen + 1;
        if (l->cur[ln->slot] == h) l->cur[ln->slot] = 0;
        ln->id = 0;
        l->free_h[l->n_free++] = h;
        l->dirty = 1;
    }
    l->n = k;
}

void lane_begin(struct lane *ln, uint32_t name, int64_t ts) {
    if (ln->depth < LANE_STACK) {
        ln->stk_name[ln->depth] = name;
        ln->stk_ts[ln->depth] = ts;
    }
    if (ln->depth < INT32_MAX) ln->depth++;
}

/* An END closes the innermost scope when its name is 0 or matches; a
 * named END that matches a scope further out closes everything inside it
 * too (their ENDs were filtered or lost); one that matches nothing is an
 * orphan whose BEGIN was lost, and changes nothing. */
void lane_end(struct lane *ln, uint32_t name) {
    if (ln->depth == 0) return;
    if (name == 0 || ln->depth > LANE_STACK || ln->stk_name[ln->depth - 1] == name) {
        ln->depth--;
        return;
    }
    for (int k = ln->depth - 1; k-- > 0;)
        if (ln->stk_name[k] == name) {
            ln->depth = k;
            return;
        }
}

void lane_lost(struct lane *ln, uint64_t overwritten, uint64_t dropped) {
    ln->depth = 0;
    ln->lost_over = rec_sat_add(ln->lost_over, overwritten);
    ln->lost_drop = rec_sat_add(ln->lost_drop, dropped);
}
