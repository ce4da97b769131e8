/*
 * test_fork.c -- a forked child records into its own segment.
 *
 *  - the child's events go to /dev/shm/recorder.<childpid>, never into the
 *    parent's rings (the parent's heads do not move while the child runs);
 *  - a static call site whose name id was cached before fork, and a
 *    dynamic name in the forking thread's cache, resolve to the right names
 *    in the child's segment;
 *  - a new thread of the child records into the child's segment;
 *  - the child's segment is removed when it exits (kept with
 *    RECORDER_KEEP=1: the test runs itself again in that mode), and a
 *    child that never records leaves the parent's segment alone;
 *  - a child forked from a worker thread, whose thread then exits without
 *    recording, does not mark the parent's slot of that thread exited.
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

static int keep_mode;

static void cached_site(void) { REC_INSTANT("fork.cached_site"); }

static void dyn_site(void) {
    char n[32];
    snprintf(n, sizeof n, "fork.dyn.%d", 7);
    REC_SCOPE_DYN(n);
}

static void *child_thread(void *arg) {
    (void)arg;
    REC_SCOPE("fork.child_thread");
    return NULL;
}

/* In the child: record, then check our own segment from inside. */
static int child_main(void) {
    cached_site();
    dyn_site();
    { REC_SCOPE("fork.child_only"); }
    pthread_t t;
    if (pthread_create(&t, NULL, child_thread, NULL) != 0) return 10;
    pthread_join(t, NULL);
    char want[64];
    seg_path_of((int)getpid(), want, sizeof want);
    const char *path = rec_segment_path();
    if (!path || strcmp(path, want) != 0) return 11;
    rec_seg *s;
    char err[256];
    if (rec_seg_open(path, 0, &s, err, sizeof err) != REC_OK) return 12;
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    if (info.pid != (int)getpid() || info.threads_attached != 2) return 13;
    int me = slot_of_tid(s, (int)gettid());
    if (me < 0) return 14;
    struct evlist l = {0};
    if (evlist_drain(s, (uint32_t)me, &l) != 0 || l.overwritten || l.bad) return 15;
    /* THREAD_START, THREAD_NAME, the instant, dyn BEGIN/END, BEGIN/END */
    int rc = 0;
    if (l.n != 7) rc = 16;
    else if (l.ev[0].type != REC_EV_THREAD_START || l.ev[0].tid != (int)gettid()) rc = 17;
    else if (l.ev[2].type != REC_EV_INSTANT || strcmp(ev_name(s, &l.ev[2]), "fork.cached_site")) rc = 18;
    else if (l.ev[3].type != REC_EV_BEGIN || strcmp(ev_name(s, &l.ev[3]), "fork.dyn.7")) rc = 19;
    else if (l.ev[5].type != REC_EV_BEGIN || strcmp(ev_name(s, &l.ev[5]), "fork.child_only")) rc = 20;
    evlist_free(&l);
    rec_seg_close(s);
    return rc;
}

/* Parent's view of its own slot for a tid: head and state. */
static int slot_state(rec_seg *s, int tid, uint64_t *head) {
    int i = slot_of_tid(s, tid);
    struct rec_thread_info t;
    if (i < 0 || rec_seg_thread(s, (uint32_t)i, &t) != 0) return -1;
    *head = t.head;
    return (int)t.state;
}

/* Scan every slot of the parent for an event named `name`. */
static int parent_has(rec_seg *s, const char *name) {
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    int found = 0;
    for (uint32_t i = 0; i < info.max_threads; i++) {
        struct rec_thread_info t;
        if (rec_seg_thread(s, i, &t) != 0) continue;
        rec_seg_set_cursor(s, i, 0);
        struct evlist l = {0};
        evlist_drain(s, i, &l);
        for (size_t k = 0; k < l.n; k++) found += !strcmp(ev_name(s, &l.ev[k]), name);
        evlist_free(&l);
    }
    return found;
}

struct forker {
    pthread_barrier_t go, forked;
    pid_t child;
    int tid;
};

/* In that child, what the parent's other threads own is unreachable:
 * leave before a leak checker's exit handler calls it lost. */
static void quick_exit_handler(void) { _exit(0); }

