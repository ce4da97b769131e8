/*
 * test_capture_unrecorded.c -- a capture carries what its segment could
 * not record (UNRECORDED records, docs/capture-format.md): names recorded
 * as "<strings full>" (the table at RECORDER_STRINGS_KB's limit) and
 * threads that got no ring (every slot live), so that `recorder report`,
 * `dump` and `convert` of the FILE say the same counts, in the same
 * words, as of the live segment.
 *
 * In one process: a 16 KiB string table and one thread slot; the main
 * thread records 3,000 distinct names (most find the table full), and a
 * second thread, started while the main thread holds the only slot,
 * finds none.  Both opens of the file must give the segment's counts,
 * and the CLI's lines of the file must hold the segment's words.  No
 * timing: the thread is joined before the capture's last pass.
 *
 * Arguments: DIR RECORDER (the CLI to run on the file).
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "check.h"
#include "recorder/capture.h"

#define NAMES 3000

static void *no_slot(void *arg) {
    (void)arg;
    REC_SCOPE("finds no slot");   /* the main thread holds the only one */
    return NULL;
}

/* cmd's stdout and stderr; 1 if they hold want. */
static int says(const char *cmd, const char *want) {
    FILE *p = popen(cmd, "r");
    REQUIRE(p);
    static char out[1 << 16];
    size_t n = fread(out, 1, sizeof out - 1, p);
    out[n] = 0;
    int st = pclose(p);
    int ok = st == 0 && strstr(out, want) != NULL;
    if (!ok) fprintf(stderr, "%s: exit %d, \"%s\" not in:\n%s\n", cmd, st, want, out);
    return ok;
}

int main(int argc, char **argv) {
    REQUIRE(argc == 3);
    const char *dir = argv[1], *recorder = argv[2];
    mkdir(dir, 0700);
    setenv("RECORDER_STRINGS_KB", "16", 1);
    setenv("RECORDER_MAX_THREADS", "1", 1);
    setenv("RECORDER_RING_KB", "1024", 1);   /* every scope's entries fit: nothing lost besides */
    REQUIRE(rec_init() == 0);
    REC_THREAD_NAME("main");   /* takes the only slot */
    char err[512], path[512];
    snprintf(path, sizeof path, "%s/unrecorded.rec", dir);
    rec_seg *s;
    REQUIRE(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) == REC_OK);
    struct rec_capture_opts o = {0, 0, 0};
    rec_capture *c;
    REQUIRE(rec_capture_start(s, path, &o, &c, err, sizeof err) == REC_OK);
    char name[64];
    for (unsigned i = 0; i < NAMES; i++) {
        snprintf(name, sizeof name, "layer.%u.op_%06u", i % 97, i);
        REC_SCOPE_DYN(name);
    }
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, no_slot, NULL) == 0);
    pthread_join(t, NULL);
    struct rec_seg_info si;
    rec_seg_get_info(s, &si);
    printf("segment: strings_dropped %llu, threads_no_slot %llu\n", (unsigned long long)si.strings_dropped,
           (unsigned long long)si.threads_no_slot);
    CHECK(si.strings_dropped > 0 && si.strings_dropped < NAMES);
    CHECK_EQ_U(si.threads_no_slot, 1);
    REQUIRE(rec_capture_poll(c, NULL, err, sizeof err) == REC_OK);
    REQUIRE(rec_capture_finish(c, REC_CAPTURE_END_STOPPED, NULL, err, sizeof err) == REC_OK);
    rec_seg_close(s);

    /* Both opens: the segment's counts, and a file that checks whole. */
    for (int lazy = 0; lazy < 2; lazy++) {
        rec_cap *f;
        REQUIRE((lazy ? rec_cap_open_lazy : rec_cap_open)(path, &f, err, sizeof err) == REC_OK);
        const struct rec_cap_info *in = rec_cap_get_info(f);
        CHECK(in->complete);
        CHECK_EQ_U(in->warning[0], 0);
        CHECK_EQ_U(in->strings_dropped, si.strings_dropped);
        CHECK_EQ_U(in->threads_no_slot, si.threads_no_slot);
        rec_cap_close(f);
    }

    /* The CLI of the file: the live segment's words. */
    char full[96], none[64], cmd[2048];
    rec_names_full_str(si.strings_dropped, full, sizeof full);
    rec_not_recorded_str(si.threads_no_slot, none, sizeof none);
    snprintf(cmd, sizeof cmd, "'%s' report '%s' 2>&1", recorder, path);
    CHECK(says(cmd, full));
    CHECK(says(cmd, none));
    snprintf(cmd, sizeof cmd, "'%s' dump '%s' -o '%s/dump.json' 2>&1", recorder, path, dir);
    CHECK(says(cmd, full));
    CHECK(says(cmd, none));
    snprintf(cmd, sizeof cmd, "'%s' convert '%s' -o '%s/convert.json' 2>&1", recorder, path, dir);
    CHECK(says(cmd, full));
    rec_shutdown();
    CHECK_DONE();
}
