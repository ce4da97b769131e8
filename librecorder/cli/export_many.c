/*
 * export_many.c -- several processes written at once: `recorder dump PID1
 * PID2 ...`, `dump --tree PID`, `run`'s and `capture -- CMD`'s process
 * trees, a capture of several processes.  Into one trace (a process track
 * per pid, every timestamp on one CLOCK_MONOTONIC time line: ts 0 is the
 * earliest start of them all), or with --split one file per process.
 *
 * Every source is opened and read once before anything is written
 * (rec_export_open_*: its span, its size), so the size check and the
 * common origin are known up front; then each is read again and streamed
 * into the same file (rec_export_write_part).  Memory stays that of one
 * export at a time, plus the open sources.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "export.h"
#include "source.h"

#define MAX_UNITS 4096   /* the launcher tracks at most this many; a capture holds at most this many */

struct unit {
    struct cli_source src;
    const char *note;
    rec_export *x;
    struct rec_export_info in;
    uint64_t dropped, overwritten;   /* what its part of a merged file lost */
};

struct units {
    struct unit *u;
    size_t n;
    size_t left_out;          /* processes not written (seen) */
};

static void close_units(struct units *us) {
    for (size_t i = 0; i < us->n; i++) {
        rec_export_free(us->u[i].x);
        cli_source_close(&us->u[i].src);
    }
    free(us->u);
    us->u = NULL;
    us->n = 0;
}

/* The same process twice (dump 12 12, a pid and its segment's path, a
 * capture given twice: the same pid and start, of an earlier target than
 * base, the first unit of the one being added) is written once.  Another
 * process of a pid already taken (a pid reused, a crafted file) cannot
 * be: one trace tells processes apart by pid, --split names its files by
 * it.  It is left out, said with its events, and counted (the command
 * fails: nothing is lost silently).  1 if s is not to be added. */
static int seen(struct units *us, const struct cli_source *s, size_t base) {
    for (size_t i = 0; i < us->n; i++) {
        const struct cli_source *o = &us->u[i].src;
        if (o->pid != s->pid) continue;
        if (i < base && o->proc_start == s->proc_start) {
            cli_warn("pid %d is given twice: written once", s->pid);
            return 1;
        }
        char a[256], b[256], ev[48] = "";
        if (s->cap) snprintf(ev, sizeof ev, " (%llu events)", (unsigned long long)rec_cap_get_info(s->cap)->events);
        cli_warn("%s: %s%s is another process with the pid of %s: left out, as one trace and --split's file names "
                 "tell processes apart by pid", s->path, cli_source_desc(s, a, sizeof a), ev,
                 cli_source_desc(o, b, sizeof b));
        us->left_out++;
        return 1;
    }
    return 0;
}

/* Adds target's processes (a capture of several: one each, every one a
 * handle of the one reading of the file: memory in proportion to the
 * file, not to its processes squared). */
static int add_target(struct units *us, const char *target, const char *note) {
    struct cli_source file;
    int rc = cli_source_open(target, &file);
    if (rc != REC_OK) return rc;
    size_t procs = file.cap ? rec_cap_processes(file.cap) : 1, base = us->n;
    for (size_t k = 0; k < procs && rc == REC_OK; k++) {
        if (us->n == MAX_UNITS) {
            rc = cli_error(REC_ERR_USAGE, "more than %d processes in one trace", MAX_UNITS);
            break;
        }
        struct unit *u = &us->u[us->n];
        memset(u, 0, sizeof *u);
        if (!file.cap) {
            u->src = file;   /* a segment: taken over */
            file.seg = NULL;
        } else if ((rc = cli_source_open_process(&file, k, &u->src)) != REC_OK) {
            break;
        }
        if (seen(us, &u->src, base)) {
            cli_source_close(&u->src);
            continue;
        }
        u->note = k == 0 ? note : NULL;
        us->n++;
    }
    cli_source_close(&file);
    return rc;
}

static int open_units(struct units *us, char *const *targets, const char *const *notes, size_t n) {
    us->n = us->left_out = 0;
    us->u = calloc(MAX_UNITS, sizeof *us->u);
    if (!us->u) return cli_error(REC_ERR_NOMEM, "out of memory");
    for (size_t i = 0; i < n; i++) {
        int rc = add_target(us, targets[i], notes ? notes[i] : NULL);
        if (rc != REC_OK) {
            close_units(us);
            return rc;
        }
    }
    return REC_OK;
}

/* --split: each process into a file of its own, as dump writes one. */
static int write_split(struct units *us, const struct cli_export_opts *o) {
    int rc = REC_OK;
    for (size_t i = 0; i < us->n; i++) {
        char file[4200];
        cli_path_with_pid(o->out, us->u[i].src.pid, file, sizeof file);
        struct cli_export_opts one = *o;
        one.out = file;
        one.source_note = us->u[i].note;
        int r = cli_export_source(&us->u[i].src, &one);
        if (r != REC_OK && rc == REC_OK) rc = r;
    }
    return rc;
}

