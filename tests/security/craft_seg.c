/*
 * craft_seg.c -- writes hostile but well-formed recorder segments, for the
 * attacker's test suite (tests/security/README.md).  This file: options,
 * layout, publishing and --hold; craft_ring.c writes the rings and the
 * scenarios.
 *
 *   craft_seg --name NAME | --path PATH  [options]
 *
 * The file has a header and a layout that pass every check of
 * librecorder/segment_open.c validate() (built from the real struct
 * rec_header / rec_slot / rec_entry of recorder.h, as the writer's
 * rec__layout() lays them out), so readers go on to read its rings; what
 * the rings, slots and strings hold is chosen by --scenario:
 *
 *   plain    a well-behaved thread: scopes "craft_outer" > "craft_inner"
 *   types    every type byte 0..255 in w1's top byte, random payloads
 *   exploit  type 0x17 (and 0x10..0xff) with a chosen payload (--payload),
 *            the shape that overflowed cap_pack's prev[16]
 *   instant  instants of every length byte 0..255, with too few, too many
 *            and wrong continuation entries; an event cut at the ring's end
 *   heads    a head that jumped by 2^63, one at UINT64_MAX, start_head past
 *            head
 *   dropped  dropped counters past any plausible value
 *   strings  name ids past the table, on records whose length runs past its
 *            end, without a NUL, with control bytes and terminal escapes;
 *            strings_used past strings_size; a process name without a NUL
 *   values   NaN/inf counters, timestamps 0 / UINT64_MAX / backwards, ends
 *            without begins, begins nested past REC_MAX_DEPTH, odd flows,
 *            THREAD_START with odd generations, odd slot states
 *   all      every scenario above, one per slot (the default)
 *   forged   only "forged_scope" events (the other-user tests)
 *   table    the growing string table's header fields, hostile, and a
 *            name at the far end of a (--strings-size) region
 *   packmax  one ring full of BEGIN entries that pack as large as an entry
 *            can: timestamps that jump by 2^63 both ways, 56-bit payloads
 *            that never repeat (1 + 10 + 8 bytes each); with a large ring
 *            (--ring-entries) a capture's output buffer fills with them
 *
 * Options:
 *   --hold            stay alive as the segment's writer: the header's pid
 *                     and proc_start are this process's (field 22 of
 *                     /proc/self/stat), so readers call it alive.  Prints
 *                     "ready PID PATH" once the segment is published.
 *                     SIGTERM/SIGINT: remove the file (if it is still ours)
 *                     and exit 0.
 *   --churn           with --hold: a thread keeps rewriting the rings and
 *                     moving heads backwards, by 2^63 and back, and dropped
 *                     counters down, every few milliseconds, so readers
 *                     that poll see hostile changes between reads.
 *   --truncate-to N   with --hold: on SIGUSR1, stop the churn and ftruncate
 *                     the file to N bytes; prints "truncated N".
 *   --forge-pid P     the header names pid P (default: this process)
 *   --forge-start S   and start time S ("auto": read /proc/P/stat)
 *   --launcher P:S    the header's launcher tag (S "auto": read /proc/P/stat)
 *   --process NAME    the header's process name (default "craft_seg")
 *   --payload HEX     the exploit scenario's 56-bit payload
 *   --seed N          random payloads (default 1)
 *   --ring-entries N  entries per ring, a power of two >= 16 (default 2048)
 *   --strings-size N  the string region's bytes (default 65536; up to 2^35)
 *   --max-threads N   thread slots (default 8; the scenarios use up to 8)
 *
 * The file is published the way the writer publishes (built under a
 * private name, then link()ed), so it is never seen half made.  Exit
 * status: 0, 1 on a failure (one line on stderr), 2 on bad usage.
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "craft_seg.h"

#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void die(const char *what) {
    fprintf(stderr, "craft_seg: %s: %s\n", what, strerror(errno));
    exit(1);
}

static uint64_t page_round(uint64_t x) { return (x + REC_PAGE - 1) & ~(uint64_t)(REC_PAGE - 1); }

static uint64_t mono_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static uint64_t proc_start_of(int pid) {
    char p[64], buf[1024];
    snprintf(p, sizeof p, "/proc/%d/stat", pid);
    int fd = open(p, O_RDONLY | O_CLOEXEC);
    if (fd < 0) return 0;
    ssize_t n = read(fd, buf, sizeof buf - 1);
    close(fd);
    if (n <= 0) return 0;
    buf[n] = 0;
    char *q = strrchr(buf, ')');
    if (!q) return 0;
    int field = 2;
    for (; *q && field < 22; q++)
        if (*q == ' ') field++;
    return strtoull(q, NULL, 10);
}

/* ---- building and publishing ------------------------------------------ */

