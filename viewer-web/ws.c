/*
 * ws.c -- the WebSocket side: one connection per page.
 *
 * Each writable callback sends one message, in this order of priority:
 * HELLO, names the page lacks, THREADS if newer, PONG, STATUS, the next
 * queued EVENTS frame, STATS if newer.  Names and lanes go before any
 * frame that uses them: a frame is dequeued first and the published
 * tables are read after it, and the reader published them before it
 * queued the frame.
 *
 * A page sends only tiny binary commands; anything else closes its
 * connection, and only its connection.
 *
 * Once a close frame is on its way, either way (ours, the page's, or
 * lws's own for a frame that breaks the protocol), nothing more is sent:
 * send_buf is the only place that writes, and it refuses.  A page that
 * takes nothing for --client-timeout seconds is dropped (its queue is
 * bounded anyway, see clients.h), and at most --max-pages are served.
 */
#include <assert.h>
#include <string.h>

#include "auth.h"
#include "service.h"
#include "shared.h"
#include "wire.h"

static_assert(LWS_PRE <= WIRE_PRE, "frames keep WIRE_PRE bytes of headroom for lws_write");

#define STRINGS_PER_MSG 4096
#define STRINGS_BYTES (256u << 10)   /* a STRINGS message stops after this much */
#define REFUSE_TIMEOUT_S 5
#define LOD_EVERY_MS 1000.0
#define CLOSE_TRY_AGAIN_LATER 1013  /* RFC 6455 registry; lws has no name for it */
/* Latency questions a page may ask: a burst, then this many a second;
 * more are ignored (and counted), so a flood costs the reader nothing. */
#define LAT_BURST 32.0
#define LAT_PER_S 16.0

/* The only write.  After a close frame was sent or received, no more
 * data frames: the page must see the close last. */
/* lws itself closes a connection that breaks the protocol (1002: a
 * reserved opcode or RSV bit, a bad close code...) without telling the
 * protocol: its close reason is set, and the close frame goes first. */
static int lws_closing(struct lws *wsi) {
    return lws_get_close_length(wsi) > 0;
}

static int send_buf(struct lws *wsi, struct client *c, unsigned char *data, size_t len) {
    if (c->close_code || c->peer_closed || lws_closing(wsi)) return 0;
    c->bytes_sent += len;
    return lws_write(wsi, data, len, LWS_WRITE_BINARY) < 0 ? -1 : 0;
}

static int send_tx(struct lws *wsi, struct client *c) {
    if (c->tx.oom) return -1;
    return send_buf(wsi, c, wb_data(&c->tx), c->tx.len);
}

static int send_hello(struct lws *wsi, struct web *w, struct client *c) {
    struct wbuf *b = &c->tx;
    wb_reset(b);
    wb_u8(b, MSG_HELLO);
    wb_u8(b, WIRE_VERSION);
    wb_varint(b, w->info.pid > 0 ? (uint64_t)w->info.pid : 0);
    wb_str(b, w->info.process_name, sizeof w->info.process_name - 1);
    wb_str(b, w->info.path, sizeof w->info.path - 1);
    wb_f64(b, web_now(w));
    wb_f64(b, (double)w->info.real_ns0);
    wb_varint(b, w->info.max_threads);
    wb_varint(b, w->info.ring_entries);
    /* Root may watch anyone's program: the page says whose it is. */
    wb_u8(b, (w->info.foreign_owner ? HELLO_FOREIGN : 0) | (w->src.cap ? HELLO_FILE : 0));
    wb_varint(b, w->info.owner_uid);
    /* The programs (several: recorder-web PID1 PID2 ...), each with the
     * first of its slots: a lane belongs to the last whose base <= its slot. */
    uint32_t n = w->src.n ? w->src.n : 1;
    wb_varint(b, n);
    for (uint32_t k = 0; k < n; k++) {
        const struct rec_seg_info *p = w->src.n > 1 ? &w->procs[k] : &w->info;
        wb_varint(b, p->pid > 0 ? (uint64_t)p->pid : 0);
        wb_str(b, p->process_name, sizeof p->process_name - 1);
        wb_varint(b, w->src.n > 1 ? w->src.base[k] : 0);
    }
    /* A capture file: the bytes a RANGE answer carries at most (range.h). */
    wb_varint(b, w->src.cap ? w->opts.client_queue / 2 : 0);
    c->hello_sent = 1;
    return send_tx(wsi, c);
}

