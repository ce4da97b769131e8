/*
 * test_filters.c -- RECORDER_FILTER and RECORDER_FILTER_OUT.
 *
 * Each configuration runs in a child (the environment is read once).  The
 * child records four names through every macro (static and dynamic scopes,
 * instants with and without a message, counters, REC_BEGIN/REC_END and
 * REC_BEGIN_DYN/REC_END), twice so that cached call sites and the dynamic
 * name cache are exercised, then prints what its own ring holds.  The
 * parent compares that with what the rule says: a name is kept if it
 * contains an item of FILTER (or FILTER is unset) and no item of
 * FILTER_OUT.
 *
 * The child starts with all four names nested with REC_BEGIN before any
 * other event: whatever is filtered, every recorded END has its BEGIN.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "segread.h"
#include "spawn.h"

static const char *const names[4] = {"alpha.compute", "beta.compute", "alpha.io", "gamma"};

#define EMIT_ALL(lit)                                    \
    do {                                                 \
        char d_[32];                                     \
        snprintf(d_, sizeof d_, "%s", lit);              \
        { REC_SCOPE(lit); }                              \
        { REC_SCOPE_DYN(d_); }                           \
        REC_INSTANT(lit);                                \
        REC_INSTANT(lit, "msg");                         \
        REC_COUNTER(lit, 1);                             \
        REC_BEGIN(lit);                                  \
        REC_END();                                       \
        REC_BEGIN_DYN(d_);                               \
        REC_END();                                       \
    } while (0)

static int child(void) {
    /* Nested explicit pairs first, static then dynamic names. */
    REC_BEGIN("alpha.compute");
    REC_BEGIN("beta.compute");
    REC_BEGIN("alpha.io");
    REC_BEGIN("gamma");
    REC_END();
    REC_END();
    REC_END();
    REC_END();
    for (int i = 0; i < 4; i++) REC_BEGIN_DYN(names[i]);
    for (int i = 0; i < 4; i++) REC_END();
    for (int rep = 0; rep < 2; rep++) {
        EMIT_ALL("alpha.compute");
        EMIT_ALL("beta.compute");
        EMIT_ALL("alpha.io");
        EMIT_ALL("gamma");
    }
    if (rec_init() != 0) return 3;
    rec_seg *s;
    char err[256];
    if (rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) != REC_OK) return 4;
    int slot = slot_of_tid(s, (int)gettid());
    if (slot >= 0) {
        struct evlist l = {0};
        if (evlist_drain(s, (uint32_t)slot, &l) != 0 || l.overwritten || l.bad) return 5;
        for (size_t k = 0; k < l.n; k++) {
            const struct rec_event *e = &l.ev[k];
            const char *n = e->name_id ? ev_name(s, e) : "-";
            switch (e->type) {
            case REC_EV_BEGIN: printf("B %s\n", n); break;
            case REC_EV_END: printf("E %s\n", n); break;
            case REC_EV_INSTANT: printf("I %s %s\n", n, e->msg); break;
            case REC_EV_COUNTER: printf("C %s %g\n", n, e->value); break;
            default: break;
            }
        }
        evlist_free(&l);
    }
    rec_seg_close(s);
    return 0;
}

struct config {
    const char *filter, *filter_out;
    unsigned keep;            /* bit i: names[i] is kept */
};

static void append(char **p, const char *fmt, const char *name) {
    *p += sprintf(*p, fmt, name);
}

static void expected(unsigned keep, char *out) {
    char *p = out;
    *p = 0;
    for (int pass = 0; pass < 2; pass++) {  /* static, then dynamic */
        int kept = 0;
        for (int i = 0; i < 4; i++)
            if (keep & (1u << i)) {
                append(&p, "B %s\n", names[i]);
                kept++;
            }
        for (int i = 0; i < kept; i++) append(&p, "E %s\n", "-");
    }
    for (int rep = 0; rep < 2; rep++)
        for (int i = 0; i < 4; i++) {
            if (!(keep & (1u << i))) continue;
            const char *n = names[i];
            append(&p, "B %s\n", n);
            append(&p, "E %s\n", n);
            append(&p, "B %s\n", n);
            append(&p, "E %s\n", n);
            append(&p, "I %s \n", n);
            append(&p, "I %s msg\n", n);
            append(&p, "C %s 1\n", n);
            append(&p, "B %s\nE -\n", n);
            append(&p, "B %s\nE -\n", n);
        }
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "child")) return child();
    static const struct config cfgs[] = {
        {NULL, NULL, 0xf},
        {"alpha", NULL, 0x5},
        {"alpha,gamma", NULL, 0xd},
        {NULL, "io", 0xb},               /* FILTER_OUT alone: all but those */
        {NULL, "alpha,gam", 0x2},
        {"compute", "beta", 0x1},
        {",,gamma,,", NULL, 0x8},        /* empty items are skipped */
        {"zzz", NULL, 0x0},
        {NULL, ".", 0x8},
        {"", "", 0xf},                   /* set but empty: no filter */
    };
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        char f[128], fo[128];
        const char *env[3];
        int k = 0;
        if (cfgs[c].filter) {
            snprintf(f, sizeof f, "RECORDER_FILTER=%s", cfgs[c].filter);
            env[k++] = f;
        }
        if (cfgs[c].filter_out) {
            snprintf(fo, sizeof fo, "RECORDER_FILTER_OUT=%s", cfgs[c].filter_out);
            env[k++] = fo;
        }
        env[k] = NULL;
        char *cargv[] = {argv[0], (char *)"child", NULL};
        char *out = NULL, *err = NULL;
        int st = child_run("/proc/self/exe", cargv, env, &out, &err);
        static char want[16384];
        expected(cfgs[c].keep, want);
        int ok = st == 0 && !strcmp(out, want) && !*err;
        if (!ok)
            fprintf(stderr, "config %zu (FILTER=%s FILTER_OUT=%s): exit %d\n--- got:\n%s--- want:\n%s--- stderr:\n%s\n",
                    c, cfgs[c].filter ? cfgs[c].filter : "(unset)", cfgs[c].filter_out ? cfgs[c].filter_out : "(unset)",
                    st, out, want, err);
        CHECK(ok);
        free(out);
        free(err);
    }
    CHECK_DONE();
}
