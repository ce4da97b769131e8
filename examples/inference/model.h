/*
 * model.h -- a toy decoder-only transformer with random weights: the same
 * ops, in the same order, as one decode step of a llama-style model, at a
 * size that runs tens of tokens per second on a laptop core.
 */
#ifndef INFERENCE_MODEL_H
#define INFERENCE_MODEL_H

#include <stddef.h>
#include <stdint.h>

#include "pool.h"

struct model_config {
    int layers;
    int dim;
    int ctx;                   /* KV-cache length; a full cache starts a new sequence */
    int vocab;
    uint64_t seed;
};

/* The weights' name suffixes, as llama.cpp names its tensors. */
enum { W_Q, W_K, W_V, W_O, W_UP, W_DOWN, W_COUNT };

struct layer {
    float *attn_norm, *ffn_norm;       /* dim */
    float *w[W_COUNT];                 /* W_UP: ffn x dim, W_DOWN: dim x ffn, others dim x dim */
    float *kc, *vc;                    /* KV cache: ctx x dim each */
    char op_name[W_COUNT][40];         /* "matmul_blk.3.attn_q", ... */
    char blk_name[16];                 /* "blk.3" */
};

struct model {
    struct model_config c;
    int hd, heads, ffn;
    float *emb;                        /* vocab x dim, tied with the output projection */
    float *out_norm;
    struct layer *l;
    float *x, *xn, *q, *att, *h, *scores, *logits;
    int pos;                           /* tokens in the KV cache */
    int seq;                           /* sequences started */
    int token;                         /* the last token produced */
    uint64_t flow_seq;                 /* source of flow ids */
    struct pool *pool;
};

/* Bytes of memory a model of this configuration needs. */
double model_bytes(const struct model_config *c);
/* Allocates and fills the weights; 0 on success. */
int model_init(struct model *m, const struct model_config *c, struct pool *pool);
void model_free(struct model *m);
/* The worker side: runs its share of one op (a struct op). */
void model_op_slice(void *op, int worker, int n_workers);
/* One decode step on the calling (scheduler) thread; returns the token. */
int model_step(struct model *m);
/* KV-cache size in KiB. */
double model_kv_kib(const struct model *m);

#endif
