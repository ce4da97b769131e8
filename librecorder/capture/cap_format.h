/*
 * cap_format.h -- the capture file's on-disk structures (version 1).
 * docs/capture-format.md is the prose version of this file.
 *
 * A file is a 64-byte header and then records.  Every record is a 16-byte
 * record header, `size` payload bytes, and zero padding to a multiple of
 * 8.  Integers are little-endian (host order: captures are read on the
 * machine family that wrote them, like segments).
 */
#ifndef RECORDER_CAP_FORMAT_H
#define RECORDER_CAP_FORMAT_H

#include <stddef.h>
#include <stdint.h>

#define REC_CAP_MAGIC      UINT64_C(0x3150414344524352) /* "RCRDCAP1" */
#define REC_CAP_VERSION    1u
#define REC_CAP_MAX_RECORD (64u << 20)  /* payload bytes; larger = corrupt */

struct rec_cap_file_header {
    uint64_t magic;
    uint32_t version;
    uint32_t header_size;     /* 64 */
    uint64_t created_real_ns;
    char tool[40];            /* "recorder 0.1.0", NUL-padded */
};

enum rec_cap_rec_type {
    REC_CAP_REC_SOURCE = 1,
    REC_CAP_REC_STRINGS = 2,
    REC_CAP_REC_THREAD = 3,
    REC_CAP_REC_CHUNK = 4,    /* raw entries */
    REC_CAP_REC_END = 5,
    REC_CAP_REC_PACKED = 6,   /* the same entries, packed (below) */
    REC_CAP_REC_PROCESS = 7,  /* another process of the tree (below) */
    REC_CAP_REC_LOSS = 8,     /* bad heads seen reading a slot (below) */
    REC_CAP_REC_UNRECORDED = 9   /* the segment's counts of what it could not record (below) */
};

/* Several processes in one file (recorder capture -o F -- CMD follows the
 * tree): a PROCESS record names process 1, 2, ... (process 0 is the
 * SOURCE's), and the STRINGS, THREAD, CHUNK, PACKED and END records of the
 * process the latest PROCESS record named have their type ORed with this.
 * A reader of one process skips those types, as any unknown type, and
 * sees the SOURCE's process as before.  The END of a process (0x105)
 * carries its own counts and end time; the file's END stays the last
 * record. */
#define REC_CAP_REC_OF_PROCESS 0x100u
#define REC_CAP_MAX_PROCESSES 4096u

struct rec_cap_rec_header {
    uint32_t type;
    uint32_t size;            /* payload bytes, without padding */
    uint32_t seq;             /* 0, 1, 2 ... : records are never reordered or repeated */
    uint32_t check;           /* rec_cap_check(type, size, seq, rec_cap_sum(payload)) */
};

/* Fletcher-style sum of the payload as 64-bit words, its zero padding
 * included: two additions per word, so it costs next to nothing on the
 * capture's hot path, and it catches flipped bits, zeroed blocks and
 * swapped words. */
static inline uint64_t rec_cap_sum(const void *p, size_t padded) {
    const unsigned char *b = (const unsigned char *)p;
    uint64_t s1 = 0, s2 = 0;
    for (size_t i = 0; i + 8 <= padded; i += 8) {
        uint64_t w;
        __builtin_memcpy(&w, b + i, 8);
        s1 += w;
        s2 += s1;
    }
    return s1 ^ (s2 * UINT64_C(0x9e3779b97f4a7c15));
}

/* Catches a record header or payload that is garbage or zeroes (a file
 * system that extended the file without the data, a cut in the middle, a
 * flipped bit). */
static inline uint32_t rec_cap_check(uint32_t type, uint32_t size, uint32_t seq, uint64_t sum) {
    uint64_t h = ((uint64_t)type << 32 | size) * UINT64_C(0x9e3779b97f4a7c15);
    h ^= (uint64_t)seq * UINT64_C(0xc2b2ae3d27d4eb4f);
    h ^= sum;
    h *= UINT64_C(0xff51afd7ed558ccd);
    h ^= h >> 29;
    return (uint32_t)(h ^ (h >> 32)) ^ 0x52435044u;
}

/* The first record.  Later versions may append fields: readers accept a
 * larger size and ignore the rest. */
struct rec_cap_source {
    int32_t pid;
    uint32_t clock_source;
    uint64_t proc_start;
    char process_name[64];
    double ticks_per_sec;
    uint64_t ticks0, mono_ns0, real_ns0;
    uint32_t max_threads;
    uint32_t seg_version;
    uint64_t ring_entries;
    uint64_t start_ticks, start_real_ns;
    char segment_path[256];
};

/* Appended to SOURCE's payload by writers since 2026-11 (a SOURCE of 416
 * bytes; older readers ignore it, as any longer payload; a reader given
 * 400 bytes knows no machine): the machine the capture was recorded on
 * (recorder/machine.h), so that a conversion elsewhere still names it.
 * PROCESS records do not carry it: every process of a file is on the
 * machine of its SOURCE. */
