/*
 * grow.h -- how librecorder's arrays grow: doubled from a first size until
 * they hold what is asked, the old entries kept, the new part zeroed when
 * asked, and a size past SIZE_MAX refused with the array unchanged.
 *
 * One helper, so that the doubling, the overflow check and the zeroing
 * are in one place: the model's registries (model.c), the statistics'
 * scratch (stats.c), the exporters' per-record tables and work lists
 * (json_events.c, perfetto_events.c, export_stream.c), the gaps' threads
 * (gaps.c), the call stacks of the views (view.c), the counters
 * (counters.c) and the capture's tables (cap_procs.c, seg_list.c) grow
 * this way.  Rings that keep a head and a tail (export_queue.h,
 * event_log.c) copy their two runs themselves.
 */
#ifndef REC_GROW_H
#define REC_GROW_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

/* arr (*cap entries of elem bytes) grown to hold need entries, or returned
 * as it is if it does: the array to keep (it may have moved; *cap its new
 * length, a power of two times first), or NULL with arr and *cap unchanged
 * (out of memory, or a size past SIZE_MAX).  With zero set, the entries
 * past the old *cap are zeroed.  The caller stores a non-NULL result in
 * place of arr.  need is at least 1, so that NULL always means failure
 * (an array never allocated holds 0 entries, and would come back NULL). */
static inline void *grow_to(void *arr, size_t *cap, size_t need, size_t elem, size_t first, int zero) {
    if (need <= *cap) return arr;
    size_t k = *cap ? *cap : first;
    while (k < need) {
        if (k > SIZE_MAX / 2 / elem) return NULL;
        k *= 2;
    }
    if (k > SIZE_MAX / elem) return NULL;
    unsigned char *p = realloc(arr, k * elem);
    if (!p) return NULL;
    if (zero) memset(p + *cap * elem, 0, (k - *cap) * elem);
    *cap = k;
    return p;
}

/* A table indexed by a small number (a record of the model, a thread)
 * grown to hold index i, the new part zeroed.  i < SIZE_MAX. */
static inline void *grow_zeroed(void *arr, size_t *n, size_t elem, size_t i, size_t first) {
    return i == SIZE_MAX ? NULL : grow_to(arr, n, i + 1, elem, first, 1);
}

#endif
