/*
 * aggregate.h -- what the page shows besides the timeline, computed from
 * librecorder's analysis model: the top table and the call-path tree
 * (flame graph) for each window, with how much of the window the data
 * covers (partial or not), and the snapshots the page downloads (Perfetto
 * JSON, or Perfetto's protobuf).
 * Called on the reader thread, which owns the model.
 */
#ifndef WEB_AGGREGATE_H
#define WEB_AGGREGATE_H

#include "frame.h"
#include "recorder/analysis.h"
#include "strtab.h"

#define AGG_ROWS 200          /* top-table rows per window */
#define AGG_NODES 2000        /* call-tree nodes per window */
#define AGG_SET_BITS 12       /* the tree's names set: 4096 slots > AGG_NODES */

/* A name's share of the window per ns of its time (aggregate.c). */
struct agg_share {
    uint32_t name_id;
    double per_total, per_self;
};

struct aggregate {
    struct rec_stat *rows;    /* the AGG_ROWS first names by total: the rows sent */
    struct rec_stat *tree_rows; /* the call tree's names (AGG_NODES), for their shares */
    struct agg_share *shares; /* by name id, for the call tree's shares */
    uint32_t *set;            /* the tree's names (1 << AGG_SET_BITS slots) */
    struct rec_tree_node *nodes;
    uint64_t version;
};

int aggregate_init(struct aggregate *a);
void aggregate_destroy(struct aggregate *a);
/* Build the STATS message of window w and publish it to *slot. */
void aggregate_publish(struct aggregate *a, rec_model *m, struct strtab *names, enum rec_window w,
                       double now_ns, struct frame **slot);
/* The formats a snapshot is made in (an index: downloads keep their
 * bounds per format). */
enum snap_fmt { SNAP_JSON = 0, SNAP_PERFETTO = 1, SNAP_FORMATS = 2 };

/* The model's event log in one format, shared by the HTTP responses that
 * asked for it while it was being made. */
struct snapshot {
    unsigned long refs;       /* atomic */
    enum snap_fmt fmt;
    size_t len;
    char *data;
    uint64_t events;          /* events the server had read when it was made */
};
struct snapshot *aggregate_export(rec_model *m, enum snap_fmt fmt);   /* NULL on failure */
void snapshot_ref(struct snapshot *s);
void snapshot_unref(struct snapshot *s);

#endif
