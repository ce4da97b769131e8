/*
 * cmd_run.c -- `recorder run -- CMD ARGS...`: run a program with recording
 * on, and when it exits write its trace (and one per child process), then
 * remove their segments.
 *
 * The program runs with RECORDER_KEEP=1, so its segment outlives it.  Its
 * children (fork) get segments of their own.  To know which segments are
 * our descendants', we watch /dev/shm with inotify: a segment is created by
 * its live process, so at that moment /proc/<pid> shows its parent chain,
 * which must lead to us.  We are a child subreaper, so an orphaned
 * grandchild becomes our child (and a zombie of ours until we reap it,
 * which we do only after looking at new segments).  A grandchild that
 * lives and is reaped by its own parent faster than we can read /proc is
 * missed; its segment stays for `recorder gc`.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/inotify.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cli.h"
#include "dump.h"
#include "recorder/capture.h"
#include "spawn.h"

static const char usage[] =
    "usage: recorder run [-o FILE] [--last SECONDS] [--keep] -- CMD [ARGS...]\n"
    "\n"
    "Run CMD with recording on (RECORDER_KEEP=1 in its environment) and, when\n"
    "it exits, write its trace as Perfetto JSON to FILE (default trace.json).\n"
    "Child processes it forked get their own files, with their pid before the\n"
    "extension (trace.<pid>.json).  The segments are removed afterwards,\n"
    "unless --keep.  Ctrl-C goes to CMD; the trace is written when it exits.\n"
    "\n"
    "Exit status: CMD's (128+N if a signal N killed it; 127 if it could not be\n"
    "started); if CMD succeeded but a trace could not be written, that\n"
    "error's status (docs/cli.md).\n"
    "\n"
    "  -o, --output FILE   the program's trace (default trace.json)\n"
    "  -l, --last SECONDS  only the last SECONDS of each trace\n"
    "  -k, --keep          keep the segments (recorder dump can read them again)\n";

#define SHM_DIR "/dev/shm"
#define MAX_TRACKED 4096

struct tracked {
    char name[NAME_MAX + 1];  /* file name in /dev/shm */
    int pid;                  /* 0 until the header says (custom names) */
    uint64_t start;           /* the process's start time, read while it lived */
    int tries;                /* custom names: header reads so far */
};

static struct tracked tracked[MAX_TRACKED];
static int n_tracked;
static int self_pid, child_pid;

/* Fields 4 (ppid) and 22 (starttime) of /proc/<pid>/stat; -1 if gone. */
static int proc_stat(int pid, int *ppid, uint64_t *start) {
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return -1;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return -1;
    buf[n] = 0;
    char *q = strrchr(buf, ')');
    if (!q) return -1;
    int field = 2;
    for (; *q && field < 22; q++) {
        if (*q != ' ') continue;
        field++;
        if (field == 4) *ppid = atoi(q + 1);
    }
    *start = strtoull(q, NULL, 10);
    return 0;
}

static int is_descendant(int pid, uint64_t *start) {
    int p = pid, ppid = 0;
    uint64_t st;
    for (int depth = 0; depth < 256 && p > 1; depth++) {
        if (proc_stat(p, &ppid, &st) != 0) return 0;
        if (p == pid) *start = st;
        if (ppid == self_pid) return 1;
        p = ppid;
    }
    return 0;
}

static struct tracked *find(const char *name) {
    for (int i = 0; i < n_tracked; i++)
        if (!strcmp(tracked[i].name, name)) return &tracked[i];
    return NULL;
}

static void track(const char *name, int pid, uint64_t start) {
    if (n_tracked == MAX_TRACKED || find(name)) return;
    struct tracked *t = &tracked[n_tracked++];
    snprintf(t->name, sizeof t->name, "%s", name);
    t->pid = pid;
    t->start = start;
}

/* Is the new segment `name` one of our descendants'?  A pid name is
 * checked at once; a custom name once its header is readable. */
static void consider(const char *name) {
    const char *rest = name + strlen(REC_SEG_PREFIX);
    int digits = *rest != 0;
    for (const char *c = rest; *c; c++) digits &= isdigit((unsigned char)*c) != 0;
    if (find(name)) return;
    if (digits) {
        int pid = atoi(rest);
        uint64_t start = 0;
        if (pid == child_pid || is_descendant(pid, &start)) {
            if (pid == child_pid) is_descendant(pid, &start);
            track(name, pid, start);
        }
        return;
    }
    track(name, 0, 0);  /* decided in resolve_pending() */
}

static void resolve_pending(void) {
    for (int i = 0; i < n_tracked; i++) {
        struct tracked *t = &tracked[i];
        if (t->pid != 0 || t->tries < 0) continue;
        char path[PATH_MAX];
        snprintf(path, sizeof path, SHM_DIR "/%.255s", t->name);
        struct rec_seg_entry e;
        uint64_t start = 0;
        if (rec_seg_inspect(path, &e) == REC_OK && e.pid > 0) {
            if (is_descendant(e.pid, &start) && start == e.proc_start) {
                t->pid = e.pid;
                t->start = start;
            } else {
                t->tries = -1;  /* not ours */
            }
        } else if (++t->tries > 100) {
            t->tries = -1;
        }
    }
}