/* The names the page lacks, as many as fit STRINGS_PER_MSG and
 * STRINGS_BYTES (so c->tx stays small whatever the names are). */
static int send_strings(struct lws *wsi, struct client *c, struct strtab_pub *t, uint32_t n) {
    struct wbuf *b = &c->tx;
    uint32_t first = c->strings_sent, count = 0;
    size_t bytes = 0;
    while (first + count < n && count < STRINGS_PER_MSG && bytes < STRINGS_BYTES)
        bytes += strnlen(t->names[first + count++], 4096) + 2;
    wb_reset(b);
    wb_u8(b, MSG_STRINGS);
    wb_varint(b, first);
    wb_varint(b, count);
    for (uint32_t i = first; i < first + count; i++) wb_str(b, t->names[i], 4096);
    c->strings_sent = first + count;
    return send_tx(wsi, c);
}

static int send_status(struct lws *wsi, struct web *w, struct client *c) {
    struct wbuf *b = &c->tx;
    wb_reset(b);
    wb_u8(b, MSG_STATUS);
    wb_f64(b, web_now(w));
    wb_u8(b, (web_load(&w->alive) ? STATUS_ALIVE : 0) | (web_load(&w->closed) ? STATUS_CLOSED : 0) |
                 (web_load(&w->truncated) ? STATUS_TRUNCATED : 0) | (web_load(&w->loading) ? STATUS_LOADING : 0));
    wb_varint(b, web_load(&w->ctr.events));
    wb_varint(b, web_load(&w->ctr.overwritten));
    wb_varint(b, web_load(&w->ctr.dropped));
    wb_varint(b, web_load(&w->ctr.bad));
    wb_varint(b, web_load(&w->ctr.history));
    wb_varint(b, web_load(&w->ctr.unsent));
    struct client_acct a;
    client_accounts(c, &a);
    wb_varint(b, a.offered);
    wb_varint(b, a.thinned_events);
    wb_varint(b, a.thinned_frames);
    wb_varint(b, c->events_sent);
    wb_varint(b, a.queued_bytes);
    wb_varint(b, web_load(&w->clients.count));
    wb_varint(b, web_load(&w->ctr.nolane));
    wb_varint(b, web_load(&w->ctr.not_recorded));
    wb_varint(b, web_load(&w->ctr.names_full));
    wb_varint(b, web_load(&w->ctr.spills));
    wb_varint(b, web_load(&w->ctr.spills_full));
    wb_varint(b, a.hidden_events);
    c->status_due = 0;
    return send_tx(wsi, c);
}

static int send_pong(struct lws *wsi, struct client *c) {
    struct wbuf *b = &c->tx;
    wb_reset(b);
    wb_u8(b, MSG_PONG);
    wb_u32(b, c->pong_nonce);
    c->pong_due = 0;
    return send_tx(wsi, c);
}

/* The answer to a question, if it can go now: a published one newer
 * than the question, or, for a scope not summarised, a short "none". */
static struct frame *lat_answer(struct web *w, const struct lat_ask *a) {
    if (!a->due || a->slot < 0) return NULL;
    struct frame *f = web_subscribe(&w->lat.ans[a->slot]);
    return f && f->version > a->after ? f : NULL;
}

static struct lat_ask *lat_due(struct web *w, struct client *c, struct frame **f) {
    for (unsigned i = 0; i < LAT_ASKS; i++) {
        struct lat_ask *a = &c->lat[i];
        if (a->due && (a->slot < 0 || (*f = lat_answer(w, a)))) return a;
    }
    return NULL;
}

