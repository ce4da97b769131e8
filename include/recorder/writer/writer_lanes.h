/*
 * writer_lanes.h -- lanes: rings no thread owns, written with the events'
 * own timestamps (include/recorder/writer/lanes.h says who uses them and the
 * rules).  Part of the implementation of recorder.h.
 *
 * A lane is a thread slot claimed with its kind, device, context and
 * stream in the slot's metadata, and written through a struct rec__tls of
 * its own with the same reserve / put / publish steps as a thread's
 * events: readers need nothing new to read it, only to label it.
 */

int rec_lane_open(struct rec_lane *l, const struct rec_lane_desc *d) {
    struct rec__global *g = &rec__g;
    memset(l, 0, sizeof *l);
    rec__tls_detached(&l->t);
    if (!d || d->kind >= REC_LANE_KINDS || rec__ensure_init() != 0) return -1;
    uint32_t lane = (d->kind & 0xffu) | ((d->device & 0xffffffu) << 8);
    int tid = d->kind == REC_LANE_THREAD ? d->tid : 0, err = 0;
    if (d->kind == REC_LANE_THREAD && tid <= 0) return -1;
    struct rec_slot *s = rec__claim(g, tid, lane, d->context, d->stream, &err);
    if (!s) {
        rec__not_recorded(g, tid, err);
        return -1;
    }
    uint32_t i = (uint32_t)(s - g->slots);
    l->t.ring = (uint64_t *)(g->rings + (uint64_t)i * g->hdr->ring_entries * sizeof(struct rec_entry));
    l->t.mask = g->hdr->ring_entries - 1;
    l->t.limit = &rec_consumer_limit(g->cons)[i];
    l->t.slot = s;
    uint64_t now = rec_now();
    uint64_t gen = REC_SLOT_GEN(__atomic_load_n(&s->state_gen, __ATOMIC_ACQUIRE)) & 0xffffffu;
    uint32_t tid_now = (uint32_t)__atomic_load_n(&s->tid, __ATOMIC_ACQUIRE);
    /* The lane's first events: whose ring this is, and its name, at the
     * claim's time (its own events may be earlier: THREAD_START is not a
     * slice, and readers take it as the generation's start). */
    uint64_t h = 0;  /* always set when used; GCC 14 cannot tell (-Wmaybe-uninitialized) */
    uint64_t *e = rec__reserve(&l->t, 1, &h);
    if (e) {
        rec__put(e, now, ((uint64_t)REC_EV_THREAD_START << 56) | (gen << 32) | tid_now);
        rec__publish(&l->t, h + 1);
    }
    if (d->name && d->name[0]) {
        size_t len = strnlen(d->name, 63);
        uint32_t id = rec__intern(g, d->name, len, rec__hash(d->name, len));
        REC__SET(s->name_id, id);
        e = rec__reserve(&l->t, 1, &h);
        if (e) {
            rec__put(e, now, ((uint64_t)REC_EV_THREAD_NAME << 56) | id);
            rec__publish(&l->t, h + 1);
        }
    }
    return 0;
}

void rec_lane_close(struct rec_lane *l, uint64_t ticks) {
    struct rec_slot *s = l->t.slot;
    if (!s || s == &rec__dummy_slot) return;
    rec__slot_exit(s, ticks ? ticks : rec_now());
    rec__tls_detached(&l->t);
}

uint32_t rec_lane_name(const char *name, size_t len) {
    struct rec__global *g = &rec__g;
    if (!name || rec__ensure_init() != 0) return 0;
    char buf[REC_STR_MAXLEN + 1];
    if (len > REC_STR_MAXLEN) len = REC_STR_MAXLEN;
    memcpy(buf, name, len);
    buf[len] = 0;
    len = strlen(buf);
    if (rec__verdict(&g->cfg, buf) == REC__DROP) return 0;
    return rec__intern(g, buf, len, rec__hash(buf, len)) & REC__ID_MASK;
}

/* Writes one event of 1 + ncont entries at `ticks`. */
static int rec__lane_put(struct rec_lane *l, uint64_t ticks, uint64_t w1, const struct rec_entry *cont,
                         unsigned ncont) {
    if (!l->t.slot || l->t.slot == &rec__dummy_slot) return REC_LANE_CLOSED;
    if (ticks < l->last_ticks) {
        l->late++;
        return REC_LANE_LATE;
    }
    uint64_t h = 0;  /* always set when used; GCC 14 cannot tell (-Wmaybe-uninitialized) */
    uint64_t *e = rec__reserve(&l->t, 1 + ncont, &h);
    if (!e) return REC_LANE_DROPPED;
    rec__put(e, ticks, w1);
    for (unsigned j = 0; j < ncont; j++)
        rec__put(l->t.ring + (((h + 1 + j) & l->t.mask) << 1), cont[j].w0, cont[j].w1);
    rec__publish(&l->t, h + 1 + ncont);
    l->last_ticks = ticks;
    return REC_LANE_OK;
}

