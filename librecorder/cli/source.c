/*
 * source.c -- load a segment or a capture file into an analysis model.
 *
 * Which is which: an argument of digits is a pid; anything else that names
 * an existing file is a file, a capture if it starts with the capture magic
 * and a segment otherwise; the rest are segment names in /dev/shm.
 */
#define _GNU_SOURCE
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "cli.h"
#include "source.h"

static int all_digits(const char *s) {
    if (!*s) return 0;
    for (; *s; s++)
        if (!isdigit((unsigned char)*s)) return 0;
    return 1;
}

/* The live process's "now" on the segment's clock: open scopes end there. */
static double live_now(rec_seg *s, const struct rec_seg_info *info) {
#if defined(__x86_64__) || defined(__i386__) || defined(__aarch64__)
    if (info->clock_source == REC_CLOCK_TSC || info->clock_source == REC_CLOCK_CNTVCT)
        return rec_seg_ticks_to_ns(s, rec_now());
#endif
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e9 + (double)ts.tv_nsec - (double)info->mono_ns0;
}

static void tally_threads(struct cli_source *src) {
    const struct rec_model_thread *t;
    size_t n = rec_model_threads(src->model, &t);
    for (size_t i = 0; i < n; i++) {
        src->overwritten = rec_sat_add(src->overwritten, t[i].overwritten);
        src->dropped = rec_sat_add(src->dropped, t[i].dropped);
    }
}

