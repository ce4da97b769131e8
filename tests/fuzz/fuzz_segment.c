/*
 * fuzz_segment.c -- libFuzzer target: any bytes as a segment file.
 *
 * The input goes to a file, opened the way `recorder dump` opens a segment
 * (and once more as a stream-mode consumer, which writes limits into the
 * consumer region); every thread slot is listed and its ring read to the
 * end, decoded, and every name looked up.  Then it is captured the way
 * `recorder capture` does (stream mode, rec_capture_start/poll/finish,
 * packed or raw by the input's last byte) into a temporary file, which is
 * read back (rec_cap_open/rec_cap_next) and decoded: a segment's rings
 * reach the capture packer and the capture reader.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_tmp.h"
#include "recorder/capture.h"
#include "recorder/reader.h"

static const char *path, *cap_path;

static void write_input(const uint8_t *data, size_t size) {
    if (!path) path = fuzz_tmp_path("input");
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

/* A capture of the segment, read back and decoded. */
static void capture(int raw) {
    static struct rec_event ev[4096];
    char err[512];
    rec_seg *s = NULL;
    if (rec_seg_open(path, REC_OPEN_STREAM, &s, err, sizeof err) != REC_OK) return;
    if (!cap_path) cap_path = fuzz_tmp_path("capture.rec");
    struct rec_capture_opts o = {0, raw, 0};
    rec_capture *c = NULL;
    if (rec_capture_start(s, cap_path, &o, &c, err, sizeof err) == REC_OK) {
        size_t moved = 0;
        /* Bounded: every poll copies at most what the rings hold. */
        for (int i = 0; i < 3; i++)
            if (rec_capture_poll(c, &moved, err, sizeof err) != REC_OK) break;
        struct rec_capture_stats st;
        rec_capture_get_stats(c, &st);
        rec_capture_finish(c, REC_CAPTURE_END_STOPPED, &st, err, sizeof err);
    }
    rec_seg_close(s);
    rec_cap *cap = NULL;
    if (rec_cap_open(cap_path, &cap, err, sizeof err) != REC_OK) return;
    struct rec_cap_item it;
    while (rec_cap_next(cap, &it) == 1) {
        if (it.kind != REC_CAP_ITEM_CHUNK) continue;
        size_t off = 0;
        while (off < it.n) {
            size_t used = 0;
            uint64_t bad = 0;
            size_t k = rec_decode(it.entries + off, it.n - off, it.first + off, ev, 4096, &used, &bad);
            for (size_t i = 0; i < k; i++)
                if (ev[i].name_id) (void)rec_cap_string(cap, ev[i].name_id);
            if (used == 0) break;
            off += used;
        }
    }
    rec_cap_close(cap);
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
    capture(size && (data[size - 1] & 1));
    return 0;
}
