/*
 * kernels.h -- the arithmetic of the toy transformer, on row ranges.
 *
 * Every kernel computes rows [r0, r1) of its output and nothing else, so
 * the thread pool can hand disjoint row ranges to its workers, as ggml
 * does.  No kernel records events: the caller wraps each slice in a scope.
 */
#ifndef INFERENCE_KERNELS_H
#define INFERENCE_KERNELS_H

/* y[r] (+)= W[r] . x for r in [r0, r1); W is rows x n, row-major. */
void k_matmul(float *y, const float *w, const float *x, int n, int r0, int r1, int accumulate);

/* y = x / rms(x) * g (one row of n). */
void k_rms_norm(float *y, const float *x, const float *g, int n);

/* Rotary position embedding of heads [h0, h1) of q and k (head size hd). */
void k_rope(float *q, float *k, int hd, int pos, int h0, int h1);

/* scores[h][t] = q_h . K[t]_h / sqrt(hd) for t <= pos, heads [h0, h1).
 * K is the layer's key cache: ctx rows of dim floats. */
void k_attn_scores(float *scores, const float *q, const float *kc, int dim, int hd, int ctx, int pos,
                   int h0, int h1);

/* Softmax of scores[h][0..pos] in place, heads [h0, h1). */
void k_softmax(float *scores, int ctx, int pos, int h0, int h1);

/* out_h = sum_t scores[h][t] V[t]_h, heads [h0, h1). */
void k_attn_values(float *out, const float *scores, const float *vc, int dim, int hd, int ctx, int pos,
                   int h0, int h1);

/* x[i] = gelu(x[i]) for i in [i0, i1). */
void k_gelu(float *x, int i0, int i1);

#endif
