/*
 * test_sparkline.c -- sparkline.c: levels, newest on the right, padding,
 * and the ASCII fallback.
 */
#include <math.h>
#include <string.h>

#include "check.h"
#include "sparkline.h"

int main(void) {
    CHECK_EQ_U(sparkline_level(0), 0);
    CHECK_EQ_U(sparkline_level(-1), 0);
    CHECK_EQ_U(sparkline_level(NAN), 0);
    CHECK_EQ_U(sparkline_level(0.001), 1);   /* any busy time shows */
    CHECK_EQ_U(sparkline_level(0.125), 1);
    CHECK_EQ_U(sparkline_level(0.5), 4);
    CHECK_EQ_U(sparkline_level(0.51), 5);
    CHECK_EQ_U(sparkline_level(1), 8);
    CHECK_EQ_U(sparkline_level(3), 8);

    char out[256];
    double v[5] = {0, 0.001, 0.5, 1, 0.25};
    CHECK_EQ_U(sparkline(out, sizeof out, v, 5, 5, 1), 5);
    CHECK(!strcmp(out, " \xe2\x96\x81\xe2\x96\x84\xe2\x96\x88\xe2\x96\x82"));
    /* Only the newest values when the column is narrow. */
    sparkline(out, sizeof out, v, 5, 2, 0);
    CHECK(!strcmp(out, "%:"));
    /* Padded on the left when there are fewer values than columns. */
    sparkline(out, sizeof out, v, 5, 8, 0);
    CHECK(!strcmp(out, "    .=%:"));
    /* A buffer too small for all of it is cut on a character boundary. */
    char small[8];
    double full[3] = {1, 1, 1};
    sparkline(small, sizeof small, full, 3, 3, 1);    /* 3 bytes each; only 2 fit */
    CHECK(!strcmp(small, "\xe2\x96\x88\xe2\x96\x88"));
    sparkline(small, sizeof small, v, 5, 0, 1);
    CHECK(!strcmp(small, ""));

    /* Counters and P99s: scaled between their min and max, the min at the
     * lowest block, no sample blank. */
    double c[6] = {-5, NAN, 5, 15, INFINITY, 15}, sc[6];
    sparkline_scale(c, 6, sc, 0);
    sparkline(out, sizeof out, sc, 6, 6, 0);
    CHECK(!strcmp(out, ". =% %"));
    /* From zero: 5 of 15 is a third. */
    double p[3] = {5, 10, 15};
    sparkline_scale(p, 3, sc, 1);
    sparkline(out, sizeof out, sc, 3, 3, 0);
    CHECK(!strcmp(out, "-*%"));
    /* All equal: half height, not blank. */
    double e[2] = {7, 7};
    sparkline_scale(e, 2, sc, 0);
    sparkline(out, sizeof out, sc, 2, 2, 0);
    CHECK(!strcmp(out, "=="));

    /* Histogram bars: eighths of a cell; never nothing for a count. */
    CHECK(hbar(out, sizeof out, 1, 4, 1) == 4 && !strcmp(out, "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88\xe2\x96\x88"));
    CHECK(hbar(out, sizeof out, 0.625, 4, 1) == 3 && !strcmp(out, "\xe2\x96\x88\xe2\x96\x88\xe2\x96\x8c"));
    CHECK(hbar(out, sizeof out, 0.001, 10, 1) == 1 && !strcmp(out, "\xe2\x96\x8f"));
    CHECK(hbar(out, sizeof out, 0, 10, 1) == 0 && !strcmp(out, ""));
    CHECK(hbar(out, sizeof out, 0.625, 4, 0) == 3 && !strcmp(out, "###"));
    CHECK(hbar(out, sizeof out, 2, 3, 0) == 3 && !strcmp(out, "###"));
    CHECK_DONE();
}
