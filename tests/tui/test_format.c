/*
 * test_format.c -- format.c: durations, rates and percentages keep three
 * significant digits, switch units at the right place, and fit 8 columns.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "format.h"

static char b[FMT_BUF];

#define DUR(ns, want) CHECK_STR(fmt_duration(b, sizeof b, (ns), 1), want)
#define DURA(ns, want) CHECK_STR(fmt_duration(b, sizeof b, (ns), 0), want)
#define SI(v, want) CHECK_STR(fmt_si(b, sizeof b, (v)), want)
#define PCT(v, want) CHECK_STR(fmt_pct(b, sizeof b, (v)), want)
#define CHECK_STR(got, want)                                                       \
    do {                                                                           \
        const char *g_ = (got);                                                    \
        if (strcmp(g_, want)) {                                                    \
            fprintf(stderr, "%s:%d: got \"%s\", want \"%s\"\n", __FILE__, __LINE__, g_, want); \
            check_failures++;                                                      \
        }                                                                          \
    } while (0)

int main(void) {
    DUR(0, "0ns");
    DUR(5, "5ns");
    DUR(999.4, "999ns");
    DUR(999.6, "1.00\xc2\xb5s");          /* rounds up into the next unit */
    DUR(1234, "1.23\xc2\xb5s");
    DURA(1234, "1.23us");
    DUR(12345, "12.3\xc2\xb5s");
    DUR(123456, "123\xc2\xb5s");
    DUR(999600, "1.00ms");
    DUR(1.23e6, "1.23ms");
    DUR(45.6e6, "45.6ms");
    DUR(2.5e9, "2.50s");
    DUR(99.9e9, "99.9s");
    DUR(150e9, "2.50m");
    DUR(7200e9, "2.00h");
    DUR(-1, "-");
    DUR(NAN, "-");
    DUR(INFINITY, "-");

    SI(0, "0");
    SI(0.5, "0.5");
    SI(12.34, "12.3");
    SI(950, "950");
    SI(999.4, "999");
    SI(999.6, "1.00k");
    SI(12345, "12.3k");
    SI(123456, "123k");
    SI(1.234e6, "1.23M");
    SI(21.3e6, "21.3M");
    SI(4.56e9, "4.56G");
    SI(-2000, "-2.00k");
    SI(NAN, "-");
    SI(INFINITY, "inf");   /* a counter summing huge values */
    SI(-INFINITY, "-inf");

    PCT(0, "0.0%");
    PCT(12.345, "12.3%");
    PCT(99.96, "100%");
    PCT(250, "250%");
    PCT(-0.01, "0.0%");
    PCT(NAN, "-");

    CHECK_STR(fmt_int(b, sizeof b, 0), "0");
    CHECK_STR(fmt_int(b, sizeof b, 999), "999");
    CHECK_STR(fmt_int(b, sizeof b, 1000), "1,000");
    CHECK_STR(fmt_int(b, sizeof b, 1234567), "1,234,567");

    /* Every duration and rate fits an 8-column cell, across the range. */
    for (double v = 0.3; v < 1e16; v *= 1.37) {
        fmt_duration(b, sizeof b, v, 0);
        CHECK(strlen(b) <= 7);
        fmt_si(b, sizeof b, v);
        CHECK(strlen(b) <= 6);
    }
    CHECK_DONE();
}
