/*
 * test_reader_badinput.c -- the reader on files that are not good segments.
 *
 * A real segment is recorded here, copied to a temporary directory and
 * damaged in one way per case: truncated, zero-length, bad magic, another
 * version, structure sizes or layout offsets that do not add up.  Also a
 * pid with no process, a missing file, a directory, an empty or overlong
 * name.  Each must give the right REC_ERR_* and a one-line message.
 *
 * Hostile contents: copies whose ring area, slot table and string table are
 * random bytes (the header stays valid) are opened and read to the end:
 * every call returns, malformed entries are counted as bad, strings come
 * back NUL-terminated or not at all.  ASan/UBSan builds check the rest.
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
#include "recorder/reader.h"
#include "spawn.h"

static unsigned char *good;   /* the recorded segment's bytes */
static size_t good_size;
static char dir[64];

static void write_file(const char *path, const void *data, size_t n) {
    int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
    REQUIRE(fd >= 0);
    const unsigned char *p = (const unsigned char *)data;
    while (n) {
        ssize_t w = write(fd, p, n);
        REQUIRE(w > 0);
        p += w;
        n -= (size_t)w;
    }
    close(fd);
}

/* Open target; expect status `want` and, on error, a one-line message. */
static void expect_open(const char *target, int want, const char *what) {
    rec_seg *s = (rec_seg *)1;
    char err[512] = "";
    int rc = rec_seg_open(target, 0, &s, err, sizeof err);
    int ok = rc == want;
    if (rc != REC_OK) ok = ok && s == NULL && err[0] && !strchr(err, '\n');
    if (!ok) fprintf(stderr, "%s: status %d (want %d), message \"%s\"\n", what, rc, want, err);
    CHECK(ok);
    if (rc == REC_OK) rec_seg_close(s);
}

/* A copy of the good segment with one change made by `edit`. */
typedef void (*edit_fn)(struct rec_header *h);
static void expect_damaged(edit_fn edit, size_t size, int want, const char *what) {
    unsigned char *copy = (unsigned char *)malloc(good_size);
    REQUIRE(copy);
    memcpy(copy, good, good_size);
    if (edit) edit((struct rec_header *)copy);
    char path[128];
    snprintf(path, sizeof path, "%s/damaged", dir);
    write_file(path, copy, size);
    free(copy);
    expect_open(path, want, what);
    unlink(path);
}

static void e_magic(struct rec_header *h) { h->magic ^= 1; }
static void e_version(struct rec_header *h) { h->version = REC_SEG_VERSION + 1; }
static void e_hsize(struct rec_header *h) { h->header_size += 8; }
static void e_slot_size(struct rec_header *h) { h->slot_size = 64; }
static void e_entry_size(struct rec_header *h) { h->entry_size = 8; }
static void e_seg_bigger(struct rec_header *h) { h->segment_size += REC_PAGE; }
static void e_seg_smaller(struct rec_header *h) { h->segment_size -= REC_PAGE; }
static void e_threads0(struct rec_header *h) { h->max_threads = 0; }
static void e_threads_big(struct rec_header *h) { h->max_threads = 70000; }
static void e_threads_more(struct rec_header *h) { h->max_threads *= 2; }
static void e_ring_odd(struct rec_header *h) { h->ring_entries = 1000; }
static void e_ring_small(struct rec_header *h) { h->ring_entries = 8; }
static void e_ring_huge(struct rec_header *h) { h->ring_entries = UINT64_C(1) << 40; }
static void e_index_odd(struct rec_header *h) { h->index_entries = 3; }
static void e_index_huge(struct rec_header *h) { h->index_entries = 1u << 31; }
static void e_consumer_off(struct rec_header *h) { h->consumer_off = 2 * REC_PAGE; }
static void e_consumer_size(struct rec_header *h) { h->consumer_size = 0; }
static void e_slots_unaligned(struct rec_header *h) { h->slots_off += 8; }
static void e_slots_overlap(struct rec_header *h) { h->slots_off = REC_PAGE; }
static void e_strings_past(struct rec_header *h) { h->strings_size = UINT64_C(1) << 40; }
static void e_strings_wrap(struct rec_header *h) { h->strings_off = UINT64_MAX - REC_PAGE + 1; }
static void e_slots_wrap(struct rec_header *h) { h->slots_off = UINT64_MAX - REC_PAGE + 1; }
static void e_index_wrap(struct rec_header *h) { h->index_off = UINT64_MAX - REC_PAGE + 1; }
static void e_consumer_wrap(struct rec_header *h) { h->consumer_size = UINT64_MAX - REC_PAGE + 1; }
static void e_strings_size_wrap(struct rec_header *h) { h->strings_size = UINT64_MAX - REC_PAGE + 1; }
static void e_rings_off(struct rec_header *h) { h->rings_off += REC_PAGE; }
static void e_rings_wrap(struct rec_header *h) { h->rings_off = UINT64_MAX - 4095; }
static void e_ticks0(struct rec_header *h) { h->ticks_per_sec = 0; }

