/*
 * messages.c -- the most recent instants (signposts), for a viewer's
 * message list, without the event log: a ring of REC_MESSAGES_MAX
 * entries of about 80 bytes (80 KiB), allocated at the first instant.
 *
 * Threads are fed one after another, so the ring holds the last instants
 * read, not strictly the newest in time; the query sorts them by time.
 * The text is kept as recorded: it comes from the traced program, and
 * whoever draws it sanitizes it.
 */
#include <stdlib.h>
#include <string.h>

#include "aggregates.h"

struct msg_ent {
    double ts;
    int tid;
    uint32_t name_id;
    uint8_t len, after_loss;
    char text[REC_MSG_MAX];
};

struct msg_ring {
    struct msg_ent e[REC_MESSAGES_MAX];
    uint64_t n;               /* ever added; the newest is e[(n - 1) % MAX] */
};

void message_add(rec_model *m, struct trec *r, uint32_t name_id, const char *msg, unsigned len, double ts) {
    if (!m->msgs) {
        m->msgs = calloc(1, sizeof *m->msgs);
        if (!m->msgs) return;
    }
    struct msg_ent *e = &m->msgs->e[m->msgs->n++ % REC_MESSAGES_MAX];
    if (len > REC_MSG_MAX) len = REC_MSG_MAX;
    e->ts = ts;
    e->tid = r->tid;
    e->name_id = name_id;
    e->len = (uint8_t)len;
    e->after_loss = r->msg_gap;
    r->msg_gap = 0;
    if (len) memcpy(e->text, msg, len);
}

static int cmp_msg(const void *a, const void *b) {
    const struct rec_message *x = a, *y = b;
    if (x->ts_ns != y->ts_ns) return x->ts_ns > y->ts_ns ? -1 : 1;
    return (x->tid > y->tid) - (x->tid < y->tid);
}

size_t rec_model_messages(rec_model *m, struct rec_message *out, size_t cap, uint64_t *n_seen) {
    const struct msg_ring *g = m->msgs;
    if (n_seen) *n_seen = g ? g->n : 0;
    if (!g || !cap) return 0;
    size_t have = g->n < REC_MESSAGES_MAX ? (size_t)g->n : REC_MESSAGES_MAX;
    struct rec_message *all = malloc(have * sizeof *all);
    if (!all) return 0;
    for (size_t i = 0; i < have; i++) {
        const struct msg_ent *e = &g->e[i];
        struct rec_message *o = &all[i];
        o->ts_ns = e->ts;
        o->tid = e->tid;
        o->name_id = e->name_id;
        o->name = model_name_text(m, model_name(m, e->name_id));
        memcpy(o->msg, e->text, e->len);
        o->msg[e->len] = 0;
        o->after_loss = e->after_loss;
    }
    qsort(all, have, sizeof *all, cmp_msg);
    size_t n = have < cap ? have : cap;
    memcpy(out, all, n * sizeof *out);
    free(all);
    return n;
}

void messages_free(rec_model *m) {
    free(m->msgs);
    m->msgs = NULL;
}
