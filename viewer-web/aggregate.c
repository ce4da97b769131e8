/*
 * aggregate.c -- STATS messages and the JSON snapshot (see aggregate.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "aggregate.h"
#include "shared.h"

int aggregate_init(struct aggregate *a) {
    memset(a, 0, sizeof *a);
    a->rows = calloc(AGG_ROWS, sizeof *a->rows);
    a->nodes = calloc(AGG_NODES, sizeof *a->nodes);
    if (!a->rows || !a->nodes) {
        aggregate_destroy(a);
        return -1;
    }
    return 0;
}

void aggregate_destroy(struct aggregate *a) {
    free(a->rows);
    free(a->nodes);
    a->rows = NULL;
    a->nodes = NULL;
}

void aggregate_publish(struct aggregate *a, rec_model *m, struct strtab *names, enum rec_window w,
                       double now_ns, struct frame **slot) {
    size_t total = 0;
    size_t nr = rec_model_stats(m, w, -1, a->rows, AGG_ROWS, &total);
    size_t nn = rec_model_tree(m, w, -1, a->nodes, AGG_NODES);
    struct wbuf b;
    wb_init(&b, 64 + nr * 90 + nn * 24);
    wb_u8(&b, MSG_STATS);
    wb_u8(&b, (unsigned)w);
    wb_f64(&b, rec_model_window_span(m, w));
    wb_f64(&b, now_ns);
    wb_varint(&b, total);
    wb_varint(&b, nr);
    for (size_t i = 0; i < nr; i++) {
        const struct rec_stat *s = &a->rows[i];
        wb_varint(&b, strtab_id_named(names, s->name_id, s->name));
        wb_varint(&b, s->calls);
        wb_f64(&b, s->calls_per_sec);
        wb_f64(&b, s->total_ns);
        wb_f64(&b, s->self_ns);
        wb_f64(&b, s->min_ns);
        wb_f64(&b, s->avg_ns);
        wb_f64(&b, s->max_ns);
        wb_f64(&b, s->p50_ns);
        wb_f64(&b, s->p95_ns);
        wb_f64(&b, s->p99_ns);
    }
    wb_varint(&b, nn);
    for (size_t i = 0; i < nn; i++) {
        const struct rec_tree_node *t = &a->nodes[i];
        wb_varint(&b, i ? strtab_id_named(names, t->name_id, t->name) : 0);
        wb_varint(&b, t->parent < nn ? t->parent : 0);
        wb_varint(&b, t->calls);
        wb_f64(&b, t->total_ns);
        wb_f64(&b, t->self_ns);
    }
    struct frame *f = frame_from(&b);
    wb_free(&b);
    if (!f) return;
    f->version = ++a->version;
    frame_publish(slot, f);
}

struct snapshot *aggregate_export(rec_model *m) {
    struct snapshot *s = calloc(1, sizeof *s);
    if (!s) return NULL;
    FILE *out = open_memstream(&s->json, &s->len);
    if (!out) {
        free(s);
        return NULL;
    }
    struct rec_export_opts o = {0};
    int rc = rec_export_json(m, out, &o);
    if (fclose(out) != 0) rc = -1;
    if (rc != 0) {
        free(s->json);
        free(s);
        return NULL;
    }
    s->refs = 1;
    return s;
}

void snapshot_ref(struct snapshot *s) { __atomic_fetch_add(&s->refs, 1, __ATOMIC_RELAXED); }

void snapshot_unref(struct snapshot *s) {
    if (s && __atomic_sub_fetch(&s->refs, 1, __ATOMIC_ACQ_REL) == 0) {
        free(s->json);
        free(s);
    }
}
