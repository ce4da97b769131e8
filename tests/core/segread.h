/*
 * segread.h -- the core tests' reading helpers: drain a slot of an attached
 * segment into a growing array of decoded events, and name lookups.
 */
#ifndef RECORDER_TEST_SEGREAD_H
#define RECORDER_TEST_SEGREAD_H

#include <stdlib.h>
#include <string.h>

#include "recorder/reader.h"

struct evlist {
    struct rec_event *ev;
    size_t n, cap;
    uint64_t entries;         /* entries received */
    uint64_t overwritten, dropped, bad;
};

static inline void evlist_free(struct evlist *l) {
    free(l->ev);
    memset(l, 0, sizeof *l);
}

/* Read every new entry of the slot (until rec_seg_read returns nothing) and
 * append the decoded events.  Returns -1 if the reader broke a promise:
 * part of an event returned, or entries that do not follow each other. */
static inline int evlist_drain(rec_seg *s, uint32_t slot, struct evlist *l) {
    enum { CAP = 4096 };
    struct rec_entry *buf = (struct rec_entry *)malloc(CAP * sizeof *buf);
    if (!buf) abort();
    int rc = 0;
    for (;;) {
        uint64_t first;
        struct rec_loss loss = {0, 0, 0, 0};
        uint64_t before = rec_seg_cursor(s, slot);
        size_t got = rec_seg_read(s, slot, buf, CAP, &first, &loss);
        /* Not kept (history) and lost both count here: these tests
         * check that every entry is read or counted, once. */
        l->overwritten += loss.overwritten + loss.history;
        l->dropped += loss.dropped;
        if (got == 0) break;
        if (first != before + loss.overwritten + loss.history) rc = -1;
        if (l->n + got > l->cap) {
            l->cap = (l->n + got) * 2;
            l->ev = (struct rec_event *)realloc(l->ev, l->cap * sizeof *l->ev);
            if (!l->ev) abort();
        }
        size_t used = 0;
        uint64_t bad = 0;
        size_t k = rec_decode(buf, got, first, l->ev + l->n, got, &used, &bad);
        if (used != got) rc = -1;
        l->n += k;
        l->bad += bad;
        l->entries += got;
    }
    free(buf);
    return rc;
}

/* The slot whose thread has this tid, or -1. */
static inline int slot_of_tid(rec_seg *s, int tid) {
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    for (uint32_t i = 0; i < info.max_threads; i++) {
        struct rec_thread_info t;
        if (rec_seg_thread(s, i, &t) == 0 && t.tid == tid) return (int)i;
    }
    return -1;
}

static inline const char *ev_name(rec_seg *s, const struct rec_event *e) {
    const char *n = e->name_id ? rec_seg_string(s, e->name_id) : NULL;
    return n ? n : "";
}

#endif
