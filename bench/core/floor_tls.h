/*
 * floor_tls.h -- the hand-written floor's per-thread ring: a pointer and a
 * head, the least any per-thread ring needs.  The mask is a constant.
 */
#ifndef BENCH_FLOOR_TLS_H
#define BENCH_FLOOR_TLS_H

#include <stdint.h>

struct floor_tls {
    uint64_t *ring;           /* 2 words per 16-byte entry */
    uint64_t head;
};
extern __thread struct floor_tls floor_t __attribute__((tls_model("initial-exec")));

#endif
