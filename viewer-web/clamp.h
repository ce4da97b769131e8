/*
 * clamp.h -- arithmetic on numbers that come from the segment.
 *
 * The segment is written by the program, which may be buggy or hostile:
 * its timestamps can be anything from 0 to 2^64-1 and run backwards, and
 * its heads and loss counts can jump.  Whatever recorder-web computes from
 * them goes through these helpers, so that nothing overflows (undefined
 * for signed integers, nonsense for unsigned ones) and the numbers a page
 * gets stay ones it can show.
 */
#ifndef WEB_CLAMP_H
#define WEB_CLAMP_H

#include <stdint.h>

#include "recorder/reader.h"   /* rec_sat_add: the one saturating sum */

/* Times are kept as integer ns within +-WEB_NS_MAX (about 146 years), so
 * the difference of any two fits in an int64_t: batch.c and lanes.c rely
 * on it for every delta they encode. */
#define WEB_NS_MAX (((int64_t)1 << 62) - 1)

/* ns as rec_seg_ticks_to_ns gives them, rounded and clamped; NaN is 0. */
static inline int64_t web_ns(double ns) {
    if (ns != ns) return 0;
    if (ns >= 0x1p62) return WEB_NS_MAX;
    if (ns <= -0x1p62) return -WEB_NS_MAX;
    return ns >= 0 ? (int64_t)(ns + 0.5) : -(int64_t)(0.5 - ns);
}


/* Add a count from the segment to a uint64_t counter only the calling
 * thread writes (relaxed atomics, shared.h): it sticks at the top instead of
 * wrapping back to small numbers. */
#define web_count(p, v) web_store((p), rec_sat_add(web_load(p), (uint64_t)(v)))

#endif
