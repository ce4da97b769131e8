/*
 * test_names.c -- a program with hundreds of thousands of distinct
 * run-time names (issue 22, item 2): the string table grows on demand.
 *
 *   test_names keep     300,000 distinct REC_SCOPE_DYN names: every one is
 *                       kept (read back from the ring by its id, none is
 *                       "<strings full>", strings_dropped is 0), where a
 *                       fixed 1 MiB table kept about 47,000;
 *   test_names limit    past the stated limit (RECORDER_STRINGS_KB=1024),
 *                       every name recorded as "<strings full>" is counted:
 *                       strings_dropped equals the scopes shown under the
 *                       placeholder, and the readers' words say so;
 *   test_names threads  4 threads intern the same 60,000 names in
 *                       different orders while the index adds levels and
 *                       the table commits pages (suite tsan too): every id
 *                       a thread gets names its text.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "recorder/reader.h"

static void name_of(char *buf, size_t cap, unsigned i) { snprintf(buf, cap, "layer.%u.op_%06u", i % 97, i); }

/* Reads the one thread's ring from its start; counts the BEGIN events
 * shown as <strings full> and marks each name seen (by its number). */
static void read_back(rec_seg *s, unsigned n, unsigned char *seen, uint64_t *full, uint64_t *wrong) {
    struct rec_thread_info t;
    CHECK(rec_seg_threads(s, &t, 1) == 1);
    rec_seg_set_cursor(s, t.slot, 0);
    static struct rec_entry buf[4096];
    static struct rec_event ev[4096];
    uint64_t first, bad = 0;
    struct rec_loss loss = {0};
    size_t got, used;
    while ((got = rec_seg_read(s, t.slot, buf, 4096, &first, &loss)) > 0) {
        size_t k = rec_decode(buf, got, first, ev, 4096, &used, &bad);
        for (size_t i = 0; i < k; i++) {
            if (ev[i].type != REC_EV_BEGIN) continue;
            const char *nm = rec_seg_string(s, ev[i].name_id);
            unsigned a, b;
            char back[64];
            if (nm && !strcmp(nm, "<strings full>")) (*full)++;
            else if (nm && sscanf(nm, "layer.%u.op_%u", &a, &b) == 2 && b < n &&
                     (name_of(back, sizeof back, b), !strcmp(back, nm)))
                seen[b] = 1;
            else (*wrong)++;
        }
        if (got < 4096) break;
    }
    CHECK_EQ_U(bad, 0);
    CHECK_EQ_U(loss.overwritten + loss.dropped + loss.bad + loss.history, 0);
}

static int run_keep(unsigned n, int limited) {
    setenv("RECORDER_RING_KB", "16384", 1);   /* every scope's two entries fit */
    if (limited) setenv("RECORDER_STRINGS_KB", "1024", 1);
    REQUIRE(rec_init() == 0);
    char name[64];
    for (unsigned i = 0; i < n; i++) {
        name_of(name, sizeof name, i);
        REC_SCOPE_DYN(name);
    }
    rec_seg *s;
    char err[256];
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) == REC_OK);
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    unsigned char *seen = calloc(n, 1);
    REQUIRE(seen);
    uint64_t full = 0, wrong = 0, kept = 0;
    read_back(s, n, seen, &full, &wrong);
    for (unsigned i = 0; i < n; i++) kept += seen[i];
    printf("%u names: %llu kept, %llu as <strings full>, strings_dropped %llu, %llu bytes of a %llu-byte table\n", n,
           (unsigned long long)kept, (unsigned long long)full, (unsigned long long)info.strings_dropped,
           (unsigned long long)info.strings_used, (unsigned long long)info.strings_size);
    CHECK_EQ_U(wrong, 0);
    CHECK_EQ_U(kept + full, n);
    if (!limited) {
        CHECK_EQ_U(kept, n);
        CHECK_EQ_U(full, 0);
        CHECK_EQ_U(info.strings_dropped, 0);
    } else {
        /* Past the limit: each name that found it full is counted once
         * (one thread, each name once), and the words say how many. */
        CHECK(full > 0 && kept > 0);
        CHECK_EQ_U(info.strings_dropped, full);
        char words[64], want[64];
        snprintf(want, sizeof want, "%llu names recorded as <strings full>", (unsigned long long)full);
        CHECK(!strcmp(rec_names_full_str(info.strings_dropped, words, sizeof words), want));
    }
    free(seen);
    rec_seg_close(s);
    return check_failures ? 1 : 0;
}

#define NT 4
#define NN 60000u
static uint32_t ids[NT][NN];

static void *worker(void *arg) {
    unsigned t = (unsigned)(uintptr_t)arg;
    char name[64];
    for (unsigned j = 0; j < NN; j++) {
        unsigned i = t & 1 ? NN - 1 - j : (j * 7919u + t) % NN;   /* orders that cross */
        name_of(name, sizeof name, i);
        ids[t][i] = rec__intern_dyn(name);
    }
    return NULL;
}

static int run_threads(void) {
    REQUIRE(rec_init() == 0);
    pthread_t th[NT];
    for (unsigned t = 0; t < NT; t++) REQUIRE(pthread_create(&th[t], NULL, worker, (void *)(uintptr_t)t) == 0);
    for (unsigned t = 0; t < NT; t++) pthread_join(th[t], NULL);
    rec_seg *s;
    char err[256], name[64];
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) == REC_OK);
    uint64_t wrong = 0;
    for (unsigned t = 0; t < NT; t++)
        for (unsigned i = 0; i < NN; i++) {
            name_of(name, sizeof name, i);
            const char *nm = rec_seg_string(s, ids[t][i]);
            if (!nm || strcmp(nm, name)) wrong++;
        }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    printf("%u threads x %u names: %llu wrong, strings_dropped %llu\n", NT, NN, (unsigned long long)wrong,
           (unsigned long long)info.strings_dropped);
    CHECK_EQ_U(wrong, 0);
    CHECK_EQ_U(info.strings_dropped, 0);
    rec_seg_close(s);
    return check_failures ? 1 : 0;
}

int main(int argc, char **argv) {
    const char *mode = argc > 1 ? argv[1] : "keep";
    if (!strcmp(mode, "keep")) return run_keep(300000, 0);
    if (!strcmp(mode, "limit")) return run_keep(100000, 1);
    if (!strcmp(mode, "threads")) return run_threads();
    fprintf(stderr, "usage: test_names keep|limit|threads\n");
    return 2;
}
