/*
 * own_events.c -- see own_events.h.
 */
#include "own_events.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/reader.h"

static void put(char *out, size_t cap, size_t *len, const char *fmt, ...) {
    va_list ap;
    va_start(ap, fmt);
    if (*len < cap) {
        int n = vsnprintf(out + *len, cap - *len, fmt, ap);
        if (n > 0) *len += (size_t)n < cap - *len ? (size_t)n : cap - *len - 1;
    }
    va_end(ap);
}

static const char *name_of(rec_seg *s, uint32_t id) {
    const char *n = id ? rec_seg_string(s, id) : NULL;
    return n ? n : "-";
}

int own_events(const char *thread_name, char *out, size_t cap) {
    const char *path = rec_segment_path();
    rec_seg *s;
    char err[256];
    out[0] = 0;
    if (!path || rec_seg_open(path, 0, &s, err, sizeof err) != REC_OK) return -1;
    struct rec_thread_info th[256];
    int nt = rec_seg_threads(s, th, 256), count = -1;
    size_t len = 0;
    for (int i = 0; i < nt; i++) {
        if (strcmp(th[i].name, thread_name) != 0) continue;
        static struct rec_entry buf[1 << 16];
        static struct rec_event ev[1 << 16];
        uint64_t first;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(s, th[i].slot, buf, 1 << 16, &first, &loss);
        size_t used;
        uint64_t bad = 0;
        size_t n = rec_decode(buf, got, first, ev, 1 << 16, &used, &bad);
        if (loss.overwritten || loss.dropped || bad) put(out, cap, &len, "LOST %llu BAD %llu\n",
                                                         (unsigned long long)(loss.overwritten + loss.dropped),
                                                         (unsigned long long)bad);
        count = 0;
        for (size_t k = 0; k < n; k++) {
            const struct rec_event *e = &ev[k];
            switch (e->type) {
            case REC_EV_BEGIN: put(out, cap, &len, "B %s\n", name_of(s, e->name_id)); break;
            case REC_EV_END: put(out, cap, &len, "E %s\n", name_of(s, e->name_id)); break;
            case REC_EV_INSTANT:
                put(out, cap, &len, "I %s%s%s\n", name_of(s, e->name_id), e->msg_len ? " " : "", e->msg);
                break;
            case REC_EV_COUNTER: put(out, cap, &len, "C %s %g\n", name_of(s, e->name_id), e->value); break;
            case REC_EV_FLOW_BEGIN: put(out, cap, &len, "s %llu\n", (unsigned long long)e->flow_id); break;
            case REC_EV_FLOW_STEP: put(out, cap, &len, "t %llu\n", (unsigned long long)e->flow_id); break;
            case REC_EV_FLOW_END: put(out, cap, &len, "f %llu\n", (unsigned long long)e->flow_id); break;
            default: continue;  /* thread start and names: the slot's business */
            }
            count++;
        }
        break;
    }
    rec_seg_close(s);
    return count;
}

int own_events_expect(const char *thread_name, const char *expected) {
    size_t cap = strlen(expected) + 4096;
    char *got = malloc(cap);
    if (!got) return 1;
    int n = own_events(thread_name, got, cap);
    int differ = n < 0 || strcmp(got, expected) != 0;
    if (differ) {
        fprintf(stderr, "thread %s: events differ (%d events)\n--- expected\n%s--- recorded\n%s---\n", thread_name,
                n, expected, got);
        /* The first line that differs, to save the reader a diff. */
        const char *a = expected, *b = got;
        int line = 1;
        while (*a && *a == *b) {
            if (*a == '\n') line++;
            a++;
            b++;
        }
        fprintf(stderr, "first difference on line %d\n", line);
    }
    free(got);
    return differ;
}