static int open_segment(const char *target, struct cli_source *src) {
    char err[512];
    int rc = rec_seg_open(target, 0, &src->seg, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    struct rec_seg_info info;
    rec_seg_get_info(src->seg, &info);
    snprintf(src->path, sizeof src->path, "%s", info.path);
    src->pid = info.pid;
    src->proc_start = info.proc_start;
    memcpy(src->process_name, info.process_name, sizeof src->process_name);
    src->state = info.alive ? "alive" : info.closed ? "exited" : "dead";
    src->foreign_owner = info.foreign_owner;
    src->owner_uid = info.owner_uid;
    return REC_OK;
}

static int load_segment(struct cli_source *src, const struct cli_load *how) {
    struct rec_seg_info info;
    rec_seg_get_info(src->seg, &info);
    struct rec_model_opts mo = {0, how ? 0 : 1, NULL};
    src->model = rec_model_new_seg(src->seg, &mo);
    if (!src->model) return cli_error(REC_ERR_NOMEM, "out of memory");
    if (how && how->attach && how->attach(how->ctx, src->model) != 0) return cli_error(REC_ERR_NOMEM, "out of memory");
    /* A snapshot: one pass reads what each ring holds; a second picks up
     * what a live writer added meanwhile (bounded: it may never stop). */
    for (int pass = 0; pass < 2; pass++) {
        size_t n = rec_model_poll_seg(src->model, src->seg);
        src->events += n;
        if (n == 0) break;
    }
    /* Open scopes of a running program end now; of a stopped or dead one,
     * at its newest event. */
    if (info.alive && !info.stopped) rec_model_set_now(src->model, live_now(src->seg, &info));
    tally_threads(src);
    return REC_OK;
}

static int open_capture(const char *path, struct cli_source *src) {
    char err[512];
    int rc = rec_cap_open(path, &src->cap, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    const struct rec_cap_info *in = rec_cap_get_info(src->cap);
    if (in->warning[0]) cli_warn("%s", in->warning);
    snprintf(src->path, sizeof src->path, "%s", path);
    src->pid = in->pid;
    src->proc_start = in->proc_start;
    memcpy(src->process_name, in->process_name, sizeof src->process_name);
    src->state = "capture";
    return REC_OK;
}

static int load_capture(struct cli_source *src, const struct cli_load *how) {
    const struct rec_cap_info *in = rec_cap_get_info(src->cap);
    struct rec_model_opts mo = {0, how ? 0 : 1, NULL};
    src->model = rec_model_new_cap(src->cap, &mo);
    if (!src->model) return cli_error(REC_ERR_NOMEM, "out of memory");
    if (how && how->attach && how->attach(how->ctx, src->model) != 0) return cli_error(REC_ERR_NOMEM, "out of memory");
    struct rec_cap_item it;
    int r;
    while ((r = rec_cap_next(src->cap, &it)) == 1) {
        if (it.kind == REC_CAP_ITEM_THREAD) {
            rec_model_thread(src->model, &it.thread);
            continue;
        }
        src->events += rec_model_feed_entries(src->model, it.slot, it.entries, it.n, it.first, &it.loss);
    }
    if (r < 0) return cli_error(-r, "%s: %s while reading", src->path, rec_status_str(-r));
    /* Scopes still open at the end of the capture end there. */
    if (in->end_ticks > in->ticks0)
        rec_model_set_now(src->model, (double)(in->end_ticks - in->ticks0) * 1e9 / in->ticks_per_sec);
    tally_threads(src);
    return REC_OK;
}

int cli_source_open(const char *target, struct cli_source *src) {
    memset(src, 0, sizeof *src);
    struct stat st;
    int rc;
    if (!all_digits(target) && stat(target, &st) == 0 && S_ISREG(st.st_mode)) {
        int probe = rec_cap_probe(target);
        if (probe < 0) return cli_error(REC_ERR_ACCESS, "%s: cannot read it", target);
        /* rec_seg_open treats a bare name as a segment name: give it a path. */
        char path[1024];
        snprintf(path, sizeof path, "%s%s", strchr(target, '/') ? "" : "./", target);
        rc = probe ? open_capture(target, src) : open_segment(path, src);
    } else {
        rc = open_segment(target, src);
    }
    src->is_capture = src->cap != NULL;
    if (rc != REC_OK) cli_source_close(src);
    return rc;
}

int cli_source_load(const char *target, struct cli_source *src) {
    int rc = cli_source_open(target, src);
    if (rc != REC_OK) return rc;
    rc = cli_source_load_opened(src);
    if (rc != REC_OK) cli_source_close(src);
    return rc;
}

int cli_source_load_opened(struct cli_source *src) {
    return src->cap ? load_capture(src, NULL) : load_segment(src, NULL);
}

int cli_source_load_stats(struct cli_source *src, const struct cli_load *how) {
    return src->cap ? load_capture(src, how) : load_segment(src, how);
}

int cli_source_open_process(const struct cli_source *file, size_t k, struct cli_source *src) {
    memset(src, 0, sizeof *src);
    char err[512];
    int rc = rec_cap_open_process(file->cap, k, &src->cap, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    const struct rec_cap_info *in = rec_cap_get_info(src->cap);
    memcpy(src->path, file->path, sizeof src->path);
    src->pid = in->pid;
    src->proc_start = in->proc_start;
    memcpy(src->process_name, in->process_name, sizeof src->process_name);
    src->state = file->state;
    src->is_capture = 1;
    return REC_OK;
}

void cli_source_close(struct cli_source *src) {
    if (src->model) rec_model_free(src->model);
    if (src->seg) rec_seg_close(src->seg);
    if (src->cap) rec_cap_close(src->cap);
    src->model = NULL;
    src->seg = NULL;
    src->cap = NULL;
}

int cli_source_select(struct cli_source *src, size_t i) {
    if (!src->cap || rec_cap_select(src->cap, i) != REC_OK) return REC_ERR_USAGE;
    const struct rec_cap_info *in = rec_cap_get_info(src->cap);
    src->pid = in->pid;
    src->proc_start = in->proc_start;
    memcpy(src->process_name, in->process_name, sizeof src->process_name);
    return REC_OK;
}

/* Escaped: the process name is the program's to choose. */
const char *cli_source_desc(const struct cli_source *src, char *buf, size_t cap) {
    char name[sizeof src->process_name * 4];
    cli_safe(name, sizeof name, src->process_name[0] ? src->process_name : "?");
    char owner[64] = "", lost[128] = "", w[48], w2[64];
    if (src->foreign_owner)   /* root reads another user's segment: say whose */
        snprintf(owner, sizeof owner, ", %s", rec_owner_str(src->owner_uid, w, sizeof w));
    /* Threads that got no ring and names at the string table's limit,
     * counted by the segment (now, or as the capture last read it: its
     * UNRECORDED records): never silent, in the same words. */
    uint64_t no_slot = 0, full = 0;
    if (src->seg) {
        struct rec_seg_info info;
        rec_seg_get_info(src->seg, &info);
        no_slot = info.threads_no_slot;
        full = info.strings_dropped;
    } else if (src->cap) {
        const struct rec_cap_info *in = rec_cap_get_info(src->cap);
        no_slot = in->threads_no_slot;
        full = in->strings_dropped;
    }
    if (no_slot) snprintf(lost, sizeof lost, ", %s", rec_not_recorded_str(no_slot, w, sizeof w));
    if (full) snprintf(lost + strlen(lost), sizeof lost - strlen(lost), ", %s", rec_names_full_str(full, w2, sizeof w2));
    snprintf(buf, cap, "pid %d (%s), %s%s%s", src->pid, name, src->state, owner, lost);
    return buf;
}
