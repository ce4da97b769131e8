/*
 * recorder/simple_perf.h -- llama.cpp's "simple-perf" tracing API, on the
 * recorder.  Code written for simple-perf compiles unchanged and records
 * into the process's segment, from any number of threads, where
 * recorder-top and recorder-web can watch it live; stop_tracing_session()
 * writes Perfetto JSON straight to the path it is given (no converter).
 *
 *   start_tracing_session();
 *   ...
 *   char name_buffer[4096];
 *   begin_trace("build graph", name_buffer);   // any thread
 *   ...
 *   end_trace(name_buffer);
 *   ...
 *   stop_tracing_session("./trace.json");      // Perfetto JSON
 *
 * Building: one file of the program (and of each shared library, such as
 * libggml) defines RECORDER_IMPLEMENTATION before including recorder.h or
 * this header.  begin_trace and end_trace need nothing else.  The file that
 * calls start_tracing_session/stop_tracing_session links -lrecorder
 * (librecorder reads the process's own segment back to export it).
 *
 * Semantics (docs/compat.md):
 * - begin_trace copies the name into the buffer (at most
 *   SIMPLE_PERF_NAME_MAX - 1 bytes and a NUL) and begins a scope with that
 *   name on the calling thread; end_trace(name) ends the innermost open
 *   scope, recording the name it was given.  Scopes nest per thread.
 * - Events are recorded whether or not a session is running (recorder is
 *   a flight recorder); a session only decides what goes into the file:
 *   the events recorded between start and stop, on every thread.
 * - While a session runs, a background thread copies new events out of the
 *   rings every 10 ms, so a long session is not limited by the ring size.
 * - start and stop share their state across the files of one program;
 *   call them from one thread at a time.
 */
#ifndef RECORDER_SIMPLE_PERF_H
#define RECORDER_SIMPLE_PERF_H

#include <stdio.h>
#include <string.h>

#include "../../recorder.h"

/* The most bytes begin_trace writes into its buffer, NUL included. */
#define SIMPLE_PERF_NAME_MAX 1024

#ifdef __cplusplus
extern "C" {
#endif

/* strnlen, which strict -std=c11 does not declare. */
static inline size_t rec__sp_len(const char *s, size_t max) {
    size_t n = 0;
    while (n < max && s[n]) n++;
    return n;
}

/* Copies the name into the caller's buffer, as simple-perf did.  Not inlined:
 * inlined into a caller with a small array, GCC's -Warray-bounds misreads
 * the bounded copy as an overflow of that array. */
static __attribute__((noinline, unused)) const char *rec__sp_keep(const char *name, char *out) {
    size_t n = rec__sp_len(name, SIMPLE_PERF_NAME_MAX - 1);
    memmove(out, name, n);  /* memmove: the buffer may be the name */
    out[n] = 0;
    return out;
}

#if defined(RECORDER_DISABLE)

static inline void start_tracing_session(void) {}
static inline void stop_tracing_session(const char *output_path) { (void)output_path; }
static inline void begin_trace(const char *name, char *out_name_buffer) {
    if (name && out_name_buffer) rec__sp_keep(name, out_name_buffer);
}
static inline void end_trace(const char *name) { (void)name; }

#else

/* The id of a name as begin_trace keeps it (cut to SIMPLE_PERF_NAME_MAX - 1
 * bytes), so that a begin and its end always agree.  Not inlined, for the
 * same reason as rec__sp_keep. */
static __attribute__((noinline, unused)) uint32_t rec__sp_id(const char *name) {
    char cut[SIMPLE_PERF_NAME_MAX];
    size_t n = rec__sp_len(name, SIMPLE_PERF_NAME_MAX - 1);
    if (name[n]) {
        memcpy(cut, name, n);
        cut[n] = 0;
        name = cut;
    }
    return rec__intern_dyn(name);
}

static inline void begin_trace(const char *name, char *out_name_buffer) {
    if (!name) return;
    if (out_name_buffer) name = rec__sp_keep(name, out_name_buffer);
    uint32_t id = rec__sp_id(name);
    if (id) rec_begin_id(id);
}

static inline void end_trace(const char *name) {
    if (!name) return;
    uint32_t id = rec__sp_id(name);
    if (id) rec_end_id(id);
}

#endif /* RECORDER_DISABLE */

#ifdef __cplusplus
}
#endif

/* ------------------------------------------------------------------------ */
/* Sessions: these need librecorder (-lrecorder).                           */
/* ------------------------------------------------------------------------ */
#if !defined(RECORDER_DISABLE)

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <poll.h>
#include "recorder/analysis.h"

