/*
 * model.c -- one decode step as a sequence of ops, each handed to the
 * worker pool (the scheduler side), and each worker's slice of an op (the
 * worker side).  This is where the demo's instrumentation lives:
 *
 *   scheduler:  token > get_rows, graph_compute > blk.N > (its own op slices,
 *               barrier), sample
 *   op slices:  matmul > matmul_blk.N.attn_q, rms_norm, rope, attn_scores,
 *               softmax, attn_values, gelu   (on every thread, as in ggml)
 *
 * The scheduler is thread 0 of the pool, as ggml's main thread is: it hands
 * an op out, does its own share, and waits for the others ("barrier").  Handing an
 * op out starts one flow per other thread that gets rows (REC_FLOW_BEGIN on
 * the scheduler); that thread ends it inside its slice.  Attention's three
 * phases keep one flow per thread across them (FLOW_STEP, FLOW_STEP,
 * FLOW_END): a thread keeps the same heads through all three.
 */
#include "model.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kernels.h"
#include "recorder.h"

enum op_kind { OP_RMS_NORM, OP_MATMUL, OP_ROPE, OP_ATTN_SCORES, OP_SOFTMAX, OP_ATTN_VALUES, OP_GELU };

struct op {
    enum op_kind kind;
    const char *name;          /* matmuls: the weight's name, recorded as a dynamic scope */
    int rows;                  /* what the workers split */
    float *y;
    const float *w, *x, *g;
    int n;                     /* matmul: input length */
    int accumulate;            /* matmul: y += W x (the residual connection) */
    struct model *m;
    struct layer *l;
    uint64_t flow;             /* flow ids: thread i > 0 uses flow + i */
    unsigned flow_phase;       /* 0, REC_EV_FLOW_STEP or REC_EV_FLOW_END */
};

static const char *const w_suffix[W_COUNT] = {"attn_q", "attn_k", "attn_v", "attn_output", "ffn_up",
                                              "ffn_down"};

/* ---- weights ------------------------------------------------------------ */

static uint64_t rng_next(uint64_t *s) {
    uint64_t x = *s;
    x ^= x >> 12;
    x ^= x << 25;
    x ^= x >> 27;
    *s = x;
    return x * UINT64_C(0x2545F4914F6CDD1D);
}

/* Uniform in [-a, a] with a chosen so that W x keeps x's scale. */
static float *random_matrix(uint64_t *s, long rows, long cols) {
    float *w = malloc(sizeof(float) * (size_t)(rows * cols));
    if (!w) return NULL;
    float a = sqrtf(3.0f / (float)cols);
    for (long i = 0; i < rows * cols; i++)
        w[i] = a * (2.0f * (float)(rng_next(s) >> 40) / (float)(1 << 24) - 1.0f);
    return w;
}

static float *ones(long n) {
    float *v = malloc(sizeof(float) * (size_t)n);
    if (v)
        for (long i = 0; i < n; i++) v[i] = 1.0f;
    return v;
}

double model_bytes(const struct model_config *c) {
    double d = c->dim, ffn = 4.0 * d;
    double per_layer = 4 * d * d + 2 * ffn * d + 2 * (double)c->ctx * d + 2 * d;
    double acts = 6 * d + ffn + (d / 32) * c->ctx + c->vocab;
    return 4.0 * ((double)c->vocab * d + d + c->layers * per_layer + acts);
}

