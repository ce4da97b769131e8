/*
 * fmt_prog.c -- small instrumented programs for the export tests
 * (test_exports.py): what each output format must say of them.
 *
 *   fmt_prog formula    scopes named as spreadsheet formulas ("=...",
 *                       "+...", "-...", "@...", a leading tab or CR) and a
 *                       plain one; prints "pid P"
 *   fmt_prog deep N     a recursion N scopes deep ("r"), 3 times; prints
 *                       "pid P"
 *   fmt_prog begins N   N scopes "b" begun one inside the other
 *                       (REC_BEGIN), then all ended (no recursion: past
 *                       any C stack); give it a ring that holds them
 *   fmt_prog stable     scopes, 1.2 s asleep, scopes again (its events then
 *                       lie far from the segment's calibration point, where
 *                       a rate measured anew at each read would move them);
 *                       prints "pid P"
 *   fmt_prog held       the same, then prints "pid P" inside an open scope
 *                       and waits for its stdin to close (the test stops it
 *                       there: a stopped program with a scope open)
 *
 * Run with RECORDER_KEEP=1 so that the segment outlives it.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *const formulas[] = {
    "=HYPERLINK(\"http://x\",\"click\")", "+1+cmd|' /C calc'!A0", "-2+3", "@SUM(A1:A9)", "\tx", "\rcr", "plain",
};

static void recurse(int left) {
    if (left <= 0) return;
    REC_SCOPE("r");
    recurse(left - 1);
}

static void some(const char *name, int n) {
    for (int i = 0; i < n; i++) {
        REC_SCOPE_DYN(name);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: fmt_prog formula | deep N | begins N | stable | held\n");
        return 2;
    }
    REC_THREAD_NAME("main");
    if (!strcmp(argv[1], "formula")) {
        for (size_t i = 0; i < sizeof formulas / sizeof formulas[0]; i++) some(formulas[i], 2);
    } else if (!strcmp(argv[1], "deep") && argc == 3) {
        for (int k = 0; k < 3; k++) recurse(atoi(argv[2]));
    } else if (!strcmp(argv[1], "begins") && argc == 3) {
        int n = atoi(argv[2]);
        for (int i = 0; i < n; i++) REC_BEGIN("b");
        for (int i = 0; i < n; i++) REC_END();
    } else if (!strcmp(argv[1], "stable") || !strcmp(argv[1], "held")) {
        some("before", 50);
        struct timespec d = {1, 200000000};
        nanosleep(&d, NULL);
        some("after", 50);
        {
            REC_SCOPE("outer");
            some("inner", 10);
        }
        if (!strcmp(argv[1], "held")) {
            REC_SCOPE("held");
            printf("pid %d\n", (int)getpid());
            fflush(stdout);
            char buf[16];
            while (read(0, buf, sizeof buf) > 0) continue;
            return 0;
        }
    } else {
        fprintf(stderr, "fmt_prog: unknown mode %s\n", argv[1]);
        return 2;
    }
    printf("pid %d\n", (int)getpid());
    fflush(stdout);
    return 0;
}
