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
