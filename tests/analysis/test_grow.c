/*
 * test_grow.c -- grow_to and grow_zeroed (librecorder/grow.h), the one way
 * librecorder's arrays grow: doubled from the first size to hold what is
 * asked, what was there kept, the new part zeroed when asked; a size past
 * SIZE_MAX refused with the array unchanged.
 */
#include <stdint.h>
#include <stdlib.h>

#include "check.h"
#include "grow.h"

struct item {
    uint64_t a;
    int b;
};

int main(void) {
    struct item *t = NULL;
    size_t n = 0;
    /* Within the table: returned as it is. */
    t = grow_zeroed(t, &n, sizeof *t, 0, 64);
    REQUIRE(t);
    CHECK_EQ_U(n, 64);
    for (size_t i = 0; i < n; i++) CHECK(t[i].a == 0 && t[i].b == 0);
    t[5].a = 7;
    t[63].b = 9;
    CHECK(grow_zeroed(t, &n, sizeof *t, 63, 64) == t);
    CHECK_EQ_U(n, 64);
    /* Past it: doubled until the index fits (64 -> 128 -> 256 -> 512), the
     * old entries kept, the new ones zeroed. */
    t = grow_zeroed(t, &n, sizeof *t, 300, 64);
    REQUIRE(t);
    CHECK_EQ_U(n, 512);
    CHECK_EQ_U(t[5].a, 7);
    CHECK_EQ_U(t[63].b, 9);
    for (size_t i = 64; i < n; i++) CHECK(t[i].a == 0 && t[i].b == 0);
    /* A size that does not fit in size_t: refused, the table as it was. */
    size_t had = n;
    CHECK(grow_zeroed(t, &n, SIZE_MAX / 4, 1000, 64) == NULL);
    CHECK_EQ_U(n, had);
    CHECK(grow_zeroed(t, &n, sizeof *t, SIZE_MAX - 1, 64) == NULL);
    CHECK_EQ_U(n, had);
    CHECK_EQ_U(t[5].a, 7);
    free(t);

    /* grow_to, as a list grows by one entry at a time: the first size,
     * then doubled each time it is full, what was pushed kept. */
    uint32_t *v = NULL;
    size_t cap = 0;
    for (uint32_t i = 0; i < 1000; i++) {
        uint32_t *p = grow_to(v, &cap, (size_t)i + 1, sizeof *p, 8, 0);
        REQUIRE(p);
        v = p;
        v[i] = i * 3;
        CHECK(cap >= (size_t)i + 1 && cap >= 8 && (cap & (cap - 1)) == 0);
    }
    CHECK_EQ_U(cap, 1024);
    int kept = 1;
    for (uint32_t i = 0; i < 1000; i++) kept &= v[i] == i * 3;
    CHECK(kept);
    CHECK(grow_to(v, &cap, 1024, sizeof *v, 8, 0) == v);   /* fits: as it is */
    /* Zeroed on request: only the new part. */
    v = grow_to(v, &cap, 1025, sizeof *v, 8, 1);
    REQUIRE(v);
    CHECK_EQ_U(cap, 2048);
    CHECK_EQ_U(v[999], 999 * 3);
    int zero = 1;
    for (size_t i = 1024; i < cap; i++) zero &= v[i] == 0;
    CHECK(zero);
    /* Past SIZE_MAX, by the count or by the first size: refused, the array
     * and its length as they were. */
    CHECK(grow_to(v, &cap, SIZE_MAX, sizeof *v, 8, 0) == NULL);
    CHECK_EQ_U(cap, 2048);
    size_t none = 0;
    CHECK(grow_to(NULL, &none, 1, SIZE_MAX / 2, 4, 0) == NULL);
    CHECK_EQ_U(none, 0);
    CHECK(grow_zeroed(v, &cap, sizeof *v, SIZE_MAX, 8) == NULL);
    CHECK_EQ_U(v[999], 999 * 3);
    free(v);
    CHECK_DONE();
}
