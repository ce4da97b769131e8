/*
 * tree_prog.c -- process trees for the tree-following tests of `recorder
 * run` and `recorder capture -- CMD` (test_tree.py).  Every process
 * records a known number of scopes with a name of its own, so the merged
 * trace can be checked exactly, per pid:
 *
 *   tree_prog workers N     "before_fork" once, then 3 worker processes,
 *                           each N scopes "worker<i>"; worker 1 first forks
 *                           a grandchild that records N scopes "grandchild"
 *                           and exits at once (exit(0): a clean exit, whose
 *                           segment nothing else keeps); the parent waits
 *                           for all, then N scopes "parent_after".  Prints
 *                           "parent P", "worker<i> P", "grandchild P".
 *   tree_prog crash N       the same three workers without the grandchild;
 *                           worker 2 opens "doomed" after its N scopes and
 *                           aborts.
 *   tree_prog emit N        N lines on stdout, a scope "emit" each.
 *   tree_prog consume       a scope "consume" per line of stdin; prints the
 *                           count on stderr.
 *   tree_prog fork N        "parent" once, then a child that waits until a
 *                           capture consumer drains its segment (at most
 *                           60 s: without one it goes on, and its ring
 *                           overwrites what nobody read), then records N
 *                           scopes "child" as fast as it can; the parent
 *                           waits for it.  Prints "parent P", "child P",
 *                           and "unwatched" if the child gave up waiting.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void spin_ns(long ns) {
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    do clock_gettime(CLOCK_MONOTONIC, &b);
    while ((b.tv_sec - a.tv_sec) * 1000000000L + (b.tv_nsec - a.tv_nsec) < ns);
}

static void scopes(const char *name, int n) {
    for (int i = 0; i < n; i++) {
        REC_SCOPE_DYN(name);
        spin_ns(2000);
    }
}

static void say(const char *who, int pid) {
    printf("%s %d\n", who, pid);
    fflush(stdout);
}

static int worker(int i, int n, int crash) {
    char name[32];
    snprintf(name, sizeof name, "worker%d", i);
    REC_THREAD_NAME(name);
    say(name, (int)getpid());
    if (i == 1 && !crash) {
        pid_t g = fork();
        if (g == 0) {
            REC_THREAD_NAME("grandchild");
            say("grandchild", (int)getpid());
            scopes("grandchild", n);
            exit(0);
        }
        if (g > 0) waitpid(g, NULL, 0);
    }
    scopes(name, n);
    if (crash && i == 2) {
        REC_SCOPE("doomed");
        abort();
    }
    return 0;
}

static int tree(int n, int crash) {
    REC_THREAD_NAME("parent");
    say("parent", (int)getpid());
    { REC_SCOPE("before_fork"); spin_ns(10000); }
    pid_t w[3];
    for (int i = 0; i < 3; i++) {
        w[i] = fork();
        if (w[i] == 0) exit(worker(i + 1, n, crash));
    }
    for (int i = 0; i < 3; i++)
        if (w[i] > 0) waitpid(w[i], NULL, 0);
    scopes("parent_after", n);
    return 0;
}

/* Has a capture consumer taken this process's segment?  (The test
 * program is the implementation's own translation unit.)  Waits for a
 * condition, never for a time: the 60 s are a failure, not a pace. */
static int wait_consumer(void) {
    rec_init();
    struct timespec a, b;
    clock_gettime(CLOCK_MONOTONIC, &a);
    for (;;) {
        if (rec__g.cons && __atomic_load_n(&rec__g.cons->pid, __ATOMIC_ACQUIRE) != 0) return 1;
        clock_gettime(CLOCK_MONOTONIC, &b);
        if (b.tv_sec - a.tv_sec > 60) return 0;
        struct timespec d = {0, 1000000};
        nanosleep(&d, NULL);
    }
}

static int fork_child(int n) {
    REC_THREAD_NAME("parent");
    say("parent", (int)getpid());
    { REC_SCOPE("parent"); }
    pid_t c = fork();
    if (c == 0) {
        REC_THREAD_NAME("child");
        say("child", (int)getpid());
        if (!wait_consumer()) say("unwatched", (int)getpid());
        for (int i = 0; i < n; i++) { REC_SCOPE("child"); }
        exit(0);
    }
    if (c > 0) waitpid(c, NULL, 0);
    return 0;
}

int main(int argc, char **argv) {
    if (argc >= 3 && !strcmp(argv[1], "fork")) return fork_child(atoi(argv[2]));
    if (argc >= 3 && !strcmp(argv[1], "workers")) return tree(atoi(argv[2]), 0);
    if (argc >= 3 && !strcmp(argv[1], "crash")) return tree(atoi(argv[2]), 1);
    if (argc >= 3 && !strcmp(argv[1], "emit")) {
        int n = atoi(argv[2]);
        for (int i = 0; i < n; i++) {
            REC_SCOPE("emit");
            printf("line %d\n", i);
        }
        return 0;
    }
    if (argc >= 2 && !strcmp(argv[1], "consume")) {
        char line[256];
        int k = 0;
        while (fgets(line, sizeof line, stdin)) {
            REC_SCOPE("consume");
            k++;
        }
        fprintf(stderr, "consumed %d\n", k);
        return 0;
    }
    fprintf(stderr, "usage: tree_prog workers N | crash N | emit N | consume | fork N\n");
    return 2;
}
