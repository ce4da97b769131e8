/*
 * test_filter_subtree.c -- subtree filters: RECORDER_FILTER items ending in
 * '/' and RECORDER_FILTER_MODE=subtree (docs/configuration.md, "Filters").
 *
 * A matched scope keeps what its thread records while it is open: nested
 * scopes, counters and instants whatever their names, for static and
 * run-time names, REC_SCOPE and REC_BEGIN/REC_END alike; a root nested in
 * another does not close the outer subtree when it ends; another thread
 * is not inside; RECORDER_FILTER_OUT wins inside; flows and thread names
 * are never filtered; name mode (the default) is the old behaviour.
 *
 * Each configuration runs in a child (the environment is read once).  The
 * child records the same sequence twice on its main thread (the first
 * pass resolves every call site and fills the name cache, the second runs
 * from them), while a worker thread records its own, then prints both
 * rings.  EVENTS below is the whole sequence, each line tagged with the
 * configurations that keep it; the parent compares.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <semaphore.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "segread.h"
#include "spawn.h"

/* Configurations, one letter each. */
static const struct config {
    char tag;
    const char *filter, *filter_out, *mode;
    const char *stderr_has, *stderr_has2;  /* warnings it must print; none if NULL */
} cfgs[] = {
    {'A', "MUL_MAT,llama_decode", NULL, NULL, NULL, NULL},              /* name mode: names only */
    {'B', "MUL_MAT/,llama_decode/", NULL, NULL, NULL, NULL},            /* both keep their subtrees */
    {'C', "MUL_MAT,llama_decode", NULL, "subtree", NULL, NULL},         /* the same, by the mode */
    {'D', "MUL_MAT/,llama_decode", NULL, NULL, NULL, NULL},             /* mixed */
    {'E', "MUL_MAT/,llama_decode/", "barrier,Kcur", NULL, NULL, NULL},  /* FILTER_OUT wins inside */
    {'F', NULL, NULL, "subtree", NULL, NULL},                           /* no FILTER: everything */
    {'G', "/,MUL_MAT/", NULL, "bogus", "RECORDER_FILTER_MODE", "only '/'"}, /* warnings; '/' ignored */
    {'H', "MUL_MAT,llama_decode", NULL, "name", NULL, NULL},            /* the default, spelt out */
};

/* The main thread's pass (recorded twice), then the worker's (twice). */
static const struct line {
    const char *text, *kept_by;
} MAIN[] = {
    {"C n_tokens 1", "F"},                       /* outside every subtree */
    {"I token a", "F"},
    {"B llama_decode", "ABCDEFH"},
    {"C n_tokens 2", "BCEF"},                    /* in llama_decode's subtree */
    {"B MUL_MAT", "ABCDEFGH"},                   /* a root inside a root: a plain scope */
    {"B Qcur-0", "BCDEFG"},
    {"E Qcur-0", "BCDEFG"},
    {"I fused MUL", "BCDEFG"},
    {"E MUL_MAT", "ABCDEFGH"},
    {"B barrier", "BCF"},                        /* llama_decode's subtree is still open */
    {"E barrier", "BCF"},
    {"B MUL_MAT", "ABCDEFGH"},                   /* REC_BEGIN of a root inside a subtree ... */
    {"E -", "ABCEFH"},                           /* ... is a plain pair there */
    {"E MUL_MAT", "DG"},
    {"C n_tokens 4", "BCEF"},                    /* and the outer subtree stays open */
    /* the worker records here */
    {"E llama_decode", "ABCDEFH"},
    {"B MUL_MAT", "ABCDEFGH"},                   /* a run-time root, a static child */
    {"B Kcur-0", "BCDFG"},
    {"E Kcur-0", "BCDFG"},
    {"E MUL_MAT", "ABCDEFGH"},
    {"B ROPE", "F"},                             /* not matched: its child is not kept */
    {"B Qcur-0", "F"},
    {"E Qcur-0", "F"},
    {"E ROPE", "F"},
    {"B MUL_MAT", "ABCDEFGH"},                   /* REC_BEGIN of a root */
    {"B Vcur-0", "BCDEFG"},
    {"B barrier", "BCDFG"},
    {"E -", "BCDFG"},
    {"E -", "BCDEFG"},
    {"E -", "AFH"},                              /* REC_END: "innermost" ... */
    {"E MUL_MAT", "BCDEG"},                      /* ... or the root it closes, by name */
    {"B llama_decode", "ABCDEFH"},               /* REC_BEGIN_DYN of a root */
    {"C n_outputs 1", "BCEF"},
    {"E -", "ADFH"},
    {"E llama_decode", "BCE"},
    {"F> 7", "ABCDEFGH"},                        /* flows: never filtered */
    {"I token b", "F"},                          /* outside again: every subtree closed */
    {"C n_tokens 3", "F"},
};
static const struct line WORKER[] = {
    {"B Qcur-1", "F"},                           /* main is in llama_decode: not this thread */
    {"E Qcur-1", "F"},
    {"B MUL_MAT", "ABCDEFGH"},
    {"B ffn_up-1", "BCDEFG"},
    {"E ffn_up-1", "BCDEFG"},
    {"E MUL_MAT", "ABCDEFGH"},
    {"F< 7", "ABCDEFGH"},
};
#define N_MAIN (sizeof MAIN / sizeof MAIN[0])
#define N_WORKER (sizeof WORKER / sizeof WORKER[0])

