/*
 * test_capture_write_fail.c -- once a write to a capture's file fails,
 * every later poll is refused with the one error "PATH: an earlier write
 * failed" (capw_failed in librecorder/capture/cap_write.c, the one place
 * that says it: the poll, the consumer threads' writes and the processes
 * added all ask it), with one consumer thread and with several.
 *
 * The write is made to fail without a full disk: the file-size limit
 * (RLIMIT_FSIZE, SIGXFSZ ignored) is set just past what the file holds,
 * and two writer threads then record more than fits.  No timing: the
 * writers are joined before each poll.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

#include "check.h"
#include "recorder/capture.h"

#define WRITERS 2
#define SCOPES 3000   /* 6000 entries a thread: well under a 256 KiB ring, far over 4 KiB of file */

static void *writer(void *arg) {
    char name[16];
    snprintf(name, sizeof name, "w%d", (int)(long)arg);
    REC_THREAD_NAME(name);
    for (int i = 0; i < SCOPES; i++) {
        REC_SCOPE_DYN(name);
    }
    return NULL;
}

static void record(void) {
    pthread_t th[WRITERS];
    for (long i = 0; i < WRITERS; i++) pthread_create(&th[i], NULL, writer, (void *)i);
    for (int i = 0; i < WRITERS; i++) pthread_join(th[i], NULL);
}

static void run(const char *path, unsigned consumers) {
    char err[512];
    rec_seg *s;
    REQUIRE(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) == REC_OK);
    struct rec_capture_opts o = {1, 0, 0};
    rec_capture *c;
    REQUIRE(rec_capture_start(s, path, &o, &c, err, sizeof err) == REC_OK);
    REQUIRE(rec_capture_set_consumers(c, consumers, err, sizeof err) == REC_OK);
    struct stat sb;
    REQUIRE(stat(path, &sb) == 0);
    struct rlimit old, lim;
    REQUIRE(getrlimit(RLIMIT_FSIZE, &old) == 0);
    lim = old;
    lim.rlim_cur = (rlim_t)sb.st_size + 4096;
    REQUIRE(setrlimit(RLIMIT_FSIZE, &lim) == 0);
    record();
    int rc = rec_capture_poll(c, NULL, err, sizeof err);
    CHECK_EQ_U(rc, REC_ERR_IO);
    /* The first failure says why; every later poll, the same one error. */
    CHECK(strstr(err, "an earlier write failed") == NULL || consumers > 1);
    for (int i = 0; i < 2; i++) {
        record();
        err[0] = 0;
        rc = rec_capture_poll(c, NULL, err, sizeof err);
        CHECK_EQ_U(rc, REC_ERR_IO);
        char want[600];
        snprintf(want, sizeof want, "%s: an earlier write failed", path);
        if (!strstr(err, want)) fprintf(stderr, "consumers %u: got \"%s\"\n", consumers, err);
        CHECK(strstr(err, want) != NULL);
    }
    REQUIRE(setrlimit(RLIMIT_FSIZE, &old) == 0);
    rec_capture_finish(c, REC_CAPTURE_END_ERROR, NULL, err, sizeof err);
    rec_seg_close(s);
    /* What was written whole before the failure still opens. */
    rec_cap *f;
    CHECK(rec_cap_open(path, &f, err, sizeof err) == REC_OK);
    if (f) rec_cap_close(f);
}

int main(int argc, char **argv) {
    const char *dir = argc > 1 ? argv[1] : "/tmp";
    mkdir(dir, 0700);
    signal(SIGXFSZ, SIG_IGN);   /* past the limit, write(2) fails with EFBIG */
    setenv("RECORDER_MAX_THREADS", "16", 1);
    setenv("RECORDER_RING_KB", "256", 1);
    REQUIRE(rec_init() == 0);
    static const unsigned n[] = {1, 2};
    for (size_t i = 0; i < sizeof n / sizeof *n; i++) {
        char path[512];
        snprintf(path, sizeof path, "%s/write-fail-%u.rec", dir, n[i]);
        run(path, n[i]);
    }
    rec_shutdown();
    CHECK_DONE();
}
