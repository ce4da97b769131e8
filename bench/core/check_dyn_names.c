/*
 * check_dyn_names.c -- the word-at-a-time path of REC_SCOPE_DYN names
 * (rec__intern_dyn) gives the same id as the string table's own lookup for
 * every length and alignment, never reads past the page that holds a
 * name's NUL, never trusts a cache entry (by key or by address) without
 * comparing the text, and keeps filtered names out.  It lives next to the benchmark that motivated the
 * path; it is registered in the core and tsan suites.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "check.h"

#define FILTER "zz_filtered"

/* The id the string table itself gives these bytes: the reference. */
static size_t cut_len(const char *s) {
    size_t len = strlen(s);
    return len < REC_STR_MAXLEN ? len : REC_STR_MAXLEN;
}

static uint32_t canonical(const char *s) {
    size_t len = cut_len(s);
    return rec__intern(&rec__g, s, len, rec__hash(s, len));
}

static int text_is(uint32_t id, const char *s) {
    const struct rec_str *r = rec__str(&rec__g, id);
    size_t len = cut_len(s);
    return ((r->tag >> 8) & 0xffffff) == len && memcmp(rec_str_text(r), s, len) == 0 && rec_str_text(r)[len] == 0;
}

/* A name of len bytes whose text depends on seed, so names differ. */
static void fill(char *p, size_t len, unsigned seed) {
    for (size_t i = 0; i < len; i++) p[i] = (char)('a' + (i * 7 + seed) % 26);
    p[len] = 0;
}

/* Every length the word scan handles and then some, at every alignment;
 * each twice, so the second call is a cache hit. */
static void every_length_and_alignment(void) {
    static char buf[1200 + 16] __attribute__((aligned(16)));
    for (size_t len = 0; len <= 80; len++) {
        for (unsigned r = 0; r < 8; r++) {
            char *p = buf + r;
            fill(p, len, (unsigned)len + r);
            uint32_t want = canonical(p);
            uint32_t a = rec__intern_dyn(p), b = rec__intern_dyn(p);
            CHECK_EQ_U(a, want);
            CHECK_EQ_U(b, want);
            CHECK(text_is(a, p));
        }
    }
    /* Long names are cut at REC_STR_MAXLEN bytes. */
    fill(buf, 1200, 3);
    uint32_t id = rec__intern_dyn(buf);
    CHECK_EQ_U(id, canonical(buf));
    CHECK_EQ_U((rec__str(&rec__g, id)->tag >> 8) & 0xffffff, REC_STR_MAXLEN);
    CHECK_EQ_U(rec__intern_dyn(buf), id);
}

/* The same, with the dynamic lookup first: a name it interns (with the
 * hash its word scan computed, for an aligned name) is found by the string
 * table's own lookup (rec__hash), at every length and alignment. */
static void dynamic_first(void) {
    static char buf[96 + 16] __attribute__((aligned(16)));
    for (size_t len = 0; len <= 80; len++) {
        for (unsigned r = 0; r < 8; r++) {
            char *p = buf + r;
            fill(p, len, (unsigned)len * 8 + r + 1000);   /* names every_length_and_alignment did not make */
            p[0] = len ? 'Z' : 0;
            uint32_t a = rec__intern_dyn(p);
            CHECK_EQ_U(canonical(p), a);
            CHECK(text_is(a, p));
        }
    }
}

/* One buffer rewritten with other names (how ggml builds op names): every
 * call sees the current text, not the previous one, whether the names come
 * in the same order as before (the guess by address is right) or not. */
static void one_buffer_many_names(void) {
    /* Aligned to its size, so the names never straddle a page: a name
     * that does is not remembered by its address (REC__DYN_IN_PAGE), and
     * an unaligned stack buffer did that in one run of 200 or so. */
    _Alignas(64) char n[64];
    for (int round = 0; round < 4; round++) {
        for (int j = 0; j < 40; j++) {
            int i = round < 2 ? j : round == 2 ? 39 - j : (j * 17) % 40;
            snprintf(n, sizeof n, "matmul_blk.%d.attn_q", i);
            uint32_t id = rec__intern_dyn(n);
            CHECK_EQ_U(id, canonical(n));
            CHECK(text_is(id, n));
        }
        /* The second pass in the same order is guessed; a new order stops
         * the guessing. */
        unsigned mode = REC__DYN_PTR(rec__t.dyn, (uintptr_t)n)->mode;
        if (round == 1) CHECK_EQ_U(mode, REC__DYN_SURE);
        if (round == 3) CHECK_EQ_U(mode, REC__DYN_NOGUESS);
    }
}

/* Point the cached entries of name id ida at idb instead, a name of the
 * same length: those by address (by_address), or those by key, forgetting
 * those by address so that the lookup by key runs. */
