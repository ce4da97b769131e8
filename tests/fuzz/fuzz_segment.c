/*
 * fuzz_segment.c -- libFuzzer target: any bytes as a segment file.
 *
 * The input goes to a file, opened the way `recorder dump` opens a segment
 * (and once more as a stream-mode consumer, which writes limits into the
 * consumer region); every thread slot is listed and its ring read to the
 * end, decoded, and every name looked up.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "recorder/reader.h"

static char path[64];

static void write_input(const uint8_t *data, size_t size) {
    if (!path[0]) snprintf(path, sizeof path, "/tmp/fuzz_segment.%d", (int)getpid());
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
}

static void read_all(rec_seg *s) {
    static struct rec_entry buf[8192];
    static struct rec_event ev[8192];
    static struct rec_thread_info th[64];
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    (void)rec_seg_ticks_to_ns(s, info.ticks0 + 12345);
    int n = rec_seg_threads(s, th, 64);
    for (int i = 0; i < n; i++) {
        struct rec_loss loss = {0};
        /* Bounded: a hostile head may claim 2^64 entries. */
        for (int round = 0; round < 8; round++) {
            uint64_t first = 0;
            size_t got = rec_seg_read(s, th[i].slot, buf, 8192, &first, &loss);
            if (!got) break;
            size_t used = 0;
            uint64_t bad = 0;
            size_t k = rec_decode(buf, got, first, ev, 8192, &used, &bad);
            for (size_t j = 0; j < k; j++)
                if (ev[j].name_id) (void)rec_seg_string(s, ev[j].name_id);
        }
        (void)rec_seg_string(s, th[i].name_id);
    }
    for (uint32_t id = 0; id < 64; id++) (void)rec_seg_string(s, id);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    write_input(data, size);
    char err[512];
    rec_seg *s = NULL;
    if (rec_seg_open(path, 0, &s, err, sizeof err) == REC_OK) {
        read_all(s);
        rec_seg_close(s);
    }
    if (rec_seg_open(path, REC_OPEN_STREAM, &s, err, sizeof err) == REC_OK) {
        rec_seg_heartbeat(s);
        read_all(s);
        rec_seg_close(s);
    }
    return 0;
}
