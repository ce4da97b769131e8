/*
 * cuda_env.c -- `recorder run --cuda` and `recorder capture --cuda -- CMD`:
 * the GPU library (gpu/librecorder-cuda.so, docs/gpu.md) for the command,
 * and, after it ran, why no GPU lane was recorded if none was.
 *
 * The command gets CUDA_INJECTION64_PATH (the CUDA driver loads the
 * library at cuInit) and NVTX_INJECTION64_PATH (NVTX loads it at its
 * first call), both the library's absolute path: RECORDER_CUDA_LIB if
 * set, else the build tree's library when this `recorder` is the build
 * tree's, else the installed one (libdir).  A library that is not there
 * is an error before the command starts.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "capture_child.h"
#include "cli.h"

#ifndef RECORDER_BUILD_EXE
#define RECORDER_BUILD_EXE ""
#endif
#ifndef RECORDER_BUILD_CUDA_LIB
#define RECORDER_BUILD_CUDA_LIB ""
#endif
#ifndef RECORDER_CUDA_LIB_INSTALLED
#define RECORDER_CUDA_LIB_INSTALLED ""
#endif

int cuda_lib_path(char *out, size_t cap, const char *then) {
    const char *want = getenv("RECORDER_CUDA_LIB");
    const char *from = "RECORDER_CUDA_LIB";
    char self[PATH_MAX], build_exe[PATH_MAX];
    if (!want || !want[0]) {
        /* This recorder is the build tree's own: the library built beside it. */
        int in_build = RECORDER_BUILD_EXE[0] && realpath("/proc/self/exe", self) &&
                       realpath(RECORDER_BUILD_EXE, build_exe) && !strcmp(self, build_exe);
        want = in_build ? RECORDER_BUILD_CUDA_LIB : RECORDER_CUDA_LIB_INSTALLED;
        from = in_build ? "the build tree" : "the installation";
    }
    char abs[PATH_MAX];
    if (!want[0])
        return cli_error(REC_ERR_USAGE, "--cuda: this recorder was built without the CUDA library (-Dcuda); "
                                        "RECORDER_CUDA_LIB names one%s", then ? then : "");
    struct stat st;
    if (!realpath(want, abs) || stat(abs, &st) != 0 || !S_ISREG(st.st_mode) || access(abs, R_OK) != 0)
        return cli_error(REC_ERR_USAGE, "--cuda: the CUDA library %s (from %s) is not there: build it "
                                        "(meson -Dcuda=enabled) or set RECORDER_CUDA_LIB%s",
                         want, from, then ? then : "");
    if (strlen(abs) + 1 > cap) return cli_error(REC_ERR_USAGE, "--cuda: the CUDA library's path is too long");
    memcpy(out, abs, strlen(abs) + 1);
    return REC_OK;
}

void cuda_report(rec_seg *seg) {
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    int max = (int)info.max_threads, n, gpu = 0;
    struct rec_thread_info *th = max > 0 ? calloc((size_t)max, sizeof *th) : NULL;
    n = th ? rec_seg_threads(seg, th, max) : -1;
    for (int i = 0; i < n; i++)
        if (th[i].lane_kind == REC_LANE_GPU_STREAM || th[i].lane_kind == REC_LANE_GPU_DEVICE) gpu = 1;
    free(th);
    if (gpu || n < 0) return;
    const char *why;
    switch (info.gpu_state) {
    case REC_GPU_REFUSED: why = "CUPTI refused (see its message above)"; break;
    case REC_GPU_NVTX_ONLY: why = "the program never initialised CUDA (its NVTX ranges are recorded)"; break;
    case REC_GPU_ON: why = "CUDA was initialised, but no GPU work was recorded"; break;
    default: why = "the program never initialised CUDA"; break;
    }
    cli_warn("--cuda: no GPU lane recorded: %s", why);
}

/* `recorder cuda-lib`: the path --cuda would give, for the Python runner
 * (python3 -m recorder --cuda without -o sets the variables in its own
 * process) and for people setting the variables themselves. */
int cmd_cuda_lib(int argc, char **argv) {
    (void)argv;
    if (argc > 1 && (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")))
        return cli_help("usage: recorder cuda-lib\n"
                        "\n"
                        "Print the absolute path of the GPU library (librecorder-cuda.so) that\n"
                        "`recorder run --cuda` and `recorder capture --cuda -- CMD` give the command\n"
                        "as CUDA_INJECTION64_PATH and NVTX_INJECTION64_PATH: RECORDER_CUDA_LIB if\n"
                        "set, else the build tree's when this recorder is the build tree's, else the\n"
                        "installed one.  Exit status 2, with the reason, if it is not there.\n");
    if (argc > 1) return cli_usage("cuda-lib", "unexpected argument '%s'", argv[1]);
    char path[PATH_MAX];
    int rc = cuda_lib_path(path, sizeof path, NULL);
    if (rc != REC_OK) return rc;
    printf("%s\n", path);
    return REC_OK;
}
