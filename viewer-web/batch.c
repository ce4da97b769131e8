/*
 * batch.c -- encoding events into EVENTS chunks (see batch.h).
 */
#include <string.h>

#include "batch.h"
#include "clamp.h"

/* How many events ahead the name table's slot is loaded (strtab_prefetch):
 * far enough that it arrives before the event is handled (an event takes
 * some tens of ns here, a miss about a hundred), near enough that it is
 * still cached then. */
#define NAME_AHEAD 16

int batch_init(struct batch *b) {
    memset(b, 0, sizeof *b);
    wb_init(&b->body, 1 << 16);
    wb_init(&b->chunk, 1 << 16);
    return b->body.oom || b->chunk.oom ? -1 : 0;
}

void batch_destroy(struct batch *b) {
    wb_free(&b->body);
    wb_free(&b->chunk);
}

static void close_chunk(struct batch *b) {
    if (!b->lane) return;
    wb_varint(&b->body, b->chunk_events);
    wb_bytes(&b->body, wb_data(&b->chunk), b->chunk.len);
    wb_reset(&b->chunk);
    b->n_chunks++;
    b->lane = 0;
}

/* A chunk starts with its lane's stack as it stands, and, after a loss,
 * with what was lost and over which stretch: from the lane's last event
 * before the loss (to its first event after it, when it had none) to the
 * chunk's first event, at ts.  lane is a handle; the page knows the lane
 * by its id. */
static void open_chunk(struct batch *b, struct lanes *l, uint32_t lane, int64_t ts) {
    close_chunk(b);
    struct lane *ln = &l->v[lane];
    wb_varint(&b->body, ln->id);
    int loss = ln->lost_over || ln->lost_drop;
    wb_u8(&b->body, loss ? CHUNK_LOSS : 0);
    if (loss) {
        /* A thread's time never goes back; a hostile one's may. */
        int64_t from = ln->seen && ln->last_ts < ts ? ln->last_ts : ts;
        wb_varint(&b->body, ln->lost_over);
        wb_varint(&b->body, ln->lost_drop);
        wb_svarint(&b->body, from - b->base);
        wb_svarint(&b->body, ts - b->base);
        ln->lost_over = ln->lost_drop = 0;
        if (b->lod) lod_lost(b->lod, lane, ln->id, from, ts);
        if (b->lod && b->lat) latlod_lost(b->lat, b->lod, from, ts);
    }
    int known = ln->depth < LANE_STACK ? ln->depth : LANE_STACK;
    wb_varint(&b->body, (uint64_t)known);
    for (int i = 0; i < known; i++) {
        wb_varint(&b->body, ln->stk_name[i]);
        wb_svarint(&b->body, ln->stk_ts[i] - b->base);
    }
    b->lane = lane;
    b->chunk_events = 0;
    b->prev = b->base;
}

/* ts and prev are web_ns values: the delta cannot overflow (clamp.h). */
static void put_time(struct batch *b, int64_t ts) {
    wb_svarint(&b->chunk, ts - b->prev);
    b->prev = ts;
}

/* The call an END closes, as lane_end pairs it (docs/web.md, "Pairing"),
 * into the latency summary; not when its BEGIN is unknown (past
 * LANE_STACK, or nameless). */
static void call_end(struct batch *b, const struct lane *ln, uint32_t id, int64_t ts) {
    if (!id || ln->depth <= 0 || ln->depth > LANE_STACK) return;
    for (int k = ln->depth; k-- > 0;)
        if (ln->stk_name[k] == id) {
            latlod_call(b->lat, b->lod, id, ln->stk_ts[k], ts);
            return;
        }
}

