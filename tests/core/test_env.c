/*
 * test_env.c -- configuration by environment, read once at init.
 *
 * Each configuration runs in a child (this program with "child") that
 * initializes, records a scope, and describes its own segment from the
 * header; the parent checks that description, the child's stderr, and
 * whether the segment is still there after the child exited:
 *  - RECORDER=0 creates no segment (rec_init returns -1);
 *  - the segment is removed at a clean exit, kept with RECORDER_KEEP=1
 *    (and then marked closed, not alive); RECORDER_KEEP=pid:N keeps only
 *    process N's, not that of a child it forks;
 *  - RECORDER_RING_KB, RECORDER_MAX_THREADS, RECORDER_STRINGS_KB and
 *    RECORDER_MODE show up in the header;
 *  - RECORDER_NAME=<name> gives /dev/shm/recorder.<name>;
 *  - every bad value (not a number, out of range, a name with a quote or a
 *    control character, an unknown mode, ...) gives exactly one warning
 *    line on stderr, free of control characters, naming the variable, and
 *    the default, never a crash;
 *  - with RECORDER_STRINGS_KB=16 and thousands of names, the names that
 *    find the table full are recorded as "<strings full>" and counted.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "check.h"
#include "recorder/reader.h"
#include "spawn.h"

#define DEF_RING 65536u       /* 1024 KB of 16-byte entries */
#define DEF_THREADS 256u
#define DEF_STRINGS (128u * 1048576u)  /* the limit (RECORDER_STRINGS_KB), a sparse reserve */

static int child(void) {
    int rc = rec_init();
    { REC_SCOPE("env.scope"); }
    printf("init %d\n", rc);
    char own[64];
    snprintf(own, sizeof own, "/dev/shm/recorder.%d", (int)getpid());
    printf("own %d\n", path_exists(own));
    const char *path = rec_segment_path();
    if (rc != 0 || !path) return 0;
    rec_seg *s;
    char err[256];
    if (rec_seg_open(path, 0, &s, err, sizeof err) != REC_OK) {
        printf("open failed: %s\n", err);
        return 1;
    }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    printf("path %s\nring %llu\nthreads %u\nstrings %llu\nmode %u\n", path,
           (unsigned long long)info.ring_entries, info.max_threads, (unsigned long long)info.strings_size,
           info.mode);
    rec_seg_close(s);
    return 0;
}

/* RECORDER_STRINGS_KB=16 and far more names than fit: the names that find
 * the table full are recorded as "<strings full>" and counted. */
/* RECORDER_KEEP=pid:<own pid>, then a forked child that records and
 * exits cleanly: prints both segments' paths. */
static int child_keep_pid(void) {
    char v[32];
    snprintf(v, sizeof v, "pid:%d", (int)getpid());
    setenv("RECORDER_KEEP", v, 1);
    if (rec_init() != 0) return 1;
    { REC_SCOPE("parent.scope"); }
    fflush(stdout);
    pid_t p = fork();
    if (p == 0) {
        { REC_SCOPE("child.scope"); }
        printf("child %s\n", rec_segment_path());
        exit(0);   /* a clean exit: the recorder's atexit decides */
    }
    int st;
    waitpid(p, &st, 0);
    printf("parent %s\n", rec_segment_path());
    return WIFEXITED(st) && WEXITSTATUS(st) == 0 ? 0 : 1;
}

