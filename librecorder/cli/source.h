/*
 * source.h -- what dump, report and convert read: a segment (by pid, name
 * or path) or a capture file, opened, or loaded into an analysis model.
 */
#ifndef RECORDER_CLI_SOURCE_H
#define RECORDER_CLI_SOURCE_H

#include "recorder/analysis.h"
#include "recorder/capture.h"

struct cli_source {
    int is_capture;
    rec_seg *seg;
    rec_cap *cap;
    rec_model *model;
    char path[512];
    int pid;
    uint64_t proc_start;      /* with pid, which process (a pid is reused) */
    char process_name[64];
    const char *state;        /* "alive", "dead", "capture", ... */
    int foreign_owner;        /* a segment of another user's (only root reads those) */
    unsigned owner_uid;
    uint64_t events;          /* decoded into the model */
    uint64_t overwritten, dropped;   /* entries lost, all threads */
};

/* Open target (a pid, a segment name, a path to a segment or a capture):
 * src->seg or src->cap, and what describes it; no model.  Prints a
 * one-line error (and a capture's warning) and returns its status. */
int cli_source_open(const char *target, struct cli_source *src);
/* The same, and everything it holds loaded into a model that keeps its
 * event log (report; exports stream instead: export.c). */
int cli_source_load(const char *target, struct cli_source *src);
/* The loading step alone, for a source opened (and maybe selected:
 * cli_source_select) already; on failure the caller closes it. */
int cli_source_load_opened(struct cli_source *src);
/* The loading step without an event log (report: memory that does not
 * grow with the events), attach(ctx, model) called once the model is made
 * and before it is fed (0, or -1 out of memory; NULL: nothing to attach). */
struct cli_load {
    int (*attach)(void *ctx, rec_model *m);
    void *ctx;
};
int cli_source_load_stats(struct cli_source *src, const struct cli_load *how);
void cli_source_close(struct cli_source *src);
/* A capture of several processes: read process i of it from now on
 * (rec_cap_select), described as that process.  REC_OK or a status. */
int cli_source_select(struct cli_source *src, size_t i);
/* Process k of file (an open capture) in a source of its own that shares
 * file's reading of it (rec_cap_open_process): REC_OK or a status. */
int cli_source_open_process(const struct cli_source *file, size_t k, struct cli_source *src);
/* "pid 123 (prog), dead", the name escaped for a terminal (cli_safe) */
const char *cli_source_desc(const struct cli_source *src, char *buf, size_t cap);

#endif
