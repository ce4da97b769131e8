/*
 * test_gpu_conv.c -- the conversion's rules on hand-made records, then
 * the H100 fixtures' buffers mutated deterministically (run under ASan
 * and UBSan in the 'gpu' suite; tests/fuzz/fuzz_cupti.c explores further).
 *
 *   test_gpu_conv FIXTURES_DIR
 *
 * Rules: records of a buffer out of time order land in order on one lane;
 * overlapping ones fill sub-lanes #2..#8 and the ninth is lost, counted on
 * the device lane's dropped; end < start is malformed (that record only);
 * an unknown kind or a cut record is malformed and ends the buffer; the
 * clock is linear between pairs and extrapolated with the nearest slope.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "recorder/writer/lanes.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cupti_activity.h>

#include "../../gpu/convert_int.h"
#include "../../gpu/replay_input.h"

static int fails;
#define CHECK(c, ...)                                                   \
    do {                                                                \
        if (!(c)) {                                                     \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);        \
            fprintf(stderr, __VA_ARGS__);                               \
            fprintf(stderr, "\n");                                      \
            fails++;                                                    \
        }                                                               \
    } while (0)

static uint8_t buf[1 << 16];
static size_t used;

static void add_kernel(uint32_t stream, uint64_t start, uint64_t end, uint32_t corr) {
    CUpti_ActivityKernel10 k;
    memset(&k, 0, sizeof k);
    k.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
    k.start = start;
    k.end = end;
    k.deviceId = 1;
    k.contextId = 3;
    k.streamId = stream;
    k.gridX = k.gridY = k.gridZ = 1;
    k.blockX = 32;
    k.correlationId = corr;
    memcpy(buf + used, &k, sizeof k);
    used += sizeof k;
}

static const char *kname(void *ctx, size_t off, int field, uint64_t ptr) {
    (void)ctx, (void)off, (void)ptr;
    return field == 0 ? "_Z6squarePfi" : NULL;
}

static struct gpu_conv *fresh(void) {
    struct gpu_conv_opts o = {GPU_ITEMS_DEFAULT, 0};
    struct gpu_names n = {kname, NULL};
    struct gpu_conv *c = gpu_conv_new(&o, &n);
    /* CUPTI ns 1e9 is mono now + 1 ms: every slice lands after the segment's start. */
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    gpu_conv_clock_pair(c, 1000000000ull, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + 1000000);
    return c;
}

static struct gpu_family *find(struct gpu_conv *c, const char *name) {
    for (size_t i = 0; i < c->nfam; i++)
        if (!strcmp(c->fam[i]->name, name)) return c->fam[i];
    return NULL;
}

