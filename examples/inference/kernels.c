/*
 * kernels.c -- plain C loops; fast enough for a demo, slow enough that the
 * matrix products dominate a flame graph the way they do in a real model.
 */
#include "kernels.h"

#include <math.h>

/* Eight partial sums let the compiler overlap the multiply-adds without
 * -ffast-math. */
static float dot(const float *a, const float *b, int n) {
    float s[8] = {0, 0, 0, 0, 0, 0, 0, 0};
    int i = 0;
    for (; i + 8 <= n; i += 8)
        for (int j = 0; j < 8; j++) s[j] += a[i + j] * b[i + j];
    for (; i < n; i++) s[0] += a[i] * b[i];
    return ((s[0] + s[1]) + (s[2] + s[3])) + ((s[4] + s[5]) + (s[6] + s[7]));
}

void k_matmul(float *y, const float *w, const float *x, int n, int r0, int r1, int accumulate) {
    for (int r = r0; r < r1; r++) {
        float v = dot(w + (long)r * n, x, n);
        y[r] = accumulate ? y[r] + v : v;
    }
}

void k_rms_norm(float *y, const float *x, const float *g, int n) {
    float ss = dot(x, x, n) / (float)n;
    float inv = 1.0f / sqrtf(ss + 1e-6f);
    for (int i = 0; i < n; i++) y[i] = x[i] * inv * g[i];
}

void k_rope(float *q, float *k, int hd, int pos, int h0, int h1) {
    for (int h = h0; h < h1; h++)
        for (int i = 0; i < hd; i += 2) {
            float theta = (float)pos * powf(10000.0f, -(float)i / (float)hd);
            float c = cosf(theta), s = sinf(theta);
            float *vs[2] = {q + h * hd + i, k + h * hd + i};
            for (int j = 0; j < 2; j++) {
                float a = vs[j][0], b = vs[j][1];
                vs[j][0] = a * c - b * s;
                vs[j][1] = a * s + b * c;
            }
        }
}

void k_attn_scores(float *scores, const float *q, const float *kc, int dim, int hd, int ctx, int pos,
                   int h0, int h1) {
    float scale = 1.0f / sqrtf((float)hd);
    for (int h = h0; h < h1; h++)
        for (int t = 0; t <= pos; t++)
            scores[(long)h * ctx + t] = dot(q + h * hd, kc + (long)t * dim + h * hd, hd) * scale;
}

void k_softmax(float *scores, int ctx, int pos, int h0, int h1) {
    for (int h = h0; h < h1; h++) {
        float *s = scores + (long)h * ctx, max = s[0], sum = 0;
        for (int t = 1; t <= pos; t++) max = s[t] > max ? s[t] : max;
        for (int t = 0; t <= pos; t++) sum += s[t] = expf(s[t] - max);
        for (int t = 0; t <= pos; t++) s[t] /= sum;
    }
}

void k_attn_values(float *out, const float *scores, const float *vc, int dim, int hd, int ctx, int pos,
                   int h0, int h1) {
    for (int h = h0; h < h1; h++) {
        float *o = out + h * hd;
        for (int i = 0; i < hd; i++) o[i] = 0;
        for (int t = 0; t <= pos; t++) {
            float a = scores[(long)h * ctx + t];
            const float *v = vc + (long)t * dim + h * hd;
            for (int i = 0; i < hd; i++) o[i] += a * v[i];
        }
    }
}

void k_gelu(float *x, int i0, int i1) {
    for (int i = i0; i < i1; i++) {
        float v = x[i];
        x[i] = 0.5f * v * (1.0f + tanhf(0.7978845608f * (v + 0.044715f * v * v * v)));
    }
}
