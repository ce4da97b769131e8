/*
 * test_feed_entries.c -- the shortcut the model's two feeds take never
 * changes an answer.
 *
 * rec_model_feed_entries (the fused path: entries straight to the model)
 * and rec_model_feed (decoded events) both send begins and ends of a
 * slot's current thread straight to its stack (feed_slice, model_feed.c)
 * and everything else down the dispatch of feed_one.  A reference model
 * fed the decoded events with the shortcut turned off (no_shortcut,
 * internal: this test is linked with librecorder's objects) must agree
 * with both.  Random entry streams mix every event type with the awkward
 * cases: END 0, ends naming a deeper or no scope, time going back,
 * instants with continuations (and with a bad length), stray
 * continuations, unknown types, generation switches (by THREAD_START and
 * by rec_model_thread announcing a newer generation), loss, and chunks
 * that cut an event in two.  The models must export the same JSON, CSV
 * and folded stacks and list the same threads.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model.h"
#include "model_util.h"

#define SLOTS 3
#define ENTRIES 30000

static uint64_t rng = 0x9e3779b97f4a7c15u;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13, rng ^= rng >> 7, rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static struct rec_entry ent[SLOTS][ENTRIES + 8];
static size_t n_ent[SLOTS];

static void put(int slot, uint64_t w0, uint64_t w1) {
    ent[slot][n_ent[slot]++] = (struct rec_entry){w0, w1};
}

static uint64_t word(unsigned type, uint64_t low) { return (uint64_t)type << 56 | low; }

/* One slot's stream: mostly well-formed nested scopes, with every kind of
 * trouble mixed in at low rates. */
static void gen_slot(int slot, uint32_t *names) {
    uint64_t t = 1000;
    uint32_t stack[64];
    int depth = 0;
    uint32_t gen = 1;
    put(slot, t, word(REC_EV_THREAD_START, (uint64_t)gen << 32 | (uint32_t)(100 + slot)));
    while (n_ent[slot] < ENTRIES) {
        t += 1 + rnd(3000);
        if (rnd(50) == 0) t -= rnd(2000);   /* time going back a little */
        uint32_t r = rnd(1000), name = names[rnd(6)];
        if (r < 420 && depth < 60) {
            put(slot, t, word(REC_EV_BEGIN, name));
            stack[depth++] = name;
        } else if (r < 840) {
            uint32_t id = depth ? stack[depth - 1] : name;
            if (rnd(20) == 0) id = 0;                               /* END 0 */
            else if (rnd(20) == 0 && depth > 1) id = stack[rnd((uint32_t)depth)]; /* a deeper one */
            else if (rnd(40) == 0) id = names[rnd(6)];              /* maybe no open scope */
            put(slot, t, word(REC_EV_END, id));
            if (depth) depth--;
        } else if (r < 870) {
            unsigned len = rnd(46);
            put(slot, t, word(REC_EV_INSTANT, (uint64_t)len << 32 | name));
            for (unsigned j = 0; j * 15 < len; j++) put(slot, 0x6867666564636261u + j, word(REC_EV_CONT, 0x61626364u));
        } else if (r < 900) {
            double v = (double)rnd(100000) / 7.0;
            uint64_t bits;
            memcpy(&bits, &v, sizeof bits);
            put(slot, t, word(REC_EV_COUNTER, name));
            put(slot, bits, word(REC_EV_CONT, 0));
        } else if (r < 930) {
            put(slot, t, word(REC_EV_FLOW_BEGIN + rnd(3), rnd(50)));
        } else if (r < 940) {
            put(slot, t, word(REC_EV_THREAD_NAME, names[rnd(6)]));
        } else if (r < 945) {
            gen++;                                                 /* the slot's next thread */
            depth = 0;
            put(slot, t, word(REC_EV_THREAD_START, (uint64_t)gen << 32 | (uint32_t)(100 + 10 * gen + slot)));
        } else if (r < 955) {
            put(slot, t, word(REC_EV_CONT, 0));                   /* stray continuation */
        } else if (r < 960) {
            put(slot, t, word(12, name));                         /* unknown type */
        } else if (r < 963) {
            put(slot, t, word(REC_EV_INSTANT, (uint64_t)200 << 32 | name));   /* bad length */
        } else if (r < 966) {
            put(slot, t, word(REC_EV_INSTANT, (uint64_t)20 << 32 | name));    /* continuations missing */
            put(slot, t, word(REC_EV_BEGIN, name));
            stack[depth < 60 ? depth++ : depth - 1] = name;
        }
    }
}

