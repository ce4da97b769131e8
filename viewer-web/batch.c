/*
 * batch.c -- encoding events into EVENTS chunks (see batch.h).
 */
#include <string.h>

#include "batch.h"
#include "clamp.h"

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

/* A chunk starts with its lane's stack as it stands.  lane is a handle;
 * the page knows the lane by its id. */
static void open_chunk(struct batch *b, struct lanes *l, uint32_t lane, int loss) {
    close_chunk(b);
    const struct lane *ln = &l->v[lane];
    wb_varint(&b->body, ln->id);
    wb_u8(&b->body, loss ? CHUNK_LOSS : 0);
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

void batch_add(struct batch *b, struct lanes *l, struct strtab *names, rec_seg *seg, uint32_t slot,
               const struct rec_event *ev, size_t n, int loss) {
    if (slot >= l->max_slots) {
        b->nolane += n;
        return;
    }
    uint32_t lane = l->cur[slot];
    if (n && !b->started) {
        b->base = web_ns(rec_seg_ticks_to_ns(seg, ev[0].ticks));
        b->started = 1;
    }
    if (loss && lane) lane_reset(&l->v[lane]);
    /* Once a THREAD_START or the slot table said which lane these events
     * belong to (maybe none), the table is not asked again. */
    int known = lane != 0;
    int pending_loss = loss;
    for (size_t i = 0; i < n; i++) {
        const struct rec_event *e = &ev[i];
        if (e->type == REC_EV_THREAD_START) {
            /* Events before it in this read belong to the generation
             * before; the new generation's lane starts here. */
            lane = lanes_get(l, slot, e->gen);
            if (lane) lanes_set_tid(l, lane, e->tid);
            known = 1;
            continue;
        }
        if (!lane && !known) {
            struct rec_thread_info t;
            if (rec_seg_thread(seg, slot, &t) == 0) {
                lanes_update(l, &t);
                lane = l->cur[slot];
            }
            known = 1;
        }
        if (!lane) {
            /* Retired, folded, or a slot the table cannot say: not shown,
             * and counted (docs/web.md, "Bounds"). */
            if (e->type != REC_EV_THREAD_NAME) b->nolane++;
            continue;
        }
        if (e->type == REC_EV_THREAD_NAME) {
            lanes_set_name(l, lane, rec_seg_string(seg, e->name_id));
            continue;
        }
        if (b->lane != lane) open_chunk(b, l, lane, pending_loss);
        pending_loss = 0;
        struct lane *ln = &l->v[lane];
        int64_t ts = web_ns(rec_seg_ticks_to_ns(seg, e->ticks));
        switch (e->type) {
        case REC_EV_BEGIN: {
            uint32_t id = strtab_id(names, seg, e->name_id);
            wb_u8(&b->chunk, KIND_BEGIN);
            put_time(b, ts);
            wb_varint(&b->chunk, id);
            lane_begin(ln, id, ts);
            break;
        }
        case REC_EV_END: {
            uint32_t id = strtab_id(names, seg, e->name_id);
            wb_u8(&b->chunk, KIND_END);
            put_time(b, ts);
            wb_varint(&b->chunk, id);
            lane_end(ln, id);
            break;
        }
        case REC_EV_INSTANT:
            wb_u8(&b->chunk, KIND_INSTANT);
            put_time(b, ts);
            wb_varint(&b->chunk, strtab_id(names, seg, e->name_id));
            wb_varint(&b->chunk, e->msg_len);
            wb_bytes(&b->chunk, e->msg, e->msg_len);
            break;
        case REC_EV_COUNTER:
            wb_u8(&b->chunk, KIND_COUNTER);
            put_time(b, ts);
            wb_varint(&b->chunk, strtab_id(names, seg, e->name_id));
            wb_f64(&b->chunk, e->value);
            break;
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
        b->chunk_events++;
        b->events++;
    }
    close_chunk(b);
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
