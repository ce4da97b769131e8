/*
 * main.c -- recorder-top [options] [PID|NAME]: attach to a running
 * program's recorder segment and show its scopes live (docs/tui.md).
 *
 * Every error that can be known before the screen is taken over (a bad
 * argument, a dead pid, a corrupt segment, no terminal) is reported on
 * stderr as one line, with the exit status of docs/tui.md.
 */
#define _GNU_SOURCE
#include <curses.h>
#include <langinfo.h>
#include <locale.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "app.h"
#include "recorder/capture.h"
#include "draw.h"
#include "picker.h"
#include "processes.h"
#include "source.h"
#include "target.h"
#include "view_diff.h"

static void usage(FILE *f) {
    fprintf(f,
            "usage: recorder-top [options] [PID|NAME|FILE.rec] [PID|NAME...]\n"
            "Live view of a program's recorder scopes: Top, Flame and Threads.\n"
            "With no argument, pick one of the programs that have a segment.\n"
            "\n"
            "  PID              a process id, or a segment name or path\n"
            "  FILE.rec         a capture file (recorder capture): browse it with a\n"
            "                   time cursor, [ ] a window back or forward, < > start/end\n"
            "  A.rec B.rec      two captures side by side: per scope, calls, mean, P50\n"
            "                   and P99 in each and their change; Enter: both histograms\n"
            "  NAME             a running program's process name (exactly one)\n"
            "  PID1 PID2 ...    several programs at once, on one time line: a PROC\n"
            "                   column, o / O shows one program after another\n"
            "  --tree PID       that program and every process it started that\n"
            "                   recorded (living or dead), as PID1 PID2 ...\n"
            "  --no-color       monochrome (as does NO_COLOR=1)\n"
            "  --refresh MS     redraw period, 20..5000 ms (default 200)\n"
            "  --window W       the statistics window to start with: 1, 10 (seconds;\n"
            "                   the default) or all; w changes it\n"
            "  --exit-after S   quit after S seconds (for scripts and benchmarks)\n"
            "  --wait[=S]       the program has not recorded yet (no segment): wait for\n"
            "                   it, at most S seconds (default: no limit)\n"
            "  --stats          at exit, print what was read and the CPU used to stderr\n"
            "  -h, --help       this text\n"
            "\n"
            "Keys: Tab/1-5 views (Top Flame Threads Counters Messages), w window,\n"
            "s/S sort, / filter, t thread, Enter details, [ ] < > a file's cursor,\n"
            "o/O one program, p pause, ? help, q quit; the mouse works too.\n"
            "\n"
            "A ~ before a row: entries were lost in its window, and the title says\n"
            "how much was decoded (partial: N%% decoded); shares are then over the\n"
            "time the decoded data covers.  lost: entries written since attaching\n"
            "that were never read (overwritten, dropped, bad); not kept: history\n"
            "the rings had already overwritten before.\n"
            "\n"
            "Exit status: 0 ok, 2 usage or no terminal, 3 no such process or\n"
            "segment, 4 permission denied, 5 not a segment or corrupt, 6 other\n"
            "format version, 7 truncated, 8 I/O error, 11 segment still starting,\n"
            "12 exited without recording (--wait), 13 --wait timed out.\n");
}

static void on_signal(int sig) {
    (void)sig;
    app_interrupted = 1;
}

static int parse_num(const char *s, double lo, double hi, double *out) {
    char *end;
    double v = strtod(s, &end);
    if (end == s || *end || !(v >= lo && v <= hi)) return -1;
    *out = v;
    return 0;
}

static void start_curses(int color) {
    initscr();
    cbreak();
    noecho();
    nonl();
    keypad(stdscr, TRUE);
    set_escdelay(25);     /* Esc zooms out: do not wait a second for it */
    curs_set(0);
    theme_init(color);
    /* Until a screen has been left and resumed once, ncurses 6.4 flushes
     * its output after every cursor jump (its mvcur cannot tell the low-
     * level callers that need it from doupdate), so each frame reached the
     * terminal as about 25 writes, and a terminal (tmux, sshd) wakes for
     * each one.  Leaving and resuming once makes a frame one write.  The
     * resume clears the screen, which the first frame redraws anyway. */
    endwin();
    refresh();
}

/* --wait with a process name: ready once target_resolve finds it (or
 * finds it ambiguous: it then says so). */
static int name_ready(const char *target, void *arg) {
    char path[256], err[512];
    (void)arg;
    return target_resolve(target, path, sizeof path, err, sizeof err) != REC_ERR_NOTFOUND;
}

static double cpu_seconds(struct timeval tv) { return (double)tv.tv_sec + (double)tv.tv_usec / 1e6; }