/* The reference: an event at a time, so that rejected entries are counted
 * against the thread that was current when they came, as the fused path
 * does (a bigger batch would count them against its last thread). */
static void feed_decoded(rec_model *m, uint32_t slot, const struct rec_entry *in, size_t n, uint64_t first,
                         const struct rec_loss *loss, size_t *events) {
    struct rec_event ev[1];
    size_t off = 0;
    /* A read's loss: what is older than its entries (overwritten,
     * history) comes before the first event, what was dropped after the
     * last (model_feed.c, take_loss). */
    struct rec_loss before = {0}, after = {0};
    if (loss) {
        before = *loss;
        before.dropped = 0;
        after.dropped = loss->dropped;
    }
    do {
        size_t used = 0;
        uint64_t bad = 0;
        size_t k = rec_decode(in + off, n - off, first + off, ev, 1, &used, &bad);
        if (bad) rec_model_add_bad(m, slot, bad);
        rec_model_feed(m, slot, ev, k, off == 0 ? &before : NULL);
        *events += k;
        off += used;
        if (!used) break;
    } while (off < n);
    rec_model_feed(m, slot, NULL, 0, &after);
}

static char *export_all(rec_model *m, size_t *len) {
    char *buf = NULL;
    FILE *f = open_memstream(&buf, len);
    REQUIRE(f);
    struct rec_export_opts o;
    memset(&o, 0, sizeof o);
    REQUIRE(rec_export_json(m, f, &o) == 0);
    fputs("\n--csv--\n", f);
    REQUIRE(rec_export_csv(m, f, &o) == 0);
    fputs("\n--folded--\n", f);
    REQUIRE(rec_export_folded(m, f, &o) == 0);
    const struct rec_model_thread *th;
    size_t nt = rec_model_threads(m, &th);
    for (size_t i = 0; i < nt; i++)
        fprintf(f, "thread %u/%u tid %d '%s' ev %llu over %llu drop %llu bad %llu unmatched %llu deep %llu depth %d "
                   "busy %.0f first %.0f last %.0f\n",
                th[i].slot, th[i].gen, th[i].tid, th[i].name, (unsigned long long)th[i].events,
                (unsigned long long)th[i].overwritten, (unsigned long long)th[i].dropped,
                (unsigned long long)th[i].bad, (unsigned long long)th[i].unmatched,
                (unsigned long long)th[i].too_deep, th[i].depth, th[i].busy_ns, th[i].first_ns, th[i].last_ns);
    fclose(f);
    return buf;
}

/* Both exports equal, or a report of where they part. */
static void same(const char *what, const char *xa, size_t la, const char *xb, size_t lb, int keep_log, int announce,
                 int cut_events) {
    if (la == lb && memcmp(xa, xb, la) == 0) return;
    size_t i = 0;
    while (i < la && i < lb && xa[i] == xb[i]) i++;
    size_t from = i > 200 ? i - 200 : 0;
    fprintf(stderr, "keep_log %d announce %d cut %d: %s differs at byte %zu\n--- reference:\n%.400s\n--- %s:\n%.400s\n",
            keep_log, announce, cut_events, what, i, xa + from, what, xb + from);
    check_failures++;
}

/* Feeds the three models the same chunks; cut_events lets a chunk end
 * inside an event, as no reader does but a hostile source might. */
