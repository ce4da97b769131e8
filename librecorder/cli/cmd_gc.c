/*
 * cmd_gc.c -- `recorder gc`: remove the segments of dead processes.
 *
 * The policy (docs/cli.md, "gc"):
 *  - only regular files named recorder.* owned by us; symlinks are never
 *    followed or removed;
 *  - a valid segment is removed when its process is gone: no such pid, a
 *    zombie, or the pid now belongs to a process with another start time;
 *    a live one (even a closed one) never is; and only after a grace
 *    period (--grace SECONDS, default 600; --now: none) since its last
 *    sign of life (its last entry, a thread's exit, the file's mtime),
 *    so that someone may still read what a crash left; and not while the
 *    launcher that tagged it still runs (it reads and removes it);
 *  - a segment kept on purpose (RECORDER_KEEP: REC_FLAG_KEEP in its
 *    header) stays unless --all;
 *  - a corrupt segment (recorder magic, bad layout or truncated) and a file
 *    whose first page is all zeroes (creation never finished) are removed
 *    only once unchanged for --stale-minutes (default 10) and, if the header
 *    names a pid, when that process is gone;
 *  - anything else (another format version, a stranger's file) is kept.
 *  - a writer's private name (.recorder-new.<pid>.<random>, a segment
 *    being built before it is linked under its name: docs/format.md) is
 *    removed once its process is gone, or once unchanged for M minutes.
 * Just before unlinking, the file is looked up again and must still be the
 * same inode, so a segment created meanwhile under the same name survives.
 */
#include <dirent.h>
#include <signal.h>
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "recorder/capture.h"

static const char usage[] =
    "usage: recorder gc [-n] [--now | --grace SECONDS] [--all] [--stale-minutes M] [--dir DIR]\n"
    "\n"
    "Remove the segments of processes that are gone (dead, or their pid now\n"
    "belongs to another process) and print each one removed.  A dead process's\n"
    "segment waits a grace period (10 minutes) after its last sign of life, in\n"
    "case someone wants to read what it left; one kept on purpose\n"
    "(RECORDER_KEEP=1) stays unless --all; one whose launcher (recorder run,\n"
    "capture -- CMD) still runs stays for it.  Live segments are never removed,\n"
    "symlinks never followed.  A corrupt segment, or one whose creation never\n"
    "finished, is removed once it has not changed for M minutes (default 10)\n"
    "and the process it names is gone; other files (another format version,\n"
    "not a segment) are kept.\n"
    "\n"
    "  -n, --dry-run          print what would be removed, and why each other\n"
    "                         segment stays; remove nothing\n"
    "      --grace SECONDS    how long a dead process's segment waits (default 600)\n"
    "      --now              no grace period (--grace 0)\n"
    "      --all              also the segments kept on purpose (RECORDER_KEEP=1)\n"
    "      --stale-minutes M  age before a corrupt file counts as stale\n"
    "      --dir DIR          look in DIR instead of /dev/shm\n";

struct gc_opts {
    double stale_sec;         /* corrupt or unfinished files */
    double grace_sec;         /* a dead process's segment */
    int all;                  /* RECORDER_KEEP segments too */
};

/* Seconds since its last sign of life: its last entry or thread exit,
 * or the file's change; a time ahead of now counts as now. */
static double idle_sec(const struct rec_seg_entry *e) {
    struct timespec now;
    clock_gettime(CLOCK_REALTIME, &now);
    double t = (double)now.tv_sec + (double)now.tv_nsec / 1e9;
    double last = (double)e->mtime;
    if (e->last_real_ns && (double)e->last_real_ns / 1e9 > last) last = (double)e->last_real_ns / 1e9;
    return last < t ? t - last : 0;
}

static void minutes(char *buf, size_t cap, double sec) {
    if (sec < 120) snprintf(buf, cap, "%.0f s", sec);
    else snprintf(buf, cap, "%.0f min", sec / 60);
}

/* Why e should go, or NULL to keep it (why then says why, "" for files
 * not worth a word: another user's, a link). */