void batch_add(struct batch *b, struct lanes *l, struct strtab *names, const struct wsrc *src, uint32_t slot,
               const struct rec_event *ev, size_t n, const struct rec_loss *loss) {
    if (slot >= l->max_slots) {
        b->nolane += n;
        return;
    }
    uint32_t lane = l->cur[slot];
    if (n && !b->started) {
        b->base = web_ns(wsrc_ns(src, ev[0].ticks));
        b->started = 1;
    }
    /* Where the read's loss goes (as in the model, docs/analysis.md):
     * overwritten entries are older than its events, so they go before
     * the first one, on the lane it belongs to; dropped ones are newer (a
     * stream-mode writer drops with its ring full), so they go after the
     * last.  History (not kept) is no gap: nothing was seen before it. */
    uint64_t over = loss ? loss->overwritten : 0, drop = loss ? loss->dropped : 0;
    if (over && !n && lane) lane_lost(&l->v[lane], over, 0);
    /* Once a THREAD_START or the slot table said which lane these events
     * belong to (maybe none), the table is not asked again. */
    int known = lane != 0;
    struct lod_run run = {0};    /* events counted into the summary a run at a time (lod.h) */
    for (size_t i = 0; i < n; i++) {
        const struct rec_event *e = &ev[i];
        if (i + NAME_AHEAD < n) strtab_prefetch(names, ev[i + NAME_AHEAD].name_id);
        if (e->type == REC_EV_THREAD_START) {
            /* Events before it in this read belong to the generation
             * before; the new generation's lane starts here. */
            lane = b->replay ? lanes_find(l, slot, e->gen) : lanes_get(l, slot, e->gen);
            if (lane && b->replay) l->cur[slot] = lane;
            else if (lane) lanes_set_tid(l, lane, e->tid);
            known = 1;
            if (over && lane) lane_lost(&l->v[lane], over, 0);
            over = 0;
            continue;
        }
        if (!lane && !known) {
            struct rec_thread_info t;
            if (wsrc_thread(src, slot, &t) == 0 && b->replay) {
                lane = lanes_find(l, slot, t.gen);
            } else if (wsrc_thread(src, slot, &t) == 0) {
                lanes_update(l, &t);
                lane = l->cur[slot];
            }
            known = 1;
        }
        if (!lane) {
            /* Retired, folded, or a slot the table cannot say: not shown,
             * and counted (docs/web.md, "Bounds"). */
            if (e->type != REC_EV_THREAD_NAME) b->nolane++;
            over = 0;
            continue;
        }
        struct lane *ln = &l->v[lane];
        if (over) lane_lost(ln, over, 0);
        over = 0;
        if (e->type == REC_EV_THREAD_NAME) {
            if (!b->replay) lanes_set_name(l, lane, wsrc_string(src, e->name_id));
            continue;
        }
        int64_t ts = web_ns(wsrc_ns(src, e->ticks));
        if (b->replay && ts < b->from) {
            /* Before the window asked: only the stack its chunks start with. */
            if (e->type == REC_EV_BEGIN) lane_begin(ln, strtab_id(names, src, e->name_id), ts);
            else if (e->type == REC_EV_END) lane_end(ln, strtab_id(names, src, e->name_id));
            ln->last_ts = ts;
            ln->seen = 1;
            continue;
        }
        if (b->lane != lane || ln->lost_over || ln->lost_drop) open_chunk(b, l, lane, ts);
        switch (e->type) {
        case REC_EV_BEGIN: {
            uint32_t id = strtab_id(names, src, e->name_id);
            wb_u8(&b->chunk, KIND_BEGIN);
            put_time(b, ts);
            wb_varint(&b->chunk, id);
            lane_begin(ln, id, ts);
            break;
        }
        case REC_EV_END: {
            uint32_t id = strtab_id(names, src, e->name_id);
            wb_u8(&b->chunk, KIND_END);
            put_time(b, ts);
            wb_varint(&b->chunk, id);
            /* A top-level scope that closes goes into the summary. */
            int was = ln->depth;
            int64_t s0 = ln->stk_ts[0];
            uint32_t n0 = ln->stk_name[0];
            if (b->lod && b->lat) call_end(b, ln, id, ts);
            lane_end(ln, id);
            if (b->lod && was > 0 && ln->depth == 0) lod_slice(b->lod, lane, ln->id, s0, ts, n0);
            break;
        }
        case REC_EV_INSTANT:
            wb_u8(&b->chunk, KIND_INSTANT);
            put_time(b, ts);
            wb_varint(&b->chunk, strtab_id(names, src, e->name_id));
            wb_varint(&b->chunk, e->msg_len);
            wb_bytes(&b->chunk, e->msg, e->msg_len);
            break;
        case REC_EV_COUNTER: {
            uint32_t id = strtab_id(names, src, e->name_id);
            wb_u8(&b->chunk, KIND_COUNTER);
            put_time(b, ts);
            wb_varint(&b->chunk, id);
            wb_f64(&b->chunk, e->value);
            if (b->lod) lod_counter(b->lod, id, ts, e->value);
            break;
        }
        case REC_EV_FLOW_BEGIN:
        case REC_EV_FLOW_STEP:
        case REC_EV_FLOW_END:
            wb_u8(&b->chunk, KIND_FLOW_BEGIN + (e->type - REC_EV_FLOW_BEGIN));
            put_time(b, ts);
            wb_varint(&b->chunk, (uint32_t)e->flow_id);
            wb_varint(&b->chunk, e->flow_id >> 32);
            break;
        default: continue;
        }
        ln->last_ts = ts;
        ln->seen = 1;
        if (b->lod) lod_run_add(b->lod, &run, lane, ln->id, ts);
        b->chunk_events++;
        b->events++;
    }
    if (b->lod) lod_run_end(b->lod, &run);
    close_chunk(b);
    if (drop && lane) lane_lost(&l->v[lane], 0, drop);
}

void batch_stacks(struct batch *b, struct lanes *l) {
    for (uint32_t i = 0; i < l->n; i++) {
        uint32_t h = l->order[i];
        struct lane *ln = &l->v[h];
        if (ln->depth <= 0) continue;
        if (!b->started) {
            b->base = ln->stk_ts[0];
            b->started = 1;
        }
        open_chunk(b, l, h, ln->seen ? ln->last_ts : b->base);
        close_chunk(b);
    }
}

struct frame *batch_flush(struct batch *b, uint64_t seq, double now_ns) {
    close_chunk(b);
    if (b->n_chunks == 0) return NULL;
    struct wbuf m;
    wb_init(&m, 32 + b->body.len);
    wb_u8(&m, MSG_EVENTS);
    wb_varint(&m, seq);
    wb_f64(&m, (double)b->base);
    wb_f64(&m, now_ns);
    wb_varint(&m, b->n_chunks);
    wb_bytes(&m, wb_data(&b->body), b->body.len);
    struct frame *f = frame_from(&m);
    wb_free(&m);
    if (f) {
        f->seq = seq;
        f->events = b->events;
    }
    wb_reset(&b->body);
    b->n_chunks = 0;
    b->events = 0;
    b->started = 0;
    return f;
}
