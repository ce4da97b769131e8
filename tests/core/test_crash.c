/*
 * test_crash.c -- a post-mortem: a child with open scopes on two threads is
 * SIGKILLed.  Its segment stays; the reader opens it, finds it dead (not
 * alive, not closed; already while it is an unreaped zombie), and sees the
 * scopes that were open: BEGINs without ENDs, after the ones that did end.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "segread.h"
#include "spawn.h"

static pthread_barrier_t bar;

static void *worker(void *arg) {
    (void)arg;
    REC_THREAD_NAME("crash-worker");
    REC_SCOPE("crash.worker_open");
    pthread_barrier_wait(&bar);
    for (;;) pause();
    return NULL;
}

static int child(void) {
    pthread_barrier_init(&bar, NULL, 2);
    pthread_t t;
    if (pthread_create(&t, NULL, worker, NULL) != 0) return 1;
    { REC_SCOPE("crash.done"); }
    REC_SCOPE("crash.outer");
    REC_SCOPE("crash.inner");
    REC_COUNTER("crash.count", 7);
    pthread_barrier_wait(&bar);
    printf("ready\n");
    fflush(stdout);
    for (;;) pause();
    return 0;
}

/* The slot's BEGIN/END names, as "B x;E y;". */
static void names(rec_seg *s, int slot, char *out, size_t cap) {
    struct evlist l = {0};
    CHECK(evlist_drain(s, (uint32_t)slot, &l) == 0);
    CHECK_EQ_U(l.overwritten + l.bad, 0);
    size_t k = 0;
    out[0] = 0;
    for (size_t i = 0; i < l.n && k < cap; i++)
        if (l.ev[i].type == REC_EV_BEGIN || l.ev[i].type == REC_EV_END)
            k += (size_t)snprintf(out + k, cap - k, "%c %s;", l.ev[i].type == REC_EV_BEGIN ? 'B' : 'E',
                                  ev_name(s, &l.ev[i]));
    evlist_free(&l);
}

/* The state letter of /proc/<pid>/stat, or 0. */
static char proc_state(int pid) {
    char p[64], buf[512];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    FILE *f = fopen(p, "r");
    if (!f) return 0;
    size_t n = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[n] = 0;
    char *q = strrchr(buf, ')');
    return q && q[1] == ' ' ? q[2] : 0;
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "child")) return child();
    char *cargv[] = {argv[0], (char *)"child", NULL};
    struct child c;
    REQUIRE(child_spawn(&c, "/proc/self/exe", cargv, NULL, 0, 0) == 0);
    char line[64];
    REQUIRE(fd_read_line(c.out, line, sizeof line) == 0 && !strcmp(line, "ready"));
    char pid[16], path[64];
    snprintf(pid, sizeof pid, "%d", (int)c.pid);
    seg_path_of(c.pid, path, sizeof path);
    rec_seg *s;
    char err[256];
    int rc = rec_seg_open(pid, 0, &s, err, sizeof err);
    if (rc != REC_OK) fprintf(stderr, "%s\n", err);
    REQUIRE(rc == REC_OK);
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    CHECK(info.alive && !info.closed);
    kill(c.pid, SIGKILL);
    /* Not reaped yet, it is a zombie: dead all the same. */
    for (int i = 0; i < 2000 && proc_state(c.pid) != 'Z'; i++) usleep(10000);
    CHECK_EQ_U(proc_state(c.pid), 'Z');
    rec_seg_get_info(s, &info);
    CHECK_EQ_U(info.alive, 0);
    CHECK_EQ_U(child_wait(&c), 128 + SIGKILL);
    rec_seg_close(s);

    CHECK(path_exists(path));
    rc = rec_seg_open(pid, 0, &s, err, sizeof err);
    if (rc != REC_OK) fprintf(stderr, "%s\n", err);
    REQUIRE(rc == REC_OK);
    rec_seg_get_info(s, &info);
    CHECK_EQ_U(info.pid, c.pid);
    CHECK_EQ_U(info.alive, 0);
    CHECK_EQ_U(info.closed, 0);
    CHECK_EQ_U(info.threads_attached, 2);
    struct rec_thread_info th[4];
    int n = rec_seg_threads(s, th, 4);
    CHECK_EQ_U(n, 2);
    int seen = 0;
    for (int i = 0; i < n; i++) {
        CHECK_EQ_U(th[i].state, REC_SLOT_LIVE);  /* never got to exit */
        char got[256];
        names(s, (int)th[i].slot, got, sizeof got);
        if (!strcmp(th[i].name, "crash-worker")) {
            seen |= 1;
            CHECK(!strcmp(got, "B crash.worker_open;"));
        } else {
            seen |= 2;
            if (strcmp(got, "B crash.done;E crash.done;B crash.outer;B crash.inner;")) fprintf(stderr, "main: %s\n", got);
            CHECK(!strcmp(got, "B crash.done;E crash.done;B crash.outer;B crash.inner;"));
        }
    }
    CHECK_EQ_U(seen, 3);
    rec_seg_close(s);
    unlink(path);
    CHECK_DONE();
}
