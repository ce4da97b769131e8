/*
 * cmd_gc.c -- `recorder gc`: remove the segments of dead processes.
 *
 * The policy (docs/cli.md, "gc"):
 *  - only regular files named recorder.* owned by us; symlinks are never
 *    followed or removed;
 *  - a valid segment is removed when its process is gone: no such pid, a
 *    zombie, or the pid now belongs to a process with another start time;
 *    a live one (even a closed one) never is;
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
    "usage: recorder gc [-n] [--stale-minutes M] [--dir DIR]\n"
    "\n"
    "Remove the segments of processes that are gone (dead, or their pid now\n"
    "belongs to another process) and print each one removed.  Live segments\n"
    "are never removed, symlinks never followed.  A corrupt segment, or one\n"
    "whose creation never finished, is removed once it has not changed for\n"
    "M minutes (default 10) and the process it names is gone; other files\n"
    "(another format version, not a segment) are kept.\n"
    "\n"
    "  -n, --dry-run          print what would be removed, remove nothing\n"
    "      --stale-minutes M  age before a corrupt file counts as stale\n"
    "      --dir DIR          look in DIR instead of /dev/shm\n";

/* Why e should go, or NULL to keep it. */
static const char *verdict(const struct rec_seg_entry *e, double stale_sec, char *why, size_t cap) {
    if (e->is_symlink || e->uid != geteuid()) return NULL;
    switch (e->state) {
    case REC_SEGST_DEAD: return "dead";
    case REC_SEGST_REUSED: return "pid reused";
    case REC_SEGST_CORRUPT:
    case REC_SEGST_FOREIGN: {
        if (e->state == REC_SEGST_FOREIGN && !e->all_zero_header) return NULL;
        if (e->state == REC_SEGST_CORRUPT && e->pid > 0 && rec_pid_alive(e->pid, e->proc_start)) return NULL;
        double age = difftime(time(NULL), e->mtime);
        if (age < stale_sec) return NULL;
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
        char mem[32];
        printf("%s %s (pid %ld, %s, %s)\n", dry ? "would remove" : "removed", path, pid,
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
                                         {"dir", required_argument, 0, 'd'},
                                         {"help", no_argument, 0, 'h'},
                                         {0, 0, 0, 0}};
    int dry = 0, c;
    double stale_min = 10;
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
        case 'h': return cli_help(usage);
        default: return cli_bad_option("gc", c, argv);
        }
    }
    if (optind < argc) return cli_usage("gc", "unexpected argument '%s'", argv[optind]);
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
        char why[96];
        const char *r = verdict(e, stale_min * 60, why, sizeof why);
        if (!r) continue;
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
    gc_private(dir, stale_min * 60, dry, &removed, &freed, &status);
    char mem[32];
    if (removed)
        printf("%s %zu segment%s, %s\n", dry ? "would remove" : "removed", removed, removed == 1 ? "" : "s",
               cli_bytes(mem, sizeof mem, (double)freed));
    else printf("nothing to remove\n");
    free(v);
    return status;
}