static void *recorder_thread(void *arg) {
    (void)arg;
    REC_THREAD_NAME("badinput-worker");
    for (int i = 0; i < 100; i++) {
        REC_SCOPE("work");
        REC_INSTANT("mark", "a message of some length, to have CONT entries");
        REC_COUNTER("n", i);
    }
    return NULL;
}

static uint64_t rnd_state = 88172645463325252ull;
static uint64_t rnd(void) {  /* xorshift64: reproducible */
    rnd_state ^= rnd_state << 13;
    rnd_state ^= rnd_state >> 7;
    rnd_state ^= rnd_state << 17;
    return rnd_state;
}

static void fill_random(unsigned char *p, size_t n) {
    for (size_t i = 0; i < n; i++) p[i] = (unsigned char)rnd();
}

/* Read every slot of a hostile copy to the end; returns malformed count. */
static uint64_t read_hostile(const char *path) {
    rec_seg *s;
    char err[256];
    int rc = rec_seg_open(path, 0, &s, err, sizeof err);
    if (rc != REC_OK) fprintf(stderr, "hostile: %s\n", err);
    REQUIRE(rc == REC_OK);
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    struct rec_thread_info *th = (struct rec_thread_info *)calloc(info.max_threads, sizeof *th);
    REQUIRE(th);
    rec_seg_threads(s, th, (int)info.max_threads);
    static struct rec_entry buf[512];
    static struct rec_event ev[512];
    uint64_t bad = 0;
    for (uint32_t slot = 0; slot < info.max_threads; slot++) {
        struct rec_thread_info t;
        if (rec_seg_thread(s, slot, &t) == 0) CHECK(memchr(t.name, 0, sizeof t.name) != NULL);
        /* Whatever the slot says, the ring is read (at most two laps). */
        for (int calls = 0; calls < 64; calls++) {
            uint64_t first;
            struct rec_loss loss = {0};
            size_t got = rec_seg_read(s, slot, buf, 512, &first, &loss);
            CHECK(got <= 512);
            if (!got) break;
            size_t used = 0;
            size_t k = rec_decode(buf, got, first, ev, 512, &used, &bad);
            CHECK(k <= got && used <= got);
            for (size_t j = 0; j < k; j++) {
                CHECK(ev[j].msg_len <= REC_MSG_MAX && ev[j].msg[ev[j].msg_len] == 0);
                const char *n = rec_seg_string(s, ev[j].name_id);
                if (n) CHECK(strlen(n) <= REC_STR_MAXLEN);
            }
        }
    }
    for (int i = 0; i < 10000; i++) {  /* random string ids */
        const char *n = rec_seg_string(s, (uint32_t)rnd());
        if (n) CHECK(strlen(n) <= REC_STR_MAXLEN);
    }
    rec_seg_get_info(s, &info);
    (void)rec_seg_ticks_to_ns(s, rnd());
    free(th);
    rec_seg_close(s);
    return bad;
}

