/*
 * test_api.c -- the writer's API, read back through librecorder in the
 * same process: every macro produces the entries docs/format.md says.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "recorder/reader.h"

static rec_seg *seg;

/* Events of the calling thread's slot recorded since the last call. */
static size_t my_events(struct rec_event *ev, size_t cap) {
    struct rec_thread_info th[64];
    int n = rec_seg_threads(seg, th, 64);
    static struct rec_entry buf[4096];
    for (int i = 0; i < n; i++) {
        if (th[i].tid != (int)gettid()) continue;
        uint64_t first;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(seg, th[i].slot, buf, 4096, &first, &loss);
        CHECK_EQ_U(loss.overwritten, 0);
        size_t used;
        uint64_t bad = 0;
        size_t k = rec_decode(buf, got, first, ev, cap, &used, &bad);
        CHECK_EQ_U(bad, 0);
        CHECK_EQ_U(used, got);
        return k;
    }
    return 0;
}

static const char *name_of(uint32_t id) {
    const char *s = rec_seg_string(seg, id);
    return s ? s : "(null)";
}

static void nested(void) {
    REC_SCOPE("outer");
    REC_SCOPE("inner");
}

static void *thread_main(void *arg) {
    (void)arg;
    REC_THREAD_NAME("worker-1");
    REC_SCOPE("in_thread");
    return NULL;
}

