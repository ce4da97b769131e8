/*
 * test_capture_lazy.c -- rec_cap_open_lazy gives what rec_cap_open gives,
 * found later: a capture whose chunks are large enough for the open to
 * step over them is opened both ways and read to the end, whole, cut at
 * many bytes and with corrupt bytes; after the lazy read, the info (counts,
 * valid part, warning word for word, END) and every item read must equal
 * the full open's.  Then the cases the laziness is for:
 *  - a file corrupt past its first chunks opens with no warning, serves
 *    those chunks, and reports the corruption with the full open's words
 *    when the reader reaches it (names defined past it stop resolving);
 *  - a file that changes while read: a record read before and changed
 *    since is an error (-REC_ERR_FORMAT), a file cut short ahead of the
 *    reader ends the valid part there, bytes appended are not read.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "check.h"
#include "test_files.h"
#include "recorder/capture.h"

static char dir[256];

/* What the iterator yields, summed: items, entries, a hash of the entries
 * and loss, and the names of begins (unresolved counted apart). */
struct seen {
    int rc;
    uint64_t items, threads, entries, hash, loss, named, unnamed;
};

static struct seen read_all(rec_cap *c) {
    struct seen s = {0};
    struct rec_cap_item it;
    while ((s.rc = rec_cap_next(c, &it)) == 1) {
        s.items++;
        if (it.kind == REC_CAP_ITEM_THREAD) {
            s.threads++;
            continue;
        }
        s.entries += it.n;
        s.loss += it.loss.overwritten * 3 + it.loss.history * 5 + it.loss.dropped * 7;
        for (size_t i = 0; i < it.n; i++) {
            s.hash = (s.hash ^ it.entries[i].w0) * 0x100000001b3ull;
            s.hash = (s.hash ^ it.entries[i].w1) * 0x100000001b3ull;
            uint32_t id = (uint32_t)(it.entries[i].w1 & 0xffffffffu);
            if (REC_EV_TYPE(it.entries[i].w1) == REC_EV_BEGIN) {
                if (rec_cap_string(c, id)) s.named++;
                else s.unnamed++;
            }
        }
    }
    return s;
}

#define SAME(f) CHECK_EQ_U(a->f, b->f)
static void same_info(const struct rec_cap_info *a, const struct rec_cap_info *b) {
    SAME(records); SAME(chunks); SAME(entries); SAME(events); SAME(strings); SAME(thread_records);
    SAME(overwritten); SAME(dropped); SAME(history); SAME(valid_size); SAME(file_size);
    SAME(complete); SAME(end_reason); SAME(end_ticks); SAME(truncated); SAME(counted);
    if (strcmp(a->warning, b->warning) != 0)
        fprintf(stderr, "warnings differ:\n  full: %s\n  lazy: %s\n", a->warning, b->warning), check_failures++;
}

/* Both opens of path agree, status and all; returns the status. */
static int compare(const char *path) {
    char e1[512] = "", e2[512] = "";
    rec_cap *a = NULL, *b = NULL;
    int s1 = rec_cap_open(path, &a, e1, sizeof e1), s2 = rec_cap_open_lazy(path, &b, e2, sizeof e2);
    CHECK_EQ_U(s1, s2);
    if (s1 != REC_OK || s2 != REC_OK) {
        CHECK(strcmp(e1, e2) == 0);
        rec_cap_close(a);
        rec_cap_close(b);
        return s1;
    }
    struct seen x = read_all(a), y = read_all(b);
    CHECK_EQ_U(x.rc, 0);
    CHECK_EQ_U(y.rc, 0);
    CHECK_EQ_U(x.items, y.items);
    CHECK_EQ_U(x.entries, y.entries);
    CHECK_EQ_U(x.hash, y.hash);
    CHECK_EQ_U(x.loss, y.loss);
    CHECK_EQ_U(x.named, y.named);
    CHECK_EQ_U(x.unnamed, y.unnamed);
    same_info(rec_cap_get_info(a), rec_cap_get_info(b));
    /* A second pass gives the same and changes no count. */
    rec_cap_rewind(b);
    struct seen z = read_all(b);
    CHECK_EQ_U(z.entries, y.entries);
    same_info(rec_cap_get_info(a), rec_cap_get_info(b));
    rec_cap_close(a);
    rec_cap_close(b);
    return s1;
}