/* ---- the child ---------------------------------------------------------- */

static sem_t go, done;

/* A run-time name in a buffer of its own, rewritten each time. */
static const char *dyn(int slot, const char *text) {
    static char buf[8][32];
    snprintf(buf[slot], sizeof buf[slot], "%s", text);
    return buf[slot];
}

static void *worker(void *arg) {
    (void)arg;
    REC_THREAD_NAME("t-worker");
    for (int pass = 0; pass < 2; pass++) {
        sem_wait(&go);
        { REC_SCOPE_DYN(dyn(6, "Qcur-1")); }
        {
            REC_SCOPE("MUL_MAT");
            REC_SCOPE_DYN(dyn(7, "ffn_up-1"));
        }
        REC_FLOW_END(7);
        sem_post(&done);
    }
    return NULL;
}

static void main_pass(void) {
    REC_COUNTER("n_tokens", 1);
    REC_INSTANT("token", "a");
    {
        REC_SCOPE("llama_decode");
        REC_COUNTER("n_tokens", 2);
        {
            REC_SCOPE("MUL_MAT");
            { REC_SCOPE_DYN(dyn(0, "Qcur-0")); }
            REC_INSTANT("fused", "MUL");
        }
        { REC_SCOPE("barrier"); }
        REC_BEGIN("MUL_MAT");
        REC_END();
        REC_COUNTER("n_tokens", 4);
        sem_post(&go);
        sem_wait(&done);
    }
    {
        REC_SCOPE_DYN(dyn(1, "MUL_MAT"));
        REC_SCOPE("Kcur-0");
    }
    {
        REC_SCOPE_DYN(dyn(2, "ROPE"));
        REC_SCOPE_DYN(dyn(0, "Qcur-0"));
    }
    REC_BEGIN("MUL_MAT");
    REC_BEGIN_DYN(dyn(3, "Vcur-0"));
    REC_BEGIN("barrier");
    REC_END();
    REC_END();
    REC_END();
    REC_BEGIN_DYN(dyn(4, "llama_decode"));
    REC_COUNTER("n_outputs", 1);
    REC_END();
    REC_FLOW_BEGIN(7);
    REC_INSTANT("token", "b");
    REC_COUNTER("n_tokens", 3);
}