static int send_lat_none(struct lws *wsi, struct web *w, struct client *c, uint32_t name) {
    struct wbuf *b = &c->tx;
    wb_reset(b);
    wb_u8(b, MSG_LATENCY);
    wb_varint(b, name);
    wb_u8(b, 0);
    wb_varint(b, web_load(&w->lat.left_out));
    wb_varint(b, LAT_BPD);
    wb_varint(b, LAT_BINS);
    wb_f64(b, 0);
    wb_f64(b, 0);
    wb_varint(b, 0);
    return send_tx(wsi, c);
}

/* One message; then ask for another callback if anything is left. */
static int writable(struct lws *wsi, struct web *w, struct client *c) {
    if (c->close_code) {
        /* Not while the refused message is still coming in: closing with
         * unread input makes the kernel send a reset, which destroys the
         * close frame on its way (the page sees 1006). */
        if (c->rx_swallow) return 0;   /* receive() asks again at its end */
        /* Now, between whole frames, the close frame can go out. */
        lws_close_reason(wsi, (enum lws_close_status)c->close_code, (unsigned char *)c->close_why,
                         strlen(c->close_why));
        return -1;
    }
    if (c->peer_closed) return 0;   /* lws answers the close; we send nothing more */
    /* lws sent its own close (a protocol error): nothing more, and the
     * connection ends now -- not when a page that broke the protocol
     * acknowledges, nor at the timeout below, which would replace lws's. */
    if (lws_closing(wsi)) return -1;
    /* It takes data: it is not stuck.  One that takes nothing for this
     * long is dropped by lws. */
    lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, w->opts.client_timeout);
    if (!c->pending) c->pending = client_dequeue(c);
    cmm_smp_mb();
    int rc = 0, more;
    web_read_lock();
    struct frame *stats = web_subscribe(&w->stats[c->window]);
    struct frame *lod = web_subscribe(&w->lod);
    double ms = lws_now_usecs() / 1e3;
    /* The summary goes at most once a second: it can be large (lod.h). */
    int lod_due = lod && lod->version != c->lod_ver && ms - c->lod_ms >= LOD_EVERY_MS;
    struct threads_pub *threads = web_subscribe(&w->threads);
    struct frame *tf, *ans = NULL;
    struct lat_ask *ask;
    struct strtab_pub *names = web_subscribe(&w->names);
    uint32_t nn = names ? __atomic_load_n(&names->count, __ATOMIC_ACQUIRE) : 0;
    if (!c->hello_sent) {
        rc = send_hello(wsi, w, c);
    } else if (c->strings_sent < nn) {
        rc = send_strings(wsi, c, names, nn);
    } else if ((tf = threads_next(threads, &c->threads_ver))) {
        rc = send_buf(wsi, c, frame_data(tf), tf->len);
    } else if (c->pong_due) {
        rc = send_pong(wsi, c);
    } else if (c->status_due) {
        rc = send_status(wsi, w, c);
    } else if (c->pending) {
        struct frame *f = c->pending;
        c->pending = NULL;
        c->events_sent += f->events;
        c->frames_sent++;
        rc = send_buf(wsi, c, frame_data(f), f->len);
        frame_unref(f);
    } else if ((ask = lat_due(w, c, &ans))) {
        ask->due = 0;
        rc = ans ? send_buf(wsi, c, frame_data(ans), ans->len) : send_lat_none(wsi, w, c, ask->name);
    } else if (stats && stats->version != c->stats_ver) {
        c->stats_ver = stats->version;
        rc = send_buf(wsi, c, frame_data(stats), stats->len);
    } else if (lod_due) {
        c->lod_ver = lod->version;
        c->lod_ms = ms;
        rc = send_buf(wsi, c, frame_data(lod), lod->len);
        lod_due = 0;
    }
    more = c->strings_sent < nn || (threads && threads->version != c->threads_ver) || c->pong_due ||
           c->status_due || c->pending || (stats && stats->version != c->stats_ver) || lod_due ||
           lat_due(w, c, &ans);
    web_read_unlock();
    if (rc == 0 && (more || client_has_queued(c))) lws_callback_on_writable(wsi);
    return rc;
}

