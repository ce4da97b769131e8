/*
 * main.c -- recorder-web: serve a live view of a recorded program to a
 * browser.  Options, the exit codes of docs/web.md, start-up and
 * shutdown order.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <libwebsockets.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "shared.h"

#include "auth.h"
#include "diff.h"
#include "recorder/capture.h"
#include "reader.h"
#include "server.h"
#include "target.h"
#include "web.h"

#define DEFAULT_PORT 8117
#define EXIT_FAILURE_OTHER 1

static const char usage_text[] =
    "usage: recorder-web [PID|NAME|FILE.rec] [PID|NAME ...|B.rec] [--port N] [--bind ADDR] [options]\n"
    "\n"
    "Serves a live view of a recorded program, or a capture file (recorder\n"
    "capture -o FILE.rec), to a browser, on 127.0.0.1.\n"
    "Prints the page's URL, which carries a secret token: open it in a browser.\n"
    "\n"
    "  PID|NAME            the program: a pid, a process name, a segment name\n"
    "                      (RECORDER_NAME) or path; none = the only one running\n"
    "  FILE.rec            a capture file: its whole run, read once\n"
    "  A.rec B.rec         two runs side by side: a diff table per scope and both\n"
    "                      histograms; the timeline shows A (docs/web.md)\n"
    "  PID PID ...         several programs in one page, aligned in time (up to 16)\n"
    "  --tree PID          that program and every process it started that recorded\n"
    "                      (living or dead), in one page (up to 16)\n"
    "  -p, --port N        listen on port N (default 8117, or any free port if it\n"
    "                      is taken; 0 = any free port)\n"
    "  --bind ADDR         listen on ADDR instead of 127.0.0.1; anyone who can reach\n"
    "                      ADDR and learns the URL can watch the program\n"
    "  --log-events N      events kept for the snapshot download (default 1000000)\n"
    "  --client-queue KB   data queued per page before it is thinned (default 8192)\n"
    "  --client-timeout S  drop a page that takes nothing for S seconds (default 30)\n"
    "  --max-pages N       pages at once, 1-256 (default 16)\n"
    "  --flush-ms N        how often events are sent, 5-1000 ms (default 50)\n"
    "  --spill-ms N        when adding up statistics took N ms or more, read the\n"
    "                      rings on a second thread meanwhile, 0-10000 (default 10;\n"
    "                      0 = every time)\n"
    "  --max-downloads N   snapshot downloads at once, 1-64 (default 4); more get 503\n"
    "  --download-timeout S  cut a download that takes nothing for S seconds (default 10)\n"
    "  -w, --wait[=S]      the program has not recorded yet (no segment): wait for\n"
    "                      it, at most S seconds (default: no limit)\n"
    "  -v, --verbose       print libwebsockets' messages\n"
    "  -h, --help          this help\n"
    "\n"
    "Exit status: 0 stopped by Ctrl-C or SIGTERM; 2 bad usage; 3 no such process\n"
    "or segment; 4 permission denied; 5 corrupt segment or capture, or not a\n"
    "recorder file (FIFO, device, directory); 6 other format version; 7 truncated\n"
    "segment or capture; 9 out of memory; 11 segment still starting (try again);\n"
    "12 exited without recording (--wait); 13 --wait timed out; 14 cannot listen\n"
    "(port in use, bad address); 1 any other failure.  docs/web.md has the details.\n";

static struct web *g_web;
#ifdef WEB_TSAN
char web_grace_period;
#endif

double web_now(struct web *w) {
    uint64_t bits = web_load(&w->now_bits);
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

static void on_signal(int sig) {
    (void)sig;
    if (!g_web) return;
    web_store(&g_web->stop, 1);
    if (g_web->ctx) lws_cancel_service(g_web->ctx);
}

static int usage_error(const char *fmt, const char *arg) {
    fprintf(stderr, "recorder-web: ");
    fprintf(stderr, fmt, arg);
    fprintf(stderr, "\n(recorder-web --help for usage)\n");
    return REC_ERR_USAGE;
}

static int number(const char *s, long lo, long hi, long *out) {
    char *end;
    errno = 0;
    long v = strtol(s, &end, 10);
    if (errno || end == s || *end || v < lo || v > hi) return -1;
    *out = v;
    return 0;
}

enum { OPT_BIND = 256, OPT_LOG, OPT_QUEUE, OPT_FLUSH, OPT_MAXDL, OPT_DLTIMEOUT, OPT_CTIMEOUT, OPT_MAXPAGES, OPT_TREE, OPT_SPILL };

static int parse(int argc, char **argv, struct web_opts *o, int *port_given) {
    static const struct option longopts[] = {
        {"port", required_argument, NULL, 'p'},  {"bind", required_argument, NULL, OPT_BIND},
        {"log-events", required_argument, NULL, OPT_LOG}, {"client-queue", required_argument, NULL, OPT_QUEUE},
        {"flush-ms", required_argument, NULL, OPT_FLUSH}, {"verbose", no_argument, NULL, 'v'},
        {"max-downloads", required_argument, NULL, OPT_MAXDL},
        {"client-timeout", required_argument, NULL, OPT_CTIMEOUT},
        {"max-pages", required_argument, NULL, OPT_MAXPAGES}, {"spill-ms", required_argument, NULL, OPT_SPILL},
        {"download-timeout", required_argument, NULL, OPT_DLTIMEOUT},
        {"wait", optional_argument, NULL, 'w'},  {"tree", required_argument, NULL, OPT_TREE},
        {"help", no_argument, NULL, 'h'},        {NULL, 0, NULL, 0},
    };
    o->port = DEFAULT_PORT;
    o->log_events = 1000000;
    o->client_queue = 8192u << 10;
    o->flush_ms = 50;
    o->spill_ms = 10;
    o->max_downloads = 4;
    o->client_timeout = 30;
    o->max_pages = 16;
    o->download_timeout = 10;
    opterr = 0;
    int c;
    long v;
    const char *tree = NULL;
    while ((c = getopt_long(argc, argv, ":p:vwh", longopts, NULL)) != -1) {
        switch (c) {
        case OPT_TREE: tree = optarg; break;
        case 'p':
            if (number(optarg, 0, 65535, &v)) return usage_error("--port wants 0-65535, not '%s'", optarg);
            o->port = (int)v;
            *port_given = 1;
            break;
        case OPT_BIND:
            if (!*optarg) return usage_error("--bind wants an address%s", "");
            o->bind = optarg;
            break;
        case OPT_LOG:
            if (number(optarg, 1000, 1000000000L, &v)) return usage_error("--log-events wants 1000 or more, not '%s'", optarg);
            o->log_events = (size_t)v;
            break;
        case OPT_QUEUE:
            if (number(optarg, 16, 1L << 22, &v)) return usage_error("--client-queue wants 16-4194304 (KB), not '%s'", optarg);
            o->client_queue = (size_t)v << 10;
            break;
        case OPT_FLUSH:
            if (number(optarg, 5, 1000, &v)) return usage_error("--flush-ms wants 5-1000, not '%s'", optarg);
            o->flush_ms = (int)v;
            break;
        case OPT_SPILL:
            if (number(optarg, 0, 10000, &v)) return usage_error("--spill-ms wants 0-10000, not '%s'", optarg);
            o->spill_ms = (int)v;
            break;
        case OPT_MAXDL:
            if (number(optarg, 1, 64, &v)) return usage_error("--max-downloads wants 1-64, not '%s'", optarg);
            o->max_downloads = (unsigned)v;
            break;
        case OPT_DLTIMEOUT:
            if (number(optarg, 1, 3600, &v)) return usage_error("--download-timeout wants 1-3600 (s), not '%s'", optarg);
            o->download_timeout = (int)v;
            break;
        case OPT_CTIMEOUT:
            if (number(optarg, 1, 3600, &v)) return usage_error("--client-timeout wants 1-3600 (s), not '%s'", optarg);
            o->client_timeout = (int)v;
            break;
        case OPT_MAXPAGES:
            if (number(optarg, 1, 256, &v)) return usage_error("--max-pages wants 1-256, not '%s'", optarg);
            o->max_pages = (unsigned)v;
            break;
        case 'v': o->verbose = 1; break;
        case 'w': {
            char *end;
            o->wait = 1;
            if (!optarg) break;
            errno = 0;
            o->wait_s = strtod(optarg, &end);
            if (errno || end == optarg || *end || !(o->wait_s > 0 && o->wait_s <= 1e9))
                return usage_error("--wait=S wants a number of seconds above 0, not '%s'", optarg);
            break;
        }
        case 'h': fputs(usage_text, stdout); exit(0);
        case ':': return usage_error("%s needs a value", argv[optind - 1]);
        default: return usage_error("unknown option '%s'", argv[optind - 1]);
        }
    }
    while (optind < argc) {
        if (o->n_targets == WSRC_MAX) return usage_error("at most 16 programs at once: unexpected '%s'", argv[optind]);
        o->targets[o->n_targets++] = argv[optind++];
    }
    if (tree) {   /* a pid and every process it started that recorded */
        static char paths[WSRC_MAX][REC_SEG_PATH_MAX];
        char err[512];
        size_t n = 0;
        if (o->n_targets) return usage_error("--tree takes one PID, not other programs too ('%s')", o->targets[0]);
        if (o->wait) return usage_error("--tree and --wait do not go together%s", "");
        int rc = rec_seg_tree_paths(tree, WSRC_MAX, paths, &n, err, sizeof err);
        if (rc != REC_OK) {
            fprintf(stderr, "recorder-web: %s\n", err);
            return rc;
        }
        for (size_t i = 0; i < n; i++) o->targets[o->n_targets++] = paths[i];
    }
    o->target = o->n_targets ? o->targets[0] : NULL;
    if (o->wait && o->n_targets > 1) return usage_error("--wait takes one PID or NAME%s", "");
    if (o->wait && !o->target) return usage_error("--wait needs a PID or NAME to wait for%s", "");
    return 0;
}