static void layout(struct rec_header *h) {
    uint64_t off = REC_PAGE;
    h->magic = 0;
    h->version = REC_SEG_VERSION;
    h->header_size = sizeof(struct rec_header);
    h->slot_size = sizeof(struct rec_slot);
    h->entry_size = sizeof(struct rec_entry);
    h->max_threads = MAX_THREADS;
    h->consumer_off = off;
    h->consumer_size = page_round(sizeof(struct rec_consumer) + 8u * MAX_THREADS);
    off += h->consumer_size;
    h->slots_off = off;
    off += page_round(sizeof(struct rec_slot) * MAX_THREADS);
    h->index_off = off;
    h->index_entries = INDEX_ENTRIES;
    off += page_round(4u * INDEX_ENTRIES);
    h->strings_off = off;
    h->strings_size = STRINGS_SIZE;
    off += STRINGS_SIZE;
    h->rings_off = off;
    h->ring_entries = RING_ENTRIES;
    off += (uint64_t)RING_ENTRIES * sizeof(struct rec_entry) * MAX_THREADS;
    h->segment_size = off;
}

static volatile sig_atomic_t got_term, got_usr1;
static void on_term(int sig) {
    (void)sig;
    got_term = 1;
}
static void on_usr1(int sig) {
    (void)sig;
    got_usr1 = 1;
}

static volatile int churn_stop;

/* Hostile changes between a reader's polls. */
static void *churn(void *arg) {
    (void)arg;
    uint64_t round = 0;
    while (!__atomic_load_n(&churn_stop, __ATOMIC_ACQUIRE)) {
        round++;
        /* slot 0: fresh random entries of every type, a valid scope among them */
        struct w w = {0, slots[0].head};
        for (int i = 0; i < 64; i++) put(&w, rnd(), rnd());
        scopes(&w, id_outer, id_inner, 2);
        __atomic_store_n(&slots[0].head, w.head, __ATOMIC_RELEASE);
        /* slot 1: the exploit shape, again and again */
        struct w x = {1, slots[1].head};
        for (int i = 0; i < 32; i++) put(&x, tick(), ev(0x17, exploit_payload));
        __atomic_store_n(&slots[1].head, x.head, __ATOMIC_RELEASE);
        /* slot 3: a head that runs backwards, jumps by 2^63 and back */
        static const uint64_t seq[] = {5000, 4000, UINT64_C(1) << 63, 6000, 0, UINT64_MAX, 7000, 100};
        __atomic_store_n(&slots[3].head, seq[round % 8] + round, __ATOMIC_RELEASE);
        /* slot 4: dropped goes up, then down, then absurd */
        static const uint64_t dseq[] = {10, 5, UINT64_C(1) << 62, 20, 0, UINT64_MAX};
        __atomic_store_n(&slots[4].dropped, dseq[round % 6] + round, __ATOMIC_RELEASE);
        struct timespec d = {0, 3000000};
        nanosleep(&d, NULL);
    }
    return NULL;
}

static int usage(void) {
    fprintf(stderr, "usage: craft_seg --name NAME | --path PATH [--scenario S] [--hold [--churn] "
                    "[--truncate-to N]] [--forge-pid P] [--forge-start S|auto] [--launcher P:S] "
                    "[--process NAME] [--payload HEX] [--seed N]\n");
    return 2;
}