int rec_lane_begin(struct rec_lane *l, uint64_t ticks, uint32_t name_id) {
    return rec__lane_put(l, ticks, ((uint64_t)REC_EV_BEGIN << 56) | name_id, NULL, 0);
}

int rec_lane_end(struct rec_lane *l, uint64_t ticks, uint32_t name_id) {
    return rec__lane_put(l, ticks, ((uint64_t)REC_EV_END << 56) | name_id, NULL, 0);
}

int rec_lane_begin_wait(struct rec_lane *l, uint64_t ticks, uint32_t name_id) {
    return rec__lane_put(l, ticks, ((uint64_t)REC_EV_BEGIN << 56) | REC_EV_WAIT | name_id, NULL, 0);
}

int rec_lane_end_wait(struct rec_lane *l, uint64_t ticks, uint32_t name_id) {
    return rec__lane_put(l, ticks, ((uint64_t)REC_EV_END << 56) | REC_EV_WAIT | name_id, NULL, 0);
}

int rec_lane_instant(struct rec_lane *l, uint64_t ticks, uint32_t name_id, const char *msg) {
    size_t len = msg ? strnlen(msg, REC_MSG_MAX) : 0;
    unsigned k = (unsigned)((len + 14) / 15);
    struct rec_entry cont[(REC_MSG_MAX + 14) / 15];
    for (unsigned j = 0; j < k; j++) rec__msg_cont(msg, len, j, &cont[j].w0, &cont[j].w1);
    return rec__lane_put(l, ticks, ((uint64_t)REC_EV_INSTANT << 56) | ((uint64_t)len << 32) | name_id, cont, k);
}

int rec_lane_counter(struct rec_lane *l, uint64_t ticks, uint32_t name_id, double value) {
    struct rec_entry c;
    memcpy(&c.w0, &value, 8);
    c.w1 = (uint64_t)REC_EV_CONT << 56;
    return rec__lane_put(l, ticks, ((uint64_t)REC_EV_COUNTER << 56) | name_id, &c, 1);
}

int rec_lane_flow(struct rec_lane *l, uint64_t ticks, unsigned type, uint64_t flow_id) {
    if (type != REC_EV_FLOW_BEGIN && type != REC_EV_FLOW_STEP && type != REC_EV_FLOW_END) return REC_LANE_CLOSED;
    return rec__lane_put(l, ticks, ((uint64_t)type << 56) | (flow_id & REC_FLOW_ID_MASK), NULL, 0);
}

void rec_lane_delivered(struct rec_lane *l, uint64_t ticks) {
    struct rec_slot *s = l->t.slot;
    if (!s || s == &rec__dummy_slot) return;
    if (ticks > __atomic_load_n(&s->delivered_ticks, __ATOMIC_RELAXED))
        __atomic_store_n(&s->delivered_ticks, ticks, __ATOMIC_RELEASE);
}

void rec_lane_lost(struct rec_lane *l, uint64_t n) {
    struct rec_slot *s = l->t.slot;
    if (!s || s == &rec__dummy_slot || n == 0) return;
    uint64_t d = __atomic_load_n(&s->dropped, __ATOMIC_RELAXED);
    __atomic_store_n(&s->dropped, d + n < d ? UINT64_MAX : d + n, __ATOMIC_RELEASE);
}

uint64_t rec_ticks_of_mono_ns(uint64_t mono_ns) {
    struct rec__global *g = &rec__g;
    if (rec__ensure_init() != 0) return 0;
    const struct rec_header *h = g->hdr;
    double d = ((double)(int64_t)(mono_ns - h->mono_ns0)) * ((double)h->ticks_per_sec / 1e9);
    if (d < -(double)h->ticks0) return 0;
    return h->ticks0 + (uint64_t)(int64_t)d;
}

void rec_gpu_state_set(unsigned state) {
    struct rec__global *g = &rec__g;
    if (rec__ensure_init() != 0) return;
    __atomic_store_n(&g->hdr->gpu_state, (uint64_t)(state & 0xffu), __ATOMIC_RELEASE);
}

int rec_gpu_state_set_if(unsigned expect, unsigned state) {
    struct rec__global *g = &rec__g;
    if (rec__ensure_init() != 0) return 0;
    uint64_t e = expect & 0xffu;
    return __atomic_compare_exchange_n(&g->hdr->gpu_state, &e, (uint64_t)(state & 0xffu), 0, __ATOMIC_ACQ_REL,
                                       __ATOMIC_ACQUIRE);
}
