/* craft_ring.c -- the segment craft_seg builds: its rings, slots and
 * string table written the way the real writer writes them (claim, put,
 * publish), and the hostile scenarios, one per slot, that craft_seg.c's
 * --scenario picks (its header comment says what each holds). */
#include "craft_seg.h"

#include <math.h>
#include <string.h>

uint32_t MAX_THREADS = 8;
uint64_t RING_ENTRIES = 2048;
uint64_t STRINGS_SIZE = 65536;

uint64_t rng_state = 1;
uint64_t rnd(void) {
    /* splitmix64 */
    uint64_t z = (rng_state += UINT64_C(0x9e3779b97f4a7c15));
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* ---- the segment being built ------------------------------------------ */

unsigned char *base;
size_t seg_size;
struct rec_header *hdr;
struct rec_slot *slots;
unsigned char *strings;
struct rec_entry *rings;

struct rec_entry *ring_of(uint32_t slot) { return rings + (uint64_t)slot * RING_ENTRIES; }

/* A string record at the bump pointer; returns its id. */
uint32_t add_string_raw(const char *text, size_t len, uint64_t tag_len) {
    uint64_t off = hdr->strings_used;
    uint64_t need = (8 + len + 1 + 7) & ~(uint64_t)7;
    if (off + need > STRINGS_SIZE) return REC_ID_OVERFLOW;
    memcpy(strings + off + 8, text, len);
    strings[off + 8 + len] = 0;
    uint64_t tag = (uint64_t)0x5eed << 32 | tag_len << 8 | REC_STR_READY;
    memcpy(strings + off, &tag, 8);
    hdr->strings_used = off + need;
    return (uint32_t)(off / 8);
}

uint32_t add_string(const char *text) { return add_string_raw(text, strlen(text), strlen(text)); }

uint64_t ts_now = 1000000;
uint64_t tick(void) { return ts_now += 1000 + (rnd() & 1023); }

void put(struct w *w, uint64_t w0, uint64_t w1) {
    struct rec_entry *r = ring_of(w->slot);
    r[w->head & (RING_ENTRIES - 1)].w0 = w0;
    r[w->head & (RING_ENTRIES - 1)].w1 = w1;
    w->head++;
}

uint64_t ev(unsigned type, uint64_t payload) { return (uint64_t)type << 56 | (payload & REC_FLOW_ID_MASK); }

void claim(struct w *w, uint32_t slot, int tid, uint32_t name_id, uint64_t head0) {
    w->slot = slot;
    w->head = head0;
    struct rec_slot *s = &slots[slot];
    s->state_gen = (uint64_t)1 << 8 | REC_SLOT_LIVE;
    s->tid = tid;
    s->name_id = name_id;
    s->start_head = head0;
    s->start_ticks = ts_now;
    s->attach_count = 1;
    put(w, tick(), ev(REC_EV_THREAD_START, (uint64_t)1 << 32 | (uint32_t)tid));
    if (name_id) put(w, tick(), ev(REC_EV_THREAD_NAME, name_id));
}

void publish(struct w *w) { slots[w->slot].head = w->head; }

uint32_t id_outer, id_inner, id_forged, id_thread;

void scopes(struct w *w, uint32_t outer, uint32_t inner, int n) {
    for (int i = 0; i < n; i++) {
        put(w, tick(), ev(REC_EV_BEGIN, outer));
        put(w, tick(), ev(REC_EV_BEGIN, inner));
        put(w, tick(), ev(REC_EV_END, inner));
        put(w, tick(), ev(REC_EV_END, outer));
    }
}

/* ---- scenarios, one per slot ------------------------------------------ */

void sc_plain(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    scopes(&w, id_outer, id_inner, 20);
    publish(&w);
}

void sc_types(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    for (unsigned t = 0; t < 256; t++) {
        put(&w, tick(), ev(REC_EV_BEGIN, id_outer));
        /* every type byte, with payload bits everywhere; CONT included */
        put(&w, rnd(), (uint64_t)t << 56 | (rnd() & REC_FLOW_ID_MASK));
        put(&w, tick(), ev(REC_EV_END, id_outer));
    }
    /* and once more back to back, no valid event between */
    for (unsigned t = 0; t < 256; t++) put(&w, rnd(), (uint64_t)(255 - t) << 56 | (rnd() & REC_FLOW_ID_MASK));
    scopes(&w, id_outer, id_inner, 4);
    publish(&w);
}

uint64_t exploit_payload = UINT64_C(0x00414141deadbeef);

void sc_exploit(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    /* The shape of the cap_pack overflow: type 0x17 indexes prev[23] of a
     * uint64_t prev[16], and a chosen payload is what gets stored there
     * (over the return address, in the old code).  Then every other type
     * past THREAD_NAME with the same payload, and the payload again
     * after a valid event of each type (the "same as previous" path). */
    for (int rep = 0; rep < 40; rep++) put(&w, tick(), ev(0x17, exploit_payload + (uint64_t)(rep & 3)));
    for (unsigned t = 0x10; t < 0x100; t++) put(&w, tick(), ev(t, exploit_payload));
    for (unsigned t = REC_EV_BEGIN; t <= REC_EV_THREAD_NAME; t++) {
        put(&w, tick(), ev(t, exploit_payload));
        put(&w, tick(), ev(0x10 + t, exploit_payload));
    }
    for (int rep = 0; rep < 40; rep++) put(&w, tick(), ev(0x17, exploit_payload));
    scopes(&w, id_outer, id_inner, 2);
    publish(&w);
}

static void cont(struct w *w, const char *bytes15) {
    uint64_t w0 = 0, w1 = 0;
    memcpy(&w0, bytes15, 8);
    memcpy(&w1, bytes15 + 8, 7);
    put(w, w0, ev(REC_EV_CONT, w1));
}

void sc_instant(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    const char *msg = "\x1b[2J\x1b]0;pwned\x07 <script>alert(1)</script> \"quoted\" \\ %s%n";
    for (unsigned len = 0; len < 256; len++) {
        unsigned want = len <= REC_MSG_MAX ? (len + 14) / 15 : (len % 4);
        unsigned have = (len % 3 == 0) ? want : (len % 3 == 1) ? want + 1 : (want ? want - 1 : 0);
        put(&w, tick(), ev(REC_EV_INSTANT, (uint64_t)len << 32 | id_outer));
        for (unsigned j = 0; j < have; j++) cont(&w, msg + (j * 15) % 40);
    }
    /* continuation entries with no event, and an instant whose
     * continuations are not CONT */
    for (int j = 0; j < 5; j++) cont(&w, msg);
    put(&w, tick(), ev(REC_EV_INSTANT, (uint64_t)45 << 32 | id_outer));
    put(&w, tick(), ev(REC_EV_BEGIN, id_outer));
    put(&w, tick(), ev(REC_EV_END, id_outer));
    put(&w, tick(), ev(REC_EV_COUNTER, id_outer));   /* a counter without its CONT */
    put(&w, tick(), ev(REC_EV_BEGIN, id_inner));
    scopes(&w, id_outer, id_inner, 2);
    /* an instant cut by the end of the ring's contents */
    put(&w, tick(), ev(REC_EV_INSTANT, (uint64_t)45 << 32 | id_outer));
    cont(&w, msg);
    publish(&w);
}

void sc_heads(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    scopes(&w, id_outer, id_inner, 10);
    /* a head that jumped by 2^63 */
    slots[slot].head = w.head + (UINT64_C(1) << 63);
    slots[slot].start_head = UINT64_MAX;
}

void sc_heads_max(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    scopes(&w, id_outer, id_inner, 10);
    slots[slot].head = UINT64_MAX;
    slots[slot].dropped = UINT64_MAX - 1;
}

void sc_dropped(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    scopes(&w, id_outer, id_inner, 10);
    publish(&w);
    slots[slot].dropped = UINT64_C(1) << 62;
}

/* The growing string table's fields (docs/format.md, "Strings"), all
 * hostile: a region of --strings-size bytes (2^35 in sec_craft, what a
 * reader accepts at most) with a name at its far end, level and commit
 * fields no writer would write, and a count of names at the limit that no
 * program could reach.  A reader must show the far name, bound its memory
 * by the strings it reads, not by the region, and bound the count. */
void sc_table(uint32_t slot) {
    struct w w;
    uint64_t off = (STRINGS_SIZE - 4096) & ~(uint64_t)7;
    uint64_t tag = (uint64_t)5 << 32 | 8u << 8 | REC_STR_READY;
    memcpy(strings + off, &tag, 8);
    memcpy(strings + off + 8, "far_name", 9);
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    scopes(&w, (uint32_t)(off / 8), id_inner, 20);
    /* an id whose record would start at the region's last byte */
    put(&w, tick(), ev(REC_EV_BEGIN, (uint32_t)((STRINGS_SIZE - 8) / 8 > UINT32_MAX ? UINT32_MAX : (STRINGS_SIZE - 8) / 8)));
    put(&w, tick(), ev(REC_EV_END, 0));
    publish(&w);
    hdr->index_base = UINT32_MAX;
    hdr->index_levels = UINT32_MAX;
    hdr->index_names = UINT64_MAX;
    hdr->strings_committed = UINT64_MAX;
    hdr->strings_dropped = UINT64_MAX;
}

void sc_strings(uint32_t slot) {
    struct w w;
    /* a thread name of control bytes and escapes, with no NUL after it */
    uint32_t tname = add_string("\x1b[31mevil\x1b[0m\r\n\t\x7f\x01thread");
    claim(&w, slot, -5, tname, 0);
    uint32_t ids[16];
    int n = 0;
    ids[n++] = UINT32_MAX;
    ids[n++] = STRINGS_SIZE / 8 - 1;         /* its record runs past the table */
    ids[n++] = STRINGS_SIZE / 8;             /* just past it */
    ids[n++] = REC_ID_FILTERED;
    ids[n++] = REC_ID_OVERFLOW;
    ids[n++] = add_string("\x1b[2J\x1b[H;rm -rf /;\"\\</script>");
    /* a record claiming 1024 bytes, the last one in the table, so that
     * its text would run out of it */
    {
        uint64_t off = STRINGS_SIZE - 8 - 512;
        uint64_t tag = (uint64_t)1 << 32 | (uint64_t)REC_STR_MAXLEN << 8 | REC_STR_READY;
        memcpy(strings + off, &tag, 8);
        memset(strings + off + 8, 'A', 512);
        ids[n++] = (uint32_t)(off / 8);
    }
    /* a record of length 20 whose bytes have no NUL at all after them */
    {
        uint64_t off = hdr->strings_used;
        uint64_t tag = (uint64_t)2 << 32 | 20u << 8 | REC_STR_READY;
        memcpy(strings + off, &tag, 8);
        memset(strings + off + 8, 'B', 64);
        hdr->strings_used = off + 72;
        ids[n++] = (uint32_t)(off / 8);
    }
    /* a record with embedded NULs and high bytes, and one not ready */
    ids[n++] = add_string_raw("a\0b\0\xff\xfe\xc3(", 8, 8);
    {
        uint64_t off = hdr->strings_used;
        uint64_t tag = (uint64_t)3 << 32 | 5u << 8 | 0;
        memcpy(strings + off, &tag, 8);
        memcpy(strings + off + 8, "nope", 5);
        hdr->strings_used = off + 16;
        ids[n++] = (uint32_t)(off / 8);
    }
    /* a record whose length field is over REC_STR_MAXLEN */
    {
        uint64_t off = hdr->strings_used;
        uint64_t tag = (uint64_t)4 << 32 | (uint64_t)0xffffff << 8 | REC_STR_READY;
        memcpy(strings + off, &tag, 8);
        hdr->strings_used = off + 16;
        ids[n++] = (uint32_t)(off / 8);
    }
    ids[n++] = id_outer + 1;                 /* inside a record, not at one */
    for (int r = 0; r < 3; r++)
        for (int i = 0; i < n; i++) {
            put(&w, tick(), ev(REC_EV_BEGIN, ids[i]));
            put(&w, tick(), ev(REC_EV_INSTANT, ids[i]));
            put(&w, tick(), ev(REC_EV_COUNTER, ids[(i + 1) % n]));
            put(&w, tick(), ev(REC_EV_CONT, 0));
            put(&w, tick(), ev(REC_EV_THREAD_NAME, ids[i]));
            put(&w, tick(), ev(REC_EV_END, ids[i]));
        }
    publish(&w);
    /* and the slot's own name points past the table */
    slots[slot].name_id = UINT32_MAX - 7;
}

void sc_values(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    double vals[] = {NAN, -NAN, INFINITY, -INFINITY, 1e308, -1e308, 4.9e-324, 0.0, -0.0};
    for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
        uint64_t bits;
        memcpy(&bits, &vals[i], 8);
        put(&w, tick(), ev(REC_EV_COUNTER, id_outer));
        put(&w, bits, ev(REC_EV_CONT, rnd()));
    }
    /* timestamps: zero, the largest, backwards */
    put(&w, 0, ev(REC_EV_BEGIN, id_outer));
    put(&w, UINT64_MAX, ev(REC_EV_END, id_outer));
    put(&w, UINT64_MAX, ev(REC_EV_BEGIN, id_inner));
    put(&w, 1, ev(REC_EV_END, id_inner));
    put(&w, UINT64_C(1) << 63, ev(REC_EV_INSTANT, id_inner));
    /* ends without begins, begins deeper than any stack */
    for (int i = 0; i < 50; i++) put(&w, tick(), ev(REC_EV_END, i & 1 ? 0 : id_inner));
    for (int i = 0; i < 300; i++) put(&w, tick(), ev(REC_EV_BEGIN, i & 1 ? id_outer : id_inner));
    for (int i = 0; i < 310; i++) put(&w, tick(), ev(REC_EV_END, 0));
    /* flows with every bit set, and THREAD_STARTs that claim new
     * generations and odd tids in the middle of the ring */
    put(&w, tick(), ev(REC_EV_FLOW_BEGIN, REC_FLOW_ID_MASK));
    put(&w, tick(), ev(REC_EV_FLOW_STEP, 0));
    put(&w, tick(), ev(REC_EV_FLOW_END, REC_FLOW_ID_MASK));
    put(&w, tick(), ev(REC_EV_THREAD_START, (uint64_t)0xffffff << 32 | 0xffffffffu));
    put(&w, tick(), ev(REC_EV_THREAD_START, 0));
    put(&w, tick(), ev(REC_EV_THREAD_NAME, id_thread));
    scopes(&w, id_outer, id_inner, 3);
    publish(&w);
}

/* Slots in odd states: claiming, an unknown state byte, generation at its
 * limit, start_head past head. */
void sc_slots(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    scopes(&w, id_outer, id_inner, 3);
    publish(&w);
    slots[slot].state_gen = UINT64_MAX << 8 | REC_SLOT_EXITED;
    slots[slot].exit_ticks = 1;
    slots[slot].start_head = slots[slot].head + 100;
    slots[slot].start_ticks = UINT64_MAX;
}

void sc_packmax(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    while (w.head < RING_ENTRIES) {
        uint64_t i = w.head;
        put(&w, (i & 1) ? UINT64_C(1) << 63 : 0, ev(REC_EV_BEGIN, UINT64_C(0x80000000000000) | i));
    }
    publish(&w);
}

void sc_forged(uint32_t slot) {
    struct w w;
    claim(&w, slot, 1000 + (int)slot, id_thread, 0);
    scopes(&w, id_forged, id_forged, 20);
    publish(&w);
}