static const char *verdict(const struct rec_seg_entry *e, const struct gc_opts *o, char *why, size_t cap) {
    why[0] = 0;
    if (e->is_symlink || e->uid != geteuid()) return NULL;
    switch (e->state) {
    case REC_SEGST_DEAD:
    case REC_SEGST_REUSED: {
        const char *what = e->state == REC_SEGST_DEAD ? "dead" : "pid reused";
        char a[32], b[32];
        if (e->keep && !o->all) {
            snprintf(why, cap, "%s, kept on purpose (RECORDER_KEEP): --all removes it", what);
            return NULL;
        }
        if (e->launcher_pid > 0 && rec_pid_alive(e->launcher_pid, e->launcher_start)) {
            snprintf(why, cap, "%s, its launcher (pid %d) still runs: it reads and removes it", what, e->launcher_pid);
            return NULL;
        }
        double idle = idle_sec(e);
        minutes(a, sizeof a, idle);
        if (idle < o->grace_sec) {
            minutes(b, sizeof b, o->grace_sec);
            snprintf(why, cap, "%s, last active %s ago: within the grace period of %s (--now removes it)", what, a, b);
            return NULL;
        }
        snprintf(why, cap, "%s, last active %s ago%s", what, a, e->keep ? ", kept on purpose (--all)" : "");
        return why;
    }
    case REC_SEGST_ALIVE: snprintf(why, cap, "its process runs"); return NULL;
    case REC_SEGST_CLOSED: snprintf(why, cap, "its process runs (recording closed)"); return NULL;
    case REC_SEGST_VERSION: snprintf(why, cap, "another format version: its own recorder judges it"); return NULL;
    case REC_SEGST_CORRUPT:
    case REC_SEGST_FOREIGN: {
        if (e->state == REC_SEGST_FOREIGN && !e->all_zero_header) {
            snprintf(why, cap, "not a recorder segment");
            return NULL;
        }
        if (e->state == REC_SEGST_CORRUPT && e->pid > 0 && rec_pid_alive(e->pid, e->proc_start)) {
            snprintf(why, cap, "corrupt, but its process runs");
            return NULL;
        }
        double age = difftime(time(NULL), e->mtime);
        if (age < o->stale_sec) {
            snprintf(why, cap, "%s, changed %.0f min ago (--stale-minutes)",
                     e->state == REC_SEGST_CORRUPT ? "corrupt" : "never finished", age / 60);
            return NULL;
        }
        snprintf(why, cap, "%s, unchanged for %.0f min", e->state == REC_SEGST_CORRUPT ? "corrupt" : "never finished",
                 age / 60);
        return why;
    }
    default: return NULL;
    }
}

#define PRIVATE_PREFIX ".recorder-new."

/* Removes (or lists) one file if it is still the one judged: a regular
 * file, same inode.  Returns 1 if it counted as removed. */
static int remove_judged(const char *path, const struct stat *judged, int dry, int *status) {
    struct stat now;
    if (lstat(path, &now) != 0 || !S_ISREG(now.st_mode) || now.st_ino != judged->st_ino ||
        now.st_dev != judged->st_dev)
        return 0;
    if (!dry && unlink(path) != 0) {
        int en = errno;
        if (en != ENOENT)
            *status = cli_error(en == EACCES || en == EPERM ? REC_ERR_ACCESS : REC_ERR_IO, "cannot remove %s: %s",
                                path, strerror(en));
        return 0;
    }
    return 1;
}

/* Private names of writers that died between building a segment and
 * linking it under its name. */
static void gc_private(const char *dir, double stale_sec, int dry, size_t *removed, uint64_t *freed, int *status) {
    DIR *d = opendir(dir ? dir : "/dev/shm");
    if (!d) return;
    struct dirent *de;
    const size_t plen = strlen(PRIVATE_PREFIX);
    while ((de = readdir(d)) != NULL) {
        if (strncmp(de->d_name, PRIVATE_PREFIX, plen) != 0) continue;
        char path[1024];
        snprintf(path, sizeof path, "%s/%.255s", dir ? dir : "/dev/shm", de->d_name);
        struct stat st;
        if (lstat(path, &st) != 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) continue;
        long pid = strtol(de->d_name + plen, NULL, 10);
        int gone = pid <= 0 || (kill((pid_t)pid, 0) != 0 && errno == ESRCH);
        double age = difftime(time(NULL), st.st_mtime);
        if (!gone && age < stale_sec) continue;
        if (!remove_judged(path, &st, dry, status)) continue;
        char mem[32], shown[sizeof path * 4];
        printf("%s %s (pid %ld, %s, %s)\n", dry ? "would remove" : "removed", cli_safe(shown, sizeof shown, path), pid,
               gone ? "never published, process gone" : "never published, unchanged",
               cli_bytes(mem, sizeof mem, (double)st.st_blocks * 512));
        (*removed)++;
        *freed += (uint64_t)st.st_blocks * 512u;
    }
    closedir(d);
}

