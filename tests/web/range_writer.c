/*
 * range_writer.c -- a program whose trace is known to the nanosecond, for
 * the page's interaction tests (interact.test.js): the range statistics,
 * the latency panel's percentiles and the counter summaries are checked
 * against figures the test computes from this schedule, independently of
 * recorder-web and of the page.
 *
 * Built with RECORDER_CLOCK_MONOTONIC, so a tick is a nanosecond and the
 * segment's time 0 is its ticks0; it writes its entries by hand with
 * exact timestamps, a cycle at a time, once real time has passed the
 * cycle (times are never in the future).  Cycle c (c = 0, 1, ...) starts
 * at BASE + c * 10 ms (ns since the segment's start):
 *
 *   req      [s, s + D(c)]                 D(c) = DURS_US[(7 c) % 12] µs
 *     parse  [s, s + 20 µs]                (inside req)
 *   respond  [s + D(c) + 100 µs, + 30 µs]
 *   counter "queue" = c % 10 at s
 *
 * Every --burst-every cycles (cycle k * N + N / 2), it also writes
 * --burst zero-length "burst" scopes back to back after respond, far more
 * than its ring holds (run it with RECORDER_RING_KB=64): a reader loses
 * entries there, a gap inside that cycle.
 *
 * With --ramp R (cycles), durations grow over the run, in a known way
 * (latency_run.test.js): D(c) = DURS_US[(7 c) % 12] + 300 * (c / R) µs,
 * at most 9 ms (integer division: a step every R cycles).
 *
 *   range_writer [--burst-every N] [--burst K] [--ramp R]
 *
 * Prints "ready PID base NS" (NS: BASE), and runs until SIGTERM.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "ring_put.h"

#include <fcntl.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>
#include <unistd.h>

#define PERIOD_NS 10000000ull
static const unsigned DURS_US[12] = {50, 80, 120, 200, 300, 500, 800, 1200, 2000, 3000, 5000, 100};

static atomic_int stop;

static void on_signal(int sig) {
    (void)sig;
    atomic_store(&stop, 1);
}

/* The segment's time 0, in ticks (= CLOCK_MONOTONIC ns here). */
static int read_ticks0(uint64_t *out) {
    const char *path = rec_segment_path();
    int fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
    if (fd < 0) return -1;
    const struct rec_header *h = mmap(NULL, REC_PAGE, PROT_READ, MAP_SHARED, fd, 0);
    close(fd);
    if (h == MAP_FAILED) return -1;
    int ok = h->clock_source == REC_CLOCK_MONOTONIC;
    *out = h->ticks0;
    munmap((void *)h, REC_PAGE);
    return ok ? 0 : -1;
}

int main(int argc, char **argv) {
    long burst_every = 200, burst = 20000, ramp = 0;
    for (int i = 1; i + 1 < argc; i += 2) {
        if (!strcmp(argv[i], "--burst-every")) burst_every = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--burst")) burst = atol(argv[i + 1]);
        else if (!strcmp(argv[i], "--ramp")) ramp = atol(argv[i + 1]);
        else {
            fprintf(stderr, "range_writer: unknown option %s\n", argv[i]);
            return 2;
        }
    }
    if (burst_every <= 0 || burst < 0 || ramp < 0) {
        fprintf(stderr, "range_writer: bad --burst-every or --burst\n");
        return 2;
    }
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    if (rec_init() != 0) {
        fprintf(stderr, "range_writer: recording is off (RECORDER=0?)\n");
        return 1;
    }
    REC_THREAD_NAME("server");
    REC_INSTANT("attached");   /* this thread's slot, and its ring */
    uint64_t t0;
    if (read_ticks0(&t0) != 0) {
        fprintf(stderr, "range_writer: its segment's clock is not CLOCK_MONOTONIC\n");
        return 1;
    }
    uint32_t req = rec__intern_dyn("req"), parse = rec__intern_dyn("parse"), respond = rec__intern_dyn("respond");
    uint32_t queue = rec__intern_dyn("queue"), bname = rec__intern_dyn("burst");
    /* The first cycle: on a whole 10 ms, 100 ms from now. */
    uint64_t base = ((rec_now() - t0) / PERIOD_NS + 10) * PERIOD_NS;
    printf("ready %d base %llu\n", (int)getpid(), (unsigned long long)base);
    fflush(stdout);
    for (uint64_t c = 0; !atomic_load(&stop); c++) {
        uint64_t s = t0 + base + c * PERIOD_NS, d = DURS_US[(7 * c) % 12] * 1000ull;
        if (ramp) d += 300000ull * (c / (uint64_t)ramp);
        if (d > 9000000ull) d = 9000000ull;
        /* Wait until the whole cycle is in the past. */
        for (;;) {
            uint64_t now = rec_now();
            if (now >= s + PERIOD_NS || atomic_load(&stop)) break;
            uint64_t left = s + PERIOD_NS - now;
            struct timespec ts = {(time_t)(left / 1000000000u), (long)(left % 1000000000u)};
            nanosleep(&ts, NULL);
        }
        double v = (double)(c % 10);
        uint64_t bits;
        memcpy(&bits, &v, sizeof bits);
        put(s, ev(REC_EV_COUNTER, queue));
        put(bits, ev(REC_EV_CONT, 0));
        put(s, ev(REC_EV_BEGIN, req));
        put(s, ev(REC_EV_BEGIN, parse));
        put(s + 20000, ev(REC_EV_END, parse));
        put(s + d, ev(REC_EV_END, req));
        uint64_t r = s + d + 100000;
        put(r, ev(REC_EV_BEGIN, respond));
        put(r + 30000, ev(REC_EV_END, respond));
        if ((long)(c % (uint64_t)burst_every) == burst_every / 2)
            for (long k = 0; k < burst; k++) {
                put(r + 40000 + (uint64_t)k, ev(REC_EV_BEGIN, bname));
                put(r + 40000 + (uint64_t)k, ev(REC_EV_END, bname));
            }
    }
    rec_shutdown();
    return 0;
}
