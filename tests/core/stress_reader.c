/*
 * stress_reader.c -- writers and a reader in two processes, racing on a
 * tiny ring, with payloads that make every mistake visible.
 *
 *   stress_reader WRITER_EXE THREADS MILLISECONDS flight|stream
 *
 * Starts stress_writer (see its comment for the pattern each thread writes)
 * with RECORDER_RING_KB=4 (256 entries: it wraps all the time), attaches,
 * and copies every ring with rec_seg_read as fast as it can until the
 * writer exits, then drains what is left.  Checks:
 *  - nothing torn or misattributed: each event is what its ring index says
 *    it must be, carries its own thread's writer number (learnt from the
 *    first payload, then matched against the tid the writer reports), and
 *    timestamps never go back within a thread;
 *  - no duplicates, order kept: each read starts exactly where the last one
 *    ended plus what it reports as overwritten;
 *  - exact loss: per thread, received + overwritten (+ dropped) entries ==
 *    the entries the writer says it emitted;
 *  - stream mode (REC_OPEN_STREAM before the writers start): nothing is
 *    ever overwritten, the ring indices leave no gap, and
 *    received + dropped == emitted.  Entries the writer drops do not take
 *    ring indices, so there the pattern is checked as a subsequence: every
 *    event's place in the pattern comes after the previous one's.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "recorder/reader.h"
#include "spawn.h"

#define SETUP_ENTRIES 3u
#define ITER_ENTRIES 7u
#define MAX_WRITERS 64

struct slot_state {
    int w;                    /* writer number, -1 until a payload says it */
    int tid;                  /* from THREAD_START, 0 if not seen */
    uint64_t received, overwritten, dropped;
    uint64_t last_ticks;
    uint64_t last_pos;        /* stream: place in the pattern of the last event, +1 */
    uint64_t events, errors;
};

static rec_seg *seg;
static int stream;
static struct rec_entry buf[4096];
static struct rec_event evs[4096];

static void bad_event(struct slot_state *st, uint32_t slot, const struct rec_event *e, const char *why) {
    if (st->errors++ < 10)
        fprintf(stderr, "slot %u index %" PRIu64 ": type %u: %s\n", slot, e->index, e->type, why);
}

static const char *name_of(uint32_t id) {
    const char *s = id ? rec_seg_string(seg, id) : NULL;
    return s ? s : "";
}

/* Learn the slot's writer from a payload, or check the payload matches it. */
static int same_writer(struct slot_state *st, int w) {
    if (st->w < 0) st->w = w;
    return st->w == w;
}

static const unsigned kind_of_k[ITER_ENTRIES] = {REC_EV_BEGIN, REC_EV_COUNTER, 0, REC_EV_INSTANT, 0,
                                                 REC_EV_INSTANT, REC_EV_END};

/* Checks an event at pattern offset k of iteration i (-1: unknown). */
static void check_iter_event(struct slot_state *st, uint32_t slot, const struct rec_event *e, unsigned k,
                             int64_t i) {
    char want[64];
    int w = -1;
    unsigned long long pi = 0;
    switch (k) {
    case 0:
    case 6:
        if (sscanf(name_of(e->name_id), "sw%d.scope", &w) != 1 || !same_writer(st, w))
            bad_event(st, slot, e, "scope name of another writer");
        snprintf(want, sizeof want, "sw%d.scope", st->w);
        if (strcmp(name_of(e->name_id), want) != 0) bad_event(st, slot, e, "bad scope name");
        return;
    case 1: {
        if (strcmp(name_of(e->name_id), "stress.ctr") != 0) bad_event(st, slot, e, "bad counter name");
        uint64_t v = (uint64_t)e->value;
        if ((double)v != e->value || !same_writer(st, (int)(v >> 40))) bad_event(st, slot, e, "counter of another writer");
        pi = v & ((UINT64_C(1) << 40) - 1);
        break;
    }
    case 3:
        if (strcmp(name_of(e->name_id), "stress.msg") != 0) bad_event(st, slot, e, "bad instant name");
        if (e->msg_len != 15 || sscanf(e->msg, "%2x%13llx", (unsigned *)&w, &pi) != 2 || !same_writer(st, w))
            bad_event(st, slot, e, "message of another writer");
        break;
    case 5:
        if (strcmp(name_of(e->name_id), "stress.tick") != 0 || e->msg_len != 0)
            bad_event(st, slot, e, "bad tick instant");
        return;
    default: bad_event(st, slot, e, "an event starts inside another"); return;
    }
    if (i >= 0 && pi != (uint64_t)i) bad_event(st, slot, e, "payload of another iteration");
    if (i < 0) {  /* stream: the payload places the event in the pattern */
        uint64_t pos = SETUP_ENTRIES + pi * ITER_ENTRIES + k + 1;
        if (pos <= st->last_pos) bad_event(st, slot, e, "out of order or duplicate");
        st->last_pos = pos;
    }
}

