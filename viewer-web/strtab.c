/*
 * strtab.c -- the dense name table (see strtab.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "shared.h"
#include "strtab.h"

static struct strtab_pub *pub_new(uint32_t cap) {
    struct strtab_pub *p = calloc(1, sizeof *p);
    if (!p) return NULL;
    p->names = calloc(cap, sizeof *p->names);
    if (!p->names) {
        free(p);
        return NULL;
    }
    p->cap = cap;
    return p;
}

int strtab_init(struct strtab *t, struct strtab_pub **slot) {
    memset(t, 0, sizeof *t);
    t->mask = 1023;
    t->keys = calloc(t->mask + 1, sizeof *t->keys);
    t->vals = calloc(t->mask + 1, sizeof *t->vals);
    struct strtab_pub *p = pub_new(1024);
    char *empty = strdup("");
    if (!t->keys || !t->vals || !p || !empty) {
        free(t->keys);
        free(t->vals);
        free(empty);
        if (p) free(p->names);
        free(p);
        return -1;
    }
    p->names[0] = empty;
    p->count = 1;
    t->slot = slot;
    web_publish(slot, p);
    return 0;
}

int strtab_init_shared(struct strtab *t, struct strtab_pub **slot) {
    memset(t, 0, sizeof *t);
    t->mask = 1023;
    t->keys = calloc(t->mask + 1, sizeof *t->keys);
    t->vals = calloc(t->mask + 1, sizeof *t->vals);
    t->slot = slot;
    t->shared = 1;
    return t->keys && t->vals ? 0 : -1;
}

void strtab_destroy(struct strtab *t) {
    struct strtab_pub *p = t->shared ? NULL : *t->slot;
    if (p) {
        for (uint32_t i = 0; i < p->count; i++) free(p->names[i]);
        free(p->names);
        free(p);
    }
    if (!t->shared) *t->slot = NULL;
    free(t->keys);
    free(t->vals);
}

static void free_pub_arrays(struct rcu_head *h) {
    web_after_grace(h);
    struct strtab_pub *p = caa_container_of(h, struct strtab_pub, rcu);
    free(p->names);   /* the strings moved to the new table */
    free(p);
}

/* Append a name; returns its dense id or 0 when out of memory. */
static uint32_t append(struct strtab *t, const char *name) {
    struct strtab_pub *p = *t->slot;
    char *copy = strdup(name);
    if (!copy) return 0;
    if (p->count == p->cap) {
        struct strtab_pub *n = pub_new(p->cap * 2);
        if (!n) {
            free(copy);
            return 0;
        }
        memcpy(n->names, p->names, p->count * sizeof *p->names);
        n->count = p->count;
        web_publish(t->slot, n);
        web_call_rcu(&p->rcu, free_pub_arrays);
        p = n;
    }
    uint32_t id = p->count;
    p->names[id] = copy;
    __atomic_store_n(&p->count, id + 1, __ATOMIC_RELEASE);
    return id;
}

static int rehash(struct strtab *t) {
    uint32_t n = (t->mask + 1) * 2;
    uint32_t *k = calloc(n, sizeof *k), *v = calloc(n, sizeof *v);
    if (!k || !v) {
        free(k);
        free(v);
        return -1;
    }
    for (uint32_t i = 0; i <= t->mask; i++) {
        if (!t->keys[i]) continue;
        uint32_t j = strtab_hash(t->keys[i]) & (n - 1);
        while (k[j]) j = (j + 1) & (n - 1);
        k[j] = t->keys[i];
        v[j] = t->vals[i];
    }
    free(t->keys);
    free(t->vals);
    t->keys = k;
    t->vals = v;
    t->mask = n - 1;
    return 0;
}

static uint32_t lookup(struct strtab *t, const struct wsrc *src, uint32_t seg_id, const char *name) {
    if (seg_id == 0 || t->identity) return seg_id;
    uint32_t c = strtab_slot(seg_id);
    if (t->ckey[c] == seg_id) return t->cval[c];
    uint32_t i = strtab_hash(seg_id) & t->mask;
    for (; t->keys[i]; i = (i + 1) & t->mask)
        if (t->keys[i] == seg_id) {
            t->ckey[c] = seg_id;
            t->cval[c] = t->vals[i];
            return t->vals[i];
        }
    if (t->used + 1 >= t->mask) return 0;   /* could not grow: the name shows as unnamed */
    char placeholder[32];
    if (!name && src) name = wsrc_string(src, seg_id);
    if (!name) {
        snprintf(placeholder, sizeof placeholder, seg_id == REC_ID_OVERFLOW ? "(names full)" : "#%u", seg_id);
        name = placeholder;
    }
    uint32_t id = append(t, name);
    if (!id) return 0;
    t->keys[i] = seg_id;
    t->vals[i] = id;
    if (++t->used * 2 > t->mask) rehash(t);  /* on failure the table just gets fuller */
    return id;
}

uint32_t strtab_id_miss(struct strtab *t, const struct wsrc *src, uint32_t seg_id) {
    return lookup(t, src, seg_id, NULL);
}

uint32_t strtab_id_named(struct strtab *t, uint32_t seg_id, const char *name) {
    return lookup(t, NULL, seg_id, name);
}