static int print_ring(rec_seg *s, int tid) {
    int slot = slot_of_tid(s, tid);
    if (slot < 0) return 0;
    struct evlist l = {0};
    if (evlist_drain(s, (uint32_t)slot, &l) != 0 || l.overwritten || l.bad) return -1;
    for (size_t k = 0; k < l.n; k++) {
        const struct rec_event *e = &l.ev[k];
        const char *n = e->name_id ? ev_name(s, e) : "-";
        switch (e->type) {
        case REC_EV_BEGIN: printf("B %s\n", n); break;
        case REC_EV_END: printf("E %s\n", n); break;
        case REC_EV_INSTANT: printf("I %s %s\n", n, e->msg); break;
        case REC_EV_COUNTER: printf("C %s %g\n", n, e->value); break;
        case REC_EV_THREAD_NAME:  /* ours; not the OS name recorded at attach */
            if (!strncmp(n, "t-", 2)) printf("N %s\n", n);
            break;
        case REC_EV_FLOW_BEGIN: printf("F> %llu\n", (unsigned long long)e->flow_id); break;
        case REC_EV_FLOW_END: printf("F< %llu\n", (unsigned long long)e->flow_id); break;
        default: break;
        }
    }
    evlist_free(&l);
    return 0;
}

static int worker_tid;
static void *worker_start(void *arg) {
    worker_tid = (int)gettid();
    return worker(arg);
}

static int child(void) {
    sem_init(&go, 0, 0);
    sem_init(&done, 0, 0);
    REC_THREAD_NAME("t-main");
    pthread_t w;
    if (pthread_create(&w, NULL, worker_start, NULL) != 0) return 2;
    for (int pass = 0; pass < 2; pass++) main_pass();
    pthread_join(w, NULL);
    if (rec_init() != 0) return 3;
    rec_seg *s;
    char err[256];
    if (rec_seg_open(rec_segment_path(), 0, &s, err, sizeof err) != REC_OK) return 4;
    printf("main\n");
    int rc = print_ring(s, (int)gettid());
    printf("worker\n");
    rc |= print_ring(s, worker_tid);
    rec_seg_close(s);
    return rc ? 5 : 0;
}

/* ---- the parent --------------------------------------------------------- */

static void expected(char tag, char *out) {
    char *p = out;
    p += sprintf(p, "main\nN t-main\n");
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < N_MAIN; i++)
            if (strchr(MAIN[i].kept_by, tag)) p += sprintf(p, "%s\n", MAIN[i].text);
    p += sprintf(p, "worker\nN t-worker\n");
    for (int pass = 0; pass < 2; pass++)
        for (size_t i = 0; i < N_WORKER; i++)
            if (strchr(WORKER[i].kept_by, tag)) p += sprintf(p, "%s\n", WORKER[i].text);
}

int main(int argc, char **argv) {
    if (argc > 1 && !strcmp(argv[1], "child")) return child();
    for (size_t c = 0; c < sizeof cfgs / sizeof cfgs[0]; c++) {
        char f[128], fo[128], m[128];
        const char *env[4];
        int k = 0;
        if (cfgs[c].filter) {
            snprintf(f, sizeof f, "RECORDER_FILTER=%s", cfgs[c].filter);
            env[k++] = f;
        }
        if (cfgs[c].filter_out) {
            snprintf(fo, sizeof fo, "RECORDER_FILTER_OUT=%s", cfgs[c].filter_out);
            env[k++] = fo;
        }
        if (cfgs[c].mode) {
            snprintf(m, sizeof m, "RECORDER_FILTER_MODE=%s", cfgs[c].mode);
            env[k++] = m;
        }
        env[k] = NULL;
        char *cargv[] = {argv[0], (char *)"child", NULL};
        char *out = NULL, *err = NULL;
        int st = child_run("/proc/self/exe", cargv, env, &out, &err);
        static char want[16384];
        expected(cfgs[c].tag, want);
        int err_ok = cfgs[c].stderr_has ? strstr(err, cfgs[c].stderr_has) && strstr(err, cfgs[c].stderr_has2)
                                        : !*err;
        int ok = st == 0 && !strcmp(out, want) && err_ok;
        if (!ok)
            fprintf(stderr,
                    "config %c (FILTER=%s FILTER_OUT=%s FILTER_MODE=%s): exit %d\n--- got:\n%s--- want:\n%s"
                    "--- stderr:\n%s\n",
                    cfgs[c].tag, cfgs[c].filter ? cfgs[c].filter : "(unset)",
                    cfgs[c].filter_out ? cfgs[c].filter_out : "(unset)", cfgs[c].mode ? cfgs[c].mode : "(unset)",
                    st, out, want, err);
        CHECK(ok);
        free(out);
        free(err);
    }
    CHECK_DONE();
}
