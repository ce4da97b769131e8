/*
 * sparkline.c -- values as block characters (see sparkline.h).
 */
#include "sparkline.h"

#include <math.h>
#include <string.h>

int sparkline_level(double v) {
    if (!(v > 0)) return 0;
    if (v >= 1) return 8;
    /* Round up: a thread busy for 1% of a second is not idle. */
    int l = (int)ceil(v * 8);
    return l < 1 ? 1 : l > 8 ? 8 : l;
}

int sparkline(char *out, size_t cap, const double *v, size_t n, int width, int utf8) {
    static const char *const blocks[9] = {
        " ", "\xe2\x96\x81", "\xe2\x96\x82", "\xe2\x96\x83", "\xe2\x96\x84",
        "\xe2\x96\x85", "\xe2\x96\x86", "\xe2\x96\x87", "\xe2\x96\x88",
    };
    static const char ascii[] = " .:-=+*#%";
    size_t len = 0;
    if (!cap) return 0;
    if (width < 0) width = 0;
    size_t w = (size_t)width;
    size_t from = n > w ? n - w : 0;
    size_t pad = n < w ? w - n : 0;
    for (size_t i = 0; i < w; i++) {
        int lvl = i < pad ? 0 : sparkline_level(v[from + i - pad]);
        const char *s = utf8 ? blocks[lvl] : (const char[]){ascii[lvl], 0};
        size_t k = strlen(s);
        if (len + k >= cap) break;
        memcpy(out + len, s, k);
        len += k;
    }
    out[len] = 0;
    return width;
}

void sparkline_scale(const double *in, size_t n, double *out, int from_zero) {
    double lo = INFINITY, hi = -INFINITY;
    for (size_t i = 0; i < n; i++)
        if (isfinite(in[i])) {
            if (in[i] < lo) lo = in[i];
            if (in[i] > hi) hi = in[i];
        }
    if (from_zero && lo > 0) lo = 0;
    for (size_t i = 0; i < n; i++) {
        if (!isfinite(in[i])) {
            out[i] = NAN;   /* a blank */
            continue;
        }
        /* The lowest value keeps the lowest block: a sample, not a gap. */
        double f = hi > lo ? (in[i] - lo) / (hi - lo) : 0.5;
        out[i] = f < 0.01 ? 0.01 : f;
    }
}

int hbar(char *out, size_t cap, double frac, int width, int utf8) {
    /* Eighths of a cell: "▏" to "█". */
    static const char *const part[8] = {
        "", "\xe2\x96\x8f", "\xe2\x96\x8e", "\xe2\x96\x8d", "\xe2\x96\x8c", "\xe2\x96\x8b", "\xe2\x96\x8a", "\xe2\x96\x89",
    };
    size_t len = 0;
    if (!cap) return 0;
    out[0] = 0;
    if (width <= 0) return 0;
    if (!(frac > 0)) frac = 0;
    if (frac > 1) frac = 1;
    long eighths = (long)(frac * width * 8 + 0.5);
    if (frac > 0 && eighths == 0) eighths = 1;   /* a count is never drawn as none */
    int cols = 0;
    for (long i = 0; i < eighths / 8 && cols < width; i++, cols++) {
        const char *s = utf8 ? "\xe2\x96\x88" : "#";
        size_t k = strlen(s);
        if (len + k >= cap) break;
        memcpy(out + len, s, k);
        len += k;
    }
    long rest = eighths % 8;
    if (rest && cols < width) {
        const char *s = utf8 ? part[rest] : (rest >= 4 ? "#" : "|");
        size_t k = strlen(s);
        if (len + k < cap) {
            memcpy(out + len, s, k);
            len += k;
            cols++;
        }
    }
    out[len] = 0;
    return cols;
}
