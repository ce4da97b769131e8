/*
 * test_inject.c -- librecorder-cuda.so's runtime without a GPU: runs
 * inject_child (a program that loads the library as the CUDA driver
 * would) with RECORDER_KEEP=1, then reads the segment it left and checks
 * what the library recorded, and what it printed.
 *
 *   test_inject SCENARIO CHILD LIB [FIXTURE]
 * trace      default items, fake CUPTI: GPU lanes, launch scopes with flows
 *            on the calling threads, nested driver calls not recorded, sync
 *            calls as wait scopes, CUPTI's dropped records counted, the
 *            forced flush at exit, at most 64 buffers out, gpu_state ON
 * copies     RECORDER_CUDA=copies: only MEMCPY/MEMSET activity, only copy calls
 * api        RECORDER_CUDA=kernels,api: whole domains, every call a scope
 * badconfig  RECORDER_CUDA=kernels,bogus: one line naming the valid items,
 *            then the default
 * busy       another profiler holds CUPTI: one line, REFUSED, CPU scopes kept
 * old        a CUPTI of another major version: refused, not misread
 * filtered   RECORDER_FILTER_OUT=cudaMemcpyAsync,cudaStreamSynchronize:
 *            those calls leave no scope and no flow, the others do
 * nvtxonly   RECORDER_CUDA=nvtx: CUPTI untouched, gpu_state NVTX only
 * besidert   no libcupti loaded, a libcudart loaded from a folder that has
 *            one: that one is bound (the fake, so tracing is on)
 * refuse     the toolkit's real libcupti, no GPU: one line, REFUSED, the
 *            program's scopes before and after
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "recorder/reader.h"
#include "../../gpu/convert.h"

static int failures;
#define CHECK(c, ...)                                                                                   \
    do {                                                                                                \
        if (!(c)) {                                                                                     \
            fprintf(stderr, "FAIL %s:%d: %s: ", __FILE__, __LINE__, #c);                                \
            fprintf(stderr, __VA_ARGS__);                                                               \
            fputc('\n', stderr);                                                                        \
            failures++;                                                                                 \
        }                                                                                               \
    } while (0)

static char out_text[1 << 16], err_text[1 << 16];

static void slurp(int fd, char *buf, size_t cap) {
    lseek(fd, 0, SEEK_SET);
    ssize_t n = read(fd, buf, cap - 1);
    buf[n > 0 ? n : 0] = '\0';
    close(fd);
}

/* Runs the child with `env` (NAME=VALUE pairs, NULL-ended) added; returns its pid. */
static int run_child(char *const argv[], const char *const env[], int *status) {
    char on[] = "/tmp/test_inject.XXXXXX", en[] = "/tmp/test_inject.XXXXXX";
    int ofd = mkstemp(on), efd = mkstemp(en);
    if (ofd < 0 || efd < 0) return -1;
    unlink(on);
    unlink(en);
    fflush(NULL);
    pid_t pid = fork();
    if (pid == 0) {
        dup2(ofd, 1);
        dup2(efd, 2);
        setenv("RECORDER_KEEP", "1", 1);
        unsetenv("RECORDER_CUDA");
        for (int i = 0; env && env[i]; i += 2) setenv(env[i], env[i + 1], 1);
        execv(argv[0], argv);
        _exit(127);
    }
    if (pid < 0 || waitpid(pid, status, 0) != pid) return -1;
    slurp(ofd, out_text, sizeof out_text);
    slurp(efd, err_text, sizeof err_text);
    return pid;
}

/* One event of a thread, with its name resolved. */
struct ev {
    unsigned type;
    int wait;
    uint64_t flow;
    char name[80];
};
struct thread {
    struct rec_thread_info info;
    struct ev *ev;
    size_t n;
};
static struct thread threads[256];
static int nthreads;
static unsigned gpu_state;

