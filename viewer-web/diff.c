/*
 * diff.c -- recorder-web A.rec B.rec (diff.h): the two files checked, read
 * whole into models without an event log (memory follows the names, not
 * the events), and their whole-run per-scope figures joined and ordered
 * by rec_stats_diff -- the rows `recorder report A --diff B` prints --
 * written once as JSON for the page's diff table (page/js/diff.js).
 *
 * Each row carries, per run, calls, total, mean, P50 and P99 (ns; P50 and
 * P99 the midpoints of the model's log-histogram buckets, as report says)
 * and the duration histogram by octave (rec_model_scope_detail), which
 * the latency panel overlays.  The rows come in the order of the change
 * in the mean; "order" gives, for every key report's --sort knows, the
 * rows' indices in rec_stats_diff's order, so the page sorts by the same
 * rule as report and recorder-top, and never by one of its own.
 */
#define _GNU_SOURCE
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "diff.h"
#include "recorder/analysis.h"
#include "recorder/capture.h"
#include "recorder/diff.h"
#include "source.h"
#include "web.h"

const char web_diff_none[] = "{\"diff\":false}\n";

int web_diff_check(const struct web_opts *o, char *err, size_t errlen) {
    unsigned n = o->n_targets, files = 0;
    int is_file[WSRC_MAX] = {0};
    struct rec_seg_info info;
    for (unsigned k = 0; k < n; k++) {
        struct wsrc probe;
        int rc = wsrc_open_file(o->targets[k], &probe, &info, err, errlen);
        wsrc_close(&probe);
        if (rc < 0) return rc;   /* a file, but not one to read: its own error */
        is_file[k] = rc > 0;
        files += is_file[k];
    }
    if (!files) return 0;
    if (n > 2) {
        snprintf(err, errlen, "two capture files are compared, not %u programs or files: '%s' is one too many", n,
                 o->targets[2]);
        return -REC_ERR_USAGE;
    }
    for (unsigned k = 0; k < 2; k++)
        if (!is_file[k]) {
            snprintf(err, errlen,
                     "'%s' is not a capture file (a live program, or no such file): a capture file is compared "
                     "only with another (recorder-web A.rec B.rec)",
                     o->targets[k]);
            return -REC_ERR_USAGE;
        }
    struct stat sa, sb;
    if (stat(o->targets[0], &sa) == 0 && stat(o->targets[1], &sb) == 0 && sa.st_dev == sb.st_dev &&
        sa.st_ino == sb.st_ino) {
        snprintf(err, errlen, "'%s' and '%s' are the same file: compare two different runs", o->targets[0],
                 o->targets[1]);
        return -REC_ERR_USAGE;
    }
    return 1;
}

/* As recorder-top reads a run (rec_diff_run_read); A's warning is said
 * once, where it is opened to be served (main.c). */
static int read_run(const char *path, int warn, struct rec_diff_run *r, char *err, size_t errlen) {
    int rc = rec_diff_run_read(path, r, err, errlen);
    if (rc == REC_OK && warn && rec_cap_get_info(r->cap)->warning[0])
        fprintf(stderr, "recorder-web: warning: %s\n", rec_cap_get_info(r->cap)->warning);
    return rc;
}

/* A figure in ns, exact; never NaN or infinite in JSON. */
static void num(FILE *f, double v) {
    if (isfinite(v)) fprintf(f, "%.17g", v);
    else fputs("null", f);
}

static void run_head(FILE *f, const char *key, const char *path, const struct rec_diff_run *r) {
    const struct rec_cap_info *in = rec_cap_get_info(r->cap);
    fprintf(f, "\"%s\":{\"path\":", key);
    rec_json_string(f, path, strlen(path));
    fputs(",\"process\":", f);
    rec_json_string(f, in->process_name, strnlen(in->process_name, sizeof in->process_name));
    fprintf(f, ",\"pid\":%d,\"events\":%llu,\"lost\":%llu}", (int)in->pid, (unsigned long long)r->events,
            (unsigned long long)r->lost);
}

/* One run's figures of a row, and its histogram by octave from the first
 * octave with a call to the last ("lo": the first's index, 2^lo ns). */