static void corrupt(uint32_t ida, uint32_t idb, size_t len, int by_address) {
    struct rec__dyn_cache *c = rec__t.dyn;
    for (unsigned i = 0; i < REC__DYN_CACHE; i++)
        if (c->e[i].id == ida && c->e[i].len == len && !by_address) c->e[i].id = idb;
    for (unsigned i = 0; i < (1u << REC__DYN_PTR_BITS); i++) {
        if (!by_address) memset(&c->p[i], 0, sizeof c->p[i]);
        else if (c->p[i].id == ida) c->p[i].id = idb;
    }
}

/* A cache entry whose key (or address) matches but whose text is another
 * name's must not be trusted, at every alignment and length. */
static void cache_entries_are_checked(int by_address) {
    static char buf[96] __attribute__((aligned(16)));
    char other[96];
    REQUIRE(rec__t.dyn != NULL);
    for (size_t len = 1; len <= 60; len++) {
        for (unsigned r = 0; r < 8; r++) {
            char *a = buf + r;
            fill(a, len, 11 + (unsigned)by_address);
            memcpy(other, a, len + 1);
            other[len - 1] = other[len - 1] == 'q' ? 'r' : 'q';  /* differs in its last byte */
            uint32_t ida = rec__intern_dyn(a), idb = canonical(other);
            REQUIRE(ida == canonical(a) && idb != 0 && ida != idb);
            CHECK_EQ_U(rec__intern_dyn(a), ida);  /* now known by address too */
            corrupt(ida, idb, len, by_address);
            CHECK_EQ_U(rec__intern_dyn(a), ida);
            CHECK_EQ_U(rec__intern_dyn(a), ida);
        }
    }
}

/* The same buffer holding a prefix of its last name, or a longer name: the
 * check by address compares the NUL too. */
static void prefixes_in_one_buffer(void) {
    static char buf[96] __attribute__((aligned(16)));
    for (unsigned r = 0; r < 8; r++)
        for (size_t len = 1; len <= 40; len++) {
            char *a = buf + r;
            fill(a, 40, 2);
            uint32_t whole = rec__intern_dyn(a);
            CHECK_EQ_U(whole, canonical(a));
            a[len - 1] = 0;  /* a prefix of len - 1 bytes */
            CHECK_EQ_U(rec__intern_dyn(a), canonical(a));
            fill(a, 40, 2);
            CHECK_EQ_U(rec__intern_dyn(a), whole);
        }
}

/* The set (pair of entries by key) holding a name's id, or -1. */
static int set_of(uint32_t id) {
    struct rec__dyn_cache *c = rec__t.dyn;
    for (unsigned i = 0; i < REC__DYN_CACHE; i++)
        if (c->e[i].id == id) return (int)(i / 2);
    return -1;
}

/* Two names whose keys share a set are both kept: looking either up again
 * (by key: the entries by address are forgotten first) leaves the cache as
 * it was. */
static void two_names_share_a_set(void) {
    struct rec__dyn_cache *c = rec__t.dyn;
    char names[600][32];
    int where[600], a = -1, b = -1;
    for (int i = 0; i < 600 && a < 0; i++) {
        snprintf(names[i], sizeof names[i], "set_probe.%d.ffn", i);
        where[i] = set_of(rec__intern_dyn(names[i]));
        for (int j = 0; j < i && a < 0; j++)
            if (where[j] == where[i] && where[i] >= 0) a = j, b = i;
    }
    REQUIRE(a >= 0);
    static struct rec__dyn_cache before;
    for (int round = 0; round < 2; round++) {
        char buf[32];
        snprintf(buf, sizeof buf, "%s", names[a]);
        uint32_t ida = rec__intern_dyn(buf);
        snprintf(buf, sizeof buf, "%s", names[b]);
        uint32_t idb = rec__intern_dyn(buf);
        for (int k = 0; k < 2; k++) {
            memset(c->p, 0, sizeof c->p);
            memcpy(&before, c, sizeof before);
            snprintf(buf, sizeof buf, "%s", names[k ? b : a]);
            CHECK_EQ_U(rec__intern_dyn(buf), k ? idb : ida);
            CHECK(memcmp(before.e, c->e, sizeof c->e) == 0);
        }
    }
}

/* Names that end on the last byte of a page followed by an unmapped page:
 * reading a word past the NUL's would fault. */
