/*
 * cupti_replay.c -- feeds recorded CUPTI buffers through the conversion the
 * injection library uses (convert.h), so that real GPU data can be tested
 * on machines without a GPU (docs/gpu.md, "Replaying recorded CUPTI
 * buffers").  It records into its own process's segment, as a program
 * would, with API calls and NVTX ranges on lanes of their recorded
 * threads, then writes OUT with the project's own `recorder dump`, so the
 * one output rule and the one extension table apply.
 *
 *   cupti_replay X_buffers.bin X_records.jsonl [-o OUT] [--api]
 *   cupti_replay --bench N X_buffers.bin X_records.jsonl   (records/s)
 *   cupti_replay --layout        (the struct layout it reads, as JSON)
 */
#include <errno.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cupti_version.h>

#include "recorder.h"
#include "recorder/writer/lanes.h"

#include "convert_int.h"
#include "replay_input.h"

extern char **environ;

#ifndef RECORDER_BIN_PATH
#define RECORDER_BIN_PATH "recorder"
#endif

int replay_print_layout(void);   /* replay_layout.c */

static const char usage[] =
    "usage: cupti_replay X_buffers.bin X_records.jsonl [-o OUT] [--api]\n"
    "       cupti_replay --bench N X_buffers.bin X_records.jsonl\n"
    "       cupti_replay --layout\n"
    "Replays CUPTI activity buffers recorded by a GPU run (buffers.bin, with\n"
    "the names and clock pairs of records.jsonl) through the conversion of\n"
    "librecorder-cuda.so, into this process's segment, then writes OUT with\n"
    "`recorder dump` (format by extension, as dump's -o).  Without -o the\n"
    "segment is kept and its path printed.\n"
    "  --api       every runtime and driver API call (RECORDER_CUDA's api);\n"
    "              without it, only the calls that launched GPU work or waited\n"
    "  --bench N   convert the buffers N times and print records/s; no output\n"
    "  --layout    print the CUPTI struct sizes and offsets this build reads\n"
    "RECORDER_BIN: the recorder to run (default: the one built beside this).\n"
    "Exit: 0 done, 1 an input or output error, 2 usage, 3 done but records\n"
    "were malformed (counted in the summary).\n";

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The recorded run's clock pairs, shifted so that its start lands just
 * after now on this process's timeline. */
static void add_clocks(struct gpu_conv *c, const struct replay_input *in, uint64_t *last_cupti) {
    uint64_t lo = UINT64_MAX;
    for (size_t i = 0; i < in->nclocks; i++)
        if (in->clocks[i].mono < lo) lo = in->clocks[i].mono;
    uint64_t shift = mono_ns() + 1000000 - lo;
    *last_cupti = 0;
    for (size_t i = 0; i < in->nclocks; i++) {
        gpu_conv_clock_pair(c, in->clocks[i].cupti, in->clocks[i].mono + shift);
        if (in->clocks[i].cupti > *last_cupti) *last_cupti = in->clocks[i].cupti;
    }
}

static int convert_all(struct gpu_conv *c, struct replay_input *in) {
    int bad = 0;
    for (size_t i = 0; i < in->nframes; i++) {
        in->cur_buf = in->frames[i].index;
        if (gpu_conv_buffer(c, in->frames[i].data, in->frames[i].valid) != 0) bad = 1;
    }
    return bad;
}

static void summary(FILE *f, const struct gpu_conv_stats *s) {
    fprintf(f,
            "cupti_replay: records %llu, kernels %llu, copies %llu, memsets %llu, syncs %llu, markers %llu, "
            "api %llu, other %llu, malformed %llu, lost %llu\n",
            (unsigned long long)s->records, (unsigned long long)s->kernels, (unsigned long long)s->copies,
            (unsigned long long)s->memsets, (unsigned long long)s->syncs, (unsigned long long)s->markers,
            (unsigned long long)s->api, (unsigned long long)s->other, (unsigned long long)s->malformed,
            (unsigned long long)s->lost);
}

static int bench(struct replay_input *in, long rounds, unsigned items) {
    struct gpu_conv_opts o = {items, 1};
    struct gpu_names nm = {replay_name, in};
    struct gpu_conv *c = gpu_conv_new(&o, &nm);
    if (!c) return 1;
    uint64_t last, span = 0;
    add_clocks(c, in, &last);
    uint64_t first = in->clocks[0].cupti, mono0 = mono_ns();
    for (size_t i = 0; i < in->nclocks; i++)
        if (in->clocks[i].cupti < first) first = in->clocks[i].cupti;
    span = last - first + 1000000;
    struct timespec c0, c1;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c0);
    uint64_t t0 = mono_ns();
    for (long r = 0; r < rounds; r++) {
        /* Each round one recorded run later: the lanes stay in time order. */
        c->clock.n = 0;
        gpu_conv_clock_pair(c, first, mono0 + (uint64_t)r * span);
        convert_all(c, in);
        gpu_conv_delivered(c, last);
    }
    double s = (double)(mono_ns() - t0) / 1e9;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &c1);
    double cpu = (double)(c1.tv_sec - c0.tv_sec) + (double)(c1.tv_nsec - c0.tv_nsec) / 1e9;
    struct gpu_conv_stats st;
    gpu_conv_get_stats(c, &st);
    gpu_conv_free(c);
    summary(stdout, &st);
    /* CPU time too: on a loaded machine the wall clock measures the load. */
    printf("cupti_replay --bench: %llu records in %.3f s (%.3f s of CPU): %.1f M records/s (%.1f M per CPU second), "
           "items 0x%x\n",
           (unsigned long long)st.records, s, cpu, s > 0 ? (double)st.records / s / 1e6 : 0.0,
           cpu > 0 ? (double)st.records / cpu / 1e6 : 0.0, items);
    return 0;
}

