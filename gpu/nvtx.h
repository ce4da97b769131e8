/*
 * nvtx.h -- what the library's two NVTX files share: nvtx.c (the tool
 * entry point, messages, domains, push/pop, marks, thread names) and
 * nvtx_ranges.c (start/end ranges, written on lanes when they end).
 */
#ifndef RECORDER_GPU_NVTX_H
#define RECORDER_GPU_NVTX_H

#include <stdint.h>

/* Bounds (docs/gpu.md, "NVTX"): a name or message is cut to NVTX_TEXT_MAX
 * bytes (at a UTF-8 boundary); a domain's name to NVTX_DOMAIN_NAME_MAX,
 * so that "NVTX <domain> #8" fits a lane name (63 bytes). */
#define NVTX_TEXT_MAX 255u
#define NVTX_DOMAIN_NAME_MAX 48u
#define NVTX_DOMAINS 64u          /* domains, "default" (index 0) included */
#define NVTX_OPEN_RANGES 4096u    /* start/end ranges open at once */

/* A domain's name by index (0: "default"); NULL if none. */
const char *nvtx_domain_name(uint32_t dom);

/* nvtx_ranges.c: once, at NVTX's initialisation (a fork handler). */
void nvtx_ranges_init(void);
/* nvtx_ranges.c: a start/end range of domain dom (its name copied);
 * returns its id (never 0: 0 is what a range that found the table full
 * gets, counted lost on the domain's lane). */
uint64_t nvtx_range_start(uint32_t dom, const char *name);
/* Writes the range as a slice on its domain's lane "NVTX <domain>" (or a
 * sub-lane when it overlaps the lane's last slice).  An id that is not
 * open (0, ended, never started) is ignored. */
void nvtx_range_end(uint64_t id);

#endif