/* Close this connection, and only this one.  Not at once: a frame may be
 * half sent, and the close frame must not cut into it.  Input from it is
 * ignored from now on. */
static int refuse(struct lws *wsi, struct client *c, enum lws_close_status code, const char *why) {
    if (!c->close_code) {
        c->close_code = (int)code;
        c->close_why = why;
        /* A page that sends garbage and does not read goes anyway. */
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, REFUSE_TIMEOUT_S);
    }
    lws_callback_on_writable(wsi);
    return 0;
}

/* A question for one scope's latency (any u32: an unknown id gets
 * "none").  Within the rate bound, the reader is asked to encode it. */
static void ask_latency(struct web *w, struct client *c, uint32_t name) {
    double ms = lws_now_usecs() / 1e3;
    if (c->lat_ms == 0) c->lat_tokens = LAT_BURST;
    else c->lat_tokens += (ms - c->lat_ms) * LAT_PER_S / 1e3;
    if (c->lat_tokens > LAT_BURST) c->lat_tokens = LAT_BURST;
    c->lat_ms = ms;
    if (c->lat_tokens < 1) {
        c->lat_ignored++;
        return;
    }
    c->lat_tokens -= 1;
    int slot = -1;
    uint32_t n = __atomic_load_n(&w->lat.n, __ATOMIC_ACQUIRE);
    for (uint32_t i = 0; i < n && i < LAT_SCOPES; i++)
        if (w->lat.ids[i] == name) slot = (int)i;
    struct lat_ask *a = NULL;
    for (unsigned i = 0; i < LAT_ASKS && !a; i++)
        if (c->lat[i].due && c->lat[i].name == name) a = &c->lat[i];
    if (!a) a = &c->lat[c->lat_next++ % LAT_ASKS];   /* the oldest question goes */
    a->name = name;
    a->slot = slot;
    a->due = 1;
    a->after = 0;
    if (slot >= 0) {
        web_read_lock();
        struct frame *f = web_subscribe(&w->lat.ans[slot]);
        a->after = f ? f->version : 0;
        web_read_unlock();
        /* The reader looks at every pass (a flush period at most). */
        web_store(&w->lat.want[slot], 1);
    }
}

/* A whole message from the page. */
static int command(struct lws *wsi, struct client *c) {
    const unsigned char *m = c->rx;
    size_t n = c->rx_len;
    c->rx_len = 0;
    if (n == 2 && m[0] == CMSG_SET_WINDOW && m[1] <= 2) {
        if (c->window != m[1]) {
            web_store(&c->window, m[1]);   /* the reader reads it (windows_viewed) */
            c->stats_ver = 0;
        }
    } else if (n == 5 && m[0] == CMSG_PING) {
        c->pong_nonce = (uint32_t)m[1] | (uint32_t)m[2] << 8 | (uint32_t)m[3] << 16 | (uint32_t)m[4] << 24;
        c->pong_due = 1;
    } else if (n == 21 && m[0] == CMSG_RANGE) {
        /* Any window: the reader bounds what it reads and sends (range.h). */
        uint64_t t0, t1;
        memcpy(&t0, m + 5, 8);
        memcpy(&t1, m + 13, 8);
        web_store(&c->range_id, (uint32_t)m[1] | (uint32_t)m[2] << 8 | (uint32_t)m[3] << 16 | (uint32_t)m[4] << 24);
        web_store(&c->range_t0, t0);
        web_store(&c->range_t1, t1);
        __atomic_fetch_add(&c->range_ver, 1, __ATOMIC_RELEASE);
    } else if (n == 2 && m[0] == CMSG_HIDDEN && m[1] <= 1) {
        /* A hidden page is offered no EVENTS (clients_offer); shown
         * again, it first gets the recent frames it missed (replay). */
        if (m[1]) {
            web_store(&c->hidden, 1);
        } else if (web_load(&c->hidden)) {
            web_store(&c->wants_history, 1);
            web_store(&c->hidden, 0);
        }
    } else if (n == 5 && m[0] == CMSG_LATENCY) {
        ask_latency(web_of(wsi), c,
                    (uint32_t)m[1] | (uint32_t)m[2] << 8 | (uint32_t)m[3] << 16 | (uint32_t)m[4] << 24);
    } else {
        return refuse(wsi, c, LWS_CLOSE_STATUS_POLICY_VIOLATION, "bad message");
    }
    lws_callback_on_writable(wsi);
    return 0;
}