static void rules(void) {
    struct gpu_conv_stats st;
    /* Out of order, not overlapping: one lane, in time order. */
    struct gpu_conv *c = fresh();
    used = 0;
    add_kernel(7, 1000005000, 1000006000, 2);
    add_kernel(7, 1000001000, 1000002000, 1);
    CHECK(gpu_conv_buffer(c, buf, used) == 0, "two kernels");
    gpu_conv_get_stats(c, &st);
    CHECK(st.kernels == 2 && st.lost == 0 && st.malformed == 0, "kernels %llu lost %llu", (unsigned long long)st.kernels,
          (unsigned long long)st.lost);
    struct gpu_family *f = find(c, "GPU1 stream 7");
    CHECK(f && f->open[0] == 1 && f->open[1] == 0, "one lane for two kernels in order");
    /* Nine overlapping on one stream: #2..#8, the ninth lost on GPU1's lane. */
    used = 0;
    for (int i = 0; i < 9; i++) add_kernel(9, 1000010000 + (uint64_t)i, 1000020000, 10 + (uint32_t)i);
    gpu_conv_buffer(c, buf, used);
    gpu_conv_get_stats(c, &st);
    CHECK(st.kernels == 10 && st.lost == 1, "kernels %llu lost %llu", (unsigned long long)st.kernels,
          (unsigned long long)st.lost);
    f = find(c, "GPU1 stream 9");
    int open = 0;
    for (int k = 0; f && k < GPU_SUBLANES; k++) open += f->open[k] == 1;
    CHECK(open == GPU_SUBLANES, "%d sub-lanes open", open);
    struct gpu_family *d = find(c, "GPU1");
    CHECK(d && d->open[0] == 1 && d->lanes[0].t.slot->dropped == 1, "the lost kernel on GPU1's dropped");
    /* CUPTI's drops: on the device lane, not in lost. */
    gpu_conv_dropped(c, 1, 5);
    gpu_conv_get_stats(c, &st);
    CHECK(st.cupti_dropped == 5 && st.lost == 1 && d->lanes[0].t.slot->dropped == 6, "dropped 5");
    /* end < start: that record malformed, the next one converted. */
    used = 0;
    add_kernel(7, 1000030000, 1000029000, 30);
    add_kernel(7, 1000031000, 1000032000, 31);
    CHECK(gpu_conv_buffer(c, buf, used) == -1, "end before start");
    gpu_conv_get_stats(c, &st);
    CHECK(st.malformed == 1 && st.kernels == 11, "malformed %llu kernels %llu", (unsigned long long)st.malformed,
          (unsigned long long)st.kernels);
    /* Unknown kind: the buffer's rest is skipped. */
    used = 0;
    add_kernel(7, 1000040000, 1000041000, 40);
    uint32_t bogus = 999;
    memcpy(buf + used, &bogus, 4);
    used += 64;
    add_kernel(7, 1000042000, 1000043000, 41);
    CHECK(gpu_conv_buffer(c, buf, used) == -1, "unknown kind");
    gpu_conv_get_stats(c, &st);
    CHECK(st.malformed == 2 && st.kernels == 12, "malformed %llu kernels %llu", (unsigned long long)st.malformed,
          (unsigned long long)st.kernels);
    /* A cut record, and a tail shorter than a kind. */
    used = 0;
    add_kernel(7, 1000050000, 1000051000, 50);
    CHECK(gpu_conv_buffer(c, buf, used - 1) == -1, "cut record");
    CHECK(gpu_conv_buffer(c, buf, 3) == -1, "3 bytes");
    gpu_conv_get_stats(c, &st);
    CHECK(st.malformed == 4 && st.kernels == 12, "malformed %llu", (unsigned long long)st.malformed);
    CHECK(gpu_conv_buffer(c, buf, 0) == 0, "an empty buffer");
    gpu_conv_delivered(c, 1000060000);
    gpu_conv_free(c);

    /* Clock: linear between pairs, extrapolated with the nearest slope. */
    struct gpu_clock k;
    gpu_clock_init(&k);
    uint64_t m0 = k.mono_lo + (UINT64_C(1) << 52);   /* the conversion's "now" */
    gpu_clock_add(&k, 2000, m0 + 6010);
    gpu_clock_add(&k, 1000, m0 + 5000);
    gpu_clock_add(&k, 1500, m0 + 4000);   /* would go back: ignored */
    CHECK(k.n == 2, "%u pairs", k.n);
    CHECK(gpu_clock_mono(&k, 1500) == m0 + 5505, "between: %lld", (long long)(gpu_clock_mono(&k, 1500) - m0));
    CHECK(gpu_clock_mono(&k, 3000) == m0 + 7020, "after: %lld", (long long)(gpu_clock_mono(&k, 3000) - m0));
    CHECK(gpu_clock_mono(&k, 500) == m0 + 4495, "before: %lld", (long long)(gpu_clock_mono(&k, 500) - m0));
    CHECK(gpu_clock_mono(&k, UINT64_MAX) == k.mono_hi, "clamped high");
    CHECK(gpu_clock_mono(&k, 0) >= k.mono_lo, "clamped low");
    struct gpu_clock one;
    gpu_clock_init(&one);
    gpu_clock_add(&one, UINT64_C(1795794403757404828), m0);
    CHECK(gpu_clock_mono(&one, UINT64_C(1795794403757404828) + 7) == m0 + 7, "one pair: exact offset");
}

static void add_api(uint32_t kind, uint64_t start, uint64_t end, uint32_t corr) {
    CUpti_ActivityAPI a;
    memset(&a, 0, sizeof a);
    a.kind = kind;
    a.cbid = 211;
    a.start = start;
    a.end = end;
    a.threadId = 77;
    a.correlationId = corr;
    memcpy(buf + used, &a, sizeof a);
    used += sizeof a;
}

static void add_marker(uint32_t flags, uint64_t ts, uint32_t id) {
    CUpti_ActivityMarker2 m;
    memset(&m, 0, sizeof m);
    m.kind = CUPTI_ACTIVITY_KIND_MARKER;
    m.flags = flags;
    m.timestamp = ts;
    m.id = id;
    m.objectKind = CUPTI_ACTIVITY_OBJECT_THREAD;
    m.objectId.pt.threadId = 77;
    memcpy(buf + used, &m, sizeof m);
    used += sizeof m;
}

/* Replayed threads: API calls nest, launches are kept without the api
 * item, an NVTX range that crosses a call goes to "NVTX <domain>". */