static void names_at_a_page_end(void) {
    long pg = sysconf(_SC_PAGESIZE);
    char *m = (char *)mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    REQUIRE(m != MAP_FAILED);
    REQUIRE(mprotect(m + pg, (size_t)pg, PROT_NONE) == 0);
    for (size_t len = 0; len <= 70; len++) {
        char *p = m + pg - 1 - len;
        fill(p, len, 5);
        CHECK_EQ_U(rec__intern_dyn(p), canonical(p));
        CHECK_EQ_U(rec__intern_dyn(p), canonical(p));
    }
    /* A guess learnt elsewhere must not make a buffer at a page end be
     * compared with a name longer than fits before the page end. */
    static char x[128] __attribute__((aligned(64)));
    char *y = m + pg - 8;                 /* room for 7 bytes and a NUL */
    char *xb = x + 8 * (REC__DYN_PTR(rec__t.dyn, (uintptr_t)x) == REC__DYN_PTR(rec__t.dyn, (uintptr_t)y));
    for (int i = 0; i < 5; i++) {         /* A1 C1 A1 C1 A1: y guesses now */
        strcpy(y, i % 2 ? "C1" : "A1");
        CHECK_EQ_U(rec__intern_dyn(y), canonical(y));
    }
    CHECK(REC__DYN_PTR(rec__t.dyn, (uintptr_t)y)->mode >= REC__DYN_GUESS);
    strcpy(xb, "A1");
    CHECK_EQ_U(rec__intern_dyn(xb), canonical("A1"));
    fill(xb, 60, 4);
    CHECK_EQ_U(rec__intern_dyn(xb), canonical(xb));    /* learns: after A1, 60 bytes */
    strcpy(y, "D1");
    CHECK_EQ_U(rec__intern_dyn(y), canonical("D1"));   /* the guess would fault */
    /* and names that start a page: the first aligned word is the page's */
    fill(m, 20, 9);
    CHECK_EQ_U(rec__intern_dyn(m), canonical(m));
    munmap(m, (size_t)pg * 2);
}

/* A name across a page end, then a short one at the same address once the
 * second page is gone: what was kept by address must not be compared
 * beyond the first page. */
static void names_across_a_page_end(void) {
    long pg = sysconf(_SC_PAGESIZE);
    for (size_t before = 1; before <= 16; before++) {
        char *m = (char *)mmap(NULL, (size_t)pg * 2, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
        REQUIRE(m != MAP_FAILED);
        char *p = m + pg - before;
        fill(p, 20, (unsigned)before);
        CHECK_EQ_U(rec__intern_dyn(p), canonical(p));
        CHECK_EQ_U(rec__intern_dyn(p), canonical(p));
        p[before - 1] = 0;  /* a shorter name, within the first page */
        REQUIRE(mprotect(m + pg, (size_t)pg, PROT_NONE) == 0);
        CHECK_EQ_U(rec__intern_dyn(p), canonical(p));
        munmap(m, (size_t)pg * 2);
    }
}

static void filtered_names(void) {
    char n[64];
    for (unsigned r = 0; r < 8; r++) {
        snprintf(n + r, sizeof n - r, "blk.%u." FILTER, r);
        CHECK_EQ_U(rec__intern_dyn(n + r), 0);
        CHECK_EQ_U(rec__intern_dyn(n + r), 0);  /* from the cache */
    }
    CHECK_EQ_U(rec__intern_dyn(NULL), 0);
}

/* Threads interning the same names at once agree on every id. */
static void *thread_names(void *arg) {
    uint32_t *ids = (uint32_t *)arg;
    char n[64];
    for (int rep = 0; rep < 3; rep++)
        for (int i = 0; i < 64; i++) {
            snprintf(n, sizeof n, "thread.%d.ffn_up", i);
            uint32_t id = rec__intern_dyn(n);
            if (rep == 0) ids[i] = id;
            else if (ids[i] != id) ids[i] = 0;
        }
    return NULL;
}

static void threads_agree(void) {
    uint32_t ids[4][64];
    pthread_t th[4];
    for (int t = 0; t < 4; t++) REQUIRE(pthread_create(&th[t], NULL, thread_names, ids[t]) == 0);
    for (int t = 0; t < 4; t++) pthread_join(th[t], NULL);
    for (int i = 0; i < 64; i++) {
        char n[64];
        snprintf(n, sizeof n, "thread.%d.ffn_up", i);
        uint32_t want = canonical(n);
        for (int t = 0; t < 4; t++) CHECK_EQ_U(ids[t][i], want);
    }
}

int main(void) {
    setenv("RECORDER_FILTER_OUT", FILTER, 1);
    unsetenv("RECORDER_FILTER");
    REQUIRE(rec_init() == 0);
    REQUIRE(rec__intern_dyn("first") == canonical("first"));  /* allocates the cache */
    every_length_and_alignment();
    dynamic_first();
    one_buffer_many_names();
    cache_entries_are_checked(0);
    cache_entries_are_checked(1);
    prefixes_in_one_buffer();
    two_names_share_a_set();
    names_at_a_page_end();
    names_across_a_page_end();
    filtered_names();
    threads_agree();
    CHECK_DONE();
}