int model_init(struct model *m, const struct model_config *c, struct pool *pool) {
    memset(m, 0, sizeof *m);
    m->c = *c;
    m->pool = pool;
    m->hd = c->dim % 64 == 0 ? 64 : 32;
    m->heads = c->dim / m->hd;
    m->ffn = 4 * c->dim;
    uint64_t s = c->seed ? c->seed : 1;
    long d = c->dim, f = m->ffn;
    m->emb = random_matrix(&s, c->vocab, d);
    m->out_norm = ones(d);
    m->l = calloc((size_t)c->layers, sizeof *m->l);
    m->x = calloc((size_t)d, sizeof(float));
    m->xn = calloc((size_t)d, sizeof(float));
    m->q = calloc((size_t)d, sizeof(float));
    m->att = calloc((size_t)d, sizeof(float));
    m->h = calloc((size_t)f, sizeof(float));
    m->scores = calloc((size_t)m->heads * (size_t)c->ctx, sizeof(float));
    m->logits = calloc((size_t)c->vocab, sizeof(float));
    if (!m->emb || !m->out_norm || !m->l || !m->x || !m->xn || !m->q || !m->att || !m->h || !m->scores ||
        !m->logits)
        return -1;
    for (int i = 0; i < c->layers; i++) {
        struct layer *l = &m->l[i];
        l->attn_norm = ones(d);
        l->ffn_norm = ones(d);
        for (int w = 0; w < W_COUNT; w++) {
            l->w[w] = random_matrix(&s, w == W_UP ? f : d, w == W_DOWN ? f : d);
            if (!l->w[w]) return -1;
            snprintf(l->op_name[w], sizeof l->op_name[w], "matmul_blk.%d.%s", i, w_suffix[w]);
        }
        snprintf(l->blk_name, sizeof l->blk_name, "blk.%d", i);
        l->kc = calloc((size_t)(c->ctx * d), sizeof(float));
        l->vc = calloc((size_t)(c->ctx * d), sizeof(float));
        if (!l->attn_norm || !l->ffn_norm || !l->kc || !l->vc) return -1;
    }
    m->token = (int)(rng_next(&s) % (uint64_t)c->vocab);
    return 0;
}

void model_free(struct model *m) {
    if (m->l)
        for (int i = 0; i < m->c.layers; i++) {
            struct layer *l = &m->l[i];
            free(l->attn_norm);
            free(l->ffn_norm);
            for (int w = 0; w < W_COUNT; w++) free(l->w[w]);
            free(l->kc);
            free(l->vc);
        }
    free(m->l);
    free(m->emb);
    free(m->out_norm);
    free(m->x);
    free(m->xn);
    free(m->q);
    free(m->att);
    free(m->h);
    free(m->scores);
    free(m->logits);
    memset(m, 0, sizeof *m);
}

double model_kv_kib(const struct model *m) {
    return 2.0 * m->c.layers * m->pos * m->c.dim * sizeof(float) / 1024.0;
}

/* ---- the worker side ---------------------------------------------------- */

/* The flow arrow from the scheduler ends (or passes) in this slice; the
 * scheduler's own slices (thread 0) have none. */
static void flow_mark(const struct op *op, int worker) {
    if (worker == 0) return;
    if (op->flow_phase == REC_EV_FLOW_STEP) REC_FLOW_STEP(op->flow + (uint64_t)worker);
    else if (op->flow_phase == REC_EV_FLOW_END) REC_FLOW_END(op->flow + (uint64_t)worker);
}

void model_op_slice(void *task, int worker, int n_workers) {
    const struct op *op = task;
    int r0, r1;
    pool_split(op->rows, worker, n_workers, &r0, &r1);
    if (r0 == r1) return;
    const struct model *m = op->m;
    int pos = m->pos, ctx = m->c.ctx, dim = m->c.dim;
    switch (op->kind) {
    case OP_MATMUL: {
        REC_SCOPE("matmul");
        REC_SCOPE_DYN(op->name);
        flow_mark(op, worker);
        k_matmul(op->y, op->w, op->x, op->n, r0, r1, op->accumulate);
        break;
    }
    case OP_RMS_NORM: {
        REC_SCOPE("rms_norm");
        flow_mark(op, worker);
        k_rms_norm(op->y, op->x, op->g, dim);
        break;
    }
    case OP_ROPE: {
        REC_SCOPE("rope");
        flow_mark(op, worker);
        k_rope(m->q, op->l->kc + (long)pos * dim, m->hd, pos, r0, r1);
        break;
    }
    case OP_ATTN_SCORES: {
        REC_SCOPE("attn_scores");
        flow_mark(op, worker);
        k_attn_scores(m->scores, m->q, op->l->kc, dim, m->hd, ctx, pos, r0, r1);
        break;
    }
    case OP_SOFTMAX: {
        REC_SCOPE("softmax");
        flow_mark(op, worker);
        k_softmax(m->scores, ctx, pos, r0, r1);
        break;
    }
    case OP_ATTN_VALUES: {
        REC_SCOPE("attn_values");
        flow_mark(op, worker);
        k_attn_values(m->att, m->scores, op->l->vc, dim, m->hd, ctx, pos, r0, r1);
        break;
    }
    case OP_GELU: {
        REC_SCOPE("gelu");
        flow_mark(op, worker);
        k_gelu(op->y, r0, r1);
        break;
    }
    }
}

