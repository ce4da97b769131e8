/*
 * test_cpp.cpp -- the writer from C++: RECORDER_IMPLEMENTATION in a .cpp
 * file, RAII scopes (several in one block close in reverse order, an
 * exception or an early return closes them too), REC_SCOPE_DYN with a
 * temporary std::string, a scope in a template and in a lambda, and a
 * std::thread; read back in the same process.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include "check.h"
#include "recorder/reader.h"
#include "segread.h"

static rec_seg *seg;

/* "B name" / "E name" / "I name" / "C name value" for the calling thread's
 * events since the last call. */
static std::vector<std::string> my_events() {
    std::vector<std::string> out;
    int slot = slot_of_tid(seg, (int)gettid());
    if (slot < 0) return out;
    struct evlist l = {};
    CHECK(evlist_drain(seg, (uint32_t)slot, &l) == 0);
    CHECK_EQ_U(l.overwritten, 0);
    CHECK_EQ_U(l.bad, 0);
    for (size_t i = 0; i < l.n; i++) {
        const rec_event &e = l.ev[i];
        std::string n = ev_name(seg, &e);
        switch (e.type) {
        case REC_EV_BEGIN: out.push_back("B " + n); break;
        case REC_EV_END: out.push_back("E " + (e.name_id ? n : std::string("-"))); break;
        case REC_EV_INSTANT: out.push_back("I " + n + (e.msg_len ? std::string(" ") + e.msg : std::string())); break;
        case REC_EV_ARG: out.push_back("A " + n + " " + e.msg); break;
        case REC_EV_COUNTER: out.push_back("C " + n + " " + std::to_string((long long)e.value)); break;
        case REC_EV_FLOW_BEGIN: out.push_back("F " + std::to_string((unsigned long long)e.flow_id)); break;
        default: break;
        }
    }
    evlist_free(&l);
    return out;
}

static void expect(const std::vector<std::string> &got, const std::vector<std::string> &want, int line) {
    if (got == want) return;
    fprintf(stderr, "line %d: events differ\n got:", line);
    for (auto &g : got) fprintf(stderr, " [%s]", g.c_str());
    fprintf(stderr, "\nwant:");
    for (auto &w : want) fprintf(stderr, " [%s]", w.c_str());
    fprintf(stderr, "\n");
    check_failures++;
}
#define EXPECT(...) expect(my_events(), __VA_ARGS__, __LINE__)

static void three_in_a_block() {
    REC_SCOPE("a");
    REC_SCOPE("b");
    REC_SCOPE("c");
    REC_INSTANT("inside");
}

static void throws() {
    REC_SCOPE("throws");
    throw std::runtime_error("boom");
}

static int early(int x) {
    REC_SCOPE("early");
    if (x > 0) return 1;
    REC_SCOPE("late");
    return 0;
}

template <typename T>
static T twice(T v) {
    REC_SCOPE("twice");
    return v + v;
}

int main() {
    REQUIRE(rec_init() == 0);
    char err[256];
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &seg, err, sizeof err) == REC_OK);
    REC_THREAD_NAME("cpp-main");
    my_events();  /* the attach's events */

    three_in_a_block();
    EXPECT({"B a", "B b", "B c", "I inside", "E c", "E b", "E a"});

    for (int i = 0; i < 2; i++) {
        REC_SCOPE_DYN((std::string("layer.") + std::to_string(i)).c_str());
        REC_COUNTER("i", i);
    }
    EXPECT({"B layer.0", "C i 0", "E layer.0", "B layer.1", "C i 1", "E layer.1"});

    try {
        REC_SCOPE("try");
        throws();
    } catch (const std::exception &) {
        REC_INSTANT("caught", "boom");
    }
    EXPECT({"B try", "B throws", "E throws", "E try", "I caught boom"});

    {
        REC_SCOPE("matmul");
        std::string shape = "4096x32x1x1";
        REC_ARG("shape", shape.c_str());
        REC_ARG("type", "q8_0");
    }
    EXPECT({"B matmul", "A shape 4096x32x1x1", "A type q8_0", "E matmul"});

    CHECK_EQ_U(early(1), 1);
    CHECK_EQ_U(early(0), 0);
    EXPECT({"B early", "E early", "B early", "B late", "E late", "E early"});

    CHECK_EQ_U(twice(2), 4);
    CHECK(twice(1.5) == 3.0);
    auto lambda = [](int v) {
        REC_SCOPE("lambda");
        return v;
    };
    CHECK_EQ_U(lambda(3), 3);
    EXPECT({"B twice", "E twice", "B twice", "E twice", "B lambda", "E lambda"});

    REC_BEGIN("explicit");
    REC_FLOW_BEGIN(99);
    REC_END();
    EXPECT({"B explicit", "F 99", "E -"});

    std::vector<std::string> from_thread;
    std::thread t([&] {
        REC_SCOPE("in_thread");
        { REC_SCOPE("nested"); }
        REC_SCOPE_DYN(std::string("dyn_in_thread").c_str());
        from_thread.push_back("started");
    });
    t.join();
    struct rec_seg_info info;
    rec_seg_get_info(seg, &info);
    CHECK_EQ_U(info.threads_attached, 2);
    struct rec_thread_info th[4];
    int nt = rec_seg_threads(seg, th, 4);
    CHECK_EQ_U(nt, 2);
    int found = 0;
    for (int i = 0; i < nt; i++) {
        if (th[i].tid == (int)gettid()) continue;
        found++;
        CHECK_EQ_U(th[i].state, REC_SLOT_EXITED);
        struct evlist l = {};
        CHECK(evlist_drain(seg, th[i].slot, &l) == 0);
        std::vector<std::string> got;
        for (size_t k = 0; k < l.n; k++)
            if (l.ev[k].type == REC_EV_BEGIN || l.ev[k].type == REC_EV_END)
                got.push_back((l.ev[k].type == REC_EV_BEGIN ? "B " : "E ") + std::string(ev_name(seg, &l.ev[k])));
        evlist_free(&l);
        expect(got, {"B in_thread", "B nested", "E nested", "B dyn_in_thread", "E dyn_in_thread", "E in_thread"},
               __LINE__);
    }
    CHECK_EQ_U(found, 1);
    rec_seg_close(seg);
    rec_shutdown();
    CHECK_DONE();
}