/* The segment the child said it wrote (its "segment=PATH" line). */
static int read_segment(void) {
    char target[256], err[256];
    const char *p = strstr(out_text, "segment=");
    if (!p || sscanf(p, "segment=%255s", target) != 1) {
        fprintf(stderr, "test_inject: the child named no segment\n");
        return -1;
    }
    rec_seg *s;
    if (rec_seg_open(target, 0, &s, err, sizeof err) != REC_OK) {
        fprintf(stderr, "test_inject: %s\n", err);
        return -1;
    }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    gpu_state = info.gpu_state;
    static struct rec_thread_info th[256];
    nthreads = rec_seg_threads(s, th, 256);
    size_t cap = 1u << 16;
    struct rec_entry *buf = malloc(cap * sizeof *buf);
    struct rec_event *evs = malloc(cap * sizeof *evs);
    for (int i = 0; i < nthreads; i++) {
        struct thread *t = &threads[i];
        t->info = th[i];
        t->ev = calloc(cap, sizeof *t->ev);
        t->n = 0;
        uint64_t first, bad = 0;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(s, th[i].slot, buf, cap, &first, &loss);
        size_t used = 0;
        size_t n = rec_decode(buf, got, first, evs, cap, &used, &bad);
        for (size_t k = 0; k < n; k++) {
            struct ev *e = &t->ev[t->n++];
            e->type = evs[k].type;
            e->wait = evs[k].wait;
            e->flow = evs[k].flow_id;
            const char *nm = evs[k].name_id ? rec_seg_string(s, evs[k].name_id) : NULL;
            snprintf(e->name, sizeof e->name, "%s", nm ? nm : "");
        }
    }
    free(buf);
    free(evs);
    rec_seg_close(s);
    unlink(target);
    return 0;
}

static struct thread *thread_named(const char *name) {
    for (int i = 0; i < nthreads; i++)
        if (threads[i].info.lane_kind == REC_LANE_THREAD && !strcmp(threads[i].info.name, name)) return &threads[i];
    return NULL;
}

/* Scopes named `name` on t; *flows gets the flow begun right inside each. */
static int scopes(const struct thread *t, const char *name, uint64_t *flows, int *wait) {
    int n = 0;
    for (size_t k = 0; t && k < t->n; k++) {
        if (t->ev[k].type != REC_EV_BEGIN || strcmp(t->ev[k].name, name)) continue;
        if (flows) flows[n] = k + 1 < t->n && t->ev[k + 1].type == REC_EV_FLOW_BEGIN ? t->ev[k + 1].flow : 0;
        if (wait) *wait = t->ev[k].wait;
        n++;
    }
    return n;
}

/* Every BEGIN has its END, in order. */
static int balanced(const struct thread *t) {
    int depth = 0;
    for (size_t k = 0; t && k < t->n; k++) {
        if (t->ev[k].type == REC_EV_BEGIN) depth++;
        if (t->ev[k].type == REC_EV_END && --depth < 0) return 0;
    }
    return depth == 0;
}

static int count_lines(const char *text, const char *prefix) {
    int n = 0;
    for (const char *p = text; p && *p;) {
        if (!strncmp(p, prefix, strlen(prefix))) n++;
        p = strchr(p, '\n');
        if (p) p++;
    }
    return n;
}

/* FLOW_END ids on GPU stream lanes. */
static int gpu_flow_end(uint64_t id) {
    for (int i = 0; i < nthreads; i++) {
        if (threads[i].info.lane_kind != REC_LANE_GPU_STREAM) continue;
        for (size_t k = 0; k < threads[i].n; k++)
            if (threads[i].ev[k].type == REC_EV_FLOW_END && threads[i].ev[k].flow == id) return 1;
    }
    return 0;
}

static unsigned long long kinds_of(const char *out) {
    const char *p = strstr(out, "kinds=");
    return p ? strtoull(p + 6, NULL, 16) : ~0ull;
}

#define BIT(k) (1ull << (k))
static const unsigned long long default_kinds = BIT(1) | BIT(2) | BIT(10) | BIT(38);