int cmd_gc(int argc, char **argv) {
    static const struct option opts[] = {{"dry-run", no_argument, 0, 'n'},
                                         {"stale-minutes", required_argument, 0, 's'},
                                         {"grace", required_argument, 0, 'g'},
                                         {"now", no_argument, 0, 'N'},
                                         {"all", no_argument, 0, 'a'},
                                         {"dir", required_argument, 0, 'd'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int dry = 0, c, now = 0, grace_given = 0;
    double stale_min = 10;
    struct gc_opts go = {0, 600, 0};
    const char *dir = NULL;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":nh", opts, NULL)) != -1) {
        switch (c) {
        case 'n': dry = 1; break;
        case 's':
            if (cli_parse_double(optarg, &stale_min) != 0)
                return cli_usage("gc", "--stale-minutes wants a number of minutes, not '%s'", optarg);
            break;
        case 'd': dir = optarg; break;
        case 'g':
            if (cli_parse_double(optarg, &go.grace_sec) != 0 || go.grace_sec < 0)
                return cli_usage("gc", "--grace wants seconds, not '%s'", optarg);
            grace_given = 1;
            break;
        case 'N': now = 1; break;
        case 'a': go.all = 1; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("gc", c, argv);
        }
    }
    if (optind < argc) return cli_usage("gc", "unexpected argument '%s'", argv[optind]);
    if (now && grace_given) return cli_usage("gc", "--now or --grace, not both");
    if (now) go.grace_sec = 0;
    go.stale_sec = stale_min * 60;
    struct rec_seg_entry *v;
    size_t n;
    char err[512];
    int rc = rec_seg_list(dir, &v, &n, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    size_t removed = 0;
    uint64_t freed = 0;
    int status = REC_OK;
    for (size_t i = 0; i < n; i++) {
        const struct rec_seg_entry *e = &v[i];
        char why[160];
        const char *r = verdict(e, &go, why, sizeof why);
        if (!r) {
            if (dry && why[0]) {
                char path[sizeof e->path * 4], proc[sizeof e->process_name * 4];
                printf("keeping %s (pid %d%s%s, %s)\n", cli_safe(path, sizeof path, e->path), e->pid,
                       e->process_name[0] ? " " : "", cli_safe(proc, sizeof proc, e->process_name), why);
            }
            continue;
        }
        /* Still the very file that was judged?  A segment created since
         * under the same name (a new process with that pid) is not. */
        struct stat now;
        if (lstat(e->path, &now) != 0 || !S_ISREG(now.st_mode) || (uint64_t)now.st_ino != e->ino ||
            (uint64_t)now.st_dev != e->dev)
            continue;
        char mem[32];
        cli_bytes(mem, sizeof mem, (double)e->mem_bytes);
        if (!dry) {
            if (unlink(e->path) != 0) {
                int en = errno;
                if (en == ENOENT) continue;  /* someone else removed it */
                status = cli_error(en == EACCES || en == EPERM ? REC_ERR_ACCESS : REC_ERR_IO, "cannot remove %s: %s",
                                   e->path, strerror(en));
                continue;
            }
        }
        char path[sizeof e->path * 4], proc[sizeof e->process_name * 4];
        printf("%s %s (pid %d%s%s, %s, %s)\n", dry ? "would remove" : "removed", cli_safe(path, sizeof path, e->path),
               e->pid, e->process_name[0] ? " " : "", cli_safe(proc, sizeof proc, e->process_name), r, mem);
        removed++;
        freed += e->mem_bytes;
    }
    gc_private(dir, go.stale_sec, dry, &removed, &freed, &status);
    char mem[32];
    if (removed)
        printf("%s %zu segment%s, %s\n", dry ? "would remove" : "removed", removed, removed == 1 ? "" : "s",
               cli_bytes(mem, sizeof mem, (double)freed));
    else printf("nothing to remove\n");
    free(v);
    return status;
}
