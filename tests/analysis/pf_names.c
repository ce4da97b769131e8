/*
 * pf_names.c OUTDIR -- a capture with many distinct names, for the
 * Perfetto exporter's interning (test_pf_names.py): it interns a name by
 * the source's string id, once per sequence, and every event must name
 * the right one.  Three threads take nested slices and instants of 6000
 * names in an order that mixes them (each name several times, on every
 * thread); every 13th id has no text in the source
 * (written as a plain "(id N)" string, never interned).  Written two
 * ways: from a model that kept its log (OUTDIR/log.pftrace) and streamed
 * (OUTDIR/stream.pftrace); OUTDIR/expect.txt lists, per thread, each
 * begin's and instant's name in time order ("tid kind name").
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "recorder/analysis.h"

#define N_NAMES 6000u
#define ID0 8u
#define THREADS 3
#define ROUNDS 2

static char texts[N_NAMES][24];

static const char *name_of(void *ctx, uint32_t id) {
    (void)ctx;
    if (id < ID0 || id >= ID0 + N_NAMES || (id - ID0) % 13 == 12) return NULL;
    return texts[id - ID0];
}

static FILE *expect;

static void ev(rec_model *m, uint32_t slot, unsigned type, uint64_t t, uint32_t id) {
    struct rec_event e;
    memset(&e, 0, sizeof e);
    e.type = type;
    e.ticks = t;
    e.name_id = id;
    rec_model_feed(m, slot, &e, 1, NULL);
}

static void label(int tid, const char *kind, uint32_t id) {
    if (!expect) return;
    const char *t = name_of(NULL, id);
    if (t) fprintf(expect, "%d %s %s\n", tid, kind, t);
    else fprintf(expect, "%d %s (id %u)\n", tid, kind, id);
}

/* Thread th visits the names in a stride of its own: every name, ROUNDS
 * times, nested two deep, with an instant now and then. */
static int feed(void *ctx, rec_model *m, int pass) {
    (void)ctx;
    (void)pass;
    for (int th = 0; th < THREADS; th++) {
        struct rec_event s;
        memset(&s, 0, sizeof s);
        s.type = REC_EV_THREAD_START;
        s.ticks = 1000;
        s.tid = 100 + th;
        s.gen = 1;
        rec_model_feed(m, (uint32_t)th, &s, 1, NULL);
    }
    for (int th = 0; th < THREADS; th++) {
        uint64_t t = 2000;
        static const uint32_t strides[THREADS] = {7, 11, 13};   /* coprime with N_NAMES */
        uint32_t stride = strides[th];
        for (uint32_t k = 0; k < N_NAMES * ROUNDS; k++) {
            uint32_t outer = ID0 + (k * stride) % N_NAMES, inner = ID0 + (k * stride + 1) % N_NAMES;
            ev(m, (uint32_t)th, REC_EV_BEGIN, t += 10, outer);
            label(100 + th, "B", outer);
            ev(m, (uint32_t)th, REC_EV_BEGIN, t += 10, inner);
            label(100 + th, "B", inner);
            if (k % 5 == 0) {
                ev(m, (uint32_t)th, REC_EV_INSTANT, t += 3, outer);
                label(100 + th, "i", outer);
            }
            ev(m, (uint32_t)th, REC_EV_END, t += 10, inner);
            ev(m, (uint32_t)th, REC_EV_END, t += 10, outer);
        }
    }
    if (expect) {   /* written once: the stream's second read writes nothing more */
        fclose(expect);
        expect = NULL;
    }
    return 0;
}

static void source(struct rec_source_info *src) {
    memset(src, 0, sizeof *src);
    src->pid = 4242;
    strcpy(src->process_name, "names");
    src->ticks_per_sec = 1e9;
}

static int write_log(const char *dir) {
    struct rec_source_info src;
    source(&src);
    struct rec_model_opts o = {(size_t)N_NAMES * ROUNDS * THREADS * 6, 1, ""};
    rec_model *m = rec_model_new(&src, name_of, NULL, &o);
    if (!m) return 1;
    char path[1024];
    snprintf(path, sizeof path, "%s/expect.txt", dir);
    expect = fopen(path, "w");
    if (!expect) return 1;
    feed(NULL, m, 0);
    snprintf(path, sizeof path, "%s/log.pftrace", dir);
    FILE *f = fopen(path, "wb");
    int rc = f && rec_export_perfetto(m, f, NULL) == 0 ? 0 : 1;
    if (f && fclose(f) != 0) rc = 1;
    rec_model_free(m);
    return rc;
}

static int write_stream(const char *dir) {
    struct rec_source_info src;
    source(&src);
    rec_export *x;
    char err[256], path[1024];
    if (rec_export_open(&src, name_of, NULL, feed, NULL, NULL, &x, err, sizeof err) != 0) {
        fprintf(stderr, "pf_names: %s\n", err);
        return 1;
    }
    snprintf(path, sizeof path, "%s/stream.pftrace", dir);
    FILE *f = fopen(path, "wb");
    int rc = f && rec_export_write(x, REC_EXPORT_PERFETTO, f, NULL, err, sizeof err) == 0 ? 0 : 1;
    if (f && fclose(f) != 0) rc = 1;
    rec_export_free(x);
    return rc;
}

int main(int argc, char **argv) {
    if (argc != 2) {
        fprintf(stderr, "usage: pf_names OUTDIR\n");
        return 2;
    }
    /* Every 7th a Python scope's name: shown as "fN", with file and line
     * as args on its begins (pyname.c). */
    for (uint32_t i = 0; i < N_NAMES; i++)
        if (i % 7 == 3) snprintf(texts[i], sizeof texts[i], "f%u (m.py:%u)", i, i + 1);
        else snprintf(texts[i], sizeof texts[i], "name-%u", i);
    if (write_log(argv[1]) != 0 || write_stream(argv[1]) != 0) {
        fprintf(stderr, "pf_names: export failed\n");
        return 1;
    }
    return 0;
}
