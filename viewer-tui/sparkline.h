/*
 * sparkline.h -- a row of values in [0, 1] as block characters
 * ("▁▂▃▄▅▆▇█"), for thread utilization.  Pure.
 */
#ifndef TUI_SPARKLINE_H
#define TUI_SPARKLINE_H

#include <stddef.h>

/* Draws the newest `width` of the n values (v[n-1] newest, rightmost) into
 * out, NUL-terminated; with fewer values than columns the line is padded on
 * the left.  0 (or less, or NaN) is a blank, any busy time at least the
 * lowest block, 1 (or more) the full block.  Without UTF-8 the levels are
 * " .:-=+*#%".  Returns the columns drawn (always width). */
int sparkline(char *out, size_t cap, const double *v, size_t n, int width, int utf8);

/* Any values (a counter, a P99 in ns) to what sparkline draws: scaled to
 * (0, 1] between their min (or 0 when from_zero) and max, the lowest at
 * the lowest block; NAN and infinities (no sample) become blanks; all
 * equal: half height. */
void sparkline_scale(const double *in, size_t n, double *out, int from_zero);
/* A horizontal bar frac (0..1) of width columns, in eighths of a cell
 * ("███▍"); without UTF-8 '#' and '|' for a short last cell.  Any frac > 0
 * draws at least an eighth.  Returns the columns drawn (not padded). */
int hbar(char *out, size_t cap, double frac, int width, int utf8);
/* The level (0 = blank .. 8 = full) sparkline draws for a value. */
int sparkline_level(double v);

#endif
