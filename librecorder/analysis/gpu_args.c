/*
 * gpu_args.c -- a GPU slice's arguments in the timeline exports.  The GPU
 * library writes them as an instant named "args" right after the slice's
 * begin, at the same time, on the same lane (docs/gpu.md): "grid=(128,1,1)
 * block=(256,1,1)" for a kernel, "4096 bytes" for a copy or a memset.  The
 * JSON and Perfetto exports fold it into that slice (its "args", its debug
 * annotations) and leave the instant out: one place says which instant is
 * folded (xs_args_take / xs_args_folded), one parses it (gpu_args_parse).
 */
#include <string.h>

#include "export_stream.h"
#include "outbuf.h"

/* Is it, an item of record rec, the "args" instant of a lane that is not
 * a thread? */
static int is_args(struct xs *x, uint32_t rec, const struct xitem *it) {
    if (it->kind != REC_ITEM_INSTANT || it->u == XS_NONE) return 0;
    if (rec >= x->m->n_recs || x->m->recs[rec].lane_kind == REC_LANE_THREAD) return 0;
    const char *t = model_name_text(x->m, model_name(x->m, it->name_id));
    return t && strcmp(t, "args") == 0;
}

const char *xs_args_take_lane(struct xs *x, uint32_t rec, int64_t b) {
    if (rec >= x->nr) return NULL;
    struct xrec *R = &x->r[rec];
    if (R->qhead >= R->qtail) return NULL;
    const struct xitem *it = &R->q[R->qhead & (R->qcap - 1)];
    /* Its message is still in the ring: it leaves with the item. */
    if (it->b != b || it->u < R->mhead || it->u >= R->mtail || !is_args(x, rec, it)) return NULL;
    R->args_folded = 1;
    R->args_at = b;
    return R->msg[it->u & (R->mcap - 1)];
}

int xs_args_folded(struct xs *x, uint32_t rec, const struct xitem *it) {
    struct xrec *R = &x->r[rec];
    if (!R->args_folded || it->b != R->args_at || !is_args(x, rec, it)) return 0;
    R->args_folded = 0;
    return 1;
}

static int digits(const char *s, size_t n) {
    if (n == 0 || n > 18) return 0;
    for (size_t i = 0; i < n; i++)
        if (s[i] < '0' || s[i] > '9') return 0;
    return 1;
}

/* "k=v" fields separated by spaces, and "N bytes" as bytes=N; 0 (the
 * caller then shows the whole message as "msg") for anything else. */
int gpu_args_parse(const char *msg, struct gpu_arg *a, int max) {
    int n = 0;
    const char *p = msg;
    while (*p) {
        while (*p == ' ') p++;
        if (!*p) break;
        const char *t = p;
        while (*p && *p != ' ') p++;
        size_t tl = (size_t)(p - t);
        if (n == max) return 0;
        const char *eq = memchr(t, '=', tl);
        if (eq && eq > t && (size_t)(eq - t) < GPU_ARG_KEY_MAX) {
            a[n] = (struct gpu_arg){t, (size_t)(eq - t), eq + 1, tl - (size_t)(eq - t) - 1, 0};
            a[n].num = digits(a[n].v, a[n].vl);
            n++;
            continue;
        }
        const char *q = p;
        while (*q == ' ') q++;
        if (digits(t, tl) && strncmp(q, "bytes", 5) == 0 && (q[5] == ' ' || q[5] == 0)) {
            a[n++] = (struct gpu_arg){"bytes", 5, t, tl, 1};
            p = q + 5;
            continue;
        }
        return 0;
    }
    return n;
}

size_t gpu_args_json(char *dst, const char *msg) {
    struct gpu_arg a[GPU_ARGS_MAX];
    int n = gpu_args_parse(msg, a, GPU_ARGS_MAX);
    char *p = dst;
    *p++ = '{';
    if (n == 0) {
        memcpy(p, "\"msg\":\"", 7);
        p += 7;
        p += json_escape(p, msg, strlen(msg));
        *p++ = '"';
    }
    for (int i = 0; i < n; i++) {
        if (i) *p++ = ',';
        *p++ = '"';
        p += json_escape(p, a[i].k, a[i].kl);
        memcpy(p, "\":", 2);
        p += 2;
        if (a[i].num) {
            memcpy(p, a[i].v, a[i].vl);
            p += a[i].vl;
        } else {
            *p++ = '"';
            p += json_escape(p, a[i].v, a[i].vl);
            *p++ = '"';
        }
    }
    *p++ = '}';
    return (size_t)(p - dst);
}
