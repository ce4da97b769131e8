/*
 * hostile_writer.c -- a program that writes nonsense into its own segment,
 * for recorder-web's hostile.test.js: every number recorder-web computes
 * with must stay overflow-free (the test runs under UBSan too) and every
 * message it sends must still decode.
 *
 * It records normally once (so its threads own slots), then writes ring
 * entries by hand into its own ring, as a buggy or malicious program
 * could: timestamps 0, 1, near 2^63 and 2^64-1, running backwards; ENDs
 * that match nothing; scopes nested 300 deep; counters NaN and infinite;
 * flow ids all ones; THREAD_START and THREAD_NAME entries with impossible
 * generations, tids and names; unknown entry types and stray
 * continuations.  Between rounds it moves its head by huge jumps (a loss
 * of billions of entries) and, once, to just below 2^64 so that it wraps.
 * A second thread's slot gets an absurd generation and tid.  Before any
 * reader opens it, its header's clock says 1 tick = 1 ns with tick 0 at
 * 2^63, so that its timestamps span the whole int64_t range of ns.
 *
 *   hostile_writer [--rounds N]
 *
 * Prints "ready PID" after the first round, "done" after the last, then
 * idles (alive, writing nothing) until SIGTERM.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "ring_put.h"

#include <fcntl.h>
#include <limits.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static atomic_int stop;
static atomic_int liar_ready;

static void on_signal(int sig) {
    (void)sig;
    atomic_store(&stop, 1);
}

static uint64_t bits(double d) {
    uint64_t v;
    memcpy(&v, &d, sizeof v);
    return v;
}

/* Moves this thread's head: what lies between looks overwritten. */
static void jump(uint64_t to) { __atomic_store_n(&rec__t.slot->head, to, __ATOMIC_RELEASE); }

static void round_of_nonsense(uint32_t name, uint64_t now) {
    static const uint64_t times[] = {0, 1, UINT64_MAX, UINT64_MAX - 1, (uint64_t)INT64_MAX,
                                     (uint64_t)INT64_MAX + 1, UINT64_C(1) << 62, 12345};
    size_t nt = sizeof times / sizeof times[0];
    /* Scopes at absurd times, running backwards and forwards. */
    for (size_t i = 0; i < nt; i++) {
        put(times[i], ev(REC_EV_BEGIN, name));
        put(times[nt - 1 - i], ev(REC_EV_END, name));
    }
    put(now, ev(REC_EV_BEGIN, name));
    put(0, ev(REC_EV_INSTANT, name));
    put(UINT64_MAX, ev(REC_EV_END, 0));
    put(now, ev(REC_EV_END, 0xffffffffu));                    /* an END that matches nothing */
    put(now - 1, ev(REC_EV_END, name));                      /* orphan, time backwards */
    /* Nested far deeper than anyone keeps, times alternating extremes. */
    for (int d = 0; d < 300; d++) put(d & 1 ? UINT64_MAX - (uint64_t)d : (uint64_t)d, ev(REC_EV_BEGIN, name));
    for (int d = 0; d < 300; d++) put(d & 1 ? 0 : UINT64_MAX, ev(REC_EV_END, 0));
    /* Counters that are not numbers, or too big to be any. */
    const double values[] = {NAN, INFINITY, -INFINITY, 1.7976931348623157e308, -0.0};
    for (size_t i = 0; i < sizeof values / sizeof values[0]; i++) {
        put(i & 1 ? UINT64_MAX : 0, ev(REC_EV_COUNTER, name));
        put(bits(values[i]), ev(REC_EV_CONT, 0));
    }
    /* Flows with every id bit set. */
    put(UINT64_MAX, ev(REC_EV_FLOW_BEGIN, REC_FLOW_ID_MASK));
    put(0, ev(REC_EV_FLOW_STEP, REC_FLOW_ID_MASK));
    put(1, ev(REC_EV_FLOW_END, REC_FLOW_ID_MASK));
    /* Threads that cannot be: the largest generation, the most negative tid. */
    put(now, ev(REC_EV_THREAD_START, (uint64_t)0xffffff << 32 | (uint32_t)INT_MIN));
    put(UINT64_MAX, ev(REC_EV_THREAD_NAME, 0xfffffff0u));
    put(0, ev(REC_EV_THREAD_START, 0));                        /* generation 0, backwards */
    /* Types the writer never makes, and continuations with nothing before. */
    for (unsigned t = 10; t < 15; t++) put(UINT64_MAX, ev(t, name));
    put(UINT64_MAX, ev(REC_EV_CONT, UINT64_C(0xffffffffffffff)));
    put(now, ev(REC_EV_BEGIN, name));
    put(now + 1, ev(REC_EV_END, name));
}