/* The URL a local browser should open. */
static void print_url(const struct web *w) {
    const char *b = w->opts.bind;
    int any = !b || !strcmp(b, "0.0.0.0") || !strcmp(b, "::");
    if (any) printf("http://127.0.0.1:%d/?t=%s\n", w->port, w->token);
    else if (strchr(b, ':')) printf("http://[%s]:%d/?t=%s\n", b, w->port, w->token);
    else printf("http://%s:%d/?t=%s\n", b, w->port, w->token);
    fflush(stdout);
}

static void close_source(struct web *w) {
    for (uint32_t k = 1; k < w->src.n; k++) rec_seg_close(w->src.segs[k]);
    if (w->seg) rec_seg_close(w->seg);
    w->seg = NULL;
    w->src.n = 0;
    wsrc_close(&w->src);
}

/* Several live programs: each must open; the same one twice is refused. */
static int open_several(struct web *w, char *err, size_t errlen) {
    rec_seg *segs[WSRC_MAX] = {0};
    unsigned n = w->opts.n_targets;
    int rc = REC_OK;
    for (unsigned k = 0; k < n && rc == REC_OK; k++) {
        struct wsrc probe;
        rc = wsrc_open_file(w->opts.targets[k], &probe, &w->procs[k], err, errlen);
        wsrc_close(&probe);
        if (rc != 0) {
            if (rc > 0)   /* not reached: web_diff_check takes any file among several */
                snprintf(err, errlen, "%s: a capture file goes only with another one (compared)", w->opts.targets[k]);
            rc = rc > 0 ? REC_ERR_USAGE : -rc;
            break;
        }
        rc = target_open(w->opts.targets[k], &segs[k], err, errlen);
        if (rc != REC_OK) break;
        rec_seg_get_info(segs[k], &w->procs[k]);
        for (unsigned j = 0; j < k; j++)
            if (w->procs[j].pid == w->procs[k].pid && !strcmp(w->procs[j].path, w->procs[k].path)) {
                snprintf(err, errlen, "%s: the same program twice (pid %d)", w->opts.targets[k], w->procs[k].pid);
                rc = REC_ERR_USAGE;
            }
    }
    if (rc != REC_OK) {
        for (unsigned k = 0; k < n; k++)
            if (segs[k]) rec_seg_close(segs[k]);
        return rc;
    }
    w->seg = segs[0];
    wsrc_init_segs(&w->src, segs, n);
    w->info = w->procs[0];
    w->info.max_threads = w->src.max_threads;
    return REC_OK;
}

