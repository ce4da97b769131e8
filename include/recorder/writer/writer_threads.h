/*
 * writer_threads.h -- thread slots, the writer's slow paths, and the
 * process lifecycle (init, fork, exit).  Part of the implementation of
 * recorder.h.
 *
 * A thread claims a slot with one CAS on its first event.  At thread exit
 * the slot is marked exited and its ring stays readable; when no slot is
 * free, the exited slot that ended longest ago is reused with its
 * generation bumped.  The ring's head keeps counting across generations,
 * and each generation starts with a THREAD_START entry, so a reader can
 * tell whose events it holds.
 */

__thread struct rec__tls rec__t __attribute__((tls_model("initial-exec")));

static void rec__tls_detached(struct rec__tls *t) {
    t->ring = NULL;
    t->mask = 0;
    t->slot = &rec__dummy_slot;
    t->limit = &rec__zero_limit;
}

static void rec__close_segment(void) {
    struct rec__global *g = &rec__g;
    if (__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) != REC__READY) return;
    __atomic_fetch_or(&g->hdr->flags, REC_FLAG_CLOSED, __ATOMIC_RELEASE);
    if (g->created && !rec__keeps(&g->cfg, g->fd)) shm_unlink(g->shm_name);
}

static void rec__thread_exit(void *arg);

/* exit() runs no thread-exit destructor for the thread calling it (usually
 * main): end its slot here, so a kept segment shows it exited, not live. */
static void rec__atexit(void) {
    rec__close_segment();
    struct rec_slot *s = rec__t.slot;
    if (s && s != &rec__dummy_slot) rec__thread_exit(s);
}

/* Runs in the child, in the thread that called fork(): the only one there.
 * The child must never write into the parent's rings: forget the segment
 * (keeping the mapping until the child's own segment has copied the string
 * table) and this thread's slot. */
static void rec__atfork_child(void) {
    struct rec__global *g = &rec__g;
    if (__atomic_load_n(&g->state, __ATOMIC_ACQUIRE) == REC__READY) {
        if (g->parent_base) munmap(g->parent_base, g->parent_size);
        g->parent_base = g->base;
        g->parent_size = g->size;
        if (g->fd >= 0) close(g->fd);
        g->fd = -1;
        g->created = 0;
        g->base = NULL;
        rec__config_free(&g->cfg);
        __atomic_store_n(&g->state, REC__UNINIT, __ATOMIC_RELEASE);
    }
    struct rec__dyn_cache *keep = rec__t.dyn;  /* its ids stay valid */
    memset(&rec__t, 0, sizeof rec__t);
    rec__t.dyn = keep;
    /* The thread-exit destructor would release the parent's slot (still
     * mapped, shared) if this thread ended before recording again. */
    if (g->key_ok) pthread_setspecific(g->key, keep ? (void *)&rec__dummy_slot : NULL);
}

static void rec__thread_exit(void *arg);

static void rec__do_init(struct rec__global *g) {
    rec__config_read(&g->cfg);
    if (!g->cfg.enabled || rec__segment_open(g) != 0) {
        __atomic_store_n(&g->state, REC__OFF, __ATOMIC_RELEASE);
        return;
    }
    if (g->parent_base) {
        munmap(g->parent_base, g->parent_size);
        g->parent_base = NULL;
    }
    if (!g->key_ok) g->key_ok = pthread_key_create(&g->key, rec__thread_exit) == 0;
    if (!g->hooks_done) {
        g->hooks_done = 1;
        atexit(rec__atexit);
        pthread_atfork(NULL, NULL, rec__atfork_child);
    }
    __atomic_store_n(&g->state, REC__READY, __ATOMIC_RELEASE);
}

/* 0 when recording, -1 when off.  Initialization runs once; a thread that
 * arrives meanwhile waits for it (it is bounded, and off the hot path). */