/* A capture of `passes` passes, each a few thousand entries of one slot
 * under a new name (its STRINGS record follows its chunk): records large
 * enough for the lazy open to step over. */
static void make_capture(const char *path, int passes) {
    char err[512];
    rec_seg *s;
    REQUIRE(rec_seg_open(rec_segment_path(), REC_OPEN_STREAM, &s, err, sizeof err) == REC_OK);
    rec_capture *c;
    REQUIRE(rec_capture_start(s, path, NULL, &c, err, sizeof err) == REC_OK);
    for (int p = 0; p < passes; p++) {
        char name[32];
        snprintf(name, sizeof name, "pass.%d", p);
        for (int i = 0; i < 1500; i++) {
            REC_SCOPE_DYN(name);
            REC_INSTANT("tick");
        }
        size_t moved = 0;
        REQUIRE(rec_capture_poll(c, &moved, err, sizeof err) == REC_OK);
    }
    REQUIRE(rec_capture_finish(c, REC_CAPTURE_END_STOPPED, NULL, err, sizeof err) == REC_OK);
    rec_seg_close(s);
}

/* Offsets of the records (up to max) of a capture in memory. */
static size_t records(const unsigned char *p, size_t n, uint64_t *at, uint32_t *type, size_t max) {
    size_t k = 0;
    uint32_t hs;
    memcpy(&hs, p + 12, 4);
    for (uint64_t off = hs; off + 16 <= n && k < max;) {
        uint32_t t, sz;
        memcpy(&t, p + off, 4);
        memcpy(&sz, p + off + 4, 4);
        at[k] = off;
        type[k++] = t;
        off += 16 + ((sz + 7u) & ~7u);
    }
    return k;
}

static void test_corrupt_late(const unsigned char *all, size_t n, const uint64_t *at, const uint32_t *type,
                              size_t nrec) {
    /* The 4th chunk's payload, 100 bytes in. */
    size_t k = 0, chunks = 0;
    for (k = 0; k < nrec; k++)
        if ((type[k] == 6 || type[k] == 4) && ++chunks == 4) break;
    REQUIRE(k < nrec);
    unsigned char *p = malloc(n);
    memcpy(p, all, n);
    p[at[k] + 16 + 100] ^= 0x5a;
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/late.rec", dir);
    spit(path, p, n);
    compare(path);   /* the same in the end */

    rec_cap *full, *c;
    REQUIRE(rec_cap_open(path, &full, err, sizeof err) == REC_OK);
    REQUIRE(rec_cap_open_lazy(path, &c, err, sizeof err) == REC_OK);
    const struct rec_cap_info *in = rec_cap_get_info(c);
    /* At open: nothing known wrong yet, the END record seen. */
    CHECK_EQ_U(in->warning[0], 0);
    CHECK(!in->truncated);
    CHECK(in->complete);
    CHECK(in->end_ticks != 0);
    CHECK(!in->counted);
    CHECK_EQ_U(in->valid_size, n);
    /* The first three chunks come, then the end of the valid part. */
    struct rec_cap_item it;
    int r, got = 0;
    while ((r = rec_cap_next(c, &it)) == 1) {
        if (it.kind == REC_CAP_ITEM_CHUNK) got++;
        if (got < 3) CHECK(!in->truncated && !in->counted);
    }
    CHECK_EQ_U(r, 0);
    CHECK_EQ_U(got, 3);
    CHECK(in->truncated);
    CHECK(!in->complete);
    CHECK_EQ_U(in->end_ticks, 0);
    CHECK(in->counted);
    CHECK_EQ_U(in->valid_size, at[k]);
    CHECK(strstr(in->warning, "corrupt record at byte") != NULL);
    CHECK(strcmp(in->warning, rec_cap_get_info(full)->warning) == 0);
    rec_cap_close(c);
    rec_cap_close(full);
    free(p);
}

