/*
 * nvtx_prog.c -- a program that uses NVTX only (the NVTX3 headers, no
 * CUDA, no recorder.h): what test_nvtx.py records through the GPU
 * library's NVTX side (gpu/nvtx.c) with NVTX_INJECTION64_PATH set, and
 * checks in the trace.  Run without it, NVTX is a no-op and so is this.
 *
 * Exactly, in this order:
 *   main thread: named "nvtx-main"; a mark "checkpoint"; a wide mark
 *   L"wide \u00e9"; push "outer" { push "inner" {} }; a start/end range
 *   "handoff" started here and ended by the worker; a name given to a tid
 *   that is not the caller's ("not-me", ignored);
 *   worker thread: named "nvtx-worker"; push "work" { push "step" {} };
 *   ends "handoff";
 *   then on main: a domain "mydomain" with push "dstep" (a slice
 *   "mydomain: dstep"), a mark with a registered string ("mydomain:
 *   registered msg"), a start/end range "dwork" (on lane "NVTX
 *   mydomain"); two overlapping start/end ranges "A" (ended first) and
 *   "B" on the default domain: "A" on "NVTX default", "B" on its sub-lane
 *   "NVTX default #2"; and a pop with nothing pushed (returns -1,
 *   records nothing).
 * Prints "nvtx_prog ok" and exits 0, or says what failed and exits 1.
 *
 * `nvtx_prog lost` instead: the bounds (docs/gpu.md, "NVTX").  Ten
 * start/end ranges "overlap" all open at once, ended in the order they
 * started: eight go to "NVTX default" and its sub-lanes #2..#8, two are
 * lost; then 4097 ranges "open" never ended: the last finds the table of
 * open ranges full, lost; 3 lost in all, counted on "NVTX default".  A
 * mark of 300 'x' (cut to 255 bytes) and a wide mark with a value that is
 * no character (L"bad" U+D800: "bad" U+FFFD).
 *
 * `nvtx_prog fork`: a start/end range "parent-range" open across a fork;
 * the child records a start/end range "child-range" and a mark
 * "child-mark", which must land in the child's own segment (its own
 * "NVTX default" lane), not in the parent's.
 */
#define _GNU_SOURCE
#include <nvtx3/nvToolsExt.h>

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

static uint32_t my_tid(void) { return (uint32_t)syscall(SYS_gettid); }

static int failed;
static void expect(int cond, const char *what) {
    if (!cond) {
        fprintf(stderr, "nvtx_prog: %s\n", what);
        failed = 1;
    }
}

static void *worker(void *arg) {
    nvtxRangeId_t handoff = *(nvtxRangeId_t *)arg;
    nvtxNameOsThreadA(my_tid(), "nvtx-worker");
    nvtxRangePushA("work");
    nvtxRangePushA("step");
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangeEnd(handoff);
    return NULL;
}

static nvtxEventAttributes_t ascii_attr(const char *msg) {
    nvtxEventAttributes_t a;
    memset(&a, 0, sizeof a);
    a.version = NVTX_VERSION;
    a.size = NVTX_EVENT_ATTRIB_STRUCT_SIZE;
    a.messageType = NVTX_MESSAGE_TYPE_ASCII;
    a.message.ascii = msg;
    return a;
}

static int lost(void) {
    nvtxNameOsThreadA(my_tid(), "nvtx-main");
    nvtxRangeId_t ids[10];
    for (int i = 0; i < 10; i++) ids[i] = nvtxRangeStartA("overlap");
    for (int i = 0; i < 10; i++) nvtxRangeEnd(ids[i]);
    for (int i = 0; i < 4097; i++) nvtxRangeStartA("open");
    char longmsg[301];
    memset(longmsg, 'x', 300);
    longmsg[300] = 0;
    nvtxMarkA(longmsg);
    static const wchar_t bad[] = {L'b', L'a', L'd', (wchar_t)0xd800, 0};
    nvtxMarkW(bad);
    printf("nvtx_prog ok\n");
    return 0;
}

static int forked(void) {
    nvtxRangeId_t p = nvtxRangeStartA("parent-range");
    pid_t pid = fork();
    if (pid < 0) return 1;
    if (pid == 0) {
        nvtxRangeId_t c = nvtxRangeStartA("child-range");
        nvtxMarkA("child-mark");
        nvtxRangeEnd(c);
        nvtxRangeEnd(p);   /* the parent's: not the child's to end */
        exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    nvtxRangeEnd(p);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) return 1;
    printf("nvtx_prog ok\n");
    return 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "lost")) return lost();
    if (argc > 1 && !strcmp(argv[1], "fork")) return forked();
    nvtxNameOsThreadA(my_tid(), "nvtx-main");
    nvtxMarkA("checkpoint");
    nvtxMarkW(L"wide \u00e9");
    nvtxRangePushA("outer");
    nvtxRangePushA("inner");
    nvtxRangePop();
    nvtxRangePop();
    nvtxRangeId_t handoff = nvtxRangeStartA("handoff");
    nvtxNameOsThreadA(my_tid() + 1000000u, "not-me");
    pthread_t th;
    if (pthread_create(&th, NULL, worker, &handoff) != 0) return 1;
    pthread_join(th, NULL);

    nvtxDomainHandle_t d = nvtxDomainCreateA("mydomain");
    nvtxEventAttributes_t a = ascii_attr("dstep");
    nvtxDomainRangePushEx(d, &a);
    nvtxDomainRangePop(d);
    nvtxStringHandle_t reg = nvtxDomainRegisterStringA(d, "registered msg");
    nvtxEventAttributes_t r = ascii_attr(NULL);
    r.messageType = NVTX_MESSAGE_TYPE_REGISTERED;
    r.message.registered = reg;
    nvtxDomainMarkEx(d, &r);
    nvtxEventAttributes_t w = ascii_attr("dwork");
    nvtxRangeId_t dwork = nvtxDomainRangeStartEx(d, &w);
    nvtxDomainRangeEnd(d, dwork);
    nvtxDomainDestroy(d);

    nvtxRangeId_t ra = nvtxRangeStartA("A");
    nvtxRangeId_t rb = nvtxRangeStartA("B");
    nvtxRangeEnd(ra);
    nvtxRangeEnd(rb);
    int popped = nvtxRangePop();
    /* With the tool: -1 (nothing pushed); without one NVTX returns its
     * own no-op value. */
    if (getenv("NVTX_INJECTION64_PATH")) expect(popped < 0, "a pop with nothing pushed returned >= 0");
    if (failed) return 1;
    printf("nvtx_prog ok\n");
    return 0;
}