/* The calibration readers copy when they open the segment: ticks are
 * ns (CLOCK_MONOTONIC), counted from 2^63. */
static int skew_clock(void) {
    const char *path = rec_segment_path();
    int fd = path ? open(path, O_RDWR | O_CLOEXEC) : -1;
    if (fd < 0) return -1;
    struct rec_header *h = mmap(NULL, REC_PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    close(fd);
    if (h == MAP_FAILED) return -1;
    h->clock_source = REC_CLOCK_MONOTONIC;
    h->ticks0 = UINT64_C(1) << 63;
    munmap(h, REC_PAGE);
    return 0;
}

/* Records once so that its slot exists, then waits; main rewrites the
 * slot's generation and tid under it. */
static void *liar_main(void *arg) {
    (void)arg;
    REC_THREAD_NAME("liar");
    REC_INSTANT("liar attached");
    atomic_store(&liar_ready, 1);
    while (!atomic_load(&stop)) usleep(20000);
    return NULL;
}

int main(int argc, char **argv) {
    long rounds = 200;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--rounds")) rounds = atol(argv[i + 1]);
        else {
            fprintf(stderr, "hostile_writer: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (rec_init() != 0) {
        fprintf(stderr, "hostile_writer: recording is off (RECORDER=0?)\n");
        return 1;
    }
    REC_THREAD_NAME("hostile");
    REC_INSTANT("attached");
    if (skew_clock() != 0) {
        fprintf(stderr, "hostile_writer: cannot rewrite its own segment's header\n");
        return 1;
    }
    uint32_t name = rec__intern_dyn("hostile scope");
    pthread_t liar;
    if (pthread_create(&liar, NULL, liar_main, NULL) != 0) return 1;
    while (!atomic_load(&liar_ready)) usleep(1000);

    /* The liar's slot: the slot after ours that is live and not ours. */
    struct rec_slot *mine = rec__t.slot;
    for (struct rec_slot *s = mine + 1; s < mine + 4; s++) {
        uint64_t sg = __atomic_load_n(&s->state_gen, __ATOMIC_ACQUIRE);
        if (REC_SLOT_STATE(sg) == REC_SLOT_LIVE) {
            __atomic_store_n(&s->tid, INT_MIN, __ATOMIC_RELEASE);
            __atomic_store_n(&s->state_gen, (UINT64_C(0xffffffffffff) << 8) | REC_SLOT_LIVE, __ATOMIC_RELEASE);
            __atomic_store_n(&s->start_ticks, UINT64_MAX, __ATOMIC_RELEASE);
            break;
        }
    }

    uint64_t ring = rec__t.mask + 1;
    for (long r = 0; r < rounds && !atomic_load(&stop); r++) {
        round_of_nonsense(name, rec_now());
        uint64_t h = __atomic_load_n(&mine->head, __ATOMIC_RELAXED);
        if (r % 10 == 3) jump(h + ring * 1000003);             /* a billion entries "lost" */
        if (r % 10 == 6) jump(h + (UINT64_C(1) << 40));
        if (r == rounds / 2) jump(UINT64_MAX - ring / 2);       /* the head wraps past 2^64 */
        if (r == 0) {
            printf("ready %d\n", (int)getpid());
            fflush(stdout);
        }
        usleep(5000);
    }
    printf("done\n");
    fflush(stdout);
    while (!atomic_load(&stop)) usleep(20000);
    pthread_join(liar, NULL);
    rec_shutdown();
    return 0;
}