int main(void) {
    unsetenv("RECORDER_FILTER");
    unsetenv("RECORDER_FILTER_OUT");
    setenv("RECORDER_RING_KB", "4", 1);
    setenv("RECORDER_MAX_THREADS", "8", 1);
    setenv("RECORDER_STRINGS_KB", "16", 1);
    REQUIRE(rec_init() == 0);
    pthread_t t;
    for (int i = 0; i < 2; i++) {
        REQUIRE(pthread_create(&t, NULL, recorder_thread, NULL) == 0);
        pthread_join(t, NULL);
    }
    recorder_thread(NULL);
    {
        int fd = open(rec_segment_path(), O_RDONLY | O_CLOEXEC);
        REQUIRE(fd >= 0);
        struct stat st;
        REQUIRE(fstat(fd, &st) == 0);
        good_size = (size_t)st.st_size;
        good = (unsigned char *)malloc(good_size);
        REQUIRE(good && pread(fd, good, good_size, 0) == (ssize_t)good_size);
        close(fd);
    }
    snprintf(dir, sizeof dir, "/tmp/recorder-badinput.XXXXXX");
    REQUIRE(mkdtemp(dir));
    const struct rec_header *gh = (const struct rec_header *)good;

    /* Sanity: the copy itself is a good segment, by path. */
    expect_damaged(NULL, good_size, REC_OK, "good copy");
    /* Short files. */
    expect_damaged(NULL, 0, REC_ERR_FORMAT, "zero-length");
    expect_damaged(NULL, 100, REC_ERR_TRUNCATED, "100 bytes");
    expect_damaged(NULL, REC_PAGE, REC_ERR_TRUNCATED, "header page only");
    expect_damaged(NULL, good_size / 2, REC_ERR_TRUNCATED, "half");
    expect_damaged(NULL, good_size - 16, REC_ERR_TRUNCATED, "one entry short");
    /* Not ours, or not this version. */
    expect_damaged(e_magic, good_size, REC_ERR_FORMAT, "bad magic");
    expect_damaged(e_version, good_size, REC_ERR_VERSION, "wrong version");
    expect_damaged(e_hsize, good_size, REC_ERR_FORMAT, "header size");
    expect_damaged(e_slot_size, good_size, REC_ERR_FORMAT, "slot size");
    expect_damaged(e_entry_size, good_size, REC_ERR_FORMAT, "entry size");
    /* Layouts that do not add up. */
    expect_damaged(e_seg_bigger, good_size, REC_ERR_TRUNCATED, "segment_size past the file");
    expect_damaged(e_seg_smaller, good_size, REC_ERR_FORMAT, "segment_size short of the rings");
    expect_damaged(e_threads0, good_size, REC_ERR_FORMAT, "max_threads 0");
    expect_damaged(e_threads_big, good_size, REC_ERR_FORMAT, "max_threads 70000");
    expect_damaged(e_threads_more, good_size, REC_ERR_FORMAT, "max_threads doubled");
    expect_damaged(e_ring_odd, good_size, REC_ERR_FORMAT, "ring not a power of two");
    expect_damaged(e_ring_small, good_size, REC_ERR_FORMAT, "ring of 8");
    expect_damaged(e_ring_huge, good_size, REC_ERR_FORMAT, "ring of 2^40");
    expect_damaged(e_index_odd, good_size, REC_ERR_FORMAT, "index not a power of two");
    expect_damaged(e_index_huge, good_size, REC_ERR_FORMAT, "index of 2^31");
    expect_damaged(e_consumer_off, good_size, REC_ERR_FORMAT, "consumer_off");
    expect_damaged(e_consumer_size, good_size, REC_ERR_FORMAT, "consumer_size 0");
    expect_damaged(e_slots_unaligned, good_size, REC_ERR_FORMAT, "slots_off unaligned");
    expect_damaged(e_slots_overlap, good_size, REC_ERR_FORMAT, "slots over the consumer page");
    expect_damaged(e_strings_past, good_size, REC_ERR_FORMAT, "strings_size 2^40");
    expect_damaged(e_strings_wrap, good_size, REC_ERR_FORMAT, "strings_off wraps");
    expect_damaged(e_slots_wrap, good_size, REC_ERR_FORMAT, "slots_off wraps");
    expect_damaged(e_index_wrap, good_size, REC_ERR_FORMAT, "index_off wraps");
    expect_damaged(e_consumer_wrap, good_size, REC_ERR_FORMAT, "consumer_size wraps");
    expect_damaged(e_strings_size_wrap, good_size, REC_ERR_FORMAT, "strings_size wraps");
    expect_damaged(e_rings_off, good_size, REC_ERR_FORMAT, "rings_off moved");
    expect_damaged(e_rings_wrap, good_size, REC_ERR_FORMAT, "rings_off wraps");
    expect_damaged(e_ticks0, good_size, REC_ERR_FORMAT, "ticks_per_sec 0");

    /* Targets that name nothing readable. */
    int pid = 4194303;
    while (pid > 1 && (kill(pid, 0) == 0 || errno != ESRCH)) pid--;
    char target[64];
    snprintf(target, sizeof target, "%d", pid);
    expect_open(target, REC_ERR_NOTFOUND, "no such pid");
    snprintf(target, sizeof target, "recorder.%d", pid);
    expect_open(target, REC_ERR_NOTFOUND, "no such segment name");
    char path[256];
    snprintf(path, sizeof path, "%s/missing", dir);
    expect_open(path, REC_ERR_NOTFOUND, "missing file");
    expect_open(dir, REC_ERR_FORMAT, "a directory");
    expect_open("", REC_ERR_USAGE, "empty target");
    expect_open(NULL, REC_ERR_USAGE, "NULL target");
    char longname[400];
    memset(longname, 'a', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    expect_open(longname, REC_ERR_USAGE, "overlong name");
    snprintf(path, sizeof path, "%s/unreadable", dir);
    write_file(path, good, good_size);
    chmod(path, 0);
    if (geteuid() != 0) expect_open(path, REC_ERR_ACCESS, "unreadable file");
    unlink(path);

    /* Hostile contents behind a valid header. */
    uint64_t bad_total = 0;
    for (int round = 0; round < 8; round++) {
        unsigned char *copy = (unsigned char *)malloc(good_size);
        REQUIRE(copy);
        memcpy(copy, good, good_size);
        fill_random(copy + gh->rings_off, good_size - gh->rings_off);
        if (round & 1) fill_random(copy + gh->slots_off, gh->max_threads * sizeof(struct rec_slot));
        if (round & 2) fill_random(copy + gh->strings_off, gh->strings_size);
        if (round & 4) fill_random(copy + gh->index_off, gh->strings_off - gh->index_off);
        if (round == 7) fill_random(copy + gh->consumer_off, gh->consumer_size);
        snprintf(path, sizeof path, "%s/hostile", dir);
        write_file(path, copy, good_size);
        free(copy);
        bad_total += read_hostile(path);
        unlink(path);
    }
    CHECK(bad_total > 0);
    printf("hostile copies: %llu malformed entries counted\n", (unsigned long long)bad_total);
    rmdir(dir);
    free(good);
    rec_shutdown();
    CHECK_DONE();
}
