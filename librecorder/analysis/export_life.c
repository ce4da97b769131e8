/*
 * export_life.c -- a stream's lifetime (export_stream.h): made with its
 * lookahead, attached to a model's event log (through the log's tap, so
 * that the log never calls the stream by name), detached and freed.
 */
#include <stdlib.h>

#include "export_stream.h"

struct xs *xs_new(rec_model *m, enum xs_mode mode, const struct xs_sink *sink, void *ctx, size_t lookahead) {
    struct xs *x = calloc(1, sizeof *x);
    if (!x) return NULL;
    x->m = m;
    x->mode = mode;
    x->sink = sink;
    x->ctx = ctx;
    x->from = INT64_MIN;
    x->to = INT64_MAX;
    x->first_b = INT64_MAX;
    x->t0 = INT64_MIN;
    if (lookahead == 0) lookahead = XS_DEFAULT_LOOKAHEAD;
    if (mode == XS_WRITE && lookahead != SIZE_MAX) {
        x->limit = lookahead;
        x->fcap = 16;
        while (x->fcap <= lookahead) x->fcap *= 2;
        x->fifo = malloc(x->fcap * sizeof *x->fifo);
        if (!x->fifo) {
            free(x);
            return NULL;
        }
    }
    return x;
}

/* The log's tap (model.h): the model's items come here by pointer, so the
 * log below does not name the stream. */
static uint64_t tap_add(void *ctx, const struct litem *it, const char *msg, unsigned msg_len) {
    return xs_add(ctx, it, msg, msg_len);
}

static void tap_close(void *ctx, uint64_t handle, int64_t end, unsigned flags) { xs_close(ctx, handle, end, flags); }

static const struct elog_tap xs_tap = {tap_add, tap_close};

void xs_attach(struct xs *x) {
    struct elog *l = &x->m->log;
    x->saved_max = l->max;
    l->tap = &xs_tap;
    l->tap_ctx = x;
    if (!l->max) l->max = 1;   /* the model logs only when its log has room */
}

void xs_detach(struct xs *x) {
    struct elog *l = &x->m->log;
    if (l->tap_ctx != x) return;
    l->tap = NULL;
    l->tap_ctx = NULL;
    l->max = x->saved_max;
}

void xs_free(struct xs *x) {
    if (!x) return;
    xs_detach(x);
    for (size_t i = 0; i < x->nr; i++) {
        free(x->r[i].q);
        free(x->r[i].late);
        free(x->r[i].st);
        free(x->r[i].msg);
        free(x->r[i].args);
    }
    free(x->r);
    free(x->fifo);
    free(x->work);
    free(x);
}