static void check_event(struct slot_state *st, uint32_t slot, const struct rec_event *e) {
    if (e->ticks < st->last_ticks) bad_event(st, slot, e, "timestamp goes back");
    st->last_ticks = e->ticks;
    st->events++;
    uint64_t x = e->index;
    if (x < SETUP_ENTRIES) {
        unsigned want = x == 0 ? REC_EV_THREAD_START : REC_EV_THREAD_NAME;
        if (e->type != want) bad_event(st, slot, e, "bad setup event");
        if (x == 0) st->tid = e->tid;
        if (x == 2) {
            int w;
            if (sscanf(name_of(e->name_id), "sw%d", &w) != 1 || !same_writer(st, w))
                bad_event(st, slot, e, "thread name of another writer");
        }
        if (stream) st->last_pos = x + 1;
        return;
    }
    if (!stream) {
        unsigned k = (unsigned)((x - SETUP_ENTRIES) % ITER_ENTRIES);
        if (e->type != kind_of_k[k]) {
            bad_event(st, slot, e, "type does not match its ring index");
            return;
        }
        check_iter_event(st, slot, e, k, (int64_t)((x - SETUP_ENTRIES) / ITER_ENTRIES));
        return;
    }
    /* Stream: the earliest place after the last event where this kind of
     * event can be (a subsequence test, greedy), or its payload's place. */
    unsigned k;
    switch (e->type) {
    case REC_EV_BEGIN: k = 0; break;
    case REC_EV_COUNTER: k = 1; break;
    case REC_EV_INSTANT: k = e->msg_len ? 3 : 5; break;
    case REC_EV_END: k = 6; break;
    default: bad_event(st, slot, e, "unexpected event type"); return;
    }
    if (k == 0 || k == 5 || k == 6) {
        uint64_t p = st->last_pos < SETUP_ENTRIES ? SETUP_ENTRIES : st->last_pos;
        while ((p - SETUP_ENTRIES) % ITER_ENTRIES != k) p++;
        st->last_pos = p + 1;
    }
    check_iter_event(st, slot, e, k, -1);
}

/* One rec_seg_read of a slot, and every check on what it returned. */
static size_t read_slot(struct slot_state *st, uint32_t slot) {
    uint64_t before = rec_seg_cursor(seg, slot), first;
    struct rec_loss loss = {0};
    size_t got = rec_seg_read(seg, slot, buf, 4096, &first, &loss);
    /* Every entry is received or counted once: history (not kept when we
     * first looked) with the overwritten ones; in stream mode only the
     * history, never an overwrite after attach. */
    st->overwritten += loss.overwritten + loss.history;
    st->dropped += loss.dropped;
    if (stream && loss.overwritten) {
        if (st->errors++ < 10) fprintf(stderr, "slot %u: %" PRIu64 " overwritten in stream mode\n", slot, loss.overwritten);
    }
    if (!got) return 0;
    if (first != before + loss.overwritten + loss.history && st->errors++ < 10)
        fprintf(stderr, "slot %u: read starts at %" PRIu64 ", expected %" PRIu64 "\n", slot, first,
                before + loss.overwritten + loss.history);
    size_t used = 0;
    uint64_t bad = 0;
    size_t k = rec_decode(buf, got, first, evs, 4096, &used, &bad);
    if ((used != got || bad) && st->errors++ < 10)
        fprintf(stderr, "slot %u: %zu of %zu entries decoded, %" PRIu64 " malformed\n", slot, used, got, bad);
    for (size_t j = 0; j < k; j++) check_event(st, slot, &evs[j]);
    st->received += got;
    return got;
}