static void check_trace(void) {
    CHECK(strstr(out_text, "init=1 "), "%s", out_text);
    CHECK(strstr(out_text, "flushed"), "the timer's flush never came: %s", out_text);
    CHECK(kinds_of(out_text) == default_kinds, "kinds %s", out_text);
    CHECK(!(kinds_of(out_text) & (BIT(4) | BIT(5))), "RUNTIME/DRIVER activity on");
    CHECK(strstr(out_text, "domains=0"), "whole domains on by default: %s", out_text);
    CHECK(!strstr(err_text, "CUDA tracing off"), "%s", err_text);
    CHECK(strstr(err_text, "fake_cupti: forced flush delivered the last part"), "no forced flush at exit: %s",
          err_text);
    CHECK(gpu_state == REC_GPU_ON, "gpu_state %u", gpu_state);
    struct thread *host = thread_named("host"), *worker = thread_named("worker");
    CHECK(host && worker, "threads host and worker");
    uint64_t f[8];
    int w = -1;
    CHECK(scopes(host, "cudaLaunchKernel", f, NULL) == 4, "4 launches");
    CHECK(f[0] == GPU_FLOW_ID(131) && f[1] == GPU_FLOW_ID(135) && f[2] == GPU_FLOW_ID(140) &&
              f[3] == GPU_FLOW_ID(143),
          "launch flows");
    CHECK(scopes(host, "cudaMemcpyAsync", f, NULL) == 2 && f[0] == GPU_FLOW_ID(126) && f[1] == GPU_FLOW_ID(145),
          "copies and their flows");
    CHECK(scopes(host, "cudaMemsetAsync", f, NULL) == 1 && f[0] == GPU_FLOW_ID(127), "memset");
    CHECK(scopes(host, "cudaStreamWaitEvent", f, &w) == 1 && f[0] == GPU_FLOW_ID(138) && !w,
          "stream wait event: an ordinary scope");
    CHECK(scopes(host, "cudaEventSynchronize", f, &w) == 1 && w && f[0] == GPU_FLOW_ID(146), "event sync wait");
    CHECK(scopes(host, "cudaStreamSynchronize", f, &w) == 1 && w, "stream sync wait");
    CHECK(scopes(host, "cudaDeviceSynchronize", f, &w) == 1 && w, "device sync wait");
    CHECK(scopes(host, "cuMemcpyHtoDAsync_v2", NULL, NULL) == 0 && scopes(host, "cuLaunchKernel", NULL, NULL) == 0,
          "driver calls inside runtime calls recorded");
    CHECK(scopes(host, "cudaGetLastError", NULL, NULL) == 0, "cudaGetLastError recorded without api");
    CHECK(scopes(host, "step", NULL, NULL) == 1 && balanced(host), "host's scopes");
    CHECK(scopes(worker, "cuLaunchKernel", f, NULL) == 1 && f[0] == GPU_FLOW_ID(900), "worker's driver launch");
    int stream_lanes = 0;
    uint64_t dev_dropped = 0;
    for (int i = 0; i < nthreads; i++) {
        if (threads[i].info.lane_kind == REC_LANE_GPU_STREAM) stream_lanes++;
        if (threads[i].info.lane_kind == REC_LANE_GPU_DEVICE) dev_dropped += threads[i].info.dropped;
    }
    CHECK(stream_lanes >= 1, "no GPU stream lane");
    CHECK(gpu_flow_end(GPU_FLOW_ID(131)) && gpu_flow_end(GPU_FLOW_ID(135)) && gpu_flow_end(GPU_FLOW_ID(140)),
          "kernels of the timer's flush");
    CHECK(gpu_flow_end(GPU_FLOW_ID(143)), "the kernel of the forced flush");
    CHECK(strstr(out_text, "granted=64\n"), "at most 64 buffers out at once: %s", out_text);
    CHECK(dev_dropped >= 5, "CUPTI's 5 dropped records: %llu on device lanes", (unsigned long long)dev_dropped);
}

static void check_copies(void) {
    CHECK(kinds_of(out_text) == (BIT(1) | BIT(2)), "kinds %s", out_text);
    struct thread *host = thread_named("host");
    CHECK(scopes(host, "cudaMemcpyAsync", NULL, NULL) == 2 && scopes(host, "cudaMemsetAsync", NULL, NULL) == 1,
          "copies");
    CHECK(scopes(host, "cudaLaunchKernel", NULL, NULL) == 0 && scopes(host, "cudaDeviceSynchronize", NULL, NULL) == 0,
          "launches or syncs recorded with copies only");
    CHECK(!gpu_flow_end(GPU_FLOW_ID(131)), "a kernel delivered with copies only");
}