int main(int argc, char **argv) {
    const char *name = NULL, *path_arg = NULL, *scenario = "all", *process = "craft_seg", *start_arg = NULL;
    int hold = 0, do_churn = 0, forge_pid = 0, launcher_pid = 0;
    long long truncate_to = -1;
    uint64_t launcher_start = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (!strcmp(a, "--hold")) hold = 1;
        else if (!strcmp(a, "--churn")) do_churn = 1;
        else if (!v) return usage();
        else if (!strcmp(a, "--name")) name = v, i++;
        else if (!strcmp(a, "--path")) path_arg = v, i++;
        else if (!strcmp(a, "--scenario")) scenario = v, i++;
        else if (!strcmp(a, "--truncate-to")) truncate_to = atoll(v), i++;
        else if (!strcmp(a, "--forge-pid")) forge_pid = atoi(v), i++;
        else if (!strcmp(a, "--forge-start")) start_arg = v, i++;
        else if (!strcmp(a, "--process")) process = v, i++;
        else if (!strcmp(a, "--payload")) exploit_payload = strtoull(v, NULL, 16) & REC_FLOW_ID_MASK, i++;
        else if (!strcmp(a, "--seed")) rng_state = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--ring-entries")) RING_ENTRIES = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--strings-size")) STRINGS_SIZE = strtoull(v, NULL, 10), i++;
        else if (!strcmp(a, "--max-threads")) MAX_THREADS = (uint32_t)atoi(v), i++;
        else if (!strcmp(a, "--launcher")) {
            unsigned long long s = 0;
            char tail[8] = "";
            if (sscanf(v, "%d:%llu", &launcher_pid, &s) == 2) launcher_start = s;
            else if (sscanf(v, "%d:%7s", &launcher_pid, tail) == 2 && !strcmp(tail, "auto"))
                launcher_start = proc_start_of(launcher_pid);
            else return usage();
            i++;
        } else return usage();
    }
    if (!name == !path_arg || RING_ENTRIES < 16 || (RING_ENTRIES & (RING_ENTRIES - 1)) || MAX_THREADS < 8 ||
        STRINGS_SIZE < 65536 || (STRINGS_SIZE & 4095) || STRINGS_SIZE > (UINT64_C(1) << 35) ||
        MAX_THREADS > 65536)
        return usage();
    char path[512], tmp[600];
    if (name) snprintf(path, sizeof path, "/dev/shm/" REC_SEG_PREFIX "%s", name);
    else snprintf(path, sizeof path, "%s", path_arg);
    const char *slash = strrchr(path, '/');
    snprintf(tmp, sizeof tmp, "%.*s/.craft-new.%d", (int)(slash ? slash - path : 1), slash ? path : ".",
             (int)getpid());

    int pid = forge_pid ? forge_pid : (int)getpid();
    uint64_t start = proc_start_of(pid);
    if (start_arg && strcmp(start_arg, "auto")) start = strtoull(start_arg, NULL, 10);

    struct rec_header want;
    memset(&want, 0, sizeof want);
    layout(&want);
    seg_size = want.segment_size;
    int fd = open(tmp, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
    if (fd < 0) die(tmp);
    if (ftruncate(fd, (off_t)seg_size) != 0) die("ftruncate");
    void *p = mmap(NULL, seg_size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
    if (p == MAP_FAILED) die("mmap");
    base = p;
    memcpy(base, &want, sizeof want);
    hdr = (struct rec_header *)(void *)base;
    slots = (struct rec_slot *)(void *)(base + hdr->slots_off);
    strings = base + hdr->strings_off;
    rings = (struct rec_entry *)(void *)(base + hdr->rings_off);
    struct rec_consumer *cons = (struct rec_consumer *)(void *)(base + hdr->consumer_off);
    cons->mode = REC_MODE_FLIGHT;
    for (uint32_t i = 0; i < MAX_THREADS; i++) rec_consumer_limit(cons)[i] = UINT64_MAX;

    hdr->pid = pid;
    hdr->proc_start = start;
    hdr->launcher_pid = launcher_pid;
    hdr->launcher_start = launcher_start;
    snprintf(hdr->process_name, sizeof hdr->process_name, "%s", process);
    hdr->clock_source = REC_CLOCK_MONOTONIC;
    hdr->ticks_per_sec = 1000000000u;
    hdr->mono_ns0 = mono_ns() - 5000000000u;  /* five seconds old: its heads may count that much */
    hdr->ticks0 = 0;
    hdr->real_ns0 = 1700000000000000000u;
    hdr->strings_used = 8u * REC_ID_OVERFLOW;
    add_string_raw("<strings full>", 14, 14);
    id_outer = add_string("craft_outer");
    id_inner = add_string("craft_inner");
    id_forged = add_string("forged_scope");
    id_thread = add_string("craft_thread");
    hdr->threads_attached = MAX_THREADS;

    if (!strcmp(scenario, "all")) {
        sc_types(0);
        sc_exploit(1);
        sc_instant(2);
        sc_heads(3);
        sc_dropped(4);
        sc_strings(5);
        sc_values(6);
        sc_heads_max(7);
        /* strings_used past the table, and a process name with no NUL */
        hdr->strings_used = UINT64_MAX - 3;
        memset(hdr->process_name, 'X', sizeof hdr->process_name);
        memcpy(hdr->process_name, "\x1b[2Jcraft", 9);
    } else if (!strcmp(scenario, "plain")) sc_plain(0);
    else if (!strcmp(scenario, "types")) sc_types(0), sc_plain(1);
    else if (!strcmp(scenario, "exploit")) sc_plain(0), sc_exploit(1);
    else if (!strcmp(scenario, "instant")) sc_instant(0), sc_plain(1);
    else if (!strcmp(scenario, "heads")) sc_plain(0), sc_heads(3), sc_heads_max(7);
    else if (!strcmp(scenario, "dropped")) sc_plain(0), sc_dropped(4);
    else if (!strcmp(scenario, "strings")) sc_plain(0), sc_strings(5);
    else if (!strcmp(scenario, "values")) sc_values(0), sc_slots(1);
    else if (!strcmp(scenario, "forged")) sc_forged(0);
    else if (!strcmp(scenario, "packmax")) sc_packmax(0);
    else if (!strcmp(scenario, "table")) sc_plain(0), sc_table(1);
    else return usage();
    if (do_churn && strcmp(scenario, "all")) {
        fprintf(stderr, "craft_seg: --churn needs --scenario all\n");
        return 2;
    }

    __atomic_store_n(&hdr->magic, REC_SEG_MAGIC, __ATOMIC_RELEASE);
    if (link(tmp, path) != 0) {
        int e = errno;
        unlink(tmp);
        errno = e;
        die(path);
    }
    unlink(tmp);
    struct stat mine;
    if (fstat(fd, &mine) != 0) die("fstat");
    if (!hold) return 0;

    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_term;
    sigaction(SIGTERM, &sa, NULL);
    sigaction(SIGINT, &sa, NULL);
    sa.sa_handler = on_usr1;
    sigaction(SIGUSR1, &sa, NULL);
    pthread_t th;
    int churning = do_churn && pthread_create(&th, NULL, churn, NULL) == 0;
    printf("ready %d %s\n", (int)getpid(), path);
    fflush(stdout);
    while (!got_term) {
        if (got_usr1 && truncate_to >= 0) {
            got_usr1 = 0;
            if (churning) {
                __atomic_store_n(&churn_stop, 1, __ATOMIC_RELEASE);
                pthread_join(th, NULL);
                churning = 0;
            }
            if (ftruncate(fd, (off_t)truncate_to) != 0) die("ftruncate");
            printf("truncated %lld\n", truncate_to);
            fflush(stdout);
        }
        struct timespec d = {0, 5000000};
        nanosleep(&d, NULL);
    }
    if (churning) {
        __atomic_store_n(&churn_stop, 1, __ATOMIC_RELEASE);
        pthread_join(th, NULL);
    }
    /* Remove the file only if the name is still ours. */
    struct stat now;
    if (lstat(path, &now) == 0 && now.st_ino == mine.st_ino && now.st_dev == mine.st_dev) unlink(path);
    return 0;
}
