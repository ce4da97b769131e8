/*
 * format.h -- numbers as a terminal column shows them: short, aligned,
 * three significant digits ("1.23ms", "45.6k", "12.3%").
 *
 * Every function writes a NUL-terminated string of at most 8 columns into
 * buf and returns buf, so a call can be an argument.  Pure.
 */
#ifndef TUI_FORMAT_H
#define TUI_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define FMT_BUF 24

/* A duration in ns: "850ns", "12.3µs" ("us" when !utf8), "1.23ms",
 * "4.56s", "12.3m", "2.0h".  Negative or NaN: "-". */
const char *fmt_duration(char *buf, size_t cap, double ns, int utf8);
/* A rate or a count with an SI suffix: "0", "950", "12.3k", "1.23M",
 * "4.56G"; NaN "-", infinities "inf" and "-inf".  Below 1000 a rate keeps one decimal when it is not whole
 * ("0.5"). */
const char *fmt_si(char *buf, size_t cap, double v);
/* A percentage: "0.0%", "12.3%", "100%", "250%"; NaN: "-". */
const char *fmt_pct(char *buf, size_t cap, double pct);
/* Integer with thousands separators: "1,234,567". */
const char *fmt_int(char *buf, size_t cap, uint64_t v);

#endif
