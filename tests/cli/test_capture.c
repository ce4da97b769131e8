/*
 * test_capture.c -- capture files, in one process: record events, capture
 * them as a stream-mode consumer of our own segment, read the file back.
 *
 *  - every entry written comes back, in order, with the right names, and
 *    the thread records and generations of a reused slot are there;
 *  - a capture cut at every byte opens (or fails cleanly before its source
 *    record), never yields more than the whole file, and says it was cut;
 *  - corrupt bytes anywhere never crash the reader (run under ASan);
 *  - other files (empty, a segment, garbage, another version) are refused
 *    with the documented status.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"
#include "recorder/capture.h"

static char dir[256];

static void *reuse_thread(void *arg) {
    int k = *(int *)arg;
    for (int i = 0; i < k; i++) REC_INSTANT("reuse");
    return NULL;
}

struct tally {
    uint64_t entries, events, begins, ends, instants, reuse, thread_starts, threads;
    uint32_t max_gen;
    int names_ok;
};

/* Read a capture through the iterator, decoding every chunk. */
static int tally(rec_cap *c, struct tally *t) {
    struct rec_cap_item it;
    int r;
    memset(t, 0, sizeof *t);
    t->names_ok = 1;
    static struct rec_event ev[65536];
    while ((r = rec_cap_next(c, &it)) == 1) {
        if (it.kind == REC_CAP_ITEM_THREAD) {
            t->threads++;
            continue;
        }
        t->entries += it.n;
        size_t used = 0;
        uint64_t bad = 0;
        size_t k = rec_decode(it.entries, it.n, it.first, ev, 65536, &used, &bad);
        for (size_t i = 0; i < k; i++) {
            t->events++;
            const char *nm = ev[i].name_id ? rec_cap_string(c, ev[i].name_id) : NULL;
            switch (ev[i].type) {
            case REC_EV_BEGIN: t->begins++; if (!nm) t->names_ok = 0; break;
            case REC_EV_END: t->ends++; break;
            case REC_EV_INSTANT:
                t->instants++;
                if (!nm) t->names_ok = 0;
                else if (!strcmp(nm, "reuse")) t->reuse++;
                break;
            case REC_EV_THREAD_START:
                t->thread_starts++;
                if (ev[i].gen > t->max_gen) t->max_gen = ev[i].gen;
                break;
            }
        }
    }
    return r;
}

static void test_roundtrip(const char *cap_path) {
    char err[512];
    rec_seg *s;
    REQUIRE(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) == REC_OK);
    rec_capture *c;
    REQUIRE(rec_capture_start(s, cap_path, NULL, &c, err, sizeof err) == REC_OK);
    /* 3 generations of the one slot (RECORDER_MAX_THREADS=1), captured
     * after the fact: stream mode keeps every entry for us. */
    int k = 100;
    for (int g = 0; g < 3; g++) {
        pthread_t t;
        pthread_create(&t, NULL, reuse_thread, &k);
        pthread_join(t, NULL);
        size_t moved = 0;
        CHECK(rec_capture_poll(c, &moved, err, sizeof err) == REC_OK);
    }
    struct rec_capture_stats st;
    REQUIRE(rec_capture_finish(c, REC_CAPTURE_END_STOPPED, &st, err, sizeof err) == REC_OK);
    rec_seg_close(s);
    CHECK_EQ_U(st.dropped, 0);
    CHECK_EQ_U(st.overwritten, 0);

    rec_cap *rc;
    REQUIRE(rec_cap_open(cap_path, &rc, err, sizeof err) == REC_OK);
    const struct rec_cap_info *in = rec_cap_get_info(rc);
    CHECK(in->complete);
    CHECK(!in->truncated);
    CHECK_EQ_U(in->warning[0], 0);
    CHECK_EQ_U(in->pid, getpid());
    CHECK_EQ_U(in->end_reason, REC_CAPTURE_END_STOPPED);
    CHECK_EQ_U(in->entries, st.entries);
    CHECK_EQ_U(in->events, st.events);
    CHECK_EQ_U(in->valid_size, in->file_size);
    struct tally t;
    CHECK_EQ_U(tally(rc, &t), 0);
    CHECK_EQ_U(t.entries, in->entries);
    CHECK_EQ_U(t.reuse, 300);
    CHECK_EQ_U(t.thread_starts, 3);  /* one per generation */
    CHECK_EQ_U(t.max_gen, 3);
    CHECK(t.threads >= 2);           /* thread records for the generations seen live */
    CHECK(t.names_ok);
    /* Rewind gives the same again. */
    struct tally t2;
    rec_cap_rewind(rc);
    CHECK_EQ_U(tally(rc, &t2), 0);
    CHECK_EQ_U(t2.entries, t.entries);
    rec_cap_close(rc);
}