static int receive(struct lws *wsi, struct client *c, const void *in, size_t len) {
    int end = lws_is_final_fragment(wsi) && !lws_remaining_packet_payload(wsi);
    if (c->close_code || c->peer_closed) {
        /* A refused message is read to its end before the close (writable). */
        if (c->rx_swallow && end) {
            c->rx_swallow = 0;
            lws_callback_on_writable(wsi);
        }
        return 0;
    }
    c->rx_swallow = !end;
    if (!lws_frame_is_binary(wsi)) return refuse(wsi, c, LWS_CLOSE_STATUS_UNACCEPTABLE_OPCODE, "binary only");
    if (c->rx_len + len > sizeof c->rx) return refuse(wsi, c, LWS_CLOSE_STATUS_MESSAGE_TOO_LARGE, "too long");
    c->rx_swallow = 0;
    memcpy(c->rx + c->rx_len, in, len);
    c->rx_len += len;
    if (!end) return 0;
    return command(wsi, c);
}

int web_ws(struct lws *wsi, enum lws_callback_reasons reason, struct pss *p, void *in, size_t len) {
    struct web *w = web_of(wsi);
    switch (reason) {
    case LWS_CALLBACK_FILTER_PROTOCOL_CONNECTION:
        /* Non-zero refuses the upgrade. */
        if (!auth_host_ok(wsi, w) || !auth_token_ok(wsi, w->token) || !auth_origin_ok(wsi, w) ||
            !auth_protocol_ok(wsi, WEB_PROTOCOL))
            return 1;
        return 0;
    case LWS_CALLBACK_ESTABLISHED:
        p->wsi = wsi;
        if (web_load(&w->clients.count) >= w->opts.max_pages) {
            /* 1013 Try Again Later; the page retries by itself. */
            static const char why[] = "too many pages (--max-pages)";
            lws_close_reason(wsi, (enum lws_close_status)CLOSE_TRY_AGAIN_LATER, (unsigned char *)why,
                             sizeof why - 1);
            return -1;
        }
        p->client = client_add(&w->clients, wsi);
        if (!p->client) return -1;
        p->client->status_due = 1;
        lws_set_timeout(wsi, PENDING_TIMEOUT_USER_OK, w->opts.client_timeout);
        lws_callback_on_writable(wsi);
        return 0;
    case LWS_CALLBACK_WS_PEER_INITIATED_CLOSE:
        /* 0: lws echoes the close; from now on we send nothing. */
        if (p && p->client) p->client->peer_closed = 1;
        return 0;
    case LWS_CALLBACK_CLOSED:
        if (p && p->client) {
            client_remove(&w->clients, p->client);
            p->client = NULL;
        }
        return 0;
    case LWS_CALLBACK_SERVER_WRITEABLE: return p && p->client ? writable(wsi, w, p->client) : 0;
    case LWS_CALLBACK_RECEIVE: return p && p->client ? receive(wsi, p->client, in, len) : -1;
    default: return 0;
    }
}

/* From the reader (via lws_cancel_service): frames queued, tables new. */
/* The service thread publishes the set, so it reads it directly. */
void web_ws_wakeup(struct web *w) {
    const struct client_set *set = w->clients.set;
    for (size_t i = 0; i < set->n; i++)
        if (set->c[i]->wsi) lws_callback_on_writable(set->c[i]->wsi);
}

void web_ws_tick(struct web *w) {
    const struct client_set *set = w->clients.set;
    for (size_t i = 0; i < set->n; i++) {
        struct client *c = set->c[i];
        c->status_due = 1;
        if (c->wsi) lws_callback_on_writable(c->wsi);
    }
}
