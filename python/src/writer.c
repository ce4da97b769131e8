/*
 * writer.c -- the extension's copy of the writer (include/recorder.h).
 *
 * Compiled with hidden visibility like the rest of the extension, it is a
 * copy of its own: the first copy in the process to record creates the
 * segment, and the others (a C library loaded with ctypes, another
 * extension) join it and the same thread slots, so their scopes land on
 * the same lanes, nested in the Python scopes that called them
 * (include/recorder/writer/writer_segment.h, "join").
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

/* ---- the runner's process: its segment's name, size and end (procs.c) ---- */
#include <signal.h>

#include "procs.h"
#include "pyrec.h"

/* The filters' bound is the writer's (RECORDER_FILTER's): module.c
 * refuses more, so that no item is ever dropped unsaid. */
_Static_assert(PYREC_MAX_FILTERS == REC__MAX_FILTERS, "one bound for filters, the writer's");

uint64_t pyrec_ring_bytes(void) {
    if (rec__ensure_init() != 0) return 0;
    return rec__g.hdr->ring_entries * sizeof(struct rec_entry);
}

/* The header's process name (the 15-byte comm until now): a multiprocessing
 * worker's as Python names it.  Its last byte stays 0, so a reader that
 * reads it meanwhile sees a string, at worst a mix of the two names. */
int pyrec_set_process_name(const char *s, size_t n) {
    /* Only a segment that exists: naming must not make one (-p, off). */
    if (__atomic_load_n(&rec__g.state, __ATOMIC_ACQUIRE) != REC__READY || !rec__g.created) return -1;
    char *dst = rec__g.hdr->process_name;
    size_t cap = sizeof rec__g.hdr->process_name - 1;
    if (n > cap) n = cap;
    for (size_t i = 0; i < cap; i++) __atomic_store_n(&dst[i], i < n ? s[i] : 0, __ATOMIC_RELAXED);
    return 0;
}

/* A multiprocessing worker leaves by os._exit(), which runs no atexit:
 * the segment is closed (and removed, unless kept or a launcher waits) as
 * the writer's atexit would.  Events after it go nowhere anyone reads. */
void pyrec_close_segment(void) { rec__close_segment(); }

/* SIGTERM (Pool.terminate(), a service manager) ends a process without
 * atexit, which would have removed its segment: remove it here, unless it
 * is kept on purpose (RECORDER_KEEP) or a launcher waits to read it
 * (recorder run, capture -- CMD: they remove it themselves), then die of
 * the signal as before.  Only what is async-signal-safe: atomics, getpid,
 * shm_unlink (unlink), signal, raise. */
static void pyrec_on_term(int sig) {
    struct rec__global *g = &rec__g;
    int e = errno;
    if (__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) == REC__READY && g->created && !rec__keeps_on_purpose(&g->cfg) &&
        g->cfg.launcher_pid <= 0)
        shm_unlink(g->shm_name);
    signal(sig, SIG_DFL);
    raise(sig);
    errno = e;
}

int pyrec_unlink_on_term(void) {
    struct sigaction old;
    if (sigaction(SIGTERM, NULL, &old) != 0) return -1;
    /* The program's own handler, or SIG_IGN, stays; forks inherit ours. */
    if ((old.sa_flags & SA_SIGINFO) || old.sa_handler != SIG_DFL) return 0;   /* ours already, or theirs */
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = pyrec_on_term;
    sigemptyset(&sa.sa_mask);
    return sigaction(SIGTERM, &sa, NULL);
}

/* builtins.c: a deferred begin, written with the time of its call. */
void pyrec_emit_at(uint64_t ts, uint64_t w1) {
    struct rec__tls *t = &rec__t;
    uint64_t h = 0;
    struct rec_slot *s = rec__room1(t, &h);
    if (!s) return;
    rec__put(t->ring + ((h & t->mask) << 1), ts, w1);
    __atomic_store_n(&s->head, h + 1, __ATOMIC_RELEASE);
}

uint64_t pyrec_ticks_per_sec(void) {
    return rec__g.hdr ? rec__g.hdr->ticks_per_sec : 0;
}
