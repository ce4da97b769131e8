/*
 * downloads.c -- sharing snapshots between downloads, and the bounds on
 * them (see downloads.h).  Service thread only: snapshots are counted
 * here without atomics once the reader has handed them over.  Each
 * format has its own snapshots (struct dl_format); only the number of
 * downloads at once is shared.
 */
#include <time.h>

#include "downloads.h"
#include "service.h"
#include "shared.h"

double dl_now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

static void hold(struct web *w, struct pss *p, struct snapshot *s, double made_ms) {
    snapshot_ref(s);
    p->snap = s;
    p->snap_ms = made_ms;
    p->body = (const unsigned char *)s->data;
    p->len = s->len;
    p->off = 0;
    p->state = HTTP_HEADERS;
    p->deadline_ms = dl_now_ms() + DL_BASE_S * 1e3 + (double)s->len / DL_RATE * 1e3;
    (void)w;
}

/* Invariant: held counts the snapshots with a reference; newest, if not
 * NULL, is one of them (the last made). */
static void release(struct web *w, struct snapshot *s) {
    if (!s) return;
    struct dl_format *d = &w->dl.f[s->fmt];
    if (__atomic_load_n(&s->refs, __ATOMIC_RELAXED) == 1) {
        if (d->newest == s) d->newest = NULL;
        d->held--;
    }
    snapshot_unref(s);
}

static void unwait(struct web *w, struct pss *p) {
    for (struct pss **q = &w->dl.f[p->dl_fmt].waiters; *q; q = &(*q)->next_waiter)
        if (*q == p) {
            *q = p->next_waiter;
            break;
        }
    p->next_waiter = NULL;
}

int dl_begin(struct web *w, struct pss *p, enum snap_fmt fmt) {
    if (w->dl.active >= w->opts.max_downloads) return -1;
    struct dl_format *d = &w->dl.f[fmt];
    w->dl.active++;
    p->downloading = 1;
    p->dl_fmt = fmt;
    double now = dl_now_ms();
    if (d->newest && (now - d->newest_ms < DL_FRESH_MS || d->held >= DL_SNAPSHOTS)) {
        hold(w, p, d->newest, d->newest_ms);
        lws_callback_on_writable(p->wsi);
        return 0;
    }
    /* The reader thread owns the model: ask it, and wait (with the others
     * that ask before it answers). */
    p->state = HTTP_WAIT_SNAPSHOT;
    p->next_waiter = d->waiters;
    d->waiters = p;
    if (!d->requested) {
        d->requested = 1;
        web_or(&w->export_req, 1 << fmt);
    }
    return 0;
}

void dl_end(struct web *w, struct pss *p) {
    if (!p->downloading) return;
    p->downloading = 0;
    w->dl.active--;
    unwait(w, p);
    release(w, p->snap);
    p->snap = NULL;
    p->body = NULL;
}

static void wakeup_one(struct web *w, enum snap_fmt fmt) {
    struct dl_format *d = &w->dl.f[fmt];
    void *got = web_xchg(&w->export_done[fmt], NULL);
    if (!got) return;
    d->requested = 0;
    struct snapshot *s = got == (void *)1 ? NULL : got;
    if (s && d->waiters) {
        /* The downloads take references; the reader's goes below. */
        d->held++;
        d->newest = s;
        d->newest_ms = dl_now_ms();
    }
    while (d->waiters) {
        struct pss *p = d->waiters;
        d->waiters = p->next_waiter;
        p->next_waiter = NULL;
        if (s) hold(w, p, s, d->newest_ms);
        else p->state = HTTP_FAILED;
        lws_callback_on_writable(p->wsi);
    }
    snapshot_unref(s);   /* the reader's reference; freed if nobody waited */
}

void dl_wakeup(struct web *w) {
    for (int f = 0; f < SNAP_FORMATS; f++) wakeup_one(w, (enum snap_fmt)f);
}

int dl_progress(struct web *w, struct pss *p) {
    if (dl_now_ms() > p->deadline_ms) return -1;
    /* A client that takes nothing for this long is cut. */
    lws_set_timeout(p->wsi, PENDING_TIMEOUT_HTTP_CONTENT, w->opts.download_timeout);
    return 0;
}