struct rec_cap_machine {
    uint32_t id;              /* TracePacket.machine_id; 0 = unknown */
    uint32_t from;            /* enum rec_machine_from */
    uint64_t hash;            /* what id is folded from */
};

/* STRINGS: a sequence of { uint32_t id; uint32_t len; char text[len]; }
 * packed (no padding between items), len <= REC_STR_MAXLEN. */
struct rec_cap_string_item {
    uint32_t id;
    uint32_t len;
};

struct rec_cap_thread {
    uint32_t slot, gen, state;
    int32_t tid;
    uint32_t name_id;
    uint32_t lane;            /* the slot's lane: kind | device << 8 (0: a thread; was padding) */
    uint64_t head, start_head, start_ticks, exit_ticks, dropped;
    char name[64];
};

/* CHUNK: this header, then (size - 32) / 16 ring entries. */
struct rec_cap_chunk {
    uint32_t slot, gen;
    uint64_t first;
    uint64_t overwritten, dropped;   /* lost since the slot's previous chunk */
};

/* PACKED: this header, then n_entries entries packed one after another.
 * Each starts with a tag byte: type (the entry's top byte) << 4 | flags.
 *   type 15 (CONT): 15 bytes follow: w0, then the low 7 bytes of w1.
 *   flag RAW: 16 bytes follow: w0, w1 (any entry may be written so).
 *   otherwise: a LEB128 varint of zigzag(w0 - the previous entry's w0)
 *   (the previous non-CONT entry of this chunk; 0 for the first), then,
 *   unless flag SAME, a varint of w1's low 56 bits; with SAME they equal
 *   the previous entry of the same type in this chunk (0 if none).
 * A scope (begin + end of the same name, close together) packs into about
 * 5 bytes instead of 32. */
struct rec_cap_packed {
    uint32_t slot, gen;
    uint64_t first;
    uint64_t overwritten, dropped;
    uint32_t n_entries;
    uint32_t pad;
};
#define REC_CAP_PK_SAME 1u
#define REC_CAP_PK_RAW 2u
#define REC_CAP_MAX_PACKED_ENTRIES (4u << 20)

/* LOSS: the reader of the segment saw `bad` impossible heads or drop
 * counts in this slot's ring since its previous chunk (a hostile or
 * corrupt writer, segment_read.c): counted as the live readers count
 * them.  Written only when bad > 0; a reader that does not know the type
 * skips it. */
struct rec_cap_loss {
    uint32_t slot, gen;
    uint64_t bad;
};

/* The most one record can count.  A ring read counts each impossible head
 * or drop counter once (segment_read.c: a few per read), and no chunk can
 * have lost more entries than a thread writes in 18 years at two a
 * nanosecond.  A record that says more is impossible: a reader counts it
 * as one bad value (as a live reader counts an impossible head once) in
 * place of its counts, and warns (docs/capture-format.md, "Loss"). */
#define REC_CAP_MAX_BAD  (UINT64_C(1) << 20)
#define REC_CAP_MAX_LOST (UINT64_C(1) << 60)

/* UNRECORDED: the segment's own counts, as its header had them when the
 * pass read it: names recorded as "<strings full>" (strings_dropped) and
 * threads that got no ring (threads_no_slot), docs/format.md.  Written
 * when either grew since the last one (never for a healthy program); the
 * largest a file holds counts, so that its readers say what a reader of
 * the segment said. */
struct rec_cap_unrecorded {
    uint64_t strings_dropped, threads_no_slot;
};

/* PROCESS: its index (1 ... REC_CAP_MAX_PROCESSES - 1; a repeated index
 * must repeat the same pid and start time, and only switches back to it),
 * then its source, as SOURCE's. */
struct rec_cap_process {
    uint32_t index;
    uint32_t pad;
    struct rec_cap_source src;
};

struct rec_cap_end {
    uint32_t reason;          /* enum rec_capture_end */
    uint32_t pad;
    uint64_t entries, events, overwritten, dropped, chunks;
    uint64_t end_ticks, end_real_ns;
    double ticks_per_sec;     /* refined over the whole capture, 0 if not */
};

_Static_assert(sizeof(struct rec_cap_file_header) == 64, "capture header");
_Static_assert(sizeof(struct rec_cap_rec_header) == 16, "record header");
_Static_assert(sizeof(struct rec_cap_source) == 400, "source record");
_Static_assert(sizeof(struct rec_cap_machine) == 16, "source record's machine");
_Static_assert(sizeof(struct rec_cap_thread) == 128, "thread record");
_Static_assert(sizeof(struct rec_cap_chunk) == 32, "chunk record");
_Static_assert(sizeof(struct rec_cap_end) == 72, "end record");
_Static_assert(sizeof(struct rec_cap_packed) == 40, "packed chunk record");
_Static_assert(sizeof(struct rec_cap_process) == 408, "process record");
_Static_assert(sizeof(struct rec_cap_loss) == 16, "loss record");
_Static_assert(sizeof(struct rec_cap_unrecorded) == 16, "unrecorded record");

#endif
