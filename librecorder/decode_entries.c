/*
 * decode_entries.c -- ring entries to events.
 *
 * The entries come from a segment we do not trust: an unknown type, an
 * instant whose length runs past its continuation entries, or a stray
 * continuation is skipped and counted, never trusted.
 */
#include <string.h>

#include "internal.h"

size_t rec_decode(const struct rec_entry *in, size_t n, uint64_t first, struct rec_event *out, size_t cap,
                  size_t *used, uint64_t *bad) {
    size_t i = 0, k = 0;
    uint64_t nbad = 0;
    while (i < n && k < cap) {
        const struct rec_entry *e = &in[i];
        unsigned span = rec_entry_span(e);
        if (span == 0 || i + span > n) {
            nbad++;
            i++;
            continue;
        }
        int ok = 1;
        for (unsigned j = 1; j < span; j++) ok &= REC_EV_TYPE(in[i + j].w1) == REC_EV_CONT;
        if (!ok) {
            nbad++;
            i++;
            continue;
        }
        struct rec_event *o = &out[k];
        memset(o, 0, offsetof(struct rec_event, msg));
        o->msg[0] = 0;
        o->type = REC_EV_TYPE(e->w1);
        o->ticks = e->w0;
        o->index = first + i;
        switch (o->type) {
        case REC_EV_BEGIN:
        case REC_EV_END:
            o->name_id = REC_EV_ID(e->w1);
            o->wait = (e->w1 & REC_EV_WAIT) != 0;
            break;
        case REC_EV_THREAD_NAME: o->name_id = REC_EV_ID(e->w1); break;
        case REC_EV_FLOW_BEGIN:
        case REC_EV_FLOW_STEP:
        case REC_EV_FLOW_END: o->flow_id = e->w1 & REC_FLOW_ID_MASK; break;
        case REC_EV_THREAD_START:
            o->tid = (int)REC_EV_ID(e->w1);
            o->gen = (uint32_t)((e->w1 >> 32) & 0xffffff);
            break;
        case REC_EV_COUNTER:
            o->name_id = REC_EV_ID(e->w1);
            memcpy(&o->value, &in[i + 1].w0, sizeof o->value);
            break;
        case REC_EV_INSTANT:
        case REC_EV_ARG: {   /* ARG: name_id is the key, msg the value */
            o->name_id = REC_EV_ID(e->w1);
            unsigned len = REC_EV_ARG8(e->w1);
            for (unsigned j = 0; j * 15 < len; j++) {
                unsigned char chunk[16];
                memcpy(chunk, &in[i + 1 + j].w0, 8);
                memcpy(chunk + 8, &in[i + 1 + j].w1, 8);
                unsigned take = len - j * 15 < 15 ? len - j * 15 : 15;
                memcpy(o->msg + j * 15, chunk, take);
            }
            o->msg[len] = 0;
            o->msg_len = (unsigned)strnlen(o->msg, len);
            break;
        }
        }
        k++;
        i += span;
    }
    if (used) *used = i;
    if (bad) *bad += nbad;
    return k;
}
