/*
 * spill.c -- the thread that drains the rings while the reader is busy
 * (see spill.h).
 *
 * Its buffer holds SPILL_ENTRIES ring entries (32 MiB of address space,
 * touched only as it fills) and SPILL_READS reads (2 MiB): about a
 * second of a writer at a million events a second, twice the longest
 * publication measured and its catching up (reader_pub.c, busy_end).
 * Each read asks for at most SPILL_READ entries, as the reader's own
 * reads do.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sys/mman.h>
#include <stdlib.h>
#include <time.h>

#include "spill.h"

#define SPILL_ENTRIES (2u << 20)
#define SPILL_READS 32768u
#define SPILL_READ 65536u
#define SPILL_MIN_READ 1024u   /* less room than this: the buffer is full */
/* One mapping: the entries, then the reads. */
#define ENTS_BYTES ((size_t)SPILL_ENTRIES * sizeof(struct rec_entry))
#define MAP_BYTES (ENTS_BYTES + (size_t)SPILL_READS * sizeof(struct spill_read))

enum { IDLE, RUN, QUIT };

/* Under sp->mu. */
static void set_state(struct spill *sp, int st) {
    sp->state = st;
    pthread_cond_broadcast(&sp->cv);
}

/* One read of a slot into the buffer; returns 1 if the ring may hold more,
 * -1 once the buffer is full. */
static int read_one(struct spill *sp, uint32_t slot) {
    size_t room = SPILL_ENTRIES - sp->used;
    if (room < SPILL_MIN_READ || sp->n_reads == SPILL_READS) return -1;
    size_t cap = room < SPILL_READ ? room : SPILL_READ;
    const struct wsrc *src = sp->src;
    uint32_t k = wsrc_which(src, slot);
    struct spill_read *rd = &sp->reads[sp->n_reads];
    rd->loss = (struct rec_loss){0};
    size_t got = rec_seg_read(src->segs[k], slot - src->base[k], sp->ents + sp->used, cap, &rd->first, &rd->loss);
    const struct rec_loss *l = &rd->loss;
    if (ring_read_empty(got, l)) return 0;
    rd->slot = slot;
    rd->n = (uint32_t)got;
    rd->off = sp->used;
    sp->used += got;
    /* The reader may take it from now on (spill_avail). */
    __atomic_store_n(&sp->n_reads, sp->n_reads + 1, __ATOMIC_RELEASE);
    return ring_read_more(got, cap, l);
}

/* Every slot once, each until it has nothing more or has had its turn
 * (spill.h), as reader.c's read_slot.  Returns -1 if the buffer filled
 * up. */
static int pass(struct spill *sp) {
    for (uint32_t i = 0; i < sp->n_slots; i++) {
        for (int round = 0; round < RING_READS_PER_TURN; round++) {
            int more = read_one(sp, sp->slots[i]);
            if (more < 0) return -1;
            if (!more) break;
        }
    }
    return 0;
}

/* Under sp->mu: until rest_ms from now, or spill_end. */
static void rest(struct spill *sp) {
    struct timespec until;
    clock_gettime(CLOCK_MONOTONIC, &until);
    long ns = (long)(sp->rest_ms * 1e6);
    until.tv_sec += ns / 1000000000L;
    until.tv_nsec += ns % 1000000000L;
    if (until.tv_nsec >= 1000000000L) {
        until.tv_sec++;
        until.tv_nsec -= 1000000000L;
    }
    while (!sp->stop && pthread_cond_timedwait(&sp->cv, &sp->mu, &until) != ETIMEDOUT) {}
}

/* While the rings are ours (RUN): a pass, then a rest, until spill_end
 * asks for them back; always one pass at least, and one after the ask,
 * so that the reader gets back rings read to the moment it asked. */