static int rec__ensure_init(void) {
    struct rec__global *g = &rec__g;
    for (;;) {
        int s = __atomic_load_n(&g->state, __ATOMIC_ACQUIRE);
        if (s == REC__READY) return 0;
        if (s == REC__OFF) return -1;
        int expect = REC__UNINIT;
        if (s == REC__UNINIT &&
            __atomic_compare_exchange_n(&g->state, &expect, REC__BUSY, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
            rec__do_init(g);
        else if (s == REC__BUSY)
            sched_yield();
    }
}

static void rec__thread_name_id(struct rec__tls *t, uint32_t id);

/* Release stores: a reader that sees a field also sees the claim before it. */
#define REC__SET(field, v) __atomic_store_n(&(field), (v), __ATOMIC_RELEASE)

/* NULL when the thread gets no ring: *err is then 0 (every slot live) or
 * the errno of committing the ring's memory (a full /dev/shm). */
/* A thread passes lane 0; a lane (lanes.h) passes its kind and device,
 * context and stream, and never joins another's slot.  A lane that is not
 * a thread gets tid -(slot + 2): unique, never a thread's, and never -1
 * (which tools take for "all threads"). */
static struct rec_slot *rec__claim(struct rec__global *g, int tid, uint32_t lane, uint64_t ctx, uint64_t stream,
                                   int *err) {
    uint32_t n = g->hdr->max_threads;
    /* Another copy of the implementation may have attached this thread. */
    for (uint32_t i = 0; i < n && lane == 0; i++) {
        struct rec_slot *s = &g->slots[i];
        uint64_t sg = __atomic_load_n(&s->state_gen, __ATOMIC_ACQUIRE);
        if (REC_SLOT_STATE(sg) == REC_SLOT_LIVE && __atomic_load_n(&s->tid, __ATOMIC_ACQUIRE) == tid) {
            __atomic_fetch_add(&s->attach_count, 1, __ATOMIC_ACQ_REL);
            return s;
        }
    }
    /* A lost CAS means another thread claimed a slot (progress), so retry
     * while any slot is free or exited; giving up after a few lost races
     * would leave a thread unrecorded with slots to spare. */
    for (;;) {
        struct rec_slot *best = NULL;
        uint64_t best_sg = 0, best_exit = UINT64_MAX;
        for (uint32_t i = 0; i < n; i++) {
            struct rec_slot *s = &g->slots[i];
            uint64_t sg = __atomic_load_n(&s->state_gen, __ATOMIC_ACQUIRE);
            if (REC_SLOT_STATE(sg) == REC_SLOT_FREE) {
                best = s;
                best_sg = sg;
                break;
            }
            uint64_t ex = __atomic_load_n(&s->exit_ticks, __ATOMIC_ACQUIRE);
            if (REC_SLOT_STATE(sg) == REC_SLOT_EXITED && ex < best_exit) {
                best = s;
                best_sg = sg;
                best_exit = ex;
            }
        }
        if (!best) return NULL;
        uint64_t claiming = ((uint64_t)(REC_SLOT_GEN(best_sg) + 1) << 8) | REC_SLOT_CLAIMING;
        if (!__atomic_compare_exchange_n(&best->state_gen, &best_sg, claiming, 0, __ATOMIC_ACQ_REL,
                                         __ATOMIC_ACQUIRE))
            continue;
        /* Commit the ring's memory now so a full /dev/shm fails here. */
        uint64_t ring_bytes = g->hdr->ring_entries * sizeof(struct rec_entry);
        off_t off = (off_t)(g->hdr->rings_off + (uint64_t)(best - g->slots) * ring_bytes);
        int e = g->fd >= 0 ? posix_fallocate(g->fd, off, (off_t)ring_bytes) : 0;
        if (e && e != EOPNOTSUPP && e != EINVAL) {
            __atomic_store_n(&best->state_gen, best_sg, __ATOMIC_RELEASE);
            *err = e;
            return NULL;
        }
        if (REC_LANE_KIND(lane) != REC_LANE_THREAD) tid = -(int)(best - g->slots) - 2;
        REC__SET(best->tid, tid);
        REC__SET(best->name_id, 0u);
        REC__SET(best->start_head, __atomic_load_n(&best->head, __ATOMIC_RELAXED));
        REC__SET(best->start_ticks, rec_now());
        REC__SET(best->exit_ticks, (uint64_t)0);
        REC__SET(best->attach_count, 1u);
        /* A slot a lane used may come back to a thread, and the reverse. */
        REC__SET(best->lane, lane);
        REC__SET(best->lane_context, ctx);
        REC__SET(best->lane_stream, stream);
        __atomic_store_n(&best->delivered_ticks, (uint64_t)0, __ATOMIC_RELEASE);
        __atomic_store_n(&best->state_gen, (claiming & ~(uint64_t)0xff) | REC_SLOT_LIVE, __ATOMIC_RELEASE);
        __atomic_fetch_add(&g->hdr->threads_attached, 1, __ATOMIC_RELAXED);
        return best;
    }
    return NULL;
}

/* A thread that gets no ring records nothing: it is counted in the
 * segment (readers show "N threads not recorded"), and the first one of
 * the process says so on stderr -- once per segment, whichever copy of
 * the implementation it runs in, since the count itself decides. */
static void rec__not_recorded(struct rec__global *g, int tid, int err) {
    if (__atomic_fetch_add(&g->hdr->threads_no_slot, 1, __ATOMIC_RELAXED) != 0) return;
    char why[160];
    if (err) snprintf(why, sizeof why, "its ring's memory cannot be had in /dev/shm (%s)", strerror(err));
    else snprintf(why, sizeof why, "all %u thread slots are in use (RECORDER_MAX_THREADS)", g->hdr->max_threads);
    fprintf(stderr,
            "recorder: thread %d is not recorded: %s; it and any other such thread record nothing "
            "(counted: recorder ls shows \"threads not recorded\")\n",
            tid, why);
}

void rec__attach(struct rec__tls *t) {
    struct rec__global *g = &rec__g;
    rec__tls_detached(t);
    if (rec__ensure_init() != 0) return;
    int tid = rec__tid(), err = 0;
    struct rec_slot *s = rec__claim(g, tid, 0, 0, 0, &err);
    if (!s) {
        rec__not_recorded(g, tid, err);
        return;
    }
    uint32_t i = (uint32_t)(s - g->slots);
    t->ring = (uint64_t *)(g->rings + (uint64_t)i * g->hdr->ring_entries * sizeof(struct rec_entry));
    t->mask = g->hdr->ring_entries - 1;
    t->limit = &rec_consumer_limit(g->cons)[i];
    t->slot = s;
    if (g->key_ok) pthread_setspecific(g->key, s);
    if (__atomic_load_n(&s->attach_count, __ATOMIC_ACQUIRE) == 1) {
        uint64_t gen = REC_SLOT_GEN(__atomic_load_n(&s->state_gen, __ATOMIC_ACQUIRE)) & 0xffffffu;
        rec__emit1(((uint64_t)REC_EV_THREAD_START << 56) | (gen << 32) | (uint32_t)tid);
        char name[17] = {0};
        if (prctl(PR_GET_NAME, name, 0, 0, 0) == 0 && name[0]) {
            size_t len = strnlen(name, 16);
            rec__thread_name_id(t, rec__intern(g, name, len, rec__hash(name, len)));
        }
    }
}

/* The slot's generation is over at `ticks`: readers see it exited, and
 * it may be claimed again (a thread's exit, a lane's close). */
static void rec__slot_exit(struct rec_slot *s, uint64_t ticks) {
    REC__SET(s->exit_ticks, ticks);
    uint64_t sg = __atomic_load_n(&s->state_gen, __ATOMIC_ACQUIRE);
    if (REC_SLOT_STATE(sg) == REC_SLOT_LIVE)
        __atomic_compare_exchange_n(&s->state_gen, &sg, (sg & ~(uint64_t)0xff) | REC_SLOT_EXITED, 0,
                                    __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
}

static void rec__thread_exit(void *arg) {
    struct rec_slot *s = (struct rec_slot *)arg;
    struct rec__tls *t = &rec__t;
    if (s && s != &rec__dummy_slot && __atomic_sub_fetch(&s->attach_count, 1, __ATOMIC_ACQ_REL) == 0)
        rec__slot_exit(s, rec_now());
    free(t->dyn);
    t->dyn = NULL;
    /* Events from later destructors go nowhere: the slot may be reused. */
    rec__tls_detached(t);
}

/* The ring is full in stream mode (or this thread records nothing). */
void rec__full(struct rec__tls *t, unsigned n) {
    struct rec_slot *s = t->slot;
    if (s == &rec__dummy_slot) return;
    uint64_t d = __atomic_load_n(&s->dropped, __ATOMIC_RELAXED) + n;
    __atomic_store_n(&s->dropped, d, __ATOMIC_RELAXED);
    /* Now and then, check that the capture consumer is still there; a
     * silent one is dropped and the rings go back to flight mode. */
    if ((d & 1023) < n) {
        struct rec__global *g = &rec__g;
        struct rec_consumer *c = g->cons;
        uint64_t hb = __atomic_load_n(&c->heartbeat_ticks, __ATOMIC_ACQUIRE);
        int64_t stale = (int64_t)REC_STREAM_STALE_SEC * (int64_t)g->hdr->ticks_per_sec;
        /* Signed: the counter read may run ahead of the load (rdtsc does
         * not wait for it), so a heartbeat can look a little in the future. */
        int64_t age = (int64_t)(rec_now() - hb);
        if (__atomic_load_n(&c->pid, __ATOMIC_ACQUIRE) != 0 && age > stale) {
            for (uint32_t i = 0; i < g->hdr->max_threads; i++)
                __atomic_store_n(&rec_consumer_limit(c)[i], UINT64_MAX, __ATOMIC_RELEASE);
            __atomic_store_n(&c->mode, REC_MODE_FLIGHT, __ATOMIC_RELEASE);
            __atomic_store_n(&c->pid, 0, __ATOMIC_RELEASE);
        }
    }
}

/* Continuation entry j of an instant's message of len bytes: 15 of its
 * bytes in w0 and w1's low 7 bytes, the type CONT in w1's top byte. */
static void rec__msg_cont(const char *msg, size_t len, unsigned j, uint64_t *w0, uint64_t *w1) {
    unsigned char chunk[16] = {0};
    size_t take = len - j * 15 < 15 ? len - j * 15 : 15;
    memcpy(chunk, msg + j * 15, take);
    memcpy(w0, chunk, 8);
    memcpy(w1, chunk + 8, 8);
    *w1 = (*w1 & ~(UINT64_C(0xff) << 56)) | ((uint64_t)REC_EV_CONT << 56);
}

/* An event of one entry and len bytes of text in CONT entries: an
 * instant's message, an argument's value. */
static void rec__text_event(unsigned type, uint32_t id, const char *msg, size_t len) {
    struct rec__tls *t = &rec__t;
    unsigned k = (unsigned)((len + 14) / 15);
    uint64_t h = 0;  /* always set when used; GCC 14 cannot tell (-Wmaybe-uninitialized) */
    uint64_t *e = rec__reserve(t, 1 + k, &h);
    if (!e) return;
    rec__put(e, rec_now(), ((uint64_t)type << 56) | ((uint64_t)len << 32) | id);
    for (unsigned j = 0; j < k; j++) {
        uint64_t w0, w1;
        rec__msg_cont(msg, len, j, &w0, &w1);
        rec__put(t->ring + (((h + 1 + j) & t->mask) << 1), w0, w1);
    }
    rec__publish(t, h + 1 + k);
}

/* noinline: out of line by design, and GCC inlining it into a caller
 * with a small buffer would warn of strnlen's bound (stringop-overread). */
__attribute__((noinline)) void rec__instant_msg(uint32_t id, const char *msg) {
    rec__text_event(REC_EV_INSTANT, id, msg, strnlen(msg, REC_MSG_MAX));
}

/* A value past REC_MSG_MAX bytes is cut and says so: its last 3 bytes
 * become "...". */
__attribute__((noinline)) void rec__arg(uint32_t id, const char *value) {
    if (!value) value = "";
    size_t len = strnlen(value, REC_MSG_MAX + 1);
    if (len <= REC_MSG_MAX) {
        rec__text_event(REC_EV_ARG, id, value, len);
        return;
    }
    char cut[REC_MSG_MAX];
    memcpy(cut, value, REC_MSG_MAX - 3);
    memcpy(cut + REC_MSG_MAX - 3, "...", 3);
    rec__text_event(REC_EV_ARG, id, cut, REC_MSG_MAX);
}

static void rec__thread_name_id(struct rec__tls *t, uint32_t id) {
    if (t->slot == &rec__dummy_slot || !t->slot) return;
    REC__SET(t->slot->name_id, id);
    rec__emit1(((uint64_t)REC_EV_THREAD_NAME << 56) | id);
}

void rec__thread_name(const char *name) {
    struct rec__tls *t = &rec__t;
    if (!name) return;
    if (!t->slot) rec__attach(t);
    if (t->slot == &rec__dummy_slot) return;
    size_t len = strnlen(name, 63);
    rec__thread_name_id(t, rec__intern(&rec__g, name, len, rec__hash(name, len)));
}

int rec_init(void) {
    if (rec__ensure_init() != 0) return -1;
    return 0;
}

void rec_shutdown(void) {
    rec__close_segment();
}

const char *rec_segment_path(void) {
    if (__atomic_load_n(&rec__g.state, __ATOMIC_ACQUIRE) != REC__READY) return NULL;
    return rec__g.path;
}
