/*
 * fuzz_tmp.h -- a private directory for the files a fuzz target hands to
 * the readers, which take paths.
 *
 * One directory per process, made by mkdtemp (mode 0700, so nothing
 * another user plants can be followed), under $TMPDIR (run_fuzz.sh points
 * it at the run's own work directory) or /tmp; its files and itself are
 * removed at exit, so a run leaves nothing behind in /tmp.
 */
#ifndef FUZZ_TMP_H
#define FUZZ_TMP_H

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static char fuzz_tmp_dir[4096];
static char fuzz_tmp_files[4][4200];
static int fuzz_tmp_n;

static void fuzz_tmp_clean(void) {
    for (int i = 0; i < fuzz_tmp_n; i++) unlink(fuzz_tmp_files[i]);
    if (fuzz_tmp_dir[0]) rmdir(fuzz_tmp_dir);
}

/* The path of file NAME in the process's directory, made on first use;
 * at most 4 names.  Aborts if the directory cannot be made. */
static const char *fuzz_tmp_path(const char *name) {
    if (!fuzz_tmp_dir[0]) {
        const char *t = getenv("TMPDIR");
        int n = snprintf(fuzz_tmp_dir, sizeof fuzz_tmp_dir, "%s/fuzz.XXXXXX", t && *t ? t : "/tmp");
        if (n < 0 || (size_t)n >= sizeof fuzz_tmp_dir || !mkdtemp(fuzz_tmp_dir)) abort();
        atexit(fuzz_tmp_clean);
    }
    if (fuzz_tmp_n >= 4) abort();
    char *p = fuzz_tmp_files[fuzz_tmp_n++];
    int n = snprintf(p, sizeof fuzz_tmp_files[0], "%s/%s", fuzz_tmp_dir, name);
    if (n < 0 || (size_t)n >= sizeof fuzz_tmp_files[0]) abort();
    return p;
}

#endif
