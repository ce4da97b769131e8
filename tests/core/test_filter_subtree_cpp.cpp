/*
 * test_filter_subtree_cpp.cpp -- subtree filters from C++: a root's RAII
 * scope closes its thread's kept subtree however it ends (the block, an
 * exception, an early return, a lambda's end), and a name kept only inside
 * subtrees is dropped once it has.  The C side and every macro are in
 * test_filter_subtree.c; this is the C++ scope guard's part.
 *
 * RECORDER_FILTER=MUL_MAT/ is set here, before the first event, and read
 * back in the same process.
 */
#define RECORDER_IMPLEMENTATION
#include "recorder.h"

#include <stdexcept>
#include <string>
#include <vector>

#include <stdlib.h>
#include <unistd.h>

#include "check.h"
#include "recorder/reader.h"
#include "segread.h"

static rec_seg *seg;

/* "B name" / "E name" / "C name value" for this thread's events since the
 * last call. */
static std::vector<std::string> my_events() {
    std::vector<std::string> out;
    int slot = slot_of_tid(seg, (int)gettid());
    if (slot < 0) return out;
    struct evlist l = {};
    CHECK(evlist_drain(seg, (uint32_t)slot, &l) == 0);
    for (size_t i = 0; i < l.n; i++) {
        const rec_event &e = l.ev[i];
        std::string n = e.name_id ? ev_name(seg, &e) : "-";
        if (e.type == REC_EV_BEGIN) out.push_back("B " + n);
        if (e.type == REC_EV_END) out.push_back("E " + n);
        if (e.type == REC_EV_COUNTER) out.push_back("C " + n + " " + std::to_string((long long)e.value));
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

static void root_throws() {
    REC_SCOPE("MUL_MAT");
    REC_SCOPE("inside");
    throw std::runtime_error("boom");
}

static int root_returns_early(int x) {
    REC_SCOPE_DYN(std::string("MUL_MAT").c_str());
    if (x) return 1;
    REC_SCOPE("not reached");
    return 0;
}

int main() {
    for (const char *v : {"RECORDER", "RECORDER_FILTER_OUT", "RECORDER_MODE", "RECORDER_NAME"}) unsetenv(v);
    setenv("RECORDER_FILTER", "MUL_MAT/", 1);
    setenv("RECORDER_FILTER_MODE", "name", 1);
    REQUIRE(rec_init() == 0);
    char err[256];
    REQUIRE(rec_seg_open(rec_segment_path(), 0, &seg, err, sizeof err) == REC_OK);
    REC_THREAD_NAME("cpp-subtree");  /* never filtered: attaches the thread */
    my_events();

    {
        REC_SCOPE("outside");
        REC_COUNTER("n", 1);
    }
    {
        REC_SCOPE("MUL_MAT");
        REC_SCOPE_DYN((std::string("Qcur-") + std::to_string(0)).c_str());
        REC_COUNTER("n", 2);
    }
    { REC_SCOPE("after"); }
    EXPECT({"B MUL_MAT", "B Qcur-0", "C n 2", "E Qcur-0", "E MUL_MAT"});

    try {
        root_throws();
    } catch (const std::exception &) {
        REC_SCOPE("caught");  /* the subtree closed during unwinding */
    }
    EXPECT({"B MUL_MAT", "B inside", "E inside", "E MUL_MAT"});

    CHECK_EQ_U(root_returns_early(1), 1);
    { REC_SCOPE("after early return"); }
    EXPECT({"B MUL_MAT", "E MUL_MAT"});

    auto lambda = [] {
        REC_SCOPE("MUL_MAT");
        REC_SCOPE("in lambda");
    };
    lambda();
    lambda();
    { REC_SCOPE("after lambda"); }
    EXPECT({"B MUL_MAT", "B in lambda", "E in lambda", "E MUL_MAT", "B MUL_MAT", "B in lambda", "E in lambda",
            "E MUL_MAT"});

    rec_seg_close(seg);
    CHECK_DONE();
}
