/*
 * test_grow.c -- grow_zeroed (librecorder/analysis/grow.h), the one way
 * the exporters' per-record tables and the gaps' per-thread table grow:
 * doubled from the first size to hold the index asked for, the new part
 * zeroed, what was there kept; a size past SIZE_MAX refused with the table
 * unchanged.
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
    CHECK_DONE();
}
