/*
 * test_arg_entries.c -- scope arguments (REC_EV_ARG) from entries we do
 * not trust: a length past REC_MSG_MAX, continuations missing, a stray
 * continuation are skipped and counted as bad, never read past; the good
 * ones reach the slice's E in the JSON export, through the decoded path
 * and the fused one (rec_model_feed_entries) alike, and one with no
 * scope open is counted (args_outside), not shown.
 */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check.h"
#include "model_util.h"

static struct rec_entry ent[32];
static size_t n;

static void put(uint64_t w0, uint64_t w1) { ent[n++] = (struct rec_entry){w0, w1}; }
static uint64_t word(unsigned type, uint64_t low) { return (uint64_t)type << 56 | low; }
static void text(const char *s) {   /* one CONT of up to 15 bytes */
    unsigned char c[16] = {0};
    memcpy(c, s, strnlen(s, 15));
    uint64_t w0, w1;
    memcpy(&w0, c, 8);
    memcpy(&w1, c + 8, 8);
    put(w0, (w1 & ((UINT64_C(1) << 56) - 1)) | (uint64_t)REC_EV_CONT << 56);
}

static char *export_json(rec_model *m) {
    char *buf = NULL;
    size_t len;
    FILE *f = open_memstream(&buf, &len);
    REQUIRE(f);
    struct rec_export_opts o;
    memset(&o, 0, sizeof o);
    REQUIRE(rec_export_json(m, f, &o) == 0);
    fclose(f);
    return buf;
}

int main(void) {
    uint32_t op = tu_id("mul_mat"), shape = tu_id("shape"), type = tu_id("type");
    put(1000, word(REC_EV_THREAD_START, (uint64_t)1 << 32 | 100));
    put(2000, word(REC_EV_BEGIN, op));
    put(2100, word(REC_EV_ARG, (uint64_t)11 << 32 | shape));
    text("4096x32x1x1");
    put(2200, word(REC_EV_ARG, (uint64_t)200 << 32 | type));          /* length past 45: bad */
    put(2300, word(REC_EV_ARG, (uint64_t)46 << 32 | type));           /* just past: bad */
    put(2400, word(REC_EV_ARG, (uint64_t)20 << 32 | type));           /* needs 2 CONT, has 1: bad */
    text("q8_0 and more..");
    put(2500, word(REC_EV_ARG, (uint64_t)4 << 32 | type));
    text("q8_0");
    put(3000, word(REC_EV_END, op));
    put(4000, word(REC_EV_ARG, (uint64_t)1 << 32 | type));            /* no scope open */
    text("x");
    put(5000, word(REC_EV_ARG, (uint64_t)45 << 32 | type));           /* cut by the end of the entries */
    text("123456789012345");

    /* rec_decode: 6 events; bad: 200, 46, the short one, its stray CONT,
     * and the one cut at the end (its span runs past) with its CONT. */
    struct rec_event ev[32];
    size_t used = 0;
    uint64_t bad = 0;
    size_t k = rec_decode(ent, n, 0, ev, 32, &used, &bad);
    CHECK_EQ_U(k, 6);
    CHECK_EQ_U(bad, 6);
    CHECK(ev[2].type == REC_EV_ARG && ev[2].name_id == shape && !strcmp(ev[2].msg, "4096x32x1x1"));
    CHECK(ev[3].type == REC_EV_ARG && ev[3].name_id == type && !strcmp(ev[3].msg, "q8_0"));
    CHECK(ev[5].type == REC_EV_ARG && !strcmp(ev[5].msg, "x"));

    /* Both feeding paths: the same JSON, the args on the E, the bad
     * entries and the arg outside counted. */
    char *out[2];
    for (int fused = 0; fused < 2; fused++) {
        rec_model *m = tu_model(1, 0);
        if (fused) {
            rec_model_feed_entries(m, 0, ent, n, 0, NULL);
        } else {
            rec_model_feed(m, 0, ev, k, NULL);
            rec_model_add_bad(m, 0, bad);
        }
        out[fused] = export_json(m);
        const struct rec_model_thread *th;
        REQUIRE(rec_model_threads(m, &th) == 1);
        CHECK_EQ_U(th[0].bad, 6);
        rec_model_free(m);
        CHECK(strstr(out[fused], "\"ph\":\"E\"") != NULL);
        CHECK(strstr(out[fused], "\"args\":{\"shape\":\"4096x32x1x1\",\"type\":\"q8_0\"}}") != NULL);
        CHECK(strstr(out[fused], "\"args_outside\":1") != NULL);
        CHECK(strstr(out[fused], "\"ph\":\"i\"") == NULL);   /* no arg shown as an instant */
    }
    CHECK(!strcmp(out[0], out[1]));
    free(out[0]);
    free(out[1]);
    CHECK_DONE();
}
