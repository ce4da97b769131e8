/*
 * web.h -- recorder-web's shared state: what the reader thread publishes
 * and the service thread sends.
 *
 * Threads: main = the lws service thread (HTTP, WebSocket, timers); one
 * reader thread (reader.c) drains the segment.  They share only:
 *   - RCU-published objects: the name table, THREADS (threads_pub.h),
 *     STATS per window;
 *   - the client list and per-client queues (clients.h);
 *   - counters and flags, C11 atomics;
 *   - the snapshot hand-off (export_req / export_done).
 * The reader wakes the service thread with lws_cancel_service().
 */
#ifndef WEB_WEB_H
#define WEB_WEB_H

#include <stdint.h>

#include "aggregate.h"
#include "clients.h"
#include "downloads.h"
#include "frame.h"
#include "latlod.h"
#include "recorder/reader.h"
#include "source.h"
#include "strtab.h"
#include "threads_pub.h"

struct lws_context;
struct pss;

struct web_opts {
    const char *target;       /* PID or NAME, NULL = the only live one */
    const char *targets[WSRC_MAX];   /* recorder-web PID1 PID2 ...: several programs */
    unsigned n_targets;
    int port;                 /* 0 = any free port */
    const char *bind;         /* NULL = 127.0.0.1 */
    size_t log_events;        /* event log kept for the snapshot */
    size_t client_queue;      /* bytes per client */
    int flush_ms;             /* EVENTS period */
    int spill_ms;             /* statistics this long: the rings on the spill thread (spill.h) */
    unsigned max_pages;       /* WebSocket pages at once */
    int client_timeout;       /* s a page may take nothing before it is dropped */
    unsigned max_downloads;   /* snapshot downloads at once */
    int download_timeout;     /* s a download may take nothing before it is cut */
    int verbose;
    int wait;                 /* --wait: a program that has not recorded yet */
    double wait_s;            /* its limit, 0 = none */
};

struct web_counters {
    uint64_t events;          /* decoded and offered to pages */
    uint64_t overwritten, dropped, bad;   /* lost: written since we attached, never read */
    uint64_t history;         /* not kept: overwritten before our first read of a ring */
    uint64_t unsent;          /* events in frames we failed to allocate */
    uint64_t nolane;          /* events of threads with no lane (retired, folded) */
    uint64_t not_recorded;    /* threads that got no ring (rec_seg_info's threads_no_slot) */
    uint64_t names_full;      /* names recorded as <strings full> (rec_seg_info's strings_dropped) */
    uint64_t spills;          /* times the spill thread read the rings while the reader was busy (spill.h) */
    uint64_t spills_full;     /* of which its buffer filled up (the rest stayed in the rings) */
    uint64_t frames;
};

struct web {
    struct web_opts opts;
    rec_seg *seg;             /* the live segment, or NULL for a capture file */
    struct wsrc src;          /* the segment or the capture file (source.h) */
    struct rec_seg_info info; /* a capture's described the same way; several: the first's,
                                 with max_threads their total */
    struct rec_seg_info procs[WSRC_MAX];   /* several programs: each one (HELLO) */
    char token[33];
    char origin_host[3][80];  /* hosts a page may come from */
    int port;
    struct lws_context *ctx;
    int stop;                 /* atomic */

    /* Published by the reader (RCU). */
    struct strtab_pub *names;
    struct threads_pub *threads;
    struct frame *stats[3];
    struct frame *lod;        /* the run's summary (lod.h) */
    struct lat_pub lat;       /* latency answers per scope, and what the pages want (latlod.h) */
    /* Status, written by the reader (atomics). */
    struct web_counters ctr;
    int alive, closed;
    int truncated;            /* the segment shrank (a file: changed): the reader reads no more */
    int loading;              /* a capture file is still being read */
    uint64_t now_bits;        /* double, the source's clock */

    struct clients clients;

    /* Snapshot hand-off: the service thread sets bit 1 << fmt of
     * export_req; the reader answers with export_done[fmt] (a struct
     * snapshot *, or 1 on failure). */
    int export_req;
    void *export_done[SNAP_FORMATS];
    struct downloads dl;      /* service thread: the downloads and their bounds */
    char *diff_json;          /* recorder-web A.rec B.rec: /diff.json's body (diff.h), else NULL */
    size_t diff_len;
};

double web_now(struct web *w);

#endif
