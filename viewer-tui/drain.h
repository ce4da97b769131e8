/*
 * drain.h -- one bounded pass of copying new ring entries into the model.
 *
 * rec_model_poll_seg reads up to two rings per thread per call: when the
 * writers outrun the model, one call can take a tenth of a second and the
 * screen stops answering keys.  A pass here reads at most `per_thread`
 * entries of each thread and `per_pass` in all, starting with a different
 * thread each time, so its cost is bounded; whatever the writers overwrite
 * meanwhile is counted as lost by rec_seg_read, exactly as before.  When
 * a pass stops at a bound, `more` says so and the caller comes back at
 * once (after answering keys) instead of after its usual period.  It
 * also measures how full each ring was before it read it (the "ring" of
 * the title bar), from the same thread scan.
 */
#ifndef TUI_DRAIN_H
#define TUI_DRAIN_H

#include <stddef.h>
#include <stdint.h>

#include "recorder/analysis.h"

/* Several programs in one model (processes.h): each one's slots are moved
 * past the others', its string ids tagged with its index, and its clock
 * put on the first program's.  NULL: one program, entries as they are. */
struct drain_map {
    uint32_t slot_base;
    uint32_t tag;                 /* index << DRAIN_TAG_SHIFT */
    rec_seg *from;                /* retime from this segment's clock (NULL: it is the model's) */
    double offset_ns;             /* its CLOCK_MONOTONIC origin minus the model's */
    uint64_t ticks0;              /* the model's calibration point */
    double ticks_per_ns;          /* the model's */
};
#define DRAIN_TAG_SHIFT 27        /* ids are below 2^27 (a 1 GiB string table); the rest say whose */
#define DRAIN_ID_MASK ((UINT32_C(1) << DRAIN_TAG_SHIFT) - 1)

struct drain {
    const struct drain_map *map;  /* may be NULL */
    struct rec_thread_info *th;
    int max_threads;
    struct rec_entry *ent;
    size_t per_thread, per_pass;
    double ring_entries;
    int next;                  /* the thread the next pass starts with */
    int more;                  /* the last pass stopped at a bound with entries left */
};

int drain_init(struct drain *d, uint32_t max_threads, uint64_t ring_entries, size_t per_thread, size_t per_pass);
void drain_free(struct drain *d);

/* Returns the events fed to the model; *fill gets the largest unread share
 * of a ring found (over 1: the writer lapped us). */
size_t drain_pass(struct drain *d, rec_seg *s, rec_model *m, double *fill);

#endif