static void test_changing(const unsigned char *all, size_t n, const uint64_t *at, const uint32_t *type,
                          size_t nrec) {
    char path[300], err[512];
    snprintf(path, sizeof path, "%s/changing.rec", dir);
    size_t k2 = 0, chunks = 0, k5 = 0;
    for (size_t k = 0; k < nrec; k++)
        if (type[k] == 6 || type[k] == 4) {
            chunks++;
            if (chunks == 2) k2 = k;
            if (chunks == 5) k5 = k;
        }
    REQUIRE(k2 && k5);
    /* Cut short ahead of the reader: the valid part ends at the cut, with
     * the words of a cut file. */
    spit(path, all, n);
    rec_cap *c;
    REQUIRE(rec_cap_open_lazy(path, &c, err, sizeof err) == REC_OK);
    struct rec_cap_item it;
    REQUIRE(rec_cap_next(c, &it) == 1);
    REQUIRE(truncate(path, (off_t)(at[k5] + 40)) == 0);
    int r, got = 0;
    while ((r = rec_cap_next(c, &it)) == 1) got += it.kind == REC_CAP_ITEM_CHUNK;
    const struct rec_cap_info *in = rec_cap_get_info(c);
    CHECK_EQ_U(r, 0);
    CHECK(got >= 3);
    CHECK(in->truncated);
    CHECK(in->counted);
    CHECK_EQ_U(in->valid_size, at[k5]);
    CHECK(strstr(in->warning, "cut short at byte") != NULL);
    rec_cap_close(c);

    /* A record read before, changed since: an error, as for a full open. */
    spit(path, all, n);
    REQUIRE(rec_cap_open_lazy(path, &c, err, sizeof err) == REC_OK);
    while ((r = rec_cap_next(c, &it)) == 1) {
    }
    CHECK_EQ_U(r, 0);
    CHECK(!rec_cap_get_info(c)->truncated);
    unsigned char *p = malloc(n);
    memcpy(p, all, n);
    p[at[k2] + 16 + 50] ^= 0x33;
    spit(path, p, n);
    rec_cap_rewind(c);
    while ((r = rec_cap_next(c, &it)) == 1) {
    }
    CHECK_EQ_U(r, -REC_ERR_FORMAT);
    rec_cap_close(c);

    /* Bytes appended after the open are not read: the valid part is what
     * the open found. */
    spit(path, all, n);
    REQUIRE(rec_cap_open_lazy(path, &c, err, sizeof err) == REC_OK);
    FILE *f = fopen(path, "ab");
    REQUIRE(f);
    fwrite(all + 64, 1, 4096, f);
    fclose(f);
    struct seen s = read_all(c);
    CHECK_EQ_U(s.rc, 0);
    CHECK(!rec_cap_get_info(c)->truncated);
    CHECK_EQ_U(rec_cap_get_info(c)->valid_size, n);
    rec_cap_close(c);
    free(p);
}

int main(int argc, char **argv) {
    snprintf(dir, sizeof dir, "%s", argc > 1 ? argv[1] : "/tmp");
    mkdir(dir, 0700);
    setenv("RECORDER_MAX_THREADS", "2", 1);
    setenv("RECORDER_RING_KB", "128", 1);
    REQUIRE(rec_init() == 0);
    char cap[300];
    snprintf(cap, sizeof cap, "%s/lazy.rec", dir);
    make_capture(cap, 8);
    size_t n;
    unsigned char *all = slurp(cap, &n);
    uint64_t at[256];
    uint32_t type[256];
    size_t nrec = records(all, n, at, type, 256);
    /* The point of the test: chunks the open steps over. */
    size_t big = 0;
    for (size_t k = 0; k + 1 < nrec; k++) big += (type[k] == 6 || type[k] == 4) && at[k + 1] - at[k] > 4096 + 16;
    CHECK(big >= 5);

    CHECK_EQ_U(compare(cap), REC_OK);
    char path[300];
    snprintf(path, sizeof path, "%s/cut.rec", dir);
    /* Cut at every byte near each record boundary, and at a stride between. */
    for (size_t len = 0; len < n; len++) {
        int near = 0;
        for (size_t k = 0; k < nrec && !near; k++) near = len + 24 >= at[k] && len <= at[k] + 24;
        if (!near && len % 97) continue;
        spit(path, all, len);
        compare(path);
    }
    snprintf(path, sizeof path, "%s/bad.rec", dir);
    srand(4242);
    unsigned char *p = malloc(n);
    for (int round = 0; round < 600; round++) {
        memcpy(p, all, n);
        int flips = 1 + rand() % 3;
        for (int i = 0; i < flips; i++) p[(size_t)rand() % n] ^= (unsigned char)(1 + rand() % 255);
        spit(path, p, n);
        compare(path);
    }
    free(p);
    test_corrupt_late(all, n, at, type, nrec);
    test_changing(all, n, at, type, nrec);
    free(all);
    rec_shutdown();
    CHECK_DONE();
}
