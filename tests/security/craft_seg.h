/* craft_seg.h -- what craft_seg.c (options, layout, publishing, --hold)
 * and craft_ring.c (the segment's rings, slots and strings, and the
 * hostile scenarios written into them) share.  See craft_seg.c. */
#ifndef CRAFT_SEG_H
#define CRAFT_SEG_H
#include "recorder.h"

#include <stddef.h>
#include <stdint.h>

#define INDEX_ENTRIES 1024u

extern uint32_t MAX_THREADS;    /* thread slots (--max-threads) */
extern uint64_t RING_ENTRIES;   /* entries per ring (--ring-entries) */
extern uint64_t STRINGS_SIZE;   /* the string region (--strings-size), 64 KiB by default */
extern uint64_t rng_state;      /* --seed */
extern uint64_t exploit_payload; /* --payload */
uint64_t rnd(void);

/* The segment being built. */
extern unsigned char *base;
extern size_t seg_size;
extern struct rec_header *hdr;
extern struct rec_slot *slots;
extern unsigned char *strings;
extern struct rec_entry *rings;
extern uint64_t ts_now;
extern uint32_t id_outer, id_inner, id_forged, id_thread;

struct rec_entry *ring_of(uint32_t slot);
uint32_t add_string_raw(const char *text, size_t len, uint64_t tag_len);
uint32_t add_string(const char *text);
uint64_t tick(void);

/* A slot's writer: entries go at head, as the real writer puts them. */
struct w {
    uint32_t slot;
    uint64_t head;
};
void put(struct w *w, uint64_t w0, uint64_t w1);
uint64_t ev(unsigned type, uint64_t payload);
void claim(struct w *w, uint32_t slot, int tid, uint32_t name_id, uint64_t head0);
void publish(struct w *w);
void scopes(struct w *w, uint32_t outer, uint32_t inner, int n);

/* The scenarios, each into one slot (craft_seg.c's --scenario). */
void sc_plain(uint32_t slot);
void sc_types(uint32_t slot);
void sc_exploit(uint32_t slot);
void sc_instant(uint32_t slot);
void sc_heads(uint32_t slot);
void sc_heads_max(uint32_t slot);
void sc_dropped(uint32_t slot);
void sc_strings(uint32_t slot);
void sc_table(uint32_t slot);
void sc_values(uint32_t slot);
void sc_slots(uint32_t slot);
void sc_packmax(uint32_t slot);
void sc_forged(uint32_t slot);

#endif