int main(void) {
    REQUIRE(rec_init() == 0);
    const char *path = rec_segment_path();
    REQUIRE(path != NULL);
    char expect[64];
    snprintf(expect, sizeof expect, "/dev/shm/recorder.%d", (int)getpid());
    CHECK(strcmp(path, expect) == 0);
    char err[256];
    REQUIRE(rec_seg_open(path, 0, &seg, err, sizeof err) == REC_OK);

    struct rec_event ev[256];
    REC_INSTANT("start");  /* attaches this thread */
    size_t n = my_events(ev, 256);
    REQUIRE(n >= 3);
    CHECK_EQ_U(ev[0].type, REC_EV_THREAD_START);
    CHECK_EQ_U(ev[0].tid, gettid());
    CHECK_EQ_U(ev[1].type, REC_EV_THREAD_NAME);
    CHECK_EQ_U(ev[n - 1].type, REC_EV_INSTANT);
    CHECK(strcmp(name_of(ev[n - 1].name_id), "start") == 0);

    /* Scopes close in reverse order, with their names. */
    nested();
    n = my_events(ev, 256);
    REQUIRE(n == 4);
    CHECK(ev[0].type == REC_EV_BEGIN && !strcmp(name_of(ev[0].name_id), "outer"));
    CHECK(ev[1].type == REC_EV_BEGIN && !strcmp(name_of(ev[1].name_id), "inner"));
    CHECK(ev[2].type == REC_EV_END && ev[2].name_id == ev[1].name_id);
    CHECK(ev[3].type == REC_EV_END && ev[3].name_id == ev[0].name_id);
    CHECK(ev[0].ticks <= ev[1].ticks && ev[1].ticks <= ev[2].ticks && ev[2].ticks <= ev[3].ticks);
    CHECK(ev[0].index + 1 == ev[1].index);

    /* Dynamic names: interned once, same id as a static name's. */
    uint32_t ids[3];
    for (int i = 0; i < 3; i++) {
        char nm[32];
        snprintf(nm, sizeof nm, "matmul_blk.%d.attn_q", i % 2);
        REC_SCOPE_DYN(nm);
    }
    n = my_events(ev, 256);
    REQUIRE(n == 6);
    for (int i = 0; i < 3; i++) ids[i] = ev[2 * i].name_id;
    CHECK(ids[0] == ids[2] && ids[0] != ids[1]);
    CHECK(!strcmp(name_of(ids[1]), "matmul_blk.1.attn_q"));
    { REC_SCOPE("outer"); }
    n = my_events(ev, 256);
    REQUIRE(n == 2);
    CHECK(!strcmp(name_of(ev[0].name_id), "outer"));

    /* Explicit pairs, counters, instants with messages, flows. */
    REC_BEGIN("explicit");
    REC_COUNTER("kv", 1234.5);
    REC_INSTANT("mark", "a message with \"quotes\" that is longer than 45 bytes, cut");
    REC_FLOW_BEGIN(0x123456789abcULL);
    REC_FLOW_STEP(7);
    REC_FLOW_END(7);
    REC_END();
    char dyn[16] = "dyn_explicit";
    REC_BEGIN_DYN(dyn);
    REC_END();
    n = my_events(ev, 256);
    REQUIRE(n == 9);
    CHECK(ev[0].type == REC_EV_BEGIN && !strcmp(name_of(ev[0].name_id), "explicit"));
    CHECK(ev[1].type == REC_EV_COUNTER && ev[1].value == 1234.5 && !strcmp(name_of(ev[1].name_id), "kv"));
    CHECK(ev[2].type == REC_EV_INSTANT && ev[2].msg_len == REC_MSG_MAX);
    CHECK(!strncmp(ev[2].msg, "a message with \"quotes\" that is longer than 45", REC_MSG_MAX));
    CHECK(ev[3].type == REC_EV_FLOW_BEGIN && ev[3].flow_id == 0x123456789abcULL);
    CHECK(ev[4].type == REC_EV_FLOW_STEP && ev[4].flow_id == 7);
    CHECK(ev[5].type == REC_EV_FLOW_END);
    CHECK(ev[6].type == REC_EV_END && ev[6].name_id == 0);
    CHECK(ev[7].type == REC_EV_BEGIN && !strcmp(name_of(ev[7].name_id), "dyn_explicit"));
    CHECK(ev[8].type == REC_EV_END);

    /* Instant messages at every continuation boundary: 1 + ceil(len/15)
     * entries, the text intact. */
    static const unsigned lens[] = {1, 14, 15, 16, 29, 30, 31, 44, 45};
    char text[REC_MSG_MAX + 1];
    for (size_t i = 0; i < sizeof lens / sizeof lens[0]; i++) {
        for (unsigned j = 0; j < lens[i]; j++) text[j] = (char)('a' + (j + i) % 26);
        text[lens[i]] = 0;
        REC_INSTANT("len", text);
        n = my_events(ev, 256);
        REQUIRE(n == 1);
        CHECK_EQ_U(ev[0].msg_len, lens[i]);
        CHECK(!strcmp(ev[0].msg, text));
        struct rec_entry e = {0, ((uint64_t)REC_EV_INSTANT << 56) | ((uint64_t)lens[i] << 32)};
        CHECK_EQ_U(rec_entry_span(&e), 1 + (lens[i] + 14) / 15);
    }

    /* Scope arguments (REC_ARG): the key as a name, the value in CONT
     * entries as an instant's message; a value of 45 bytes kept whole, a
     * longer one cut to 42 and marked "..."; a length past 45 is not an
     * event.  One with no scope open is recorded all the same (the
     * readers count it, docs/api.md). */
    {
        REC_SCOPE("op");
        REC_ARG("shape", "4096x32x1x1");
        REC_ARG("empty", "");
        memset(text, 'v', REC_MSG_MAX);
        text[REC_MSG_MAX] = 0;
        REC_ARG("full", text);
        REC_ARG("long", "0123456789012345678901234567890123456789012345678901234567890");
    }
    REC_ARG("outside", "x");
    n = my_events(ev, 256);
    REQUIRE(n == 7);
    CHECK(ev[1].type == REC_EV_ARG && !strcmp(name_of(ev[1].name_id), "shape") && !strcmp(ev[1].msg, "4096x32x1x1"));
    CHECK(ev[2].type == REC_EV_ARG && ev[2].msg_len == 0 && !strcmp(name_of(ev[2].name_id), "empty"));
    CHECK(ev[3].type == REC_EV_ARG && ev[3].msg_len == REC_MSG_MAX && !strcmp(ev[3].msg, text));
    CHECK(ev[4].type == REC_EV_ARG && !strcmp(ev[4].msg, "012345678901234567890123456789012345678901..."));
    CHECK(ev[5].type == REC_EV_END);
    CHECK(ev[6].type == REC_EV_ARG && !strcmp(name_of(ev[6].name_id), "outside"));
    for (unsigned len = 0; len <= REC_MSG_MAX + 1; len++) {
        struct rec_entry e = {0, ((uint64_t)REC_EV_ARG << 56) | ((uint64_t)len << 32)};
        CHECK_EQ_U(rec_entry_span(&e), len > REC_MSG_MAX ? 0 : 1 + (len + 14) / 15);
    }

    /* Flow ids keep their low 56 bits; a long thread name is cut at 63. */
    REC_FLOW_BEGIN(UINT64_C(0xab00000000000001));
    n = my_events(ev, 256);
    REQUIRE(n == 1);
    CHECK(ev[0].flow_id == UINT64_C(0x1));
    char longname[100];
    memset(longname, 'n', sizeof longname - 1);
    longname[sizeof longname - 1] = 0;
    REC_THREAD_NAME(longname);
    n = my_events(ev, 256);
    REQUIRE(n == 1 && ev[0].type == REC_EV_THREAD_NAME);
    CHECK_EQ_U(strlen(name_of(ev[0].name_id)), 63);

    /* Deep REC_BEGIN nesting (past the 64 tracked levels) stays balanced. */
    for (int i = 0; i < 70; i++) REC_BEGIN("deep");
    for (int i = 0; i < 70; i++) REC_END();
    n = my_events(ev, 256);
    REQUIRE(n == 140);
    CHECK(ev[0].type == REC_EV_BEGIN && ev[69].type == REC_EV_BEGIN);
    CHECK(ev[70].type == REC_EV_END && ev[139].type == REC_EV_END);

    /* The decoder stops at cap and says how many entries it used; the
     * cursor can skip history. */
    REC_COUNTER("kv", 1);
    REC_INSTANT("x", "0123456789012345");
    {
        int me = -1;
        struct rec_thread_info th[64];
        int nt = rec_seg_threads(seg, th, 64);
        for (int i = 0; i < nt; i++)
            if (th[i].tid == (int)gettid()) me = (int)th[i].slot;
        REQUIRE(me >= 0);
        struct rec_entry buf[16];
        uint64_t first;
        struct rec_loss loss = {0};
        size_t got = rec_seg_read(seg, (uint32_t)me, buf, 16, &first, &loss);
        CHECK_EQ_U(got, 5);
        size_t used = 0;
        CHECK_EQ_U(rec_decode(buf, got, first, ev, 1, &used, NULL), 1);
        CHECK_EQ_U(used, 2);
        CHECK_EQ_U(rec_decode(buf + used, got - used, first + used, ev, 8, &used, NULL), 1);
        CHECK_EQ_U(used, 3);
        CHECK_EQ_U(ev[0].index, first + 2);
        /* A read with room for less than a whole event returns nothing. */
        REC_INSTANT("x", "0123456789012345");
        CHECK_EQ_U(rec_seg_read(seg, (uint32_t)me, buf, 2, &first, &loss), 0);
        REQUIRE(rec_seg_thread(seg, (uint32_t)me, &th[0]) == 0);
        rec_seg_set_cursor(seg, (uint32_t)me, th[0].head);
        CHECK_EQ_U(rec_seg_read(seg, (uint32_t)me, buf, 16, &first, &loss), 0);
        CHECK_EQ_U(loss.overwritten + loss.dropped, 0);
    }

    /* A second thread gets its own slot, name and generation. */
    pthread_t t;
    pthread_create(&t, NULL, thread_main, NULL);
    pthread_join(t, NULL);
    struct rec_thread_info th[8];
    int nt = rec_seg_threads(seg, th, 8);
    CHECK_EQ_U(nt, 2);
    int found = 0;
    for (int i = 0; i < nt; i++)
        if (!strcmp(th[i].name, "worker-1")) {
            found = 1;
            CHECK_EQ_U(th[i].state, REC_SLOT_EXITED);
            CHECK(th[i].exit_ticks >= th[i].start_ticks);
            CHECK_EQ_U(th[i].gen, 1);
        }
    CHECK(found);

    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    CHECK_EQ_U(info.pid, getpid());
    CHECK(info.alive);
    CHECK(info.ticks_per_sec > 1e6);
    CHECK_EQ_U(info.threads_attached, 2);
    rec_seg_close(seg);
    rec_shutdown();
    CHECK(access(expect, F_OK) != 0);  /* removed: RECORDER_KEEP is unset */
    CHECK_DONE();
}
