/*
 * cap_pack.h -- the PACKED chunk encoding of ring entries (cap_format.h
 * describes the bytes).
 */
#ifndef RECORDER_CAP_PACK_H
#define RECORDER_CAP_PACK_H

#include <stddef.h>
#include <stdint.h>

#include "recorder.h"

/* The most bytes one entry can take packed. */
#define REC_CAP_PACK_MAX 17u

/* Pack n entries into out (room for n * REC_CAP_PACK_MAX bytes); returns
 * the bytes written.  *conts gets the number of CONT entries. */
size_t rec_cap_pack(const struct rec_entry *in, size_t n, unsigned char *out, uint64_t *conts);
/* Unpack exactly n entries from exactly len bytes; 0, or -1 if the bytes
 * are not a valid packing of n entries. */
int rec_cap_unpack(const unsigned char *in, size_t len, struct rec_entry *out, size_t n);

#endif