static void *spill_main(void *arg) {
    struct spill *sp = arg;
    pthread_mutex_lock(&sp->mu);
    for (;;) {
        if (sp->state == QUIT) break;
        if (sp->state != RUN) {
            pthread_cond_wait(&sp->cv, &sp->mu);
            continue;
        }
        /* Read with the lock released: spill_end can ask meanwhile, and
         * the rings are ours alone until we say IDLE. */
        int stop = sp->stop;
        pthread_mutex_unlock(&sp->mu);
        int full = pass(sp) < 0;
        pthread_mutex_lock(&sp->mu);
        if (stop) {
            set_state(sp, IDLE);
        } else if (full) {
            /* Nothing more fits: what the rings hold stays there. */
            sp->full++;
            while (!sp->stop) pthread_cond_wait(&sp->cv, &sp->mu);
            set_state(sp, IDLE);
        } else {
            rest(sp);
        }
    }
    pthread_mutex_unlock(&sp->mu);
    return NULL;
}

int spill_init(struct spill *sp, const struct wsrc *src, uint32_t max_slots) {
    *sp = (struct spill){.src = src, .max_slots = max_slots, .state = IDLE};
    sp->slots = calloc(max_slots ? max_slots : 1, sizeof *sp->slots);
    if (!sp->slots) return -1;
    pthread_condattr_t ca;
    pthread_condattr_init(&ca);
    pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
    int bad = pthread_mutex_init(&sp->mu, NULL) != 0;
    if (!bad && pthread_cond_init(&sp->cv, &ca) != 0) {
        pthread_mutex_destroy(&sp->mu);
        bad = 1;
    }
    pthread_condattr_destroy(&ca);
    if (bad) {
        free(sp->slots);
        sp->slots = NULL;
        return -1;
    }
    return 0;
}

int spill_begin(struct spill *sp, const struct rec_thread_info *threads, uint32_t n, double rest_ms) {
    if (!sp->slots || n > sp->max_slots) return -1;
    if (!sp->ents) {
        /* Mapped, not malloc'd: pages that are only reserved until a read
         * fills them.  glibc's malloc served this size, on a loaded
         * machine, from memory already resident (64 MiB more RSS for a
         * spill of a few hundred entries). */
        void *e = mmap(NULL, MAP_BYTES, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
        if (e == MAP_FAILED) return -1;
        sp->ents = e;
        sp->reads = (struct spill_read *)((char *)e + ENTS_BYTES);
    }
    if (!sp->started) {
        if (pthread_create(&sp->thread, NULL, spill_main, sp) != 0) return -1;
        sp->started = 1;
    }
    pthread_mutex_lock(&sp->mu);
    for (uint32_t i = 0; i < n; i++) sp->slots[i] = threads[i].slot;
    sp->n_slots = n;
    sp->rest_ms = rest_ms;
    sp->used = 0;
    __atomic_store_n(&sp->n_reads, 0, __ATOMIC_RELAXED);
    sp->spills++;
    sp->stop = 0;
    set_state(sp, RUN);
    pthread_mutex_unlock(&sp->mu);
    return 0;
}

size_t spill_avail(struct spill *sp) { return __atomic_load_n(&sp->n_reads, __ATOMIC_ACQUIRE); }

void spill_end(struct spill *sp) {
    pthread_mutex_lock(&sp->mu);
    sp->stop = 1;
    pthread_cond_broadcast(&sp->cv);
    while (sp->state != IDLE) pthread_cond_wait(&sp->cv, &sp->mu);
    pthread_mutex_unlock(&sp->mu);
}

void spill_destroy(struct spill *sp) {
    if (!sp->slots) return;
    if (sp->started) {
        pthread_mutex_lock(&sp->mu);
        set_state(sp, QUIT);
        pthread_mutex_unlock(&sp->mu);
        pthread_join(sp->thread, NULL);
    }
    pthread_cond_destroy(&sp->cv);
    pthread_mutex_destroy(&sp->mu);
    free(sp->slots);
    if (sp->ents) munmap(sp->ents, MAP_BYTES);
    sp->slots = NULL;
}