/* A capture file, or the live program (waited for with --wait), or several. */
static int open_source(struct web *w, char *err, size_t errlen) {
    if (w->opts.n_targets > 1) {
        /* Two capture files: compared (diff.h); the timeline shows A. */
        int d = web_diff_check(&w->opts, err, errlen);
        if (d < 0) return -d;
        if (d == 0) return open_several(w, err, errlen);
        d = web_diff_build(w->opts.targets[0], w->opts.targets[1], &w->diff_json, &w->diff_len, err, errlen);
        if (d != REC_OK) return d;
    }
    int rc = wsrc_open_file(w->opts.target, &w->src, &w->info, err, errlen);
    if (rc < 0) return -rc;
    if (rc == 1) {
        /* Cut short, or still being written: served up to its last whole record. */
        const struct rec_cap_info *in = rec_cap_get_info(w->src.cap);
        if (in->warning[0]) fprintf(stderr, "recorder-web: warning: %s\n", in->warning);
        return REC_OK;
    }
    if (w->opts.wait) rc = target_wait(w->opts.target, w->opts.wait_s, err, errlen);
    if (rc == REC_OK) rc = target_open(w->opts.target, &w->seg, err, errlen);
    if (rc != REC_OK) return rc;
    rec_seg_get_info(w->seg, &w->info);
    w->procs[0] = w->info;
    wsrc_init_segs(&w->src, &w->seg, 1);
    return REC_OK;
}