static void side(FILE *f, const struct rec_diff_run *r, const struct rec_stat *s) {
    if (!s) {
        fputs("null", f);
        return;
    }
    fprintf(f, "{\"calls\":%llu,\"total_ns\":", (unsigned long long)s->calls);
    num(f, rec_diff_value(s, REC_DIFF_TOTAL));
    fputs(",\"mean_ns\":", f);
    num(f, rec_diff_value(s, REC_DIFF_MEAN));
    fputs(",\"p50_ns\":", f);
    num(f, rec_diff_value(s, REC_DIFF_P50));
    fputs(",\"p99_ns\":", f);
    num(f, rec_diff_value(s, REC_DIFF_P99));
    struct rec_scope_detail d;
    int lo = 0, hi = -1;
    if (rec_model_scope_detail(r->m, REC_WIN_ALL, -1, s->name_id, &d) == 0) {
        while (lo < REC_HIST_OCTAVES && !d.octave[lo]) lo++;
        for (hi = REC_HIST_OCTAVES - 1; hi >= lo && !d.octave[hi];) hi--;
    }
    fprintf(f, ",\"hist_lo\":%d,\"hist\":[", lo < REC_HIST_OCTAVES ? lo : 0);
    for (int k = lo; k <= hi; k++) fprintf(f, "%s%llu", k > lo ? "," : "", (unsigned long long)d.octave[k]);
    fputs("]}", f);
}

/* Where each row of rows (ordered by key) stands in base: found by its A
 * side (or its B side for a scope only in B). */
static int order(FILE *f, const struct rec_diff_run *ra, const struct rec_diff_run *rb, const size_t *at_a, const size_t *at_b,
                 enum rec_diff_key key) {
    struct rec_diff_row *rows;
    size_t n;
    if (rec_stats_diff(ra->st, ra->n, rb->st, rb->n, key, &rows, &n) != 0) return -1;
    fprintf(f, "%s\"%s\":[", key ? "," : "", rec_diff_key_name[key]);
    for (size_t i = 0; i < n; i++)
        fprintf(f, "%s%zu", i ? "," : "", rows[i].a ? at_a[rows[i].a - ra->st] : at_b[rows[i].b - rb->st]);
    fputc(']', f);
    free(rows);
    return 0;
}

static int write_json(FILE *f, const char *pa, const char *pb, const struct rec_diff_run *ra, const struct rec_diff_run *rb) {
    struct rec_diff_row *base;
    size_t n;
    if (rec_stats_diff(ra->st, ra->n, rb->st, rb->n, REC_DIFF_MEAN, &base, &n) != 0) return -1;
    size_t *at_a = calloc(ra->n + 1, sizeof *at_a), *at_b = calloc(rb->n + 1, sizeof *at_b);
    int rc = at_a && at_b ? 0 : -1;
    fputs("{\"diff\":true,", f);
    run_head(f, "a", pa, ra);
    fputc(',', f);
    run_head(f, "b", pb, rb);
    fputs(",\"timeline\":\"a\",\"rows\":[", f);
    for (size_t i = 0; i < n && rc == 0; i++) {
        const struct rec_stat *s = base[i].a ? base[i].a : base[i].b;
        if (base[i].a) at_a[base[i].a - ra->st] = i;
        if (base[i].b) at_b[base[i].b - rb->st] = i;
        fputs(i ? ",{\"name\":" : "{\"name\":", f);
        rec_json_string(f, s->name, strlen(s->name));
        fprintf(f, ",\"wait\":%s,\"a\":", s->wait ? "true" : "false");
        side(f, ra, base[i].a);
        fputs(",\"b\":", f);
        side(f, rb, base[i].b);
        fputc('}', f);
    }
    fputs("],\"order\":{", f);
    for (int k = 0; k < REC_DIFF_NKEYS && rc == 0; k++) rc = order(f, ra, rb, at_a, at_b, (enum rec_diff_key)k);
    fputs("}}\n", f);
    free(at_a);
    free(at_b);
    free(base);
    return rc;
}

int web_diff_build(const char *a, const char *b, char **body, size_t *len, char *err, size_t errlen) {
    struct rec_diff_run ra, rb;
    *body = NULL;
    *len = 0;
    int rc = read_run(a, 0, &ra, err, errlen);
    if (rc == REC_OK) {
        rc = read_run(b, 1, &rb, err, errlen);
        if (rc == REC_OK) {
            char *buf = NULL;
            size_t n = 0;
            FILE *f = open_memstream(&buf, &n);
            int bad = !f || write_json(f, a, b, &ra, &rb) != 0;
            if (f && fclose(f) != 0) bad = 1;
            if (bad) {
                free(buf);
                snprintf(err, errlen, "out of memory");
                rc = REC_ERR_NOMEM;
            } else {
                *body = buf;
                *len = n;
            }
        }
        rec_diff_run_free(&rb);
    }
    rec_diff_run_free(&ra);
    return rc;
}