static void add_counts(struct rec_export_counts *t, const struct rec_export_counts *c) {
    t->slices += c->slices;
    t->instants += c->instants;
    t->counters += c->counters;
    t->flows += c->flows;
    t->threads += c->threads;
    t->trace_events += c->trace_events;
    t->events_read += c->events_read;
    t->overwritten = rec_sat_add(t->overwritten, c->overwritten);
    t->dropped = rec_sat_add(t->dropped, c->dropped);
    t->bad = rec_sat_add(t->bad, c->bad);
    t->forced += c->forced;
    t->late_flags += c->late_flags;
    t->unbound_flows += c->unbound_flows;
    t->too_deep += c->too_deep;
    t->deep_scopes += c->deep_scopes;
    t->nonfinite_counters += c->nonfinite_counters;
    t->untracked_events += c->untracked_events;
}

/* "3 processes: pid 10 (a), alive; pid 11 (b), dead[, NOTE or its losses]; ..." */
static char *describe(const struct units *us) {
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    fprintf(f, "%zu processes: ", us->n);
    for (size_t i = 0; i < us->n; i++) {
        char d[256], lost[128];
        const struct unit *u = &us->u[i];
        fprintf(f, "%s%s", i ? "; " : "", cli_source_desc(&u->src, d, sizeof d));
        if (u->note) fprintf(f, ", %s", u->note);   /* its capture's words, losses included */
        else if (u->dropped || u->overwritten)
            fprintf(f, ", %s", cli_lost_words(lost, sizeof lost, u->dropped, u->overwritten));
    }
    fclose(f);
    return buf;
}

static int write_merged(struct units *us, const struct cli_export_opts *o) {
    struct rec_export_opts eo = {o->last, o->from, o->to, 0};
    char err[512];
    double bytes = 0, events = 0, origin = 0, end = 0;
    for (size_t i = 0; i < us->n; i++) {
        struct unit *u = &us->u[i];
        int rc = u->src.cap ? rec_export_open_cap(u->src.cap, &eo, &u->x, err, sizeof err)
                            : rec_export_open_seg(u->src.seg, &eo, &u->x, err, sizeof err);
        if (rc != REC_OK) return cli_error(rc, "%s: %s", u->src.path, err);
        rec_export_get_info(u->x, &u->in);
        bytes += u->in.json_bytes;
        double share = u->in.end_ns > u->in.start_ns ? u->in.window_ns / (u->in.end_ns - u->in.start_ns) : 1;
        events += share * (double)u->in.events;
        if (i == 0 || u->in.start_mono_ns < origin) origin = u->in.start_mono_ns;
        if (i == 0 || u->in.end_mono_ns > end) end = u->in.end_mono_ns;
        /* A capture's process is planned again when written: one plan
         * held at a time, not one per process (memory that follows the
         * file, docs/capture-format.md "Memory"). */
        if (u->src.cap) {
            rec_export_free(u->x);
            u->x = NULL;
        }
    }
    int rc = cli_export_size_check(o, bytes, events, (end - origin) / 1e9);
    struct cli_out out;
    if (rc == REC_OK) rc = cli_out_open(&out, o->out);
    if (rc != REC_OK) return rc;
    struct rec_export_part part;
    memset(&part, 0, sizeof part);
    part.origin_mono_ns = origin;
    part.end_mono_ns = end;
    part.count = (uint32_t)us->n;
    struct rec_export_counts total;
    memset(&total, 0, sizeof total);
    for (size_t i = 0; i < us->n && rc == REC_OK; i++) {
        struct rec_export_counts c;
        part.index = (uint32_t)i;
        struct unit *u = &us->u[i];
        int e = u->x ? REC_OK : rec_export_open_cap(u->src.cap, &eo, &u->x, err, sizeof err);
        if (e == REC_OK) e = rec_export_write_part(u->x, o->fmt, out.f, &part, &c, err, sizeof err);
        if (u->src.cap) {
            rec_export_free(u->x);
            u->x = NULL;
        }
        if (e != REC_OK) rc = cli_error(e, "%s: %s (pid %d)", out.path, err, us->u[i].src.pid);
        else {
            add_counts(&total, &c);
            u->dropped = c.dropped;
            u->overwritten = c.overwritten;
        }
    }
    rec_export_part_free(&part);
    if (rc != REC_OK) {
        cli_out_abort(&out);
        return rc;
    }
    rc = cli_out_commit(&out);
    if (rc == REC_OK) {
        char *d = describe(us);
        struct cli_export_opts shown = *o;
        shown.source_note = NULL;   /* said per process, in d */
        shown.losses_in_desc = 1;
        cli_export_summary(&shown, out.path, d ? d : "several processes", &total);
        free(d);
    }
    return rc;
}

int cli_export_many(char *const *targets, const char *const *notes, size_t n, const struct cli_export_opts *o,
                    int split) {
    struct units us;
    int rc = open_units(&us, targets, notes, n);
    if (rc != REC_OK) return rc;
    int one_only = o->fmt == REC_EXPORT_CSV || o->fmt == REC_EXPORT_FOLDED;   /* one process a file */
    if (us.n > 1 && one_only && !split) cli_export_first_only("the trace", us.n, us.u[0].src.pid, o->fmt);
    if ((us.n == 1 || one_only) && !split) {
        struct cli_export_opts one = *o;
        one.source_note = us.u[0].note;
        rc = cli_export_source(&us.u[0].src, &one);
    } else rc = split ? write_split(&us, o) : write_merged(&us, o);
    if (rc == REC_OK && us.left_out)   /* written, but not whole: said above */
        rc = cli_error(REC_ERR_FORMAT, "%zu process%s left out (said above)", us.left_out,
                       us.left_out == 1 ? "" : "es");
    close_units(&us);
    return rc;
}