static void test_cut_everywhere(const char *cap_path) {
    size_t n;
    unsigned char *all = slurp(cap_path, &n);
    char cut[300], err[512];
    snprintf(cut, sizeof cut, "%s/cut.rec", dir);
    uint64_t full_entries = 0, prev_entries = 0;
    {
        rec_cap *c;
        REQUIRE(rec_cap_open(cap_path, &c, err, sizeof err) == REC_OK);
        full_entries = rec_cap_get_info(c)->entries;
        rec_cap_close(c);
    }
    int opened = 0, refused = 0;
    for (size_t len = 0; len < n; len++) {
        spit(cut, all, len);
        rec_cap *c = NULL;
        int st = rec_cap_open(cut, &c, err, sizeof err);
        if (st != REC_OK) {
            refused++;
            /* Only before the source record is whole, and as "truncated". */
            CHECK(len < 64 + 16 + 416);   /* header, record header, SOURCE and its machine */
            CHECK(st == REC_ERR_TRUNCATED);
            CHECK(strlen(err) > 0 && !strchr(err, '\n'));
            continue;
        }
        opened++;
        const struct rec_cap_info *in = rec_cap_get_info(c);
        CHECK(in->entries <= full_entries);
        CHECK(in->entries >= prev_entries);  /* more bytes never read less */
        CHECK(in->valid_size <= len);
        CHECK(!in->complete);
        CHECK(in->warning[0] != 0);
        prev_entries = in->entries;
        struct tally t;
        CHECK_EQ_U(tally(c, &t), 0);
        CHECK_EQ_U(t.entries, in->entries);
        rec_cap_close(c);
    }
    CHECK(opened > 0 && refused > 0);
    CHECK_EQ_U(prev_entries, full_entries);  /* the last cut lacks only the END record */
    free(all);
}

static void test_corrupt_bytes(const char *cap_path) {
    size_t n;
    unsigned char *all = slurp(cap_path, &n);
    char bad[300], err[512];
    snprintf(bad, sizeof bad, "%s/bad.rec", dir);
    srand(12345);
    for (int round = 0; round < 2000; round++) {
        unsigned char *p = malloc(n);
        memcpy(p, all, n);
        int flips = 1 + rand() % 4;
        for (int i = 0; i < flips; i++) p[(size_t)rand() % n] ^= (unsigned char)(1 + rand() % 255);
        spit(bad, p, n);
        rec_cap *c = NULL;
        if (rec_cap_open(bad, &c, err, sizeof err) == REC_OK) {
            struct tally t;
            int r = tally(c, &t);
            CHECK(r == 0);
            rec_cap_close(c);
        } else {
            CHECK(strlen(err) > 0);
        }
        free(p);
    }
    free(all);
}

static void test_bad_files(void) {
    char p[300], err[512];
    rec_cap *c = NULL;
    snprintf(p, sizeof p, "%s/empty.rec", dir);
    spit(p, "", 0);
    CHECK_EQ_U(rec_cap_open(p, &c, err, sizeof err), REC_ERR_TRUNCATED);
    CHECK_EQ_U(rec_cap_probe(p), 0);
    snprintf(p, sizeof p, "%s/text.rec", dir);
    spit(p, "hello, this is not a capture file at all\n", 41);
    CHECK_EQ_U(rec_cap_open(p, &c, err, sizeof err), REC_ERR_FORMAT);
    CHECK(strstr(err, "not a recorder capture") != NULL);
    /* Our own segment is a recorder file, but not a capture. */
    CHECK_EQ_U(rec_cap_open(rec_segment_path(), &c, err, sizeof err), REC_ERR_FORMAT);
    CHECK(strstr(err, "segment") != NULL);
    CHECK_EQ_U(rec_cap_probe(rec_segment_path()), 0);
    snprintf(p, sizeof p, "%s/missing.rec", dir);
    CHECK_EQ_U(rec_cap_open(p, &c, err, sizeof err), REC_ERR_NOTFOUND);
    CHECK_EQ_U(rec_cap_probe(p), -1);
    /* Another version: a real capture with its version bumped. */
    snprintf(p, sizeof p, "%s/roundtrip.rec", dir);
    size_t n;
    unsigned char *all = slurp(p, &n);
    CHECK_EQ_U(rec_cap_probe(p), 1);
    all[8] = 2;
    snprintf(p, sizeof p, "%s/v2.rec", dir);
    spit(p, all, n);
    CHECK_EQ_U(rec_cap_open(p, &c, err, sizeof err), REC_ERR_VERSION);
    /* A corrupt record in the middle: read up to it, with a warning. */
    all[8] = 1;
    memset(all + n / 2, 0xee, 64);
    snprintf(p, sizeof p, "%s/mid.rec", dir);
    spit(p, all, n);
    REQUIRE(rec_cap_open(p, &c, err, sizeof err) == REC_OK);
    CHECK(rec_cap_get_info(c)->truncated);
    CHECK(strstr(rec_cap_get_info(c)->warning, "corrupt record") != NULL);
    rec_cap_close(c);
    free(all);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "/tmp");
    mkdir(dir, 0700);
    setenv("RECORDER_MAX_THREADS", "1", 1);
    setenv("RECORDER_RING_KB", "64", 1);
    REQUIRE(rec_init() == 0);
    char cap[300];
    snprintf(cap, sizeof cap, "%s/roundtrip.rec", dir);
    test_roundtrip(cap);
    test_cut_everywhere(cap);
    test_corrupt_bytes(cap);
    test_bad_files();
    rec_shutdown();
    CHECK_DONE();
}