static int run_dump(const char *seg, const char *out) {
    const char *bin = getenv("RECORDER_BIN");
    if (!bin || !*bin) bin = RECORDER_BIN_PATH;
    char *argv[] = {(char *)"recorder", (char *)"dump", (char *)seg, (char *)"-o", (char *)out, NULL};
    pid_t pid;
    int rc = posix_spawn(&pid, bin, NULL, NULL, argv, environ);
    if (rc != 0) {
        fprintf(stderr, "cupti_replay: cannot run %s: %s (set RECORDER_BIN)\n", bin, strerror(rc));
        return -1;
    }
    int st;
    while (waitpid(pid, &st, 0) < 0)
        if (errno != EINTR) return -1;
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        fprintf(stderr, "cupti_replay: %s dump failed\n", bin);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv) {
    const char *files[2] = {NULL, NULL}, *out = NULL;
    int nfiles = 0, with_api = 0;
    long rounds = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
            fputs(usage, stdout);
            return 0;
        } else if (!strcmp(a, "--layout")) {
            return replay_print_layout();
        } else if (!strcmp(a, "--api")) {
            with_api = 1;
        } else if (!strcmp(a, "-o") && i + 1 < argc) {
            out = argv[++i];
        } else if (!strcmp(a, "--bench") && i + 1 < argc) {
            char *e;
            rounds = strtol(argv[++i], &e, 10);
            if (*e || rounds < 1 || rounds > 1000000) {
                fprintf(stderr, "cupti_replay: --bench wants a count from 1 to 1000000\n");
                return 2;
            }
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "cupti_replay: unknown option %s\n%s", a, usage);
            return 2;
        } else if (nfiles < 2) {
            files[nfiles++] = a;
        } else {
            fprintf(stderr, "cupti_replay: too many arguments\n%s", usage);
            return 2;
        }
    }
    if (nfiles != 2) {
        fputs(usage, stderr);
        return 2;
    }
    struct replay_input in;
    char err[512];
    if (replay_load(&in, files[0], files[1], err, sizeof err) != 0) {
        fprintf(stderr, "cupti_replay: %s\n", err);
        replay_free(&in);
        return 1;
    }
    if (in.api_version != CUPTI_API_VERSION)
        fprintf(stderr,
                "cupti_replay: warning: recorded with CUPTI API version %u, this build reads version %u's "
                "structs (cupti_replay --layout shows them)\n",
                in.api_version, (unsigned)CUPTI_API_VERSION);
    unsigned items = GPU_ITEMS_DEFAULT | (with_api ? GPU_ITEM_API : 0);
    if (rounds) {
        int rc = bench(&in, rounds, items);
        replay_free(&in);
        return rc;
    }
    /* Keep this process's segment past its exit (RECORDER_KEEP=pid:N): the
     * dump reads it then; it is removed after, unless the user keeps it. */
    const char *k = getenv("RECORDER_KEEP");
    int user_keeps = k && *k && strcmp(k, "0") != 0;
    char keep[32];
    snprintf(keep, sizeof keep, "pid:%d", (int)getpid());
    if (!user_keeps) setenv("RECORDER_KEEP", keep, 1);
    /* Rings big enough for the whole input on one lane (a record is at
     * least 24 bytes and at most 7 entries of 16): nothing overwritten
     * before the dump reads it.  Rings are allocated per lane opened. */
    if (!getenv("RECORDER_RING_KB")) {
        uint64_t bytes = 0, kb = 1024;
        for (size_t i = 0; i < in.nframes; i++) bytes += in.frames[i].valid;
        while (kb < 65536 && kb * 1024 < bytes * 5) kb *= 2;
        char v[24];
        snprintf(v, sizeof v, "%llu", (unsigned long long)kb);
        setenv("RECORDER_RING_KB", v, 1);
    }
    if (rec_init() != 0 || !rec_segment_path()) {
        fprintf(stderr, "cupti_replay: recording is off or no segment could be made (see RECORDER_*)\n");
        replay_free(&in);
        return 1;
    }
    char seg[4096];
    snprintf(seg, sizeof seg, "%s", rec_segment_path());
    struct gpu_conv_opts o = {items, 1};
    struct gpu_names nm = {replay_name, &in};
    struct gpu_conv *c = gpu_conv_new(&o, &nm);
    if (!c) {
        fprintf(stderr, "cupti_replay: out of memory\n");
        replay_free(&in);
        return 1;
    }
    uint64_t last;
    add_clocks(c, &in, &last);
    int bad = convert_all(c, &in);
    gpu_conv_delivered(c, last);
    struct gpu_conv_stats st;
    gpu_conv_get_stats(c, &st);
    gpu_conv_free(c);
    replay_free(&in);
    rec_shutdown();
    summary(out && !strcmp(out, "-") ? stderr : stdout, &st);
    if (!out) {
        printf("cupti_replay: segment kept: %s\n", seg);
        return bad ? 3 : 0;
    }
    int rc = run_dump(seg, out);
    if (!user_keeps) unlink(seg);
    if (rc != 0) return 1;
    return bad ? 3 : 0;
}