static int child_strings(void) {
    if (rec_init() != 0) return 1;
    char n[64];
    for (int i = 0; i < 2000; i++) {
        snprintf(n, sizeof n, "a.rather.long.dynamic.name.number.%d", i);
        REC_SCOPE_DYN(n);
    }
    { REC_SCOPE("static.after.full"); }
    rec_seg *s;
    char err[256];
    if (rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) != REC_OK) return 2;
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    int rc = 0;
    if (info.strings_dropped == 0 || info.strings_used > info.strings_size) rc = 3;
    struct rec_thread_info t;
    if (!rc && rec_seg_threads(s, &t, 1) != 1) rc = 4;
    struct rec_entry buf[256];
    struct rec_event ev[256];
    uint64_t first, bad = 0, full = 0, named = 0;
    struct rec_loss loss = {0};
    size_t got, used;
    rec_seg_set_cursor(s, t.slot, t.head > 256 ? t.head - 256 : 0);
    while (!rc && (got = rec_seg_read(s, t.slot, buf, 256, &first, &loss)) > 0) {
        size_t k = rec_decode(buf, got, first, ev, 256, &used, &bad);
        for (size_t i = 0; i < k; i++) {
            const char *nm = rec_seg_string(s, ev[i].name_id);
            if (ev[i].type != REC_EV_BEGIN) continue;
            if (nm && !strcmp(nm, "<strings full>")) full++;
            else if (nm && !strncmp(nm, "a.rather", 8)) named++;
        }
    }
    if (!rc && (full == 0 || bad)) rc = 5;
    printf("strings: %llu dropped, last events: %llu full, %llu named\n", (unsigned long long)info.strings_dropped,
           (unsigned long long)full, (unsigned long long)named);
    rec_seg_close(s);
    return rc;
}

struct result {
    int status;
    int init;
    int own;                  /* /dev/shm/recorder.<pid> existed while it ran */
    char path[128];
    unsigned long long ring, strings;
    unsigned threads, mode;
    int pid;
    char *err;
};

static struct result run(const char *argv0, const char *const env[]) {
    struct result r;
    memset(&r, 0, sizeof r);
    r.init = 99;
    char *cargv[] = {(char *)argv0, (char *)"child", NULL};
    struct child c;
    REQUIRE(child_spawn(&c, "/proc/self/exe", cargv, env, 0, 1) == 0);
    r.pid = c.pid;
    char *out = fd_read_all(c.out);
    r.err = fd_read_all(c.err);
    r.status = child_wait(&c);
    char *p;
    if ((p = strstr(out, "init "))) sscanf(p, "init %d", &r.init);
    if ((p = strstr(out, "own "))) sscanf(p, "own %d", &r.own);
    if ((p = strstr(out, "path "))) sscanf(p, "path %127s", r.path);
    if ((p = strstr(out, "ring "))) sscanf(p, "ring %llu", &r.ring);
    if ((p = strstr(out, "threads "))) sscanf(p, "threads %u", &r.threads);
    if ((p = strstr(out, "strings "))) sscanf(p, "strings %llu", &r.strings);
    if ((p = strstr(out, "mode "))) sscanf(p, "mode %u", &r.mode);
    free(out);
    return r;
}

static void expect_defaults(const struct result *r, const char *what) {
    char want[64];
    snprintf(want, sizeof want, "/dev/shm/recorder.%d", r->pid);
    int ok = r->status == 0 && r->init == 0 && !strcmp(r->path, want) && r->ring == DEF_RING &&
             r->threads == DEF_THREADS && r->strings == DEF_STRINGS && r->mode == REC_MODE_FLIGHT;
    if (!ok)
        fprintf(stderr, "%s: status %d init %d path %s ring %llu threads %u strings %llu mode %u\n", what, r->status,
                r->init, r->path, r->ring, r->threads, r->strings, r->mode);
    CHECK(ok);
}

/* Exactly one line, printable, naming the variable. */
static void expect_one_warning(const struct result *r, const char *var, const char *what) {
    int printable = 1;
    for (const char *p = r->err; *p; p++)
        if (((unsigned char)*p < 0x20 && *p != '\n') || *p == 0x7f) printable = 0;
    int ok = count_lines(r->err) == 1 && printable && strstr(r->err, var) && !strncmp(r->err, "recorder: ", 10);
    if (!ok) fprintf(stderr, "%s: expected one warning about %s, got:\n%s\n", what, var, r->err);
    CHECK(ok);
}

static void gone(const struct result *r, const char *what) {
    int there = r->path[0] && path_exists(r->path);
    if (there) fprintf(stderr, "%s: %s left behind\n", what, r->path);
    CHECK(!there);
    if (there) unlink(r->path);
}