static void threads(int with_api) {
    struct gpu_conv_opts o = {GPU_ITEMS_DEFAULT | (with_api ? GPU_ITEM_API : 0), 1};
    struct gpu_names n = {kname, NULL};
    struct gpu_conv *c = gpu_conv_new(&o, &n);
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    gpu_conv_clock_pair(c, 1000000000ull, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec + 1000000);
    used = 0;
    add_api(CUPTI_ACTIVITY_KIND_DRIVER, 1000001200, 1000001500, 6);    /* inside the launch, launches nothing */
    add_api(CUPTI_ACTIVITY_KIND_RUNTIME, 1000001000, 1000002000, 5);   /* the launch */
    add_marker(CUPTI_ACTIVITY_FLAG_MARKER_START, 1000001100, 1);
    add_marker(CUPTI_ACTIVITY_FLAG_MARKER_INSTANTANEOUS, 1000001300, 2);
    CHECK(gpu_conv_buffer(c, buf, used) == 0, "first buffer");
    used = 0;
    add_marker(CUPTI_ACTIVITY_FLAG_MARKER_END, 1000003000, 1);        /* crosses the launch */
    add_kernel(7, 1000004000, 1000005000, 5);
    CHECK(gpu_conv_buffer(c, buf, used) == 0, "second buffer");
    gpu_conv_delivered(c, 1000006000);
    struct gpu_conv_stats st;
    gpu_conv_get_stats(c, &st);
    CHECK(st.api == (with_api ? 2u : 1u) && st.markers == 2 && st.kernels == 1 && st.lost == 0,
          "api %llu markers %llu kernels %llu lost %llu", (unsigned long long)st.api, (unsigned long long)st.markers,
          (unsigned long long)st.kernels, (unsigned long long)st.lost);
    struct gpu_family *t = find(c, "thread 77"), *r = find(c, "NVTX default");
    CHECK(t && t->open[0] == 1 && t->nstack == 0, "thread 77's lane, nothing left open");
    CHECK(r && r->open[0] == 1, "the crossing range on NVTX default");
    if (with_api) {
        /* 300 calls in reverse order: past the insertion sort's budget,
         * sorted whole; every one written. */
        used = 0;
        for (int i = 299; i >= 0; i--)
            add_api(CUPTI_ACTIVITY_KIND_RUNTIME, 1000010000 + (uint64_t)i * 100, 1000010050 + (uint64_t)i * 100, 0);
        gpu_conv_buffer(c, buf, used);
        gpu_conv_delivered(c, 1000050000);
        gpu_conv_get_stats(c, &st);
        CHECK(st.api == 302 && st.lost == 0, "api %llu lost %llu", (unsigned long long)st.api,
              (unsigned long long)st.lost);
    }
    gpu_conv_free(c);
}

/* Deterministic mutations of the fixtures' buffers. */
static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint64_t next(void) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return rng;
}

static void mutate(const char *dir, const char *prefix, int rounds) {
    char b[512], j[512], err[256];
    snprintf(b, sizeof b, "%s/%s_buffers.bin", dir, prefix);
    snprintf(j, sizeof j, "%s/%s_records.jsonl", dir, prefix);
    struct replay_input in;
    if (replay_load(&in, b, j, err, sizeof err) != 0) {
        CHECK(0, "%s", err);
        replay_free(&in);
        return;
    }
    struct gpu_conv_opts o = {GPU_ITEMS_DEFAULT | GPU_ITEM_API, 1};
    struct gpu_names nm = {replay_name, &in};
    struct gpu_conv *c = gpu_conv_new(&o, &nm);
    for (size_t i = 0; i < in.nclocks; i++) gpu_conv_clock_pair(c, in.clocks[i].cupti, in.clocks[i].mono);
    for (int r = 0; r < rounds; r++) {
        const struct replay_frame *f = &in.frames[next() % in.nframes];
        size_t n = f->valid;
        uint8_t *m = malloc(n ? n : 1);
        memcpy(m, f->data, n);
        int muts = 1 + (int)(next() % 8);
        for (int k = 0; k < muts && n; k++) {
            size_t at = next() % n;
            switch (next() % 5) {
            case 0: m[at] ^= (uint8_t)(1u << (next() % 8)); break;
            case 1: m[at] = (uint8_t)next(); break;
            case 2: if (n - at >= 8) { uint64_t v = next(); memcpy(m + at, &v, 8); } break;
            case 3: if (n - at >= 4) { uint32_t v = (uint32_t)(next() % 60); memcpy(m + (at & ~(size_t)7), &v, 4); } break;
            default: n = at; break;   /* cut */
            }
        }
        in.cur_buf = f->index;
        struct gpu_conv_stats before, after;
        gpu_conv_get_stats(c, &before);
        gpu_conv_buffer(c, m, n);
        gpu_conv_get_stats(c, &after);
        CHECK(after.records - before.records <= n / 24 + 1, "more records than the bytes hold");
        free(m);
        if (r % 64 == 63) gpu_conv_delivered(c, in.clocks[in.nclocks - 1].cupti);
    }
    gpu_conv_free(c);
    replay_free(&in);
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: test_gpu_conv FIXTURES_DIR\n");
        return 2;
    }
    if (rec_init() != 0) return 1;
    rules();
    threads(0);
    threads(1);
    mutate(argv[1], "cu", 3000);
    mutate(argv[1], "torch", 1000);
    if (fails) fprintf(stderr, "%d failures\n", fails);
    else printf("ok\n");
    return fails != 0;
}