int main(int argc, char **argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: stress_reader WRITER_EXE THREADS MILLISECONDS flight|stream\n");
        return 2;
    }
    stream = !strcmp(argv[4], "stream");
    char *wargv[] = {argv[1], argv[2], argv[3], NULL};
    const char *env[] = {"RECORDER_RING_KB=4", NULL};
    struct child c;
    REQUIRE(child_spawn(&c, argv[1], wargv, env, 1, 0) == 0);
    char line[300], err[256];
    REQUIRE(fd_read_line(c.out, line, sizeof line) == 0 && !strncmp(line, "ready ", 6));
    int rc = rec_seg_open(line + 6, stream ? REC_OPEN_STREAM : 0, &seg, err, sizeof err);
    if (rc != REC_OK) fprintf(stderr, "%s\n", err);
    REQUIRE(rc == REC_OK);
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    REQUIRE(info.ring_entries == 256);
    CHECK_EQ_U(info.mode, stream ? REC_MODE_STREAM : REC_MODE_FLIGHT);
    uint32_t nslots = info.max_threads;
    struct slot_state *st = calloc(nslots, sizeof *st);
    REQUIRE(st);
    for (uint32_t i = 0; i < nslots; i++) st[i].w = -1;
    REQUIRE(write(c.in, "go\n", 3) == 3);

    /* Race the writers until they are done, then take what is left. */
    uint64_t reads = 0;
    int status = -1;
    for (;;) {
        for (uint32_t i = 0; i < nslots; i++) {
            struct rec_thread_info t;
            if (rec_seg_thread(seg, i, &t) == 0) {
                read_slot(&st[i], i);
                reads++;
            }
        }
        if (stream) rec_seg_heartbeat(seg);
        int ws;
        if (waitpid(c.pid, &ws, WNOHANG) == c.pid) {
            status = WIFEXITED(ws) ? WEXITSTATUS(ws) : 128 + WTERMSIG(ws);
            break;
        }
    }
    for (uint32_t i = 0; i < nslots; i++)
        while (read_slot(&st[i], i) > 0) {}
    CHECK_EQ_U(status, 0);
    char *out = fd_read_all(c.out);
    close(c.out);
    close(c.in);

    /* The writers' own counts against what we saw. */
    int nw = 0, want = atoi(argv[2]);
    uint64_t tot_emit = 0, tot_recv = 0, tot_over = 0, tot_drop = 0, tot_events = 0;
    for (char *p = out; (p = strstr(p, "W ")) != NULL; p++) {
        int w, tid;
        unsigned long long iters, entries;
        if (sscanf(p, "W %d %d %llu %llu", &w, &tid, &iters, &entries) != 4) continue;
        nw++;
        CHECK_EQ_U(entries, SETUP_ENTRIES + ITER_ENTRIES * iters);
        int found = 0;
        for (uint32_t i = 0; i < nslots; i++) {
            struct rec_thread_info t;
            if (rec_seg_thread(seg, i, &t) != 0 || t.tid != tid) continue;
            found++;
            struct slot_state *s = &st[i];
            CHECK_EQ_U(s->w, w);                       /* payloads were this writer's */
            if (s->tid) CHECK_EQ_U(s->tid, tid);      /* THREAD_START named it */
            CHECK_EQ_U(t.head, entries - (stream ? s->dropped : 0));
            CHECK_EQ_U(s->received + s->overwritten + s->dropped, entries);  /* exact */
            if (stream) {
                CHECK_EQ_U(s->overwritten, 0);
                CHECK_EQ_U(s->dropped, t.dropped);
            } else {
                CHECK_EQ_U(s->dropped, 0);
            }
            CHECK_EQ_U(s->errors, 0);
            CHECK(s->events > 0);
            tot_emit += entries;
            tot_recv += s->received;
            tot_over += s->overwritten;
            tot_drop += s->dropped;
            tot_events += s->events;
        }
        CHECK_EQ_U(found, 1);
    }
    CHECK_EQ_U(nw, want);
    int used_slots = 0;
    for (uint32_t i = 0; i < nslots; i++) {
        struct rec_thread_info t;
        used_slots += rec_seg_thread(seg, i, &t) == 0;
        CHECK_EQ_U(st[i].errors, 0);
    }
    CHECK_EQ_U(used_slots, want);
    rec_seg_get_info(seg, &info);
    CHECK_EQ_U(info.threads_attached, want);
    CHECK_EQ_U(info.threads_no_slot, 0);
    printf("%s, %d writers: %" PRIu64 " entries emitted, %" PRIu64 " received (%" PRIu64 " events), %" PRIu64
           " overwritten, %" PRIu64 " dropped, %" PRIu64 " reads\n",
           stream ? "stream" : "flight", want, tot_emit, tot_recv, tot_events, tot_over, tot_drop, reads);
    CHECK(tot_recv > 0);
    if (!stream) CHECK(tot_over > 0);  /* the ring did wrap under the reader */
    free(out);
    free(st);
    rec_seg_close(seg);
    CHECK_DONE();
}