struct bad {
    const char *env, *var;
};

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "child")) return child();
    if (argc > 1 && !strcmp(argv[1], "strings")) return child_strings();
    if (argc > 1 && !strcmp(argv[1], "keep_pid")) return child_keep_pid();
    struct result r;

    /* A full string table. */
    {
        char *cargv[] = {argv[0], (char *)"strings", NULL};
        const char *env[] = {"RECORDER_STRINGS_KB=16", NULL};
        char *out = NULL, *err = NULL;
        int st = child_run("/proc/self/exe", cargv, env, &out, &err);
        if (st) fprintf(stderr, "strings full: exit %d\n%s%s", st, out, err);
        CHECK_EQ_U(st, 0);
        free(out);
        free(err);
    }

    /* Disabled: nothing created, nothing said. */
    const char *off[] = {"RECORDER=0", NULL};
    r = run(argv[0], off);
    CHECK(r.status == 0 && r.init == -1 && r.own == 0 && !*r.err);
    char p0[64];
    seg_path_of(r.pid, p0, sizeof p0);
    CHECK(!path_exists(p0));
    free(r.err);

    /* Defaults; removed at exit. */
    r = run(argv[0], NULL);
    expect_defaults(&r, "defaults");
    CHECK(r.own == 1 && !*r.err);
    gone(&r, "defaults");
    free(r.err);

    /* RECORDER_KEEP=1: kept, closed, not alive. */
    const char *keep[] = {"RECORDER_KEEP=1", NULL};
    r = run(argv[0], keep);
    expect_defaults(&r, "keep");
    CHECK(path_exists(r.path));
    rec_seg *s;
    char err[256];
    if (rec_seg_open(r.path, 0, &s, err, sizeof err) == REC_OK) {
        struct rec_seg_info info;
        rec_seg_get_info(s, &info);
        CHECK(info.closed && !info.alive);
        CHECK_EQ_U(info.pid, r.pid);
        /* exit() ran no thread destructor for main: the writer's atexit
         * ended its slot, so it reads as exited, not live. */
        struct rec_thread_info th[4];
        int nt = rec_seg_threads(s, th, 4);
        CHECK_EQ_U(nt, 1);
        for (int i = 0; i < nt; i++) {
            CHECK_EQ_U(th[i].state, REC_SLOT_EXITED);
            CHECK(th[i].exit_ticks >= th[i].start_ticks);
        }
        rec_seg_close(s);
    } else {
        fprintf(stderr, "keep: %s\n", err);
        CHECK(0);
    }
    unlink(r.path);
    free(r.err);

    /* RECORDER_KEEP=pid:N: N's segment is kept, its forked child's is not. */
    {
        char *cargv[] = {argv[0], (char *)"keep_pid", NULL};
        char *out = NULL, *err2 = NULL;
        int st = child_run("/proc/self/exe", cargv, NULL, &out, &err2);
        char parent[128] = "", kid[128] = "";
        char *p;
        if ((p = strstr(out, "parent "))) sscanf(p, "parent %127s", parent);
        if ((p = strstr(out, "child "))) sscanf(p, "child %127s", kid);
        CHECK(st == 0 && !*err2 && parent[0] && kid[0] && strcmp(parent, kid) != 0);
        CHECK(parent[0] && path_exists(parent));   /* kept */
        CHECK(kid[0] && !path_exists(kid));        /* removed */
        if (parent[0]) unlink(parent);
        if (kid[0]) unlink(kid);
        free(out);
        free(err2);
    }
    /* pid:1 is not us: removed. */
    const char *keep_other[] = {"RECORDER_KEEP=pid:1", NULL};
    r = run(argv[0], keep_other);
    expect_defaults(&r, "keep pid:1");
    CHECK(!*r.err);
    gone(&r, "keep pid:1");
    free(r.err);

    /* Sizes and mode. */
    const char *sizes[] = {"RECORDER_RING_KB=64", "RECORDER_MAX_THREADS=7", "RECORDER_STRINGS_KB=64",
                           "RECORDER_MODE=stream", NULL};
    r = run(argv[0], sizes);
    CHECK(r.status == 0 && r.init == 0 && !*r.err);
    CHECK_EQ_U(r.ring, 64 * 1024 / 16);
    CHECK_EQ_U(r.threads, 7);
    CHECK_EQ_U(r.strings, 64 * 1024);
    CHECK_EQ_U(r.mode, REC_MODE_STREAM);
    gone(&r, "sizes");
    free(r.err);
    const char *flight[] = {"RECORDER_MODE=flight", "RECORDER=1", "RECORDER_KEEP=0", NULL};
    r = run(argv[0], flight);
    expect_defaults(&r, "explicit defaults");
    CHECK(!*r.err);
    gone(&r, "explicit defaults");
    free(r.err);

    /* RECORDER_NAME */
    char name_env[64], name_path[64];
    snprintf(name_env, sizeof name_env, "RECORDER_NAME=envtest-%d.x", (int)getpid());
    snprintf(name_path, sizeof name_path, "/dev/shm/recorder.envtest-%d.x", (int)getpid());
    const char *named[] = {name_env, NULL};
    r = run(argv[0], named);
    CHECK(r.status == 0 && r.init == 0 && !*r.err && r.own == 0);
    CHECK(!strcmp(r.path, name_path));
    gone(&r, "name");
    free(r.err);

    /* Bad values: one warning each, and the default. */
    static const struct bad bads[] = {
        {"RECORDER_RING_KB=abc", "RECORDER_RING_KB"},
        {"RECORDER_RING_KB=3", "RECORDER_RING_KB"},
        {"RECORDER_RING_KB=2000000", "RECORDER_RING_KB"},
        {"RECORDER_RING_KB=-64", "RECORDER_RING_KB"},
        {"RECORDER_RING_KB=99999999999999999999999", "RECORDER_RING_KB"},
        {"RECORDER_RING_KB=64k", "RECORDER_RING_KB"},
        {"RECORDER_MAX_THREADS=0", "RECORDER_MAX_THREADS"},
        {"RECORDER_MAX_THREADS=65537", "RECORDER_MAX_THREADS"},
        {"RECORDER_MAX_THREADS=many", "RECORDER_MAX_THREADS"},
        {"RECORDER_STRINGS_KB=8", "RECORDER_STRINGS_KB"},
        {"RECORDER_STRINGS_KB=1.5", "RECORDER_STRINGS_KB"},
        {"RECORDER_MODE=fast", "RECORDER_MODE"},
        {"RECORDER_MODE=\x1b[31mred", "RECORDER_MODE"},
        {"RECORDER=maybe", "RECORDER"},
        {"RECORDER_KEEP=2", "RECORDER_KEEP"},
        {"RECORDER_KEEP=pid:", "RECORDER_KEEP"},
        {"RECORDER_KEEP=pid:12x", "RECORDER_KEEP"},
        {"RECORDER_KEEP=pid:0", "RECORDER_KEEP"},
        {"RECORDER_NAME=a\"b", "RECORDER_NAME"},
        {"RECORDER_NAME=a\nb", "RECORDER_NAME"},
        {"RECORDER_NAME=a\x1b[2Jb", "RECORDER_NAME"},
        {"RECORDER_NAME=a\rb", "RECORDER_NAME"},
        {"RECORDER_NAME=../x", "RECORDER_NAME"},
        {"RECORDER_NAME=.hidden", "RECORDER_NAME"},
        {"RECORDER_NAME=0123456789012345678901234567890123456789012345678", "RECORDER_NAME"},
        {"RECORDER_FILTER=1,2,3,4,5,6,7,8,9,10,11,12,13,14,15,16,17,18,19,20,21,22,23,24,25,26,27,28,29,30,31,32,33,"
         "34,35",
         "RECORDER_FILTER"},
    };
    for (size_t i = 0; i < sizeof bads / sizeof bads[0]; i++) {
        const char *env[] = {bads[i].env, NULL};
        r = run(argv[0], env);
        char what[64];
        snprintf(what, sizeof what, "bad value %zu (%s)", i, bads[i].var);
        if (!strcmp(bads[i].var, "RECORDER_FILTER")) {
            CHECK(r.status == 0 && r.init == 0);
        } else {
            expect_defaults(&r, what);
        }
        expect_one_warning(&r, bads[i].var, what);
        gone(&r, what);
        free(r.err);
    }

    /* A size that is not a power of two is rounded up, and said so once. */
    const char *odd[] = {"RECORDER_RING_KB=5", NULL};
    r = run(argv[0], odd);
    CHECK(r.status == 0 && r.init == 0);
    CHECK_EQ_U(r.ring, 512);
    expect_one_warning(&r, "RECORDER_RING_KB", "rounded ring");
    gone(&r, "rounded ring");
    free(r.err);
    CHECK_DONE();
}
