/*
 * cmd_ls.c -- `recorder ls`: the segments on this machine.
 *
 * File names in /dev/shm, process names and error texts are anyone's to
 * choose: the table prints them escaped (cli_safe), --json as JSON.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "recorder/capture.h"

static const char usage[] =
    "usage: recorder ls [-l] [--json] [--dir DIR]\n"
    "\n"
    "List the recorder segments on this machine (/dev/shm/recorder.*), one\n"
    "line each: pid, process, state, threads (live/all; none live once the\n"
    "process is gone), events written, entries lost (dropped by the writer\n"
    "in stream mode) and the memory the segment holds.  Files that are not\n"
    "usable segments are listed too, with the reason: corrupt, foreign (not a\n"
    "segment, another user's, a symlink), other-version, unreadable.  Names\n"
    "are printed with control bytes as \\xNN.\n"
    "\n"
    "A program traced with --cuda (docs/gpu.md) also says its GPU lanes (a\n"
    "GPU's streams and devices, NVTX ranges: not in THREADS), and when CUPTI\n"
    "refused to trace its GPU.\n"
    "\n"
    "States: alive, closed (alive, but recording stopped), dead (the process\n"
    "is gone: `recorder dump` still reads it, `recorder gc` removes it),\n"
    "pid-reused (the pid now belongs to another process).\n"
    "\n"
    "  -l, --long     also the mode, overwritten history, nominal size, path\n"
    "      --json     one JSON object per line instead of the table\n"
    "      --dir DIR  look in DIR instead of /dev/shm\n";

/* Names are sanitized by the library; JSON needs quotes and non-ASCII
 * handled too (a process name need not be UTF-8). */
static void json_str(const char *s) {
    putchar('"');
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c >= 0x7f) printf("\\u%04x", c < 0x20 ? c : 0xfffd);
        else putchar(c);
    }
    putchar('"');
}

static int is_segment(const struct rec_seg_entry *e) {
    return e->state == REC_SEGST_ALIVE || e->state == REC_SEGST_CLOSED || e->state == REC_SEGST_DEAD ||
           e->state == REC_SEGST_REUSED;
}

/* enum rec_gpu_state, as ls says it. */
static const char *gpu_state_str(unsigned st) {
    switch (st) {
    case REC_GPU_ON: return "on";
    case REC_GPU_NVTX_ONLY: return "nvtx-only";
    case REC_GPU_REFUSED: return "cupti-refused";
    default: return "none";
    }
}

static void print_json(const struct rec_seg_entry *e) {
    printf("{\"name\":");
    json_str(e->name);
    printf(",\"path\":");
    json_str(e->path);
    printf(",\"state\":\"%s\",\"pid\":%d,\"process\":", rec_seg_state_str(e->state), e->pid);
    json_str(e->process_name);
    if (is_segment(e))
        printf(",\"mode\":\"%s\",\"threads_live\":%u,\"threads\":%u,\"events\":%llu,\"lost\":%llu,"
               "\"not_kept\":%llu,\"overwritten\":%llu",
               e->mode == REC_MODE_STREAM ? "stream" : "flight", e->threads_live,
               e->threads_live + e->threads_exited, (unsigned long long)e->entries, (unsigned long long)e->dropped,
               (unsigned long long)e->lost_history, (unsigned long long)e->lost_history);
    if (is_segment(e)) {
        printf(",\"threads_not_recorded\":%llu,\"names_strings_full\":%llu,\"gpu_lanes\":%u,\"gpu_state\":\"%s\"",
               (unsigned long long)e->threads_no_slot, (unsigned long long)e->strings_dropped, e->gpu_lanes,
               gpu_state_str(e->gpu_state));
    } else {
        printf(",\"error\":");
        json_str(e->error);
    }
    printf(",\"uid\":%u,\"size\":%llu,\"mem\":%llu}\n", (unsigned)e->uid, (unsigned long long)e->file_size,
           (unsigned long long)e->mem_bytes);
}

