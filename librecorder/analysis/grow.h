/*
 * grow.h -- a table indexed by a small number (a record of the model, a
 * thread) grown to hold index i: doubled from `first` entries, the new
 * part zeroed.  The exporters' per-record state (json_events.c,
 * perfetto_events.c, export_stream.c) and the gaps' per-thread state
 * (gaps.c) grow this way; one helper, so that the bound and the zeroing
 * are in one place.
 */
#ifndef REC_ANALYSIS_GROW_H
#define REC_ANALYSIS_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* arr (*n entries of elem bytes) grown to hold index i, or returned as it
 * is if it does: the array to keep (it may have moved; *n its new length),
 * or NULL with arr and *n unchanged (out of memory, or a size past
 * SIZE_MAX).  The caller stores the result in place of arr. */
static inline void *grow_zeroed(void *arr, size_t *n, size_t elem, size_t i, size_t first) {
    if (i < *n) return arr;
    size_t k = *n ? *n : first;
    while (k <= i) {
        if (k > SIZE_MAX / 2 / elem) return NULL;
        k *= 2;
    }
    unsigned char *p = realloc(arr, k * elem);
    if (!p) return NULL;
    memset(p + *n * elem, 0, (k - *n) * elem);
    *n = k;
    return p;
}

#endif
