/*
 * scope_args.c -- a scope's arguments (REC_ARG) in the timeline exports.
 * The model logs an argument as an instant flagged ITEM_ARG (its key the
 * name, its value the message) on its thread; the walker meets it inside
 * the slices open at its time, and the JSON and Perfetto sinks keep it
 * here for the innermost one, to write with that slice's end.  Bounded:
 * at most XS_ARGS_MAX a slice, the rest counted (args_over); one with no
 * slice open on its thread is counted (args_outside), never shown.
 */
#include <string.h>

#include "export_stream.h"
#include "grow.h"

/* Those of slices gone already (a sink that left them) are stale. */
static void drop_stale(struct xrec *R, uint32_t depth) {
    while (R->nargs && R->args[R->nargs - 1].depth > depth) R->nargs--;
}

int xs_arg_keep(struct xs *x, uint32_t rec, const struct xitem *it, const char *msg) {
    if (it->kind != REC_ITEM_INSTANT || !(it->flags & ITEM_ARG)) return 0;
    struct xrec *R = &x->r[rec];
    if (R->n == 0) {
        x->args_outside++;
        return 1;
    }
    uint32_t depth = R->n - 1, have = 0;
    drop_stale(R, depth);
    for (uint32_t i = R->nargs; i > 0 && R->args[i - 1].depth == depth; i--) have++;
    if (have >= XS_ARGS_MAX) {
        x->args_over++;
        return 1;
    }
    struct xarg *grown = grow_zeroed(R->args, &R->args_cap, sizeof *R->args, R->nargs, 8);
    if (!grown) {
        x->oom = 1;
        return 1;
    }
    R->args = grown;
    struct xarg *a = &R->args[R->nargs++];
    a->depth = depth;
    a->key = it->name_id;
    size_t n = strnlen(msg, REC_MSG_MAX);
    memcpy(a->val, msg, n);
    a->val[n] = 0;
    return 1;
}

uint32_t xs_scope_args_take(struct xs *x, uint32_t rec, uint32_t depth, const struct xarg **out) {
    struct xrec *R = &x->r[rec];
    drop_stale(R, depth);
    uint32_t k = 0;
    while (k < R->nargs && R->args[R->nargs - 1 - k].depth == depth) k++;
    R->nargs -= k;   /* still readable until the next xs_arg_keep */
    *out = R->args ? R->args + R->nargs : NULL;   /* no args yet: NULL + 0 is undefined */
    return k;
}

static const char *key_text(struct xs *x, const struct xarg *a, size_t *len) {
    const char *t = model_name_text(x->m, model_name(x->m, a->key));
    if (!t) t = "arg";
    *len = strnlen(t, XS_ARG_KEY_MAX);
    return t;
}

/* JSON objects keep one value per key (readers take the last) and the
 * protobuf decoders of the tests make dicts: a repeated key is numbered
 * here, once for both formats.  At most XS_ARGS_MAX keys a slice. */
const char *xs_arg_key(struct xs *x, const struct xarg *a, uint32_t i, char *buf, size_t *len) {
    size_t kl;
    const char *k = key_text(x, &a[i], &kl);
    unsigned seen = 0;
    for (uint32_t j = 0; j < i; j++) {
        size_t jl;
        const char *o = key_text(x, &a[j], &jl);
        if (jl == kl && !memcmp(o, k, kl)) seen++;
    }
    memcpy(buf, k, kl);
    if (seen) kl += (size_t)snprintf(buf + kl, XS_ARG_KEY_BUF - kl, " (%u)", seen + 1);
    buf[kl] = 0;
    *len = kl;
    return buf;
}