static void check_api(void) {
    CHECK(kinds_of(out_text) == BIT(10), "kinds %s", out_text);
    CHECK(strstr(out_text, "domains=2"), "%s", out_text);
    struct thread *host = thread_named("host"), *worker = thread_named("worker");
    uint64_t f[4];
    CHECK(scopes(host, "cudaGetLastError", f, NULL) == 1 && f[0] == 0, "cudaGetLastError: a scope, no flow");
    CHECK(scopes(host, "cudaLaunchKernel", NULL, NULL) == 4, "launches");
    CHECK(scopes(host, "cuLaunchKernel", NULL, NULL) == 0, "nested driver calls");
    CHECK(scopes(worker, "cuLaunchKernel", NULL, NULL) == 1, "worker's driver launch");
    CHECK(balanced(host), "balanced");
}

static void check_badconfig(void) {
    CHECK(count_lines(err_text, "recorder: ") == 1, "%s", err_text);
    CHECK(strstr(err_text, "recorder: RECORDER_CUDA: unknown item \"bogus\" (valid: kernels,copies,sync,api,nvtx)"),
          "%s", err_text);
    CHECK(kinds_of(out_text) == default_kinds, "the default after a bad item: %s", out_text);
    CHECK(gpu_state == REC_GPU_ON, "gpu_state %u", gpu_state);
}

/* CUPTI refused: one line, REFUSED, and the program's own scopes. */
static void check_refused(const char *why, const char *before, const char *after) {
    CHECK(strstr(out_text, "init=1"), "InitializeInjection must return 1: %s", out_text);
    CHECK(count_lines(err_text, "recorder: ") == 1 && count_lines(err_text, "recorder: CUDA tracing off: ") == 1,
          "one line: %s", err_text);
    CHECK(strstr(err_text, why), "why: %s", err_text);
    CHECK(gpu_state == REC_GPU_REFUSED, "gpu_state %u", gpu_state);
    struct thread *host = thread_named("host");
    CHECK(scopes(host, before, NULL, NULL) == 1 && scopes(host, after, NULL, NULL) == 1 && balanced(host),
          "the program's scopes");
    for (int i = 0; i < nthreads; i++) CHECK(threads[i].info.lane_kind == REC_LANE_THREAD, "a GPU lane");
}

static int flow_begun(const struct thread *t, uint64_t id) {
    for (size_t k = 0; t && k < t->n; k++)
        if (t->ev[k].type == REC_EV_FLOW_BEGIN && t->ev[k].flow == id) return 1;
    return 0;
}

static void check_filtered(void) {
    struct thread *host = thread_named("host");
    uint64_t f[4];
    int w = 0;
    CHECK(scopes(host, "cudaMemcpyAsync", NULL, NULL) == 0 && !flow_begun(host, GPU_FLOW_ID(126)) &&
              !flow_begun(host, GPU_FLOW_ID(145)),
          "a filtered copy call");
    CHECK(scopes(host, "cudaStreamSynchronize", NULL, NULL) == 0 && !flow_begun(host, GPU_FLOW_ID(147)),
          "a filtered wait");
    CHECK(scopes(host, "cudaLaunchKernel", f, NULL) == 4 && f[3] == GPU_FLOW_ID(143), "launches kept");
    CHECK(scopes(host, "cudaDeviceSynchronize", NULL, &w) == 1 && w, "other waits kept");
    CHECK(balanced(host), "balanced");
}

/* Ten nested driver calls: eight scopes, balanced, and an instant for
 * each of the two past the bound (callbacks.c, CB_DEPTH). */
static void check_deep(void) {
    struct thread *host = thread_named("host");
    int marks = 0;
    for (size_t k = 0; host && k < host->n; k++)
        marks += host->ev[k].type == REC_EV_INSTANT &&
                 !strcmp(host->ev[k].name, "recorder: CUDA call nested too deep, not recorded");
    CHECK(scopes(host, "cuLaunchKernel", NULL, NULL) == 8, "eight of the nested calls recorded: %d",
          scopes(host, "cuLaunchKernel", NULL, NULL));
    CHECK(marks == 2, "the two calls past the bound are marked: %d", marks);
    CHECK(balanced(host), "balanced");
}

