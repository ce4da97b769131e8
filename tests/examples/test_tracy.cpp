/*
 * test_tracy.cpp -- Tracy's C++ macros, used as Tracy code uses them, from
 * several threads at once; each thread's events are read back from the
 * process's segment and compared with what the mapping in
 * recorder/tracy.h promises: names, nesting, counters, instants.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <tracy/Tracy.hpp>  /* include/recorder/compat: Tracy's own include line */

#include <cstdio>
#include <cstring>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "own_events.h"

static const int kThreads = 4, kIters = 50;

static TracyLockable(std::mutex, g_lock);
static int g_shared;

static void step(int k) {
    ZoneScoped;  /* named after the function: "step" */
    char op[32];
    int n = std::snprintf(op, sizeof op, "op.%d", k % 3);
    ZoneName(op, (size_t)n);
    ZoneText("hello world", 5);
    ZoneValue(k);
    ZoneColor(0xff0000);
    if (!ZoneIsActive) std::abort();
}

static void named_twice() {
    ZoneScopedN("renamed");
    ZoneNameF("first.%d", 1);
    ZoneNameF("second.%d", 2);  /* ends "first.1", begins "second.2" */
    ZoneTextF("x=%d", 42);
}

static void worker(int t) {
    char name[32];
    std::snprintf(name, sizeof name, "tracy-%d", t);
    tracy::SetThreadName(name);
    for (int k = 0; k < kIters; k++) {
        ZoneScopedNC("iteration", 0x00ff00);
        step(k);
        TracyPlot("queue_depth", (int64_t)k);
        TracyPlotConfig("queue_depth", tracy::PlotFormatType::Number, true, true, 0);
        TracyMessageL("literal message");
        char msg[64];
        int n = std::snprintf(msg, sizeof msg, "thread %d iteration %d", t, k);
        TracyMessage(msg, (size_t)n);
        {
            std::lock_guard<LockableBase(std::mutex)> g(g_lock);
            LockMark(g_lock);
            g_shared++;
        }
        void *p = std::malloc(16);
        TracyAlloc(p, 16);
        TracyFree(p);
        std::free(p);
        FrameMark;
    }
    {
        ZoneNamedN(off, "inactive", false);
        if (ZoneIsActiveV(off)) std::abort();
        ZoneTextV(off, "ignored", 7);
    }
    {
        std::string dyn = "transient." + std::to_string(t);
        ZoneTransientN(tz, dyn.c_str(), true);
        ZoneValueV(tz, 7);
    }
    named_twice();
    FrameMarkNamed("frame_named");
    FrameMarkStart("discontinuous");
    FrameMarkEnd("discontinuous");
    TracyMessageLC("colored literal", 0x123456);
    TracyMessageC("colored dynamic", 7, 0x123456);
    TracyAppInfo("app info text", 8);
}

static std::string expected(int t) {
    std::string s;
    char line[512];
    for (int k = 0; k < kIters; k++) {
        std::snprintf(line, sizeof line,
                      "B iteration\nB step\nB op.%d\nI zone_text hello\nI zone_value %d\nE op.%d\nE step\n"
                      "C queue_depth %d\nI literal message\nI message thread %d iteration %d\nI frame\n"
                      "E iteration\n",
                      k % 3, k, k % 3, k, t, k);
        s += line;
    }
    std::snprintf(line, sizeof line, "B transient.%d\nI zone_value 7\nE transient.%d\n", t, t);
    s += line;
    s += "B renamed\nB first.1\nE first.1\nB second.2\nI zone_text x=42\nE second.2\nE renamed\n";
    s += "I frame_named\nB discontinuous\nE discontinuous\nI colored literal\nI message colored\n"
         "I app_info app info\n";
    return s;
}

int main() {
    if (!TracyIsConnected) {
        std::fprintf(stderr, "recording is off\n");
        return 1;
    }
    std::vector<std::thread> th;
    for (int t = 0; t < kThreads; t++) th.emplace_back(worker, t);
    for (auto &x : th) x.join();
    int fails = g_shared != kThreads * kIters;
    for (int t = 0; t < kThreads; t++) {
        char name[32];
        std::snprintf(name, sizeof name, "tracy-%d", t);
        fails += own_events_expect(name, expected(t).c_str());
    }
    if (fails) std::fprintf(stderr, "%d thread(s) differ\n", fails);
    return fails ? 1 : 0;
}
