/*
 * test_lanes.c -- lanes (include/recorder/writer/lanes.h): rings no thread owns,
 * written with the events' own timestamps, as the GPU library writes a
 * device's streams.
 *
 *  - a GPU stream lane and a device lane are read back with their kind,
 *    device, context and stream, a tid no thread can have, and their name;
 *  - events keep the times they were given, in the order written; one
 *    earlier than the lane's last is refused (REC_LANE_LATE) and counted,
 *    never written;
 *  - the "delivered up to" watermark and the source's lost records reach
 *    the reader (as the slot's dropped count);
 *  - a closed lane's slot goes back to a thread, which reads as a thread.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"
#include "recorder/writer/lanes.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "check.h"
#include "segread.h"

int main(void) {
    setenv("RECORDER_MAX_THREADS", "4", 1);
    REQUIRE(rec_init() == 0);
    struct rec_lane gpu, dev;
    struct rec_lane_desc d = {REC_LANE_GPU_STREAM, 3, 17, 42, 0, "GPU3 stream 42"};
    REQUIRE(rec_lane_open(&gpu, &d) == 0);
    struct rec_lane_desc dd = {REC_LANE_GPU_DEVICE, 3, 0, 0, 0, "GPU3"};
    REQUIRE(rec_lane_open(&dev, &dd) == 0);
    struct rec_lane_desc bad = {REC_LANE_THREAD, 0, 0, 0, 0, "no tid"};
    struct rec_lane nope;
    CHECK(rec_lane_open(&nope, &bad) == -1);
    CHECK(rec_lane_begin(&nope, 1, 3) == REC_LANE_CLOSED);

    uint64_t t0 = rec_ticks_of_mono_ns(1000000000ull);
    uint32_t k = rec_lane_name("gemm_kernel", 11);
    uint32_t busy = rec_lane_name("busy %", 6);
    REQUIRE(k > 2 && busy > 2);
    CHECK_EQ_U(rec_lane_begin(&gpu, t0 + 100, k), REC_LANE_OK);
    CHECK_EQ_U(rec_lane_flow(&gpu, t0 + 100, REC_EV_FLOW_END, 77), REC_LANE_OK);
    CHECK_EQ_U(rec_lane_end(&gpu, t0 + 200, k), REC_LANE_OK);
    CHECK_EQ_U(rec_lane_begin(&gpu, t0 + 150, k), REC_LANE_LATE);   /* earlier than 200 */
    CHECK_EQ_U(gpu.late, 1);
    CHECK_EQ_U(rec_lane_instant(&gpu, t0 + 300, k, "a message longer than fifteen bytes"), REC_LANE_OK);
    CHECK_EQ_U(rec_lane_begin_wait(&gpu, t0 + 310, k), REC_LANE_OK);
    CHECK_EQ_U(rec_lane_end_wait(&gpu, t0 + 320, k), REC_LANE_OK);
    CHECK_EQ_U(rec_lane_counter(&dev, t0 + 50, busy, 87.5), REC_LANE_OK);
    rec_lane_delivered(&gpu, t0 + 400);
    rec_lane_delivered(&gpu, t0 + 10);   /* never back */
    rec_lane_lost(&gpu, 5);

    char err[256];
    rec_seg *seg = NULL;
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &seg, err, sizeof err) == REC_OK);
    struct rec_thread_info th[4];
    int n = rec_seg_threads(seg, th, 4);
    CHECK_EQ_U(n, 2);
    for (int i = 0; i < n; i++) {
        CHECK(th[i].tid < -1);   /* never -1: tools read it as "all threads" */
        CHECK_EQ_U(th[i].lane_device, 3);
    }
    CHECK_EQ_U(th[0].lane_kind, REC_LANE_GPU_STREAM);
    CHECK_EQ_U(th[0].lane_context, 17);
    CHECK_EQ_U(th[0].lane_stream, 42);
    CHECK(strcmp(th[0].name, "GPU3 stream 42") == 0);
    CHECK_EQ_U(th[0].delivered_ticks, t0 + 400);
    CHECK_EQ_U(th[0].dropped, 5);
    CHECK_EQ_U(th[1].lane_kind, REC_LANE_GPU_DEVICE);

    struct evlist l = {0};
    CHECK(evlist_drain(seg, th[0].slot, &l) == 0);
    /* THREAD_START, THREAD_NAME, BEGIN, FLOW_END, END, INSTANT, BEGIN and END (wait) */
    REQUIRE(l.n == 8);
    CHECK(l.ev[6].type == REC_EV_BEGIN && l.ev[6].wait && l.ev[7].type == REC_EV_END && l.ev[7].wait);
    CHECK(!l.ev[2].wait);
    CHECK_EQ_U(l.ev[0].type, REC_EV_THREAD_START);
    CHECK_EQ_U(l.ev[1].type, REC_EV_THREAD_NAME);
    CHECK_EQ_U(l.ev[2].type, REC_EV_BEGIN);
    CHECK_EQ_U(l.ev[2].ticks, t0 + 100);
    CHECK_EQ_U(l.ev[3].type, REC_EV_FLOW_END);
    CHECK_EQ_U(l.ev[3].flow_id, 77);
    CHECK_EQ_U(l.ev[4].type, REC_EV_END);
    CHECK_EQ_U(l.ev[4].ticks, t0 + 200);
    CHECK_EQ_U(l.ev[5].type, REC_EV_INSTANT);
    CHECK(strcmp(l.ev[5].msg, "a message longer than fifteen bytes") == 0);
    evlist_free(&l);
    CHECK(evlist_drain(seg, th[1].slot, &l) == 0);
    REQUIRE(l.n == 3);
    CHECK_EQ_U(l.ev[2].type, REC_EV_COUNTER);
    CHECK(l.ev[2].value == 87.5);
    evlist_free(&l);

    /* A closed lane's slot is the oldest exited one: the next thread may
     * take it, and then reads as a thread. */
    rec_lane_close(&gpu, 0);
    rec_lane_close(&dev, 0);
    CHECK_EQ_U(rec_lane_begin(&gpu, t0 + 500, k), REC_LANE_CLOSED);
    REC_SCOPE("main.after");
    n = rec_seg_threads(seg, th, 4);
    int threads = 0;
    for (int i = 0; i < n; i++)
        if (th[i].lane_kind == REC_LANE_THREAD) {
            threads++;
            CHECK_EQ_U(th[i].tid, getpid());
            CHECK_EQ_U(th[i].lane_stream, 0);
        }
    CHECK_EQ_U(threads, 1);
    rec_seg_close(seg);
    CHECK_DONE();
}
