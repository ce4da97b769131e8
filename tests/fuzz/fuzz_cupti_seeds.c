/*
 * fuzz_cupti_seeds.c -- fuzz_cupti's seeds: each buffer of the H100
 * fixtures (tests/gpu/fixtures/cupti-h100), as CUPTI filled it, one file
 * per buffer in DIR/cupti/.
 *
 *   fuzz_cupti_seeds DIR
 */
#include <stdio.h>
#include <sys/stat.h>

#include "../../gpu/replay_input.h"

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: fuzz_cupti_seeds DIR\n");
        return 2;
    }
    char p[4096], b[4096], j[4096], err[512];
    mkdir(argv[1], 0700);
    snprintf(p, sizeof p, "%s/cupti", argv[1]);
    mkdir(p, 0700);
    const char *prefix[2] = {"cu", "torch"};
    for (int k = 0; k < 2; k++) {
        struct replay_input in;
        snprintf(b, sizeof b, "%s/%s_buffers.bin", CUPTI_FIXTURES, prefix[k]);
        snprintf(j, sizeof j, "%s/%s_records.jsonl", CUPTI_FIXTURES, prefix[k]);
        if (replay_load(&in, b, j, err, sizeof err) != 0) {
            fprintf(stderr, "fuzz_cupti_seeds: %s\n", err);
            return 1;
        }
        for (size_t i = 0; i < in.nframes; i++) {
            snprintf(p, sizeof p, "%s/cupti/%s_%zu", argv[1], prefix[k], i);
            FILE *f = fopen(p, "wb");
            if (!f || fwrite(in.frames[i].data, 1, in.frames[i].valid, f) != in.frames[i].valid) {
                fprintf(stderr, "fuzz_cupti_seeds: cannot write %s\n", p);
                return 1;
            }
            fclose(f);
        }
        replay_free(&in);
    }
    return 0;
}
