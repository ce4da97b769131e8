/*
 * fake_cupti.h -- what a test drives in the fake libcupti (fake_cupti.c):
 * the real H100 buffers it delivers, the CUDA calls it "makes", and what
 * the library under test asked of it.
 */
#ifndef RECORDER_TESTS_FAKE_CUPTI_H
#define RECORDER_TESTS_FAKE_CUPTI_H

#include <stdint.h>

/* Reads a buffers.bin (tests/gpu/fixtures/cupti-h100/README.md).  Returns
 * the records of the kinds it can deliver, or -1. */
int fake_cupti_load(const char *path);
/* From now on cuptiActivityFlushAll(0) delivers the first part of the
 * records (completed buffers); the rest, kept as a partly filled buffer
 * would be, comes only with CUPTI_ACTIVITY_FLAG_FLUSH_FORCED. */
void fake_cupti_release(void);
/* Parts delivered so far (0, 1, or 2). */
int fake_cupti_parts_delivered(void);
/* The next cuptiActivityGetNumDroppedRecords reports n. */
void fake_cupti_set_dropped(uint64_t n);
/* cuptiSubscribe fails with result r (0: succeeds). */
void fake_cupti_fail_subscribe(int r);
/* cuptiGetVersion reports v (default 130001, CUDA 13.0 Update 1). */
void fake_cupti_set_version(uint32_t v);
/* Bit k set: activity kind k was enabled (kinds below 64). */
uint64_t fake_cupti_kinds(void);
/* Callbacks enabled one by one, and whole domains enabled. */
int fake_cupti_callbacks_enabled(void);
int fake_cupti_domains_enabled(void);
/* Asks the library for n buffers at once, as CUPTI under a flood would,
 * then hands them all back empty.  Returns how many it was given. */
int fake_cupti_hoard(int n);
/* A CUDA call as CUPTI reports it: ENTER, inner() (may be NULL), EXIT,
 * on the calling thread, if the library enabled that callback.  domain:
 * CUPTI_CB_DOMAIN_RUNTIME_API or _DRIVER_API. */
void fake_cupti_call(int domain, uint32_t cbid, const char *name, uint32_t corr, void (*inner)(void));

#endif
