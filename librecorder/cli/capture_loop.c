/*
 * capture_loop.c -- drain a segment into a capture while its program runs.
 *
 * The loop rests until a ring would be a quarter full at the pace seen,
 * and comes back at once when the writers got ahead (recorder/pace.h,
 * docs/cli.md, "capture"); a
 * signal only sets a flag, and the loop then drains, writes the end record
 * (rec_capture_finish) and returns.  The caller closes the segment, which
 * gives the rings back to flight mode.
 */
#define _GNU_SOURCE
#include "capture_loop.h"

#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "recorder/pace.h"
#include "cli.h"

static double now_sec(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

static void sleep_us(long us) {
    struct timespec d = {us / 1000000, (us % 1000000) * 1000};
    nanosleep(&d, NULL);  /* a signal cuts it short: fine */
}

static void status_line(const struct rec_capture_stats *st, double rate, int pid) {
    char a[32], b[32], c[32], d[32];
    fprintf(stderr, "\r\033[Kcapturing pid %d: %s events/s, %s events, %s, lost %s", pid,
            cli_count(a, sizeof a, rate), cli_count(b, sizeof b, (double)st->events),
            cli_bytes(c, sizeof c, (double)st->bytes), cli_count(d, sizeof d, (double)(st->dropped + st->overwritten)));
}

int capture_loop(rec_capture *cap, rec_seg *seg, struct capture_child *child, int running, double duration,
                 int live, volatile sig_atomic_t *stop, struct capture_end *e) {
    memset(e, 0, sizeof *e);
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    int rc = REC_OK;
    double t0 = now_sec(), next_check = t0 + 0.1, next_status = t0 + 0.5, last_t = t0;
    uint64_t last_events = 0;
    double last_poll = t0;
    /* Rests from 100 us; the longest: with a command, its children's
     * segments are noted every pass, and a child may record for only a
     * few ms. */
    struct rec_pace pace;
    rec_pace_init(&pace, 0.1, child ? 10.0 : 100.0);
    enum rec_capture_end reason = running ? REC_CAPTURE_END_STOPPED : REC_CAPTURE_END_EXITED;
    while (running) {
        size_t moved = 0;
        rc = rec_capture_poll(cap, &moved, e->err, sizeof e->err);
        if (rc != REC_OK) {
            reason = rc == REC_ERR_TRUNCATED ? REC_CAPTURE_END_TRUNCATED : REC_CAPTURE_END_ERROR;
            break;
        }
        if (*stop) break;
        /* Every pass: it also notes the segments of processes the
         * command starts, which may live for less than 100 ms. */
        if (child && capture_child_exited(child)) {
            reason = REC_CAPTURE_END_EXITED;
            break;
        }
        double t = now_sec();
        if (duration > 0 && t - t0 >= duration) break;
        int check = t >= next_check;
        /* The other processes of the tree: followed from their first
         * pass on, and ended when they exit (capture_tree.c). */
        if (child && child->add_tree && (rc = capture_tree_follow(child, cap, check)) != REC_OK) {
            snprintf(e->err, sizeof e->err, "the processes it started could not all be followed");
            reason = REC_CAPTURE_END_ERROR;
            break;
        }
        if (check) {
            next_check = t + 0.1;
            struct rec_seg_info now;
            rec_seg_get_info(seg, &now);
            /* With a command, its exit ends the capture: the source may
             * be a process it started, which can end first. */
            if (!now.alive && !child) {
                reason = REC_CAPTURE_END_EXITED;
                break;
            }
            if (now.mode != REC_MODE_STREAM) {
                reason = REC_CAPTURE_END_DETACHED;
                break;
            }
        }
        if (live && t >= next_status) {
            struct rec_capture_stats st;
            rec_capture_get_stats(cap, &st);
            status_line(&st, (double)(st.events - last_events) / (t - last_t), info.pid);
            last_events = st.events;
            last_t = t;
            next_status = t + 0.5;
        }
        /* Come back at once if this pass found the writers ahead of us;
         * otherwise rest until a ring would be a quarter full
         * (recorder/pace.h).  Each wake-up preempts a thread of a program
         * that keeps every core busy, and its peers wait for it at their
         * barrier: fewer is cheaper.  A pass drains every ring whole. */
        double since_ms = (t - last_poll) * 1e3;
        last_poll = t;
        double found = info.ring_entries ? (double)moved / (double)info.ring_entries : 0;
        if (rec_pace_pass(&pace, found, since_ms, 0)) continue;
        sleep_us((long)(pace.rest_ms * 1e3));
    }
    if (live) fprintf(stderr, "\r\033[K");
    if (child && child->add_tree && rc == REC_OK) {
        int r = capture_tree_finish(child, cap);
        if (r != REC_OK && rc == REC_OK) {
            rc = r;
            snprintf(e->err, sizeof e->err, "not every process it started is in the capture whole (said above)");
        }
    }
    char err2[512] = "";
    int rc2 = rec_capture_finish(cap, reason, &e->st, err2, sizeof err2);
    if (rc == REC_OK && rc2 != REC_OK) {
        rc = rc2;
        snprintf(e->err, sizeof e->err, "%s", err2);
    }
    if (rc2 == REC_ERR_TRUNCATED) reason = REC_CAPTURE_END_TRUNCATED;
    e->reason = reason;
    e->stop_signal = *stop;
    e->secs = now_sec() - t0;
    return rc;
}

/* Consumer threads by default: one per 4 CPUs, at most 4.  One drains
 * one or two flat-out writers (docs/performance/capture.md); a program
 * that keeps a big machine busy needs several, and a small machine
 * keeps its cores for the program. */
void capture_set_consumers(rec_capture *cap, unsigned asked) {
    unsigned n = asked;
    if (!n) {
        long cpus = sysconf(_SC_NPROCESSORS_ONLN);
        n = cpus > 0 ? (unsigned)(cpus / 4) : 1;
        n = n < 1 ? 1 : n > 4 ? 4 : n;
    }
    char err[256];
    if (rec_capture_set_consumers(cap, n, err, sizeof err) != REC_OK)
        cli_warn("%s: the rings are drained by one thread", err);
}

const char *capture_loss_words(const struct capture_end *e, char *buf, size_t cap) {
    const struct rec_capture_stats *st = &e->st;
    char lost[128];
    snprintf(buf, cap, "not kept %llu entries (overwritten before the capture began); %s",
             (unsigned long long)st->history, cli_lost_words(lost, sizeof lost, st->dropped, st->overwritten));
    return buf;
}

/* Threads the program could not record (no slot, no ring: its segment
 * counts them) recorded nothing, so no file of it has them: said as the
 * capture of it ends, never silent (docs/cli.md, "capture"). */
void capture_warn_not_recorded(const struct rec_seg_info *info) {
    char n[64];
    if (info->strings_dropped)
        cli_warn("pid %d: %s (the string table reached its limit, RECORDER_STRINGS_KB)", info->pid,
                 rec_names_full_str(info->strings_dropped, n, sizeof n));
    if (info->threads_no_slot)
        cli_warn("pid %d: %s (every thread slot was live, or /dev/shm was full): they are in no output",
                 info->pid, rec_not_recorded_str(info->threads_no_slot, n, sizeof n));
}

void capture_summary(const struct rec_seg_info *info, const char *where, const struct capture_end *e) {
    const struct rec_capture_stats *st = &e->st;
    char a[32], b[32], proc[256], loss[256];
    const char *why = e->reason == REC_CAPTURE_END_EXITED ? "program exited"
                      : e->reason == REC_CAPTURE_END_ERROR ? "write error"
                      : e->reason == REC_CAPTURE_END_DETACHED ? "detached"
                      : e->reason == REC_CAPTURE_END_TRUNCATED ? "segment truncated"
                      : e->stop_signal ? strsignal(e->stop_signal) : "stopped";
    fprintf(stderr, "recorder: captured pid %d (%s) %s: %llu events (%llu entries), %s in %.2f s, %s events/s; %s; "
            "ended: %s\n",
            info->pid, cli_safe(proc, sizeof proc, info->process_name), where, (unsigned long long)st->events,
            (unsigned long long)st->entries, cli_bytes(a, sizeof a, (double)st->bytes), e->secs,
            cli_count(b, sizeof b, e->secs > 0 ? (double)st->events / e->secs : 0),
            capture_loss_words(e, loss, sizeof loss), why);
    capture_notes(info, e);
}

void capture_notes(const struct rec_seg_info *info, const struct capture_end *e) {
    const struct rec_capture_stats *st = &e->st;
    /* Not lost entries but bad data: a hostile or corrupt ring.  The file
     * keeps the count too (LOSS records), for every reader of it. */
    if (st->bad)
        cli_warn("%llu impossible ring heads or drop counts were seen (bad data, not counted as lost entries)",
                 (unsigned long long)st->bad);
    capture_warn_not_recorded(info);
    if (st->dropped)
        fprintf(stderr,
                "recorder: hint: the capture fell behind; each ring holds %llu entries (RECORDER_RING_KB=%llu): "
                "a larger ring rides out longer pauses (recorder capture -o FILE -- CMD starts CMD with 64 MiB "
                "rings)\n",
                (unsigned long long)info->ring_entries, (unsigned long long)(info->ring_entries * 16 / 1024));
}