static void print_row(const struct rec_seg_entry *e, int lng) {
    char a[32], b[32], c[32], d[32], f[32];
    char pid[16] = "-";
    if (e->pid > 0) snprintf(pid, sizeof pid, "%d", e->pid);
    char proc[sizeof e->process_name * 4];
    cli_safe(proc, sizeof proc, e->process_name[0] ? e->process_name : "-");
    if (is_segment(e)) {
        char th[32];
        snprintf(th, sizeof th, "%u/%u", e->threads_live, e->threads_live + e->threads_exited);
        printf("%-8s %-16.16s %-11s %-8s %10s %8s %10s", pid, proc, rec_seg_state_str(e->state), th,
               cli_count(a, sizeof a, (double)e->entries), cli_count(b, sizeof b, (double)e->dropped),
               cli_bytes(c, sizeof c, (double)e->mem_bytes));
        if (lng)
            printf("  %-6s %10s %10s ", e->mode == REC_MODE_STREAM ? "stream" : "flight",
                   cli_count(d, sizeof d, (double)e->lost_history), cli_bytes(f, sizeof f, (double)e->file_size));
        else printf("  ");
        cli_fputs_safe(lng ? e->path : e->name, stdout);
        /* Only root reads another user's segment; it is told whose. */
        char note[64];
        if (e->foreign_owner) printf(" (%s)", rec_owner_str((uint32_t)e->uid, note, sizeof note));
        /* Threads that got no ring recorded nothing: never silent. */
        if (e->threads_no_slot) printf(" (%s)", rec_not_recorded_str(e->threads_no_slot, note, sizeof note));
        if (e->strings_dropped) printf(" (%s)", rec_names_full_str(e->strings_dropped, note, sizeof note));
        if (e->gpu_lanes) printf(" (%u GPU/NVTX lane%s)", e->gpu_lanes, e->gpu_lanes == 1 ? "" : "s");
        if (e->gpu_state == REC_GPU_REFUSED) printf(" (GPU: CUPTI refused, no GPU activity)");
    } else {
        printf("%-8s %-16.16s %-11s %-8s %10s %8s %10s", pid, proc, rec_seg_state_str(e->state), "-", "-", "-",
               cli_bytes(c, sizeof c, (double)e->mem_bytes));
        printf("  ");
        cli_fputs_safe(lng ? e->path : e->name, stdout);
        printf(": ");
        cli_fputs_safe(e->error, stdout);
    }
    putchar('\n');
}

int cmd_ls(int argc, char **argv) {
    static const struct option opts[] = {
        {"long", no_argument, 0, 'l'}, {"json", no_argument, 0, 'j'}, {"dir", required_argument, 0, 'd'},
        {"help", no_argument, 0, 'h'}, {0, 0, 0, 0}};
    int lng = 0, json = 0, c;
    const char *dir = NULL;
    optind = 0;
    while ((c = getopt_long(argc, argv, ":lh", opts, NULL)) != -1) {
        switch (c) {
        case 'l': lng = 1; break;
        case 'j': json = 1; break;
        case 'd': dir = optarg; break;
        case 'h': return cli_help(usage);
        default: return cli_bad_option("ls", c, argv);
        }
    }
    if (optind < argc) return cli_usage("ls", "unexpected argument '%s'", argv[optind]);
    struct rec_seg_entry *v;
    size_t n;
    char err[512];
    int rc = rec_seg_list(dir, &v, &n, err, sizeof err);
    if (rc != REC_OK) return cli_error(rc, "%s", err);
    if (!json) {
        printf("%-8s %-16s %-11s %-8s %10s %8s %10s", "PID", "PROCESS", "STATE", "THREADS", "EVENTS", "LOST", "MEMORY");
        if (lng) printf("  %-6s %10s %10s %s\n", "MODE", "NOT KEPT", "SIZE", "PATH");
        else printf("  %s\n", "SEGMENT");
    }
    for (size_t i = 0; i < n; i++) {
        if (json) print_json(&v[i]);
        else print_row(&v[i], lng);
    }
    if (!json && n == 0) {
        printf("(no segments in ");
        cli_fputs_safe(dir ? dir : "/dev/shm", stdout);
        printf(")\n");
    }
    free(v);
    return REC_OK;
}
