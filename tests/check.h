/*
 * check.h -- the tests' assertion macros.  A failed check prints where and
 * why, and the test exits non-zero at the end (or at once with REQUIRE).
 */
#ifndef RECORDER_TEST_CHECK_H
#define RECORDER_TEST_CHECK_H

#include <stdio.h>
#include <stdlib.h>

static int check_failures;

#define CHECK(cond)                                                              \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); \
            check_failures++;                                                    \
        }                                                                        \
    } while (0)

#define CHECK_EQ_U(a, b)                                                         \
    do {                                                                         \
        unsigned long long a_ = (unsigned long long)(a), b_ = (unsigned long long)(b); \
        if (a_ != b_) {                                                          \
            fprintf(stderr, "%s:%d: CHECK failed: %s == %s (%llu != %llu)\n", __FILE__, \
                    __LINE__, #a, #b, a_, b_);                                   \
            check_failures++;                                                    \
        }                                                                        \
    } while (0)

#define REQUIRE(cond)                                                            \
    do {                                                                         \
        if (!(cond)) {                                                           \
            fprintf(stderr, "%s:%d: REQUIRE failed: %s\n", __FILE__, __LINE__, #cond); \
            exit(1);                                                             \
        }                                                                        \
    } while (0)

#define CHECK_DONE()                                                             \
    do {                                                                         \
        if (check_failures) fprintf(stderr, "%d check(s) failed\n", check_failures); \
        return check_failures ? 1 : 0;                                           \
    } while (0)

#endif
