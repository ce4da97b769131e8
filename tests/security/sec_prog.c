/*
 * sec_prog.c -- the victim: a small instrumented program for the attacker's
 * tests (tests/security/README.md).  Its scopes have names no crafted
 * segment uses ("victim_outer" > "victim_inner"), so a test can tell its
 * data from forged data.
 *
 *   sec_prog scopes N   N scopes, print "pid P SEGMENT", exit 0
 *   sec_prog hold       some scopes, print "ready P SEGMENT", then record a
 *                       scope every few milliseconds until SIGTERM/SIGINT
 *                       (exit 0)
 *   sec_prog race       record one scope first thing, print "pid P", then
 *                       wait for stdin to reach its end and exit 0
 *
 * SEGMENT is rec_segment_path(): the name it records to, which is not
 * recorder.<pid> when that name was taken.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;
static void on_term(int sig) {
    (void)sig;
    stop = 1;
}

static void work(int i) {
    REC_SCOPE("victim_outer");
    {
        REC_SCOPE("victim_inner");
        REC_COUNTER("victim_counter", i);
    }
}

int main(int argc, char **argv) {
    if (argc < 2) {
        fprintf(stderr, "usage: sec_prog scopes N | hold | race\n");
        return 2;
    }
    const char *mode = argv[1];
    if (!strcmp(mode, "race")) {
        work(0);
        printf("pid %d\n", (int)getpid());
        fflush(stdout);
        char buf[64];
        while (read(0, buf, sizeof buf) > 0) {}
        return 0;
    }
    REC_THREAD_NAME("victim_main");
    if (!strcmp(mode, "scopes")) {
        int n = argc > 2 ? atoi(argv[2]) : 100;
        for (int i = 0; i < n; i++) work(i);
        REC_INSTANT("victim_done");
        const char *p = rec_segment_path();
        printf("pid %d %s\n", (int)getpid(), p ? p : "-");
        return 0;
    }
    if (!strcmp(mode, "hold")) {
        struct sigaction sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_term;
        sigaction(SIGTERM, &sa, NULL);
        sigaction(SIGINT, &sa, NULL);
        for (int i = 0; i < 50; i++) work(i);
        const char *p = rec_segment_path();
        printf("ready %d %s\n", (int)getpid(), p ? p : "-");
        fflush(stdout);
        for (int i = 0; !stop; i++) {
            work(i);
            struct timespec d = {0, 5000000};
            nanosleep(&d, NULL);
        }
        return 0;
    }
    fprintf(stderr, "sec_prog: unknown mode %s\n", mode);
    return 2;
}
