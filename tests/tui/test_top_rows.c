/*
 * test_top_rows.c -- top_rows.c: filtering by substring and sorting by
 * every column, both ways, with a stable tie-break.
 */
#include <string.h>
#include <strings.h>

#include "check.h"
#include "top_rows.h"

static struct rec_stat row(uint32_t id, const char *name, double calls, double total, double self, double p99) {
    struct rec_stat r;
    memset(&r, 0, sizeof r);
    r.name_id = id;
    r.name = name;
    r.calls_per_sec = calls;
    r.calls = (uint64_t)(1000 - calls);   /* another order than the rate's */
    r.p95_ns = p99 / 2;
    r.total_ns = total;
    r.self_ns = self;
    r.avg_ns = total / (calls ? calls : 1);
    r.p50_ns = r.avg_ns;
    r.p99_ns = p99;
    r.max_ns = p99 * 2;
    return r;
}

static int order(const struct rec_stat *r, size_t n, const char *want) {
    char got[128] = "";
    for (size_t i = 0; i < n; i++) {
        strcat(got, r[i].name);
        if (i + 1 < n) strcat(got, ",");
    }
    if (strcmp(got, want)) fprintf(stderr, "order %s, want %s\n", got, want);
    return !strcmp(got, want);
}

int main(void) {
    struct rec_stat r[5] = {
        row(1, "matmul", 100, 500, 400, 9),
        row(2, "softmax", 300, 100, 100, 3),
        row(3, "attn", 50, 900, 50, 30),
        row(4, "MatMul_q", 10, 100, 100, 1),
        row(5, "load", 1, 50, 50, 100),
    };
    top_rows_sort(r, 5, TOP_TOTAL, 0);
    CHECK(order(r, 5, "attn,matmul,MatMul_q,softmax,load"));   /* tie 100: by name */
    top_rows_sort(r, 5, TOP_TOTAL, 1);
    CHECK(order(r, 5, "load,MatMul_q,softmax,matmul,attn"));   /* ties stay A to Z */
    top_rows_sort(r, 5, TOP_NAME, 0);
    CHECK(order(r, 5, "MatMul_q,attn,load,matmul,softmax"));   /* bytewise */
    top_rows_sort(r, 5, TOP_RATE, 0);
    CHECK(order(r, 5, "softmax,matmul,attn,MatMul_q,load"));
    top_rows_sort(r, 5, TOP_CALLS, 0);
    CHECK(order(r, 5, "load,MatMul_q,attn,matmul,softmax"));
    top_rows_sort(r, 5, TOP_P95, 0);
    CHECK(order(r, 5, "load,attn,matmul,softmax,MatMul_q"));
    top_rows_sort(r, 5, TOP_SELF, 0);
    CHECK(order(r, 5, "matmul,MatMul_q,softmax,attn,load"));
    top_rows_sort(r, 5, TOP_P99, 0);
    CHECK(order(r, 5, "load,attn,matmul,softmax,MatMul_q"));
    top_rows_sort(r, 5, TOP_MAX, 1);
    CHECK(order(r, 5, "MatMul_q,softmax,matmul,attn,load"));
    CHECK(top_col_value(&r[0], TOP_AVG) == r[0].avg_ns);
    CHECK(top_col_value(&r[0], TOP_P50) == r[0].p50_ns);

    /* Filter: case-insensitive, order kept. */
    top_rows_sort(r, 5, TOP_TOTAL, 0);
    size_t n = top_rows_filter(r, 5, "matmul");
    CHECK_EQ_U(n, 2);
    CHECK(order(r, n, "matmul,MatMul_q"));
    CHECK_EQ_U(top_rows_filter(r, n, ""), 2);
    CHECK_EQ_U(top_rows_filter(r, n, NULL), 2);
    CHECK_EQ_U(top_rows_filter(r, n, "zzz"), 0);
    CHECK(!strcmp(top_col_title[TOP_P99], "P99"));
    /* recorder-web's names, in its order (viewer-web/page/index.html). */
    static const char *const web[TOP_NCOLS] = {"scope", "calls", "calls/s", "total%", "self%",
                                               "avg", "p50", "p95", "p99", "max"};
    for (int c = 0; c < TOP_NCOLS; c++) CHECK(!strcasecmp(top_col_title[c], web[c]));
    CHECK_DONE();
}
