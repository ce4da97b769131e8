/*
 * test_fold.c -- folding layer numbers out of names (docs/analysis.md,
 * "Folding layer numbers"): the textual rule, and rec_model_stats with
 * fold on merging ffn_up-0 ... ffn_up-3 into one row whose counts, sums
 * and percentiles are the layers' together.
 */
#include <stdio.h>
#include <string.h>

#include "check.h"
#include "model_util.h"

#define US 1000ull

static void fold_is(const char *in, const char *want) {
    char out[64];
    size_t n = rec_name_fold(in, out, sizeof out);
    if (strcmp(out, want) != 0 || n != strlen(want)) {
        fprintf(stderr, "fold(\"%s\") = \"%s\" (%zu), want \"%s\"\n", in, out, n, want);
        CHECK(0);
    } else {
        CHECK(1);
    }
}

static void test_rule(void) {
    fold_is("ffn_up-0", "ffn_up-*");
    fold_is("ffn_up-31", "ffn_up-*");
    fold_is("blk.3.attn_q", "blk.*.attn_q");
    fold_is("blk.12.ffn_down.weight", "blk.*.ffn_down.weight");
    fold_is("Qcur-6", "Qcur-*");
    fold_is("Qcur-6 (view) (permuted)", "Qcur-* (view) (permuted)");   /* flash attention's input */
    fold_is("x-1\t", "x-1\t");          /* a space, not any blank */
    fold_is("node_21", "node_*");
    fold_is("a-12-3", "a-*-*");
    fold_is("MUL_MAT", "MUL_MAT");
    fold_is("x3", "x3");                 /* not after a separator */
    fold_is("layer-1b", "layer-1b");     /* not a whole run before the end or a separator */
    fold_is("42", "42");                 /* nothing before it */
    fold_is("v2.0", "v2.*");             /* the 2 follows 'v', the 0 a '.' */
    fold_is("", "");
    /* Truncation behaves as snprintf: the full length is returned. */
    char small[5];
    CHECK_EQ_U(rec_name_fold("ffn_up-17", small, sizeof small), 8);
    CHECK(strcmp(small, "ffn_") == 0);
    CHECK_EQ_U(rec_name_fold("ffn_up-17", NULL, 0), 8);
}

/* Four layers of ffn_up with 1, 2, 3, 4 us calls and one MUL_MAT. */
static void test_stats(void) {
    rec_model *m = tu_model(0, 0);
    tu_start(m, 0, 0, 7, 1);
    uint64_t t = 0;
    const char *layer[4] = {"ffn_up-0", "ffn_up-1", "ffn_up-2", "ffn_up-3"};
    for (int rep = 0; rep < 10; rep++)
        for (int l = 0; l < 4; l++) {
            TU_B(m, 0, t, layer[l]);
            TU_E(m, 0, t + (uint64_t)(l + 1) * US, layer[l]);
            t += 10 * US;
        }
    TU_B(m, 0, t, "MUL_MAT");
    TU_E(m, 0, t + 100 * US, "MUL_MAT");
    rec_model_set_now(m, (double)(t + 200 * US));
    struct rec_stat st[8];
    size_t n_all;
    CHECK(!rec_model_fold(m));
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &n_all) == 5);

    rec_model_set_fold(m, 1);
    CHECK(rec_model_fold(m));
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &n_all) == 2);
    const struct rec_stat *f = strcmp(st[0].name, "ffn_up-*") == 0 ? &st[0] : &st[1];
    REQUIRE(strcmp(f->name, "ffn_up-*") == 0);
    CHECK_EQ_U(f->calls, 40);
    CHECK(f->total_ns > 99.9 * US && f->total_ns < 100.1 * US);   /* 10 x (1+2+3+4) us */
    CHECK(f->min_ns > 0.99 * US && f->min_ns < 1.01 * US);
    CHECK(f->max_ns > 3.99 * US && f->max_ns < 4.01 * US);
    /* The merged histogram: half the calls take 2 us or less. */
    CHECK(f->p50_ns > 1.9 * US && f->p50_ns < 2.1 * US);
    CHECK(f->p99_ns > 3.8 * US);
    const struct rec_stat *mm = f == &st[0] ? &st[1] : &st[0];
    CHECK(strcmp(mm->name, "MUL_MAT") == 0);
    CHECK_EQ_U(mm->calls, 1);

    /* Per thread too, and off again gives the layers back. */
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, 7, st, 8, &n_all) == 2);
    rec_model_set_fold(m, 0);
    REQUIRE(rec_model_stats(m, REC_WIN_ALL, -1, st, 8, &n_all) == 5);
    rec_model_free(m);
}

int main(void) {
    test_rule();
    test_stats();
    CHECK_DONE();
}