static void check_nvtxonly(void) {
    CHECK(strstr(out_text, "init=1 kinds=0 callbacks=0 domains=0"), "CUPTI touched: %s", out_text);
    CHECK(!strstr(err_text, "recorder: "), "%s", err_text);
    CHECK(gpu_state == REC_GPU_NVTX_ONLY, "gpu_state %u", gpu_state);
    struct thread *host = thread_named("host");
    CHECK(scopes(host, "step", NULL, NULL) == 1 && scopes(host, "cudaLaunchKernel", NULL, NULL) == 0, "scopes");
}

static void check_besidert(void) {
    CHECK(strstr(out_text, "init=1"), "%s", out_text);
    CHECK(!strstr(err_text, "recorder: "), "%s", err_text);
    CHECK(gpu_state == REC_GPU_ON, "the libcupti beside libcudart was not bound: gpu_state %u", gpu_state);
    struct thread *host = thread_named("host");
    CHECK(scopes(host, "before", NULL, NULL) == 1 && scopes(host, "after", NULL, NULL) == 1, "scopes");
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: test_inject SCENARIO CHILD LIB [FIXTURE]\n");
        return 2;
    }
    const char *sc = argv[1];
    char *cargv[5] = {argv[2], (char *)"trace", argv[3], argc > 4 ? argv[4] : NULL, NULL};
    const char *env[8] = {NULL};
    if (!strcmp(sc, "copies")) env[0] = "RECORDER_CUDA", env[1] = "copies";
    if (!strcmp(sc, "api")) env[0] = "RECORDER_CUDA", env[1] = "kernels,api";
    if (!strcmp(sc, "badconfig")) env[0] = "RECORDER_CUDA", env[1] = "kernels,bogus";
    if (!strcmp(sc, "busy")) cargv[1] = (char *)"busy";
    if (!strcmp(sc, "old")) cargv[1] = (char *)"old";
    if (!strcmp(sc, "deep")) cargv[1] = (char *)"deep";
    if (!strcmp(sc, "filtered"))
        cargv[1] = (char *)"calls", env[0] = "RECORDER_FILTER_OUT", env[1] = "cudaMemcpyAsync,cudaStreamSynchronize";
    if (!strcmp(sc, "nvtxonly")) cargv[1] = (char *)"calls", env[0] = "RECORDER_CUDA", env[1] = "nvtx";
    if (!strcmp(sc, "besidert")) cargv[1] = (char *)"cudart";
    if (!strcmp(sc, "refuse")) {
        /* The toolkit's libcupti, found by the loader's search. */
        cargv[1] = (char *)"plain";
        env[0] = "LD_LIBRARY_PATH", env[1] = CUPTI_LIB_DIR;
    }
    int status = 0;
    int pid = run_child(cargv, env, &status);
    if (pid < 0) return 1;
    if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        fprintf(stderr, "child failed (status %#x)\nstdout: %s\nstderr: %s\n", status, out_text, err_text);
        return 1;
    }
    if (read_segment() != 0) {
        fprintf(stderr, "stdout: %s\nstderr: %s\n", out_text, err_text);
        return 1;
    }
    if (!strcmp(sc, "trace")) check_trace();
    else if (!strcmp(sc, "copies")) check_copies();
    else if (!strcmp(sc, "api")) check_api();
    else if (!strcmp(sc, "badconfig")) check_badconfig();
    else if (!strcmp(sc, "old")) check_refused("is CUPTI version 26; this library reads CUDA 13's records", "step", "step");
    else if (!strcmp(sc, "besidert")) check_besidert();
    else if (!strcmp(sc, "nvtxonly")) check_nvtxonly();
    else if (!strcmp(sc, "filtered")) check_filtered();
    else if (!strcmp(sc, "deep")) check_deep();
    else if (!strcmp(sc, "busy")) check_refused("another CUDA profiler or tracer holds CUPTI", "step", "step");
    else if (!strcmp(sc, "refuse")) {
        if (gpu_state == REC_GPU_ON && !strstr(err_text, "CUDA tracing off")) {
            printf("SKIP: this machine's CUPTI accepted: it has a GPU and a driver\n");
            return 77;
        }
        check_refused("", "before", "after");
    }
    else return 2;
    if (failures) fprintf(stderr, "stdout: %s\nstderr: %s\n", out_text, err_text);
    return failures ? 1 : 0;
}
