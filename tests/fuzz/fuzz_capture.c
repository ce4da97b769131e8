/*
 * fuzz_capture.c -- libFuzzer target: any bytes as a capture file.
 *
 * The input goes to a file (the reader takes a path), which is opened,
 * iterated to the end with every chunk decoded and every name looked up,
 * then rewound and iterated again.  Nothing may crash, leak, hang or read
 * out of bounds.  Then the same bytes opened lazily (rec_cap_open_lazy)
 * and read to the end must give the full open's status, counts, valid
 * part and warning.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz_tmp.h"
#include "recorder/capture.h"

static const char *path;

static void write_input(const uint8_t *data, size_t size) {
    if (!path) path = fuzz_tmp_path("input");
    FILE *f = fopen(path, "wb");
    if (!f) abort();
    if (size && fwrite(data, 1, size, f) != size) abort();
    fclose(f);
}

static void walk(rec_cap *c) {
    static struct rec_event ev[4096];
    struct rec_cap_item it;
    while (rec_cap_next(c, &it) == 1) {
        if (it.kind != REC_CAP_ITEM_CHUNK) continue;
        size_t off = 0;
        while (off < it.n) {
            size_t used = 0;
            uint64_t bad = 0;
            size_t k = rec_decode(it.entries + off, it.n - off, it.first + off, ev, 4096, &used, &bad);
            for (size_t i = 0; i < k; i++)
                if (ev[i].name_id) (void)rec_cap_string(c, ev[i].name_id);
            if (used == 0) break;
            off += used;
        }
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    write_input(data, size);
    rec_cap *c = NULL;
    char err[512];
    if (rec_cap_open(path, &c, err, sizeof err) != REC_OK) return 0;
    const struct rec_cap_info *in = rec_cap_get_info(c);
    if (in->valid_size > in->file_size) abort();
    walk(c);
    rec_cap_rewind(c);
    walk(c);
    rec_cap *l = NULL;
    if (rec_cap_open_lazy(path, &l, err, sizeof err) != REC_OK) abort();
    walk(l);
    const struct rec_cap_info *li = rec_cap_get_info(l);
    if (!li->counted || li->entries != in->entries || li->events != in->events || li->records != in->records ||
        li->chunks != in->chunks || li->history != in->history || li->overwritten != in->overwritten ||
        li->valid_size != in->valid_size || li->truncated != in->truncated || li->complete != in->complete ||
        strcmp(li->warning, in->warning) != 0)
        abort();
    /* Another process of the file, if any, read lazily too. */
    if (rec_cap_processes(l) > 1 && rec_cap_select(l, rec_cap_processes(l) - 1) == REC_OK) walk(l);
    rec_cap_close(l);
    rec_cap_close(c);
    return 0;
}