static void read_events(int ino) {
    char buf[16384] __attribute__((aligned(__alignof__(struct inotify_event))));
    for (;;) {
        ssize_t n = read(ino, buf, sizeof buf);
        if (n <= 0) return;
        for (char *p = buf; p < buf + n;) {
            struct inotify_event *ev = (struct inotify_event *)(void *)p;
            if (ev->len && !strncmp(ev->name, REC_SEG_PREFIX, strlen(REC_SEG_PREFIX))) consider(ev->name);
            p += sizeof *ev + ev->len;
        }
    }
}

/* "trace.json" -> "trace.<pid>.json"; "trace" -> "trace.<pid>". */
static void with_pid(const char *out, int pid, char *buf, size_t cap) {
    const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
    if (!dot || (slash && dot < slash) || dot == out || (slash && dot == slash + 1))
        snprintf(buf, cap, "%s.%d", out, pid);
    else snprintf(buf, cap, "%.*s.%d%s", (int)(dot - out), out, pid, dot);
}

/* Write one tracked segment's trace and remove it (unless keep).  Returns
 * a rec_status. */
static int finish_one(const struct tracked *t, const char *out, double last, int keep) {
    char path[PATH_MAX], file[PATH_MAX];
    snprintf(path, sizeof path, SHM_DIR "/%.255s", t->name);
    struct rec_seg_entry e;
    if (rec_seg_inspect(path, &e) == REC_ERR_NOTFOUND) {
        if (t->pid == child_pid)
            cli_warn("pid %d left no segment: is the program instrumented (and did it record an event)?", t->pid);
        return REC_OK;
    }
    /* The same process as the one we saw start? */
    if (e.pid != t->pid || (t->start && e.proc_start != t->start)) return REC_OK;
    if (t->pid == child_pid) snprintf(file, sizeof file, "%s", out);
    else with_pid(out, t->pid, file, sizeof file);
    int rc = cli_dump(path, file, last);
    if (keep) return rc;
    if (e.state == REC_SEGST_ALIVE || e.state == REC_SEGST_CLOSED) {
        cli_warn("pid %d is still running: its segment %s is kept", t->pid, path);
        return rc;
    }
    struct rec_seg_entry again;
    if (rec_seg_inspect(path, &again) != REC_ERR_NOTFOUND && again.ino == e.ino && unlink(path) != 0 &&
        errno != ENOENT)
        cli_warn("cannot remove %s: %s", path, strerror(errno));
    return rc;
}

int cmd_run(int argc, char **argv) {
    static const struct option opts[] = {{"output", required_argument, 0, 'o'},
                                         {"last", required_argument, 0, 'l'},
                                         {"keep", no_argument, 0, 'k'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    const char *out = "trace.json";
    double last = 0;
    int keep = 0, c;
    optind = 0;
    /* '+': stop at the command, so its own options stay its own. */
    while ((c = getopt_long(argc, argv, "+:o:l:kh", opts, NULL)) != -1) {
        switch (c) {
        case 'o': out = optarg; break;
        case 'l':
            if (cli_parse_double(optarg, &last) != 0 || last <= 0)
                return cli_usage("run", "--last wants a number of seconds, not '%s'", optarg);
            break;
        case 'k': keep = 1; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("run", c, argv);
        }
    }
    if (optind >= argc) return cli_usage("run", "which command? recorder run [OPTIONS] -- CMD [ARGS...]");
    if (!strcmp(out, "-")) return cli_usage("run", "-o - is not supported: each process needs its own file");
    char **cmd = argv + optind;
    self_pid = (int)getpid();
    prctl(PR_SET_CHILD_SUBREAPER, 1);
    int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
    if (ino >= 0 && inotify_add_watch(ino, SHM_DIR, IN_CREATE) < 0) {
        close(ino);
        ino = -1;
    }
    if (ino < 0) cli_warn("cannot watch " SHM_DIR " (%s): only the program's own trace will be written", strerror(errno));
    static const char *const env[] = {"RECORDER_KEEP", "1", NULL};
    pid_t pid;
    int spawned = cli_spawn(cmd, env, &pid);
    if (spawned != 0) return spawned;
    child_pid = (int)pid;
    uint64_t start = 0;
    is_descendant(child_pid, &start);
    char own[64];
    snprintf(own, sizeof own, REC_SEG_PREFIX "%d", child_pid);
    track(own, child_pid, start);

    /* We wait for it to exit and then write its trace. */
    cli_forward_signals(pid);

    int status = 0, done = 0;
    while (!done) {
        struct pollfd pfd = {ino, POLLIN, 0};
        if (ino >= 0) poll(&pfd, 1, 20);
        else usleep(20000);
        if (ino >= 0) read_events(ino);
        resolve_pending();
        /* Reap only after looking at new segments: a zombie still shows
         * its parent chain. */
        int st, p;
        while ((p = waitpid(-1, &st, WNOHANG)) > 0)
            if (p == child_pid) {
                status = st;
                done = 1;
            }
        if (p < 0 && errno == ECHILD) break;
    }
    if (ino >= 0) {
        read_events(ino);
        close(ino);
    }
    resolve_pending();
    int rc = REC_OK;
    for (int i = 0; i < n_tracked; i++) {
        if (tracked[i].pid <= 0) continue;
        int r = finish_one(&tracked[i], out, last, keep);
        if (r != REC_OK && rc == REC_OK) rc = r;
    }
    int code = cli_exit_status(status);
    return code != 0 ? code : rc;
}