static void free_published(struct web *w) {
    threads_pub_free(web_xchg(&w->threads, NULL));
    for (int i = 0; i < 3; i++) frame_publish(&w->stats[i], NULL);
    frame_publish(&w->lod, NULL);
    for (unsigned i = 0; i < LAT_SCOPES; i++) frame_publish(&w->lat.ans[i], NULL);
    for (int f = 0; f < SNAP_FORMATS; f++) {
        void *d = web_xchg(&w->export_done[f], NULL);
        if (d && d != (void *)1) snapshot_unref(d);
    }
}

/* What the reader and the clients leave once nothing runs any more: the
 * reader thread's memory, the published frames (after RCU callbacks), the
 * client table, and the segment. */
static void teardown(struct web *w, struct reader *r) {
    reader_join_free(r);
    rcu_barrier();
    free_published(w);
    rcu_barrier();
    clients_destroy(&w->clients);
    rcu_unregister_thread();
    close_source(w);
    free(w->diff_json);
    w->diff_json = NULL;
}

/* Root may watch another user's program (a squatted RECORDER_NAME, say):
 * the start-up line says whose, in the CLI's words (rec_owner_str). */
static const char *owners(const struct web *w, char *buf, size_t cap) {
    size_t k = 0;
    buf[0] = 0;
    for (uint32_t i = 0; i < (w->src.n ? w->src.n : 1) && i < WSRC_MAX; i++) {
        const struct rec_seg_info *p = w->src.n > 1 ? &w->procs[i] : &w->info;
        char o[48];
        if (!p->foreign_owner || k >= cap) continue;
        int m = w->src.n > 1 ? snprintf(buf + k, cap - k, "; pid %d %s", p->pid, rec_owner_str(p->owner_uid, o, sizeof o))
                             : snprintf(buf + k, cap - k, ", %s", rec_owner_str(p->owner_uid, o, sizeof o));
        k = m < 0 ? cap : k + (size_t)m;
    }
    return buf;
}