/* ---- the scheduler side ------------------------------------------------- */

/* Hands an op to the pool, does the scheduler's share, and waits for the
 * others (the barrier).  new_flow starts one flow per other thread that
 * gets rows; otherwise the op continues the flows of the op before it. */
static void dispatch(struct model *m, struct op *op, int new_flow, unsigned phase) {
    struct pool *p = m->pool;
    if (new_flow) {
        op->flow = ++m->flow_seq << 8;  /* at most 255 threads (options.c) */
        for (int w = 1; w < p->n; w++) {
            int r0, r1;
            pool_split(op->rows, w, p->n, &r0, &r1);
            if (r0 < r1) REC_FLOW_BEGIN(op->flow + (uint64_t)w);
        }
    }
    op->flow_phase = phase;
    op->m = m;
    pool_run(p, op);
}

static void matmul(struct model *m, const char *name, float *y, const float *w, const float *x, int rows,
                   int n, int accumulate) {
    struct op op = {.kind = OP_MATMUL, .name = name, .rows = rows, .y = y, .w = w, .x = x, .n = n,
                    .accumulate = accumulate};
    dispatch(m, &op, 1, REC_EV_FLOW_END);
}

static void rms_norm(struct model *m, float *y, const float *x, const float *g) {
    struct op op = {.kind = OP_RMS_NORM, .rows = 1, .y = y, .x = x, .g = g};
    dispatch(m, &op, 1, REC_EV_FLOW_END);
}

static void layer_step(struct model *m, struct layer *l) {
    REC_SCOPE_DYN(l->blk_name);
    int d = m->c.dim;
    float *k = l->kc + (long)m->pos * d, *v = l->vc + (long)m->pos * d;

    rms_norm(m, m->xn, m->x, l->attn_norm);
    matmul(m, l->op_name[W_Q], m->q, l->w[W_Q], m->xn, d, d, 0);
    matmul(m, l->op_name[W_K], k, l->w[W_K], m->xn, d, d, 0);
    matmul(m, l->op_name[W_V], v, l->w[W_V], m->xn, d, d, 0);
    struct op rope = {.kind = OP_ROPE, .rows = m->heads, .l = l};
    dispatch(m, &rope, 1, REC_EV_FLOW_END);

    /* Attention: one flow per worker through its heads' three phases. */
    struct op att = {.kind = OP_ATTN_SCORES, .rows = m->heads, .l = l};
    dispatch(m, &att, 1, REC_EV_FLOW_STEP);
    att.kind = OP_SOFTMAX;
    dispatch(m, &att, 0, REC_EV_FLOW_STEP);
    att.kind = OP_ATTN_VALUES;
    dispatch(m, &att, 0, REC_EV_FLOW_END);
    matmul(m, l->op_name[W_O], m->x, l->w[W_O], m->att, d, d, 1);

    /* MLP */
    rms_norm(m, m->xn, m->x, l->ffn_norm);
    matmul(m, l->op_name[W_UP], m->h, l->w[W_UP], m->xn, m->ffn, d, 0);
    struct op gelu = {.kind = OP_GELU, .rows = m->ffn, .y = m->h};
    dispatch(m, &gelu, 1, REC_EV_FLOW_END);
    matmul(m, l->op_name[W_DOWN], m->x, l->w[W_DOWN], m->h, d, m->ffn, 1);
}

int model_step(struct model *m) {
    int d = m->c.dim;
    if (m->pos == m->c.ctx) {  /* the cache is full: a new sequence */
        m->pos = 0;
        m->seq++;
        char msg[32];
        snprintf(msg, sizeof msg, "sequence %d", m->seq);
        REC_INSTANT("new_sequence", msg);
    }
    {
        REC_SCOPE("get_rows");
        memcpy(m->x, m->emb + (long)m->token * d, sizeof(float) * (size_t)d);
    }
    {
        REC_SCOPE("graph_compute");
        for (int i = 0; i < m->c.layers; i++) layer_step(m, &m->l[i]);
        rms_norm(m, m->xn, m->x, m->out_norm);
        matmul(m, "matmul_output", m->logits, m->emb, m->xn, m->c.vocab, d, 0);
    }
    {
        REC_SCOPE("sample");
        int best = 0;
        for (int i = 1; i < m->c.vocab; i++)
            if (m->logits[i] > m->logits[best]) best = i;
        m->token = best;
    }
    m->pos++;
    return m->token;
}
