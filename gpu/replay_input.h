/*
 * replay_input.h -- the recorded CUPTI files cupti_replay reads (the
 * formats: tests/gpu/fixtures/cupti-h100/README.md): buffers.bin, the raw
 * buffers; records.jsonl, the names the raw records hold as pointers and
 * the clock pairs.  Both are hostile: every size is bounded by what the
 * file really holds, and a line that does not parse is an error.
 */
#ifndef RECORDER_GPU_REPLAY_INPUT_H
#define RECORDER_GPU_REPLAY_INPUT_H

#include <stddef.h>
#include <stdint.h>

#include "convert.h"

#define REPLAY_FILE_MAX (UINT64_C(1) << 32)   /* 4 GiB: larger inputs are refused */
#define REPLAY_LINE_MAX (1u << 20)            /* one jsonl line */
#define REPLAY_LINES_MAX (1u << 26)

struct replay_frame {
    uint32_t index;
    const uint8_t *data;
    size_t valid;
};

struct replay_name {
    uint64_t key;            /* buf << 32 | off */
    char *name, *domain;     /* NULL: none */
};

struct replay_clock { uint64_t cupti, mono; };

struct replay_input {
    uint32_t api_version;    /* CUPTI_API_VERSION the recorder was compiled with */
    uint8_t *bin;            /* buffers.bin, whole */
    size_t bin_size;
    struct replay_frame *frames;
    size_t nframes;
    char *jsonl;
    size_t jsonl_size;
    struct replay_name *names;   /* sorted by key */
    size_t nnames;
    struct replay_clock *clocks;
    size_t nclocks;
    uint32_t cur_buf;            /* the frame being converted (names' lookup) */
};

/* Loads both files.  Returns 0, or -1 with a message in err. */
int replay_load(struct replay_input *in, const char *bin_path, const char *jsonl_path, char *err, size_t cap);
void replay_free(struct replay_input *in);
/* The gpu_names callback: ctx is the struct replay_input. */
const char *replay_name(void *ctx, size_t rec_off, int field, uint64_t ptr);

#endif
