/*
 * writer.c -- the extension's copy of the writer (include/recorder.h).
 *
 * Compiled with hidden visibility like the rest of the extension, it is a
 * copy of its own: the first copy in the process to record creates the
 * segment, and the others (a C library loaded with ctypes, another
 * extension) join it and the same thread slots, so their scopes land on
 * the same lanes, nested in the Python scopes that called them
 * (include/recorder/writer_segment.h, "join").
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include "pyrec.h"

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