/* The write calls this process made (/proc/self/io's syscw), or -1 where
 * the kernel keeps no I/O accounting.  Nearly all are the terminal's:
 * --stats shows them next to the frames drawn (a terminal wakes for each). */
static long long write_calls(void) {
    FILE *f = fopen("/proc/self/io", "r");
    char line[128];
    long long n = -1;
    if (!f) return -1;
    while (fgets(line, sizeof line, f))
        if (sscanf(line, "syscw: %lld", &n) == 1) break;
    fclose(f);
    return n;
}

int main(int argc, char **argv) {
    struct timespec t_main;   /* --stats: the first frame's delay counts from here */
    clock_gettime(CLOCK_MONOTONIC, &t_main);
    setlocale(LC_ALL, "");
    draw_utf8 = !strcmp(nl_langinfo(CODESET), "UTF-8");
    struct app_opts opt = {1, 100, 0, 0, 0};
    const char *nc = getenv("NO_COLOR");
    if (nc && *nc) opt.color = 0;
    const char *target = NULL, *targets[PROCS_MAX];
    int ntargets = 0, wait = 0;
    const char *tree = NULL;
    double wait_s = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        double v;
        if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
            usage(stdout);
            return 0;
        } else if (!strcmp(a, "--no-color")) {
            opt.color = 0;
        } else if (!strcmp(a, "--wait") || !strncmp(a, "--wait=", 7)) {
            wait = 1;
            if (a[6] && parse_num(a + 7, 0.001, 1e9, &wait_s)) {
                fprintf(stderr, "recorder-top: --wait=S needs a number of seconds above 0\n");
                return REC_ERR_USAGE;
            }
        } else if (!strcmp(a, "--window")) {
            const char *w = i + 1 < argc ? argv[++i] : "";
            if (!strcmp(w, "1") || !strcmp(w, "1s")) opt.window = REC_WIN_1S + 1;
            else if (!strcmp(w, "10") || !strcmp(w, "10s")) opt.window = REC_WIN_10S + 1;
            else if (!strcmp(w, "all")) opt.window = REC_WIN_ALL + 1;
            else {
                fprintf(stderr, "recorder-top: --window takes 1, 10 or all\n");
                return REC_ERR_USAGE;
            }
        } else if (!strcmp(a, "--tree")) {
            if (i + 1 >= argc) {
                fprintf(stderr, "recorder-top: --tree needs a PID\n");
                return REC_ERR_USAGE;
            }
            tree = argv[++i];
        } else if (!strcmp(a, "--stats")) {
            opt.print_stats = 1;
        } else if (!strcmp(a, "--refresh") || !strcmp(a, "--exit-after")) {
            int refresh = !strcmp(a, "--refresh");
            if (i + 1 >= argc || parse_num(argv[i + 1], refresh ? 20 : 0.01, refresh ? 5000 : 1e9, &v)) {
                fprintf(stderr, "recorder-top: %s needs a number%s\n", a, refresh ? " of ms, 20..5000" : " of seconds");
                return REC_ERR_USAGE;
            }
            if (refresh) opt.refresh_ms = (int)v;
            else opt.exit_after = v;
            i++;
        } else if (a[0] == '-' && a[1]) {
            fprintf(stderr, "recorder-top: unknown option %s (see --help)\n", a);
            return REC_ERR_USAGE;
        } else if (ntargets == PROCS_MAX) {
            fprintf(stderr, "recorder-top: at most %d programs at once\n", PROCS_MAX);
            return REC_ERR_USAGE;
        } else {
            targets[ntargets++] = a;
            if (!target) target = a;
        }
    }

    char path[256], err[512];
    struct source src;
    int in_curses = 0;
    if (tree) {   /* a pid and every process it started that recorded */
        static char tree_paths[PROCS_MAX][REC_SEG_PATH_MAX];
        size_t n = 0;
        char terr[512];
        if (ntargets || wait) {
            fprintf(stderr, "recorder-top: --tree takes one PID, without other programs or --wait\n");
            return REC_ERR_USAGE;
        }
        int rc = rec_seg_tree_paths(tree, PROCS_MAX, tree_paths, &n, terr, sizeof terr);
        if (rc != REC_OK) {
            fprintf(stderr, "recorder-top: %s\n", terr);
            return rc;
        }
        for (size_t i = 0; i < n; i++) targets[ntargets++] = tree_paths[i];
        target = targets[0];
    }
    if (wait && !target) {
        fprintf(stderr, "recorder-top: --wait needs a PID or NAME to wait for\n");
        return REC_ERR_USAGE;
    }
    struct diff_state *diff = NULL;
    if (ntargets == 2 && !wait && !tree && target_is_capture(targets[0], err, sizeof err) > 0 &&
        target_is_capture(targets[1], err, sizeof err) > 0) {   /* two runs side by side (view_diff.c) */
        int rc = diff_open(&diff, targets[0], targets[1], err, sizeof err);
        if (rc != REC_OK) {
            fprintf(stderr, "recorder-top: %s\n", err);
            return rc;
        }
    } else if (ntargets > 1) {   /* several programs, each resolved as one alone */
        int rc = wait ? REC_ERR_USAGE : REC_OK;
        static char paths[PROCS_MAX][256];
        char *pp[PROCS_MAX];
        if (wait) snprintf(err, sizeof err, "--wait takes one program");
        for (int i = 0; i < ntargets && rc == REC_OK; i++) {
            pp[i] = paths[i];
            int cap = target_is_capture(targets[i], err, sizeof err);
            if (cap != 0) {
                if (cap > 0)
                    snprintf(err, sizeof err, "%s is a capture file: open it alone, or beside one other capture", targets[i]);
                rc = cap < 0 ? -cap : REC_ERR_USAGE;
                break;
            }
            rc = target_resolve(targets[i], paths[i], sizeof paths[i], err, sizeof err);
        }
        if (rc == REC_OK) rc = procs_open(&src, pp, ntargets, err, sizeof err);
        if (rc != REC_OK) {
            fprintf(stderr, "recorder-top: %s\n", err);
            return rc;
        }
    } else if (target) {
        /* Before any handler: Ctrl-C ends the wait and us. */
        struct rec_wait_opts wo = {wait_s, "recorder-top", 0, name_ready, NULL, NULL};
        int cap = wait ? 0 : target_is_capture(target, err, sizeof err);
        int rc = cap < 0 ? -cap : wait ? rec_seg_wait(target, &wo, err, sizeof err) : REC_OK;
        if (cap > 0) rc = source_open_file(&src, target, err, sizeof err);
        else if (rc == REC_OK) rc = target_resolve(target, path, sizeof path, err, sizeof err);
        if (rc == REC_OK && cap == 0) rc = source_open(&src, path, err, sizeof err);
        if (rc != REC_OK) {
            fprintf(stderr, "recorder-top: %s\n", err);
            return rc;
        }
    }
    if (!isatty(STDIN_FILENO) || !isatty(STDOUT_FILENO)) {
        fprintf(stderr, "recorder-top: needs a terminal (stdin and stdout); for a report use `recorder report`\n");
        if (diff) diff_free(diff);
        else if (target) source_close(&src);
        return REC_ERR_USAGE;
    }
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGHUP, &sa, NULL);

    if (diff) {
        start_curses(opt.color);
        int rc = diff_run(diff);
        endwin();
        diff_free(diff);
        return rc;
    }
    if (!target) {
        start_curses(opt.color);
        in_curses = 1;
        if (!picker_run(path, sizeof path)) {
            endwin();
            return 0;
        }
        int rc = source_open(&src, path, err, sizeof err);
        if (rc != REC_OK) {
            endwin();
            fprintf(stderr, "recorder-top: %s\n", err);
            return rc;
        }
    }
    if (!in_curses) start_curses(opt.color);

    struct app app;
    memset(&app, 0, sizeof app);
    app.src = &src;
    app.opt = opt;
    app.sort = TOP_TOTAL;
    app.proc = -1;   /* several programs: all of them */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = app_run(&app);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    endwin();
    if (opt.print_stats) {
        struct rusage ru;
        getrusage(RUSAGE_SELF, &ru);
        double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
        double user = cpu_seconds(ru.ru_utime), sys = cpu_seconds(ru.ru_stime);
        fprintf(stderr,
                "recorder-top stats: seconds=%.2f decoded=%llu lost=%llu drains=%llu draws=%llu "
                "cpu_user=%.3f cpu_sys=%.3f cpu_share=%.3f drain_s=%.3f draw_s=%.3f wait_s=%.3f exited=%d "
                "not_kept=%llu truncated=%d first_frame_s=%.3f maxrss_kb=%ld writes=%lld\n",
                secs, (unsigned long long)src.decoded, (unsigned long long)src.lost,
                (unsigned long long)src.drains, (unsigned long long)app.draws, user, sys,
                secs > 0 ? (user + sys) / secs : 0, app.drain_s, app.draw_s, app.wait_s, src.exited,
                (unsigned long long)src.not_kept, src.truncated,
                (app.first_draw_ns - ((double)t_main.tv_sec * 1e9 + (double)t_main.tv_nsec)) / 1e9, ru.ru_maxrss,
                write_calls());
    }
    app_free(&app);
    source_close(&src);
    return rc;
}