#ifdef __cplusplus
extern "C" {
#endif

struct rec__sp_session {
    int active;
    int stop;                  /* tells the drain thread to finish (atomic) */
    int drain_ok;
    int warned_off;            /* "recording is off" said once */
    pthread_t drain;
    rec_seg *seg;
    rec_model *model;
};

/* One session per program even if several files include this header:
 * a weak definition in each, merged by the linker. */
__attribute__((weak)) struct rec__sp_session rec__sp_session;

static inline void *rec__sp_drain_main(void *arg) {
    struct rec__sp_session *s = (struct rec__sp_session *)arg;
    while (!__atomic_load_n(&s->stop, __ATOMIC_ACQUIRE)) {
        rec_model_poll_seg(s->model, s->seg);
        poll(NULL, 0, 10);  /* 10 ms; poll is declared even under strict -std=c99 */
    }
    return NULL;
}

static inline void rec__sp_end(struct rec__sp_session *s) {
    if (s->drain_ok) {
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
        pthread_join(s->drain, NULL);
        s->drain_ok = 0;
    }
    if (s->model) rec_model_free(s->model);
    if (s->seg) rec_seg_close(s->seg);
    s->model = NULL;
    s->seg = NULL;
    s->active = 0;
}

/* Opens this process's own segment, read-only, and a model that keeps the
 * events.  skip_history: start at the current end of every ring. */
static inline int rec__sp_begin(struct rec__sp_session *s, int skip_history) {
    if (rec_init() != 0) {
        if (!s->warned_off) fprintf(stderr, "recorder: recording is off; the trace will be empty\n");
        s->warned_off = 1;
        return -1;
    }
    char err[256];
    int rc = rec_seg_open(rec_segment_path(), 0, &s->seg, err, sizeof err);
    if (rc != REC_OK) {
        fprintf(stderr, "recorder: cannot read this process's segment: %s\n", err);
        s->seg = NULL;
        return -1;
    }
    struct rec_model_opts opts;
    memset(&opts, 0, sizeof opts);
    opts.keep_log = 1;
    s->model = rec_model_new_seg(s->seg, &opts);
    if (!s->model) {
        fprintf(stderr, "recorder: out of memory for the trace\n");
        rec__sp_end(s);
        return -1;
    }
    struct rec_seg_info info;
    rec_seg_get_info(s->seg, &info);
    if (skip_history)
        for (uint32_t i = 0; i < info.max_threads; i++) {
            struct rec_thread_info t;
            if (rec_seg_thread(s->seg, i, &t) == 0) rec_seg_set_cursor(s->seg, i, t.head);
        }
    s->active = 1;
    return 0;
}

/* Starts recording a session: the file written by stop_tracing_session()
 * holds what every thread records from now on. */
static inline void start_tracing_session(void) {
    struct rec__sp_session *s = &rec__sp_session;
    if (s->active) rec__sp_end(s);  /* a second start restarts the session */
    if (rec__sp_begin(s, 1) != 0) return;
    __atomic_store_n(&s->stop, 0, __ATOMIC_RELEASE);
    s->drain_ok = pthread_create(&s->drain, NULL, rec__sp_drain_main, s) == 0;
}

/* Ends the session and writes it to output_path as Perfetto / Chrome
 * trace-event JSON (open it in ui.perfetto.dev).  Without a session it
 * writes whatever the rings still hold. */
static inline void stop_tracing_session(const char *output_path) {
    struct rec__sp_session *s = &rec__sp_session;
    if (!output_path || !*output_path) {
        fprintf(stderr, "recorder: stop_tracing_session: no output path\n");
        rec__sp_end(s);
        return;
    }
    if (!s->active && rec__sp_begin(s, 0) != 0) {
        FILE *f = fopen(output_path, "w");
        if (f) {
            fputs("{\"traceEvents\":[]}\n", f);
            fclose(f);
        }
        return;
    }
    if (s->drain_ok) {
        __atomic_store_n(&s->stop, 1, __ATOMIC_RELEASE);
        pthread_join(s->drain, NULL);
        s->drain_ok = 0;
    }
    rec_model_poll_seg(s->model, s->seg);
    FILE *f = fopen(output_path, "w");
    if (!f) {
        fprintf(stderr, "recorder: cannot write %s: %s\n", output_path, strerror(errno));
    } else {
        int rc = rec_export_json(s->model, f, NULL);
        if (fclose(f) != 0 || rc != 0)
            fprintf(stderr, "recorder: writing %s failed: %s\n", output_path, strerror(errno));
        else
            fprintf(stderr, "recorder: trace written to %s (Perfetto JSON)\n", output_path);
    }
    rec__sp_end(s);
}

#ifdef __cplusplus
}
#endif

#endif /* !RECORDER_DISABLE */

#endif /* RECORDER_SIMPLE_PERF_H */
