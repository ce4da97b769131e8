/*
 * fuzz_pack.c -- libFuzzer target: any bytes as ring entries, the way a
 * hostile segment's rings reach a capture (tests/security/README.md,
 * guarantee 1).
 *
 * The input, 16 bytes an entry (the first byte also picks a slot), goes
 * through the capture packer and back: rec_cap_pack must stay within its
 * documented bound (REC_CAP_PACK_MAX bytes an entry) and count the CONT
 * entries, and rec_cap_unpack must give back exactly the same entries.
 * Then the entries are decoded (rec_decode, to the end, in pieces) and fed
 * to an analysis model (rec_model_feed_entries), which is queried and
 * exported.  Nothing may crash, leak, read out of bounds or differ.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture/cap_pack.h"
#include "recorder/analysis.h"
#include "recorder/reader.h"

#define MAX_ENTRIES 4096

static const char *names(void *ctx, uint32_t id) {
    (void)ctx;
    /* a few ids resolve, the rest do not (as in a hostile segment) */
    static const char *n[] = {NULL, NULL, "<strings full>", "outer", "inner", "a;b", "\"q\"\\", "x\x1b[2Jy"};
    return id < sizeof n / sizeof n[0] ? n[id] : NULL;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    static struct rec_entry in[MAX_ENTRIES], back[MAX_ENTRIES];
    static unsigned char packed[MAX_ENTRIES * REC_CAP_PACK_MAX];
    static struct rec_event ev[512];
    size_t n = size / sizeof(struct rec_entry);
    if (n > MAX_ENTRIES) n = MAX_ENTRIES;
    memcpy(in, data, n * sizeof *in);

    /* pack -> unpack: exact */
    uint64_t conts = 0, want_conts = 0;
    size_t len = rec_cap_pack(in, n, packed, &conts);
    if (len > n * REC_CAP_PACK_MAX) abort();
    for (size_t i = 0; i < n; i++) want_conts += REC_EV_TYPE(in[i].w1) == REC_EV_CONT;
    if (conts != want_conts) abort();
    memset(back, 0xa5, n * sizeof *back);
    if (rec_cap_unpack(packed, len, back, n) != 0) abort();
    if (memcmp(in, back, n * sizeof *in) != 0) abort();
    /* a cut or an extra byte is never a valid packing of n entries */
    if (len && rec_cap_unpack(packed, len - 1, back, n) == 0) abort();
    packed[len] = 0;
    if (n && rec_cap_unpack(packed, len + 1, back, n) == 0) abort();

    /* decode everything, in pieces as a reader does */
    uint64_t first = size ? (uint64_t)data[0] << 40 : 0, bad = 0;
    size_t off = 0, events = 0;
    while (off < n) {
        size_t used = 0;
        size_t k = rec_decode(in + off, n - off, first + off, ev, sizeof ev / sizeof ev[0], &used, &bad);
        if (used > n - off || k > sizeof ev / sizeof ev[0]) abort();
        for (size_t j = 0; j < k; j++)
            if ((ev[j].type == REC_EV_INSTANT || ev[j].type == REC_EV_ARG) && (ev[j].msg_len > REC_MSG_MAX || ev[j].msg[ev[j].msg_len] != 0)) abort();
        events += k;
        if (used == 0) break;
        off += used;
    }
    if (events > n) abort();

    /* the model, fed the entries directly, then queried and exported */
    struct rec_source_info src = {1234, "fuzz", 1e9, 0, 0, 0, 0};
    struct rec_model_opts o = {1024, 1, NULL};
    rec_model *m = rec_model_new(&src, names, NULL, &o);
    if (!m) return 0;
    uint32_t slot = size ? data[0] % 4 : 0;
    struct rec_loss loss = {size > 1 ? data[1] : 0, 0, 0, 0};
    size_t half = n / 2;
    rec_model_feed_entries(m, slot, in, half, first, &loss);
    rec_model_feed_entries(m, slot + 1, in + half, n - half, first + half, NULL);
    const struct rec_model_thread *th;
    (void)rec_model_threads(m, &th);
    static struct rec_stat st[64];
    size_t total = 0;
    for (int w = REC_WIN_1S; w <= REC_WIN_ALL; w++) {
        (void)rec_model_stats(m, (enum rec_window)w, -1, st, 64, &total);
        static struct rec_tree_node nodes[256];
        (void)rec_model_tree(m, (enum rec_window)w, -1, nodes, 256);
    }
    FILE *devnull = fopen("/dev/null", "w");
    if (devnull) {
        (void)rec_export_json(m, devnull, NULL);
        (void)rec_export_perfetto(m, devnull, NULL);
        (void)rec_export_csv(m, devnull, NULL);
        (void)rec_export_folded(m, devnull, NULL);
        fclose(devnull);
    }
    rec_model_free(m);
    return 0;
}
