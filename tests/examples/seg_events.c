/*
 * seg_events.c -- test helper: every event a segment holds, decoded with
 * librecorder's reading layer, as one JSON document on stdout:
 *
 *   {"pid":N,"process":"...","closed":0|1,"lost":N,"threads":[
 *     {"slot":0,"tid":N,"name":"...","events":[
 *       {"t":"B","name":"x","ns":123.0}, {"t":"E","name":"x"|null,...},
 *       {"t":"I","name":"x","msg":"..."}, {"t":"C","name":"x","value":1.5},
 *       {"t":"s"|"t"|"f","id":N}, ...]}]}
 *
 * The tests read programs' segments after they exited (RECORDER_KEEP=1)
 * through this, independently of the analysis layer.
 *
 *   seg_events TARGET      (a pid, a segment name or a path)
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/reader.h"

static void json_str(const char *s) {
    putchar('"');
    for (; s && *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') printf("\\%c", c);
        else if (c < 0x20 || c >= 0x7f) printf("\\u%04x", c);
        else putchar(c);
    }
    putchar('"');
}

static void name_field(rec_seg *s, uint32_t id) {
    printf(",\"name\":");
    const char *n = id ? rec_seg_string(s, id) : NULL;
    if (n) json_str(n);
    else printf("null");
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: seg_events TARGET\n");
        return 2;
    }
    rec_seg *s;
    char err[256];
    int rc = rec_seg_open(argv[1], 0, &s, err, sizeof err);
    if (rc != REC_OK) {
        fprintf(stderr, "seg_events: %s\n", err);
        return rc;
    }
    struct rec_seg_info info;
    rec_seg_get_info(s, &info);
    static struct rec_thread_info th[1024];
    int nt = rec_seg_threads(s, th, 1024);
    size_t cap = 1u << 16;
    struct rec_entry *buf = malloc(cap * sizeof *buf);
    struct rec_event *ev = malloc(cap * sizeof *ev);
    if (!buf || !ev || nt < 0) return 9;
    uint64_t lost = 0, bad = 0;
    printf("{\"pid\":%d,\"process\":", info.pid);
    json_str(info.process_name);
    printf(",\"closed\":%d,\"threads\":[", info.closed);
    for (int i = 0; i < nt; i++) {
        printf("%s\n{\"slot\":%u,\"tid\":%d,\"name\":", i ? "," : "", th[i].slot, th[i].tid);
        json_str(th[i].name);
        printf(",\"events\":[");
        int first_ev = 1;
        for (;;) {
            uint64_t first;
            struct rec_loss loss = {0};
            size_t got = rec_seg_read(s, th[i].slot, buf, cap, &first, &loss);
            lost += loss.overwritten + loss.dropped;
            if (!got) break;
            size_t used = 0;
            size_t n = rec_decode(buf, got, first, ev, cap, &used, &bad);
            for (size_t k = 0; k < n; k++) {
                const struct rec_event *e = &ev[k];
                static const char *const tname[] = {"?", "B", "E", "I", "C", "s", "t", "f", "thread_start",
                                                    "thread_name", "A"};
                printf("%s\n {\"t\":\"%s\",\"ns\":%.1f", first_ev ? "" : ",",
                       e->type < 11 ? tname[e->type] : "?", rec_seg_ticks_to_ns(s, e->ticks));
                first_ev = 0;
                switch (e->type) {
                case REC_EV_BEGIN:
                case REC_EV_END:
                case REC_EV_THREAD_NAME: name_field(s, e->name_id); break;
                case REC_EV_INSTANT:
                case REC_EV_ARG:
                    name_field(s, e->name_id);
                    printf(",\"msg\":");
                    json_str(e->msg);
                    break;
                case REC_EV_COUNTER:
                    name_field(s, e->name_id);
                    printf(",\"value\":%.17g", e->value);
                    break;
                case REC_EV_FLOW_BEGIN:
                case REC_EV_FLOW_STEP:
                case REC_EV_FLOW_END: printf(",\"id\":%llu", (unsigned long long)e->flow_id); break;
                case REC_EV_THREAD_START: printf(",\"tid\":%d", e->tid); break;
                }
                putchar('}');
            }
            if (got < cap) break;
        }
        printf("]}");
    }
    printf("],\"lost\":%llu,\"bad\":%llu}\n", (unsigned long long)lost, (unsigned long long)bad);
    free(buf);
    free(ev);
    rec_seg_close(s);
    return 0;
}
