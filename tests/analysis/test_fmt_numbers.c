/*
 * test_fmt_numbers.c -- the exporters' hand-written number formatters
 * (librecorder/analysis/outbuf.c: fmt_u64, fmt_i64, fmt_us) against an
 * independent one, the C library's snprintf: every power of ten and its
 * neighbours, every bit length's edges, the extremes, and a million
 * pseudo-random values of every size.  Each must write exactly
 * snprintf's text and nothing past its returned end.  Built with
 * outbuf.c itself (internal to librecorder).
 */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "outbuf.h"

static int fails;

static void want(const char *what, int64_t arg, const char *got, size_t n, const char *exp) {
    if (n == strlen(exp) && !memcmp(got, exp, n)) return;
    if (fails++ < 20) fprintf(stderr, "%s(%" PRId64 ") = '%.*s', want '%s'\n", what, arg, (int)n, got, exp);
}

/* The formatted text, and that nothing past its end was written. */
#define RUN(call, what, arg, exp)                                   \
    do {                                                            \
        char buf[64];                                               \
        memset(buf, '#', sizeof buf);                               \
        char *e = call;                                             \
        want(what, (int64_t)(arg), buf, (size_t)(e - buf), exp);    \
        if (e[0] != '#') {                                          \
            if (fails++ < 20) fprintf(stderr, "%s(%" PRId64 ") wrote past its end\n", what, (int64_t)(arg)); \
        }                                                           \
    } while (0)

static void u64(uint64_t v) {
    char exp[32];
    snprintf(exp, sizeof exp, "%" PRIu64, v);
    RUN(fmt_u64(buf, v), "fmt_u64", v, exp);
}

static void i64(int64_t v) {
    char exp[32];
    snprintf(exp, sizeof exp, "%" PRId64, v);
    RUN(fmt_i64(buf, v), "fmt_i64", v, exp);
}

/* fmt_us: ns as microseconds, at most 3 decimals, no trailing zeros. */
static void us(int64_t ns) {
    char exp[48];
    uint64_t u = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;
    int k = snprintf(exp, sizeof exp, "%s%" PRIu64 ".%03u", ns < 0 ? "-" : "", u / 1000, (unsigned)(u % 1000));
    while (exp[k - 1] == '0') exp[--k] = 0;
    if (exp[k - 1] == '.') exp[--k] = 0;
    RUN(fmt_us(buf, ns), "fmt_us", ns, exp);
}

static uint64_t rnd(uint64_t *s) {
    *s ^= *s << 13;
    *s ^= *s >> 7;
    *s ^= *s << 17;
    return *s;
}

int main(void) {
    uint64_t p = 1;
    for (int d = 0; d < 20; d++, p *= 10) {
        for (uint64_t k = 0; k < 3; k++) {
            u64(p - 1 + k);
            i64((int64_t)(p - 1 + k));
            i64(-(int64_t)(p - 1 + k));
            us((int64_t)(p - 1 + k));
            us(-(int64_t)(p - 1 + k));
        }
        if (d == 19) break;
    }
    for (int b = 0; b < 64; b++) {
        uint64_t v = UINT64_C(1) << b;
        u64(v);
        u64(v - 1);
        u64(v + 1);
        us((int64_t)(v >> 1));
    }
    u64(0);
    u64(UINT64_MAX);
    i64(INT64_MAX);
    i64(INT64_MIN);
    us(INT64_MAX);
    us(INT64_MIN);
    us(0);
    us(1);
    us(10);
    us(100);
    us(1010);
    us(-999);
    uint64_t s = 88172645463325252ull;
    for (int i = 0; i < 1000000; i++) {
        uint64_t v = rnd(&s) >> (rnd(&s) & 63);
        u64(v);
        i64((int64_t)v);
        us((int64_t)v);
    }
    CHECK(fails == 0);
    CHECK_DONE();
}
