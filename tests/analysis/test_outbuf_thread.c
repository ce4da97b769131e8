/*
 * test_outbuf_thread.c -- the outbuf whose buffers a second thread writes
 * (librecorder/analysis/outbuf_thread.c) writes exactly the bytes, in the
 * order, that the plain outbuf writes: through small buffers (many
 * handovers), with writes larger than a buffer between them, into a file
 * and into a pipe whose reader is another thread; and a write error
 * sticks and is reported by ob_finish, with its errno, without a hang.
 * Built with outbuf.c and outbuf_thread.c themselves (internal to
 * librecorder).
 */
#include <errno.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "outbuf.h"

#define TOTAL (3u << 20)          /* bytes of the stream */

static unsigned char *expect;     /* the stream, made once */

static uint32_t rnd(uint32_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 17;
    *s ^= *s << 5;
    return *s;
}

/* The stream through o, in pieces of every size the exporters use: small
 * ob_room writes, ob_write, and writes past a buffer (ob_write_big). */
static void feed(struct outbuf *o) {
    uint32_t s = 12345;
    size_t at = 0;
    while (at < TOTAL) {
        uint32_t r = rnd(&s);
        size_t n = r % 16 == 0 ? 4097 + r % 20000 : r % 200;
        if (n > TOTAL - at) n = TOTAL - at;
        if (n <= OB_MIN_RESERVE && (r & 32)) {
            char *p = ob_room(o, n);
            memcpy(p, expect + at, n);
            o->p = p + n;
        } else {
            ob_write(o, expect + at, n);
        }
        at += n;
    }
}

static int same_file(FILE *f) {
    unsigned char *got = malloc(TOTAL + 1);
    REQUIRE(got);
    rewind(f);
    size_t n = fread(got, 1, TOTAL + 1, f);
    int ok = n == TOTAL && memcmp(got, expect, TOTAL) == 0;
    free(got);
    return ok;
}

struct reader {
    int fd;
    size_t n;
    int same;
};

static void *read_pipe(void *arg) {
    struct reader *r = arg;
    unsigned char buf[65536];
    r->same = 1;
    for (;;) {
        ssize_t k = read(r->fd, buf, sizeof buf);
        if (k <= 0) break;
        if (r->n + (size_t)k > TOTAL || memcmp(buf, expect + r->n, (size_t)k) != 0) r->same = 0;
        r->n += (size_t)k;
    }
    return NULL;
}

int main(void) {
    expect = malloc(TOTAL);
    REQUIRE(expect);
    uint32_t s = 99;
    for (size_t i = 0; i < TOTAL; i++) expect[i] = (unsigned char)rnd(&s);

    /* Into files: the plain outbuf and the threaded one, several buffer
     * sizes, the same bytes. */
    size_t caps[] = {4096, 65536, (size_t)1 << 20};
    for (size_t c = 0; c < sizeof caps / sizeof caps[0]; c++) {
        for (int threaded = 0; threaded < 2; threaded++) {
            FILE *f = tmpfile();
            REQUIRE(f);
            struct outbuf o;
            REQUIRE((threaded ? ob_init_thread(&o, f, caps[c]) : ob_init(&o, f, caps[c])) == 0);
            if (threaded) CHECK(o.th != NULL);
            feed(&o);
            CHECK(ob_finish(&o) == 0);
            CHECK(o.th == NULL);
            if (!same_file(f)) {
                fprintf(stderr, "cap %zu, %s: the bytes differ\n", caps[c], threaded ? "threaded" : "plain");
                CHECK(0);
            }
            fclose(f);
        }
    }

    /* Into a pipe read by another thread: writes block, the order holds. */
    int fds[2];
    REQUIRE(pipe(fds) == 0);
    struct reader r = {fds[0], 0, 0};
    pthread_t th;
    REQUIRE(pthread_create(&th, NULL, read_pipe, &r) == 0);
    FILE *w = fdopen(fds[1], "w");
    REQUIRE(w);
    struct outbuf o;
    REQUIRE(ob_init_thread(&o, w, 8192) == 0);
    feed(&o);
    CHECK(ob_finish(&o) == 0);
    fclose(w);
    pthread_join(th, NULL);
    close(fds[0]);
    CHECK_EQ_U(r.n, TOTAL);
    CHECK(r.same);

    /* A full device: the error sticks, ob_finish says so, nothing hangs. */
    FILE *full = fopen("/dev/full", "w");
    if (full) {
        REQUIRE(ob_init_thread(&o, full, 4096) == 0);
        feed(&o);
        CHECK(o.err);              /* seen at a later handover, not only at the end */
        errno = 0;
        CHECK(ob_finish(&o) == -1);
        CHECK(errno == ENOSPC);    /* the failed write's reason, for the message */
        fclose(full);
    }

    free(expect);
    CHECK_DONE();
}
