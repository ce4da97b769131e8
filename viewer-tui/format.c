/*
 * format.c -- short number formats for columns (see format.h).
 */
#include "format.h"

#include <math.h>
#include <stdio.h>
#include <string.h>

/* Three significant digits of v (0 <= v < 999.5) followed by unit. */
static const char *sig3(char *buf, size_t cap, double v, const char *unit) {
    if (v < 9.995) snprintf(buf, cap, "%.2f%s", v, unit);
    else if (v < 99.95) snprintf(buf, cap, "%.1f%s", v, unit);
    else snprintf(buf, cap, "%.0f%s", v, unit);
    return buf;
}

const char *fmt_duration(char *buf, size_t cap, double ns, int utf8) {
    if (!(ns >= 0) || isinf(ns)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    if (ns < 999.5) {
        snprintf(buf, cap, "%.0fns", ns);
        return buf;
    }
    static const struct { double div; const char *u8, *ascii; } units[] = {
        {1e3, "\xc2\xb5s", "us"}, {1e6, "ms", "ms"}, {1e9, "s", "s"},
    };
    for (size_t i = 0; i < sizeof units / sizeof units[0]; i++) {
        double v = ns / units[i].div;
        /* Seconds stop at 99.9: "120s" reads worse than "2.00m". */
        double limit = units[i].div == 1e9 ? 99.95 : 999.5;
        if (v < limit) return sig3(buf, cap, v, utf8 ? units[i].u8 : units[i].ascii);
    }
    double min = ns / 6e10;
    if (min < 99.95) return sig3(buf, cap, min, "m");
    double h = ns / 3.6e12;
    if (h < 999.5) return sig3(buf, cap, h, "h");
    snprintf(buf, cap, "%.0fh", h);
    return buf;
}

const char *fmt_si(char *buf, size_t cap, double v) {
    if (isnan(v)) {
        snprintf(buf, cap, "-");
        return buf;
    }
    if (isinf(v)) {   /* a counter's sum of huge values: say so, not "infP" */
        snprintf(buf, cap, "%s", v > 0 ? "inf" : "-inf");
        return buf;
    }
    const char *sign = "";
    if (v < 0) sign = "-", v = -v;
    char tmp[FMT_BUF];
    if (v < 99.95 && fabs(v - round(v)) >= 0.05) snprintf(tmp, sizeof tmp, "%.1f", v);
    else if (v < 999.5) snprintf(tmp, sizeof tmp, "%.0f", v);
    else {
        static const char *const suffix[] = {"k", "M", "G", "T", "P"};
        size_t i = 0;
        v /= 1e3;
        while (v >= 999.5 && i + 1 < sizeof suffix / sizeof suffix[0]) v /= 1e3, i++;
        if (v >= 999.5) snprintf(tmp, sizeof tmp, "%.0f%s", v, suffix[i]);
        else sig3(tmp, sizeof tmp, v, suffix[i]);
    }
    snprintf(buf, cap, "%s%s", sign, tmp);
    return buf;
}

const char *fmt_pct(char *buf, size_t cap, double pct) {
    if (isnan(pct)) snprintf(buf, cap, "-");
    else if (pct < 99.95) snprintf(buf, cap, "%.1f%%", pct < 0 ? 0.0 : pct);
    else snprintf(buf, cap, "%.0f%%", pct);
    return buf;
}

const char *fmt_int(char *buf, size_t cap, uint64_t v) {
    char digits[32];
    int n = snprintf(digits, sizeof digits, "%llu", (unsigned long long)v);
    size_t o = 0;
    for (int i = 0; i < n && o + 1 < cap; i++) {
        if (i > 0 && (n - i) % 3 == 0 && o + 2 < cap) buf[o++] = ',';
        buf[o++] = digits[i];
    }
    if (cap) buf[o < cap ? o : cap - 1] = 0;
    return buf;
}