int main(int argc, char **argv) {
    static struct web w;
    int port_given = 0;
    int rc = parse(argc, argv, &w.opts, &port_given);
    if (rc) return rc;
    char err[512];
    /* Before any handler: Ctrl-C ends the wait and us. */
    rc = open_source(&w, err, sizeof err);
    if (rc != REC_OK) {
        fprintf(stderr, "recorder-web: %s\n", err);
        close_source(&w);
        return rc;
    }
    if (token_new(w.token) != 0) {
        fprintf(stderr, "recorder-web: cannot read random bytes for the token\n");
        close_source(&w);
        return EXIT_FAILURE_OTHER;
    }
    if (clients_init(&w.clients, w.opts.client_queue) != 0) {
        fprintf(stderr, "recorder-web: out of memory\n");
        close_source(&w);
        return REC_ERR_NOMEM;
    }
    rcu_register_thread();
    struct reader *r = reader_new(&w, err, sizeof err);
    if (!r) {
        fprintf(stderr, "recorder-web: %s\n", err);
        rcu_unregister_thread();
        close_source(&w);
        return REC_ERR_NOMEM;
    }
    rc = server_create(&w, err, sizeof err);
    if (rc && !port_given) {
        w.opts.port = 0;   /* the default port is taken: any will do */
        rc = server_create(&w, err, sizeof err);
    }
    if (rc) {
        fprintf(stderr, "recorder-web: %s\n", err);
        teardown(&w, r);
        return rc;
    }
    if (w.opts.bind && strcmp(w.opts.bind, "127.0.0.1") && strcmp(w.opts.bind, "::1"))
        fprintf(stderr,
                "recorder-web: warning: listening on %s, not only on loopback: anyone who can reach it and "
                "learns the URL can watch this program\n",
                w.opts.bind);
    g_web = &w;
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = on_signal;
    sigaction(SIGINT, &sa, NULL);
    sigaction(SIGTERM, &sa, NULL);
    signal(SIGPIPE, SIG_IGN);
    if (reader_start(r) != 0) {
        fprintf(stderr, "recorder-web: cannot start the reader thread\n");
        web_store(&w.stop, 1);
        rc = EXIT_FAILURE_OTHER;
    } else {
        char note[256];
        print_url(&w);
        if (w.diff_json)
            fprintf(stderr,
                    "recorder-web: comparing the captures A = %s and B = %s (the timeline shows A); open the URL "
                    "above; Ctrl-C stops\n",
                    w.opts.targets[0], w.opts.targets[1]);
        else if (w.src.cap)
            fprintf(stderr, "recorder-web: serving the capture %s of %s (pid %d); open the URL above; Ctrl-C stops\n",
                    w.info.path, w.info.process_name, w.info.pid);
        else if (w.src.n > 1)
            fprintf(stderr, "recorder-web: watching %u programs (pids %d ... %d%s); open the URL above; Ctrl-C stops\n",
                    w.src.n, w.procs[0].pid, w.procs[w.src.n - 1].pid, owners(&w, note, sizeof note));
        else
            fprintf(stderr, "recorder-web: watching %s (pid %d%s); open the URL above; Ctrl-C stops\n",
                    w.info.process_name, w.info.pid, owners(&w, note, sizeof note));
        server_run(&w);
    }
    /* The reader wakes the service loop through the context: stop it
     * first, then close the connections, then wait out RCU callbacks. */
    web_store(&w.stop, 1);
    reader_stop(r);
    server_destroy(&w);
    g_web = NULL;
    rcu_barrier();
    teardown(&w, r);
    return rc;
}