/* A worker that records, then forks; in the child this thread just ends. */
static void *forking_thread(void *arg) {
    struct forker *f = (struct forker *)arg;
    f->tid = (int)gettid();
    { REC_SCOPE("fork.worker"); }
    pid_t pid = fork();
    if (pid == 0) {  /* the child's only thread exits (running its key destructors): the child ends */
        atexit(quick_exit_handler);
        return NULL;
    }
    f->child = pid;
    pthread_barrier_wait(&f->forked);
    pthread_barrier_wait(&f->go);
    return NULL;
}

int main(int argc, char **argv) {
    keep_mode = argc > 1 && !strcmp(argv[1], "keep");
    if (!keep_mode) {
        unsetenv("RECORDER_KEEP");
        /* First the same test with RECORDER_KEEP=1, in a process of its own. */
        char *cargv[] = {argv[0], (char *)"keep", NULL};
        const char *env[] = {"RECORDER_KEEP=1", NULL};
        char *out = NULL, *err = NULL;
        int st = child_run("/proc/self/exe", cargv, env, &out, &err);
        if (st != 0) fprintf(stderr, "keep mode failed (%d):\n%s%s", st, out ? out : "", err ? err : "");
        CHECK_EQ_U(st, 0);
        free(out);
        free(err);
    }

    REQUIRE(rec_init() == 0);
    char err[256], parent_path[64];
    seg_path_of((int)getpid(), parent_path, sizeof parent_path);
    rec_seg *s;
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) == REC_OK);
    cached_site();  /* caches the call site's id before fork */
    dyn_site();
    uint64_t head0, head1;
    REQUIRE(slot_state(s, (int)gettid(), &head0) == REC_SLOT_LIVE);

    pid_t pid = fork();
    REQUIRE(pid >= 0);
    if (pid == 0) exit(child_main());  /* exit: the atexit handler removes its segment */
    int st;
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(WIFEXITED(st));
    if (WEXITSTATUS(st)) fprintf(stderr, "child failed with %d\n", WEXITSTATUS(st));
    CHECK_EQ_U(WEXITSTATUS(st), 0);
    char child_path[64];
    seg_path_of(pid, child_path, sizeof child_path);
    CHECK(path_exists(child_path) == keep_mode);
    if (keep_mode) unlink(child_path);
    /* The child wrote nothing of its own into our segment. */
    CHECK(slot_state(s, (int)gettid(), &head1) == REC_SLOT_LIVE);
    CHECK_EQ_U(head1, head0);
    CHECK_EQ_U(parent_has(s, "fork.child_only"), 0);
    CHECK_EQ_U(parent_has(s, "fork.child_thread"), 0);
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    CHECK_EQ_U(info.threads_attached, 1);

    /* A child that exits without recording leaves our segment be. */
    pid = fork();
    if (pid == 0) exit(0);  /* runs the atexit handlers inherited from us */
    REQUIRE(waitpid(pid, &st, 0) == pid);
    CHECK(path_exists(parent_path));
    seg_path_of(pid, child_path, sizeof child_path);
    CHECK(!path_exists(child_path));

    /* Fork from a worker thread; that thread ends in the child. */
    struct forker f;
    memset(&f, 0, sizeof f);
    pthread_barrier_init(&f.go, NULL, 2);
    pthread_barrier_init(&f.forked, NULL, 2);
    pthread_t t;
    REQUIRE(pthread_create(&t, NULL, forking_thread, &f) == 0);
    pthread_barrier_wait(&f.forked);
    REQUIRE(waitpid(f.child, &st, 0) == f.child);
    CHECK(WIFEXITED(st) && WEXITSTATUS(st) == 0);
    uint64_t wh;
    CHECK_EQ_U(slot_state(s, f.tid, &wh), REC_SLOT_LIVE);  /* the parent's worker still runs */
    pthread_barrier_wait(&f.go);
    pthread_join(t, NULL);
    CHECK_EQ_U(slot_state(s, f.tid, &wh), REC_SLOT_EXITED);
    pthread_barrier_destroy(&f.go);
    pthread_barrier_destroy(&f.forked);

    rec_seg_close(s);
    rec_shutdown();
    CHECK(path_exists(parent_path) == keep_mode);
    if (keep_mode) unlink(parent_path);
    CHECK_DONE();
}
