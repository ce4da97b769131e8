/*
 * aggregate.h -- what the page shows besides the timeline, computed from
 * librecorder's analysis model: the top table and the call-path tree
 * (flame graph) for each window, and the Perfetto JSON snapshot.
 * Called on the reader thread, which owns the model.
 */
#ifndef WEB_AGGREGATE_H
#define WEB_AGGREGATE_H

#include "frame.h"
#include "recorder/analysis.h"
#include "strtab.h"

#define AGG_ROWS 200          /* top-table rows per window */
#define AGG_NODES 2000        /* call-tree nodes per window */

struct aggregate {
    struct rec_stat *rows;
    struct rec_tree_node *nodes;
    uint64_t version;
};

int aggregate_init(struct aggregate *a);
void aggregate_destroy(struct aggregate *a);
/* Build the STATS message of window w and publish it to *slot. */
void aggregate_publish(struct aggregate *a, rec_model *m, struct strtab *names, enum rec_window w,
                       double now_ns, struct frame **slot);
/* The model's event log as Perfetto JSON, shared by the HTTP responses
 * that asked for it while it was being made. */
struct snapshot {
    unsigned long refs;       /* atomic */
    size_t len;
    char *json;
};
struct snapshot *aggregate_export(rec_model *m);   /* NULL on failure */
void snapshot_ref(struct snapshot *s);
void snapshot_unref(struct snapshot *s);

#endif
