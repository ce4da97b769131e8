/*
 * lanes.c -- thread lanes and their open-scope stacks (see lanes.h).
 */
#include <stdlib.h>
#include <string.h>

#include "lanes.h"

int lanes_init(struct lanes *l, uint32_t max_slots, struct frame **slot) {
    memset(l, 0, sizeof *l);
    l->cap = 16;
    l->v = calloc(l->cap, sizeof *l->v);
    l->cur = calloc(max_slots ? max_slots : 1, sizeof *l->cur);
    if (!l->v || !l->cur) {
        free(l->v);
        free(l->cur);
        return -1;
    }
    l->n = 1;
    l->max_slots = max_slots;
    l->slot = slot;
    l->dirty = 1;
    return 0;
}

void lanes_destroy(struct lanes *l) {
    free(l->v);
    free(l->cur);
    memset(l, 0, sizeof *l);
}

uint32_t lanes_get(struct lanes *l, uint32_t slot, uint32_t gen) {
    if (slot >= l->max_slots) return 0;
    uint32_t c = l->cur[slot];
    if (c && l->v[c].gen == gen) return c;
    /* An older generation read late (a ring's tail before THREAD_START). */
    for (uint32_t i = l->n; i-- > 1;)
        if (l->v[i].slot == slot && l->v[i].gen == gen) return i;
    if (l->n == l->cap) {
        struct lane *v = realloc(l->v, 2 * l->cap * sizeof *v);
        if (!v) return 0;
        l->v = v;
        l->cap *= 2;
    }
    uint32_t id = l->n++;
    struct lane *ln = &l->v[id];
    memset(ln, 0, sizeof *ln);
    ln->slot = slot;
    ln->gen = gen;
    ln->state = REC_SLOT_LIVE;
    /* The newest generation of a slot is its current thread; the ones
     * before it have exited. */
    if (!c || l->v[c].gen < gen) {
        if (c) l->v[c].state = REC_SLOT_EXITED;
        l->cur[slot] = id;
    } else {
        ln->state = REC_SLOT_EXITED;
    }
    l->dirty = 1;
    return id;
}

void lanes_update(struct lanes *l, const struct rec_thread_info *t) {
    uint32_t id = lanes_get(l, t->slot, t->gen);
    if (!id) return;
    struct lane *ln = &l->v[id];
    if (ln->tid != t->tid || ln->state != t->state || strcmp(ln->name, t->name)) {
        ln->tid = t->tid;
        ln->state = t->state;
        memcpy(ln->name, t->name, sizeof ln->name);
        ln->name[sizeof ln->name - 1] = 0;
        l->dirty = 1;
    }
}

void lanes_set_tid(struct lanes *l, uint32_t id, int tid) {
    if (id && id < l->n && l->v[id].tid != tid) {
        l->v[id].tid = tid;
        l->dirty = 1;
    }
}

void lanes_set_name(struct lanes *l, uint32_t id, const char *name) {
    if (!id || id >= l->n || !name) return;
    struct lane *ln = &l->v[id];
    if (strncmp(ln->name, name, sizeof ln->name - 1)) {
        strncpy(ln->name, name, sizeof ln->name - 1);
        ln->name[sizeof ln->name - 1] = 0;
        l->dirty = 1;
    }
}

void lanes_publish(struct lanes *l) {
    if (!l->dirty) return;
    struct wbuf b;
    wb_init(&b, 64 + 96 * (size_t)l->n);
    wb_u8(&b, MSG_THREADS);
    wb_varint(&b, l->n - 1);
    for (uint32_t i = 1; i < l->n; i++) {
        const struct lane *ln = &l->v[i];
        wb_varint(&b, i);
        wb_varint(&b, ln->slot);
        wb_varint(&b, ln->gen);
        wb_svarint(&b, ln->tid);
        wb_u8(&b, ln->state == REC_SLOT_LIVE ? 1 : 0);
        wb_str(&b, ln->name, sizeof ln->name - 1);
    }
    struct frame *f = frame_from(&b);
    wb_free(&b);
    if (!f) return;   /* stays dirty: the next round tries again */
    f->version = ++l->version;
    frame_publish(l->slot, f);
    l->dirty = 0;
}

void lane_begin(struct lane *ln, uint32_t name, int64_t ts) {
    if (ln->depth < LANE_STACK) {
        ln->stk_name[ln->depth] = name;
        ln->stk_ts[ln->depth] = ts;
    }
    ln->depth++;
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

void lane_reset(struct lane *ln) { ln->depth = 0; }