static void run(int keep_log, int announce, int cut_events) {
    /* a: the reference, b: fused, c: decoded with the shortcut */
    rec_model *a = tu_model(keep_log, 0), *b = tu_model(keep_log, 0), *c = tu_model(keep_log, 0);
    a->no_shortcut = 1;
    size_t pos[SLOTS] = {0}, ev_a = 0, ev_b = 0, ev_c = 0;
    uint64_t loss_total = 0;
    int left = SLOTS;
    while (left) {
        int slot = (int)rnd(SLOTS + 1);   /* SLOTS: a slot the models have no room for */
        if (slot == SLOTS) {
            struct rec_entry e = {5, word(REC_EV_BEGIN, 9)};
            rec_model_feed_entries(b, 1u << 30, &e, 1, 0, NULL);
            struct rec_event ev = tu_ev(REC_EV_BEGIN, 5, NULL);
            rec_model_feed(a, 1u << 30, &ev, 1, NULL);
            rec_model_feed(c, 1u << 30, &ev, 1, NULL);
            continue;
        }
        if (pos[slot] >= n_ent[slot]) continue;
        size_t n = 1 + rnd(cut_events ? 700 : 3000);
        if (n > n_ent[slot] - pos[slot]) n = n_ent[slot] - pos[slot];
        if (!cut_events)   /* whole events only, as rec_seg_read returns them */
            while (pos[slot] + n < n_ent[slot] && REC_EV_TYPE(ent[slot][pos[slot] + n].w1) == REC_EV_CONT) n++;
        struct rec_loss loss = {0};
        if (rnd(8) == 0) {
            loss.overwritten = rnd(3) ? rnd(500) : 0;
            loss.dropped = rnd(2) ? rnd(500) : 0;
            loss_total += loss.overwritten + loss.dropped;
        }
        if (announce && rnd(6) == 0) {   /* the reader saw a newer generation in the slot table */
            struct rec_thread_info t;
            memset(&t, 0, sizeof t);
            t.slot = (uint32_t)slot;
            t.gen = 2 + rnd(4);
            t.tid = 500 + (int)t.gen;
            t.state = REC_SLOT_LIVE;
            t.start_head = pos[slot] + rnd(2000);
            rec_model_thread(a, &t);
            rec_model_thread(b, &t);
            rec_model_thread(c, &t);
        }
        const struct rec_entry *in = &ent[slot][pos[slot]];
        size_t nb = rnd(30) == 0 ? 0 : n;   /* sometimes loss with no entries */
        feed_decoded(a, (uint32_t)slot, in, nb, pos[slot], &loss, &ev_a);
        ev_b += rec_model_feed_entries(b, (uint32_t)slot, in, nb, pos[slot], &loss);
        feed_decoded(c, (uint32_t)slot, in, nb, pos[slot], &loss, &ev_c);
        pos[slot] += nb;
        if (pos[slot] >= n_ent[slot]) left--;
    }
    CHECK(loss_total > 0);
    CHECK_EQ_U(ev_a, ev_b);
    CHECK_EQ_U(ev_a, ev_c);
    rec_model_set_now(a, 1e12);
    rec_model_set_now(b, 1e12);
    rec_model_set_now(c, 1e12);
    size_t la, lb, lc;
    char *xa = export_all(a, &la), *xb = export_all(b, &lb), *xc = export_all(c, &lc);
    CHECK(la > 100000);   /* the streams made a real model */
    same("fused", xa, la, xb, lb, keep_log, announce, cut_events);
    same("decoded", xa, la, xc, lc, keep_log, announce, cut_events);
    free(xa);
    free(xb);
    free(xc);
    rec_model_free(a);
    rec_model_free(b);
    rec_model_free(c);
}

int main(void) {
    uint32_t names[6];
    const char *text[6] = {"matmul", "attn", "softmax", "norm \"q\"", "kv\\cache", "decode"};
    for (int i = 0; i < 6; i++) names[i] = tu_id(text[i]);
    for (int s = 0; s < SLOTS; s++) gen_slot(s, names);
    for (int keep_log = 0; keep_log <= 1; keep_log++)
        for (int announce = 0; announce <= 1; announce++)
            for (int cut = 0; cut <= 1; cut++) run(keep_log, announce, cut);
    CHECK_DONE();
}
