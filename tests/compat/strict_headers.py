#!/usr/bin/env python3
"""strict_headers.py -- recorder.h and everything it includes compile
cleanly wherever a host project's strictest flags are on (docs/compat.md,
"Strict warnings"): C99 and C11, C++11/17/20, gcc and clang, with and
without RECORDER_IMPLEMENTATION, under the union of llama.cpp/ggml's and
other big projects' warning sets, with -Werror.

    strict_headers.py INCLUDE_DIR READER_INCLUDE_DIR STRICT_C STRICT_CPP

INCLUDE_DIR is the writer's include/, READER_INCLUDE_DIR librecorder's
(recorder/analysis.h, which simple_perf.h's sessions use).

Every compiler of the four that is installed is tried; a missing one is
reported (and fails the test: CI installs them all).  Exit 0 when every
combination compiles, 1 otherwise, printing each failure's first lines.
"""
import shutil
import subprocess
import sys

# The list, llama.cpp/ggml's (LLAMA_ALL_WARNINGS, GGML_ALL_WARNINGS,
# ggml/cmake/common.cmake) and a few more that large C/C++ projects use.
COMMON = ["-Wall", "-Wextra", "-Wpedantic", "-Wcast-qual", "-Wshadow", "-Wpointer-arith",
          "-Wmissing-declarations", "-Wdouble-promotion", "-Wconversion", "-Wsign-conversion",
          "-Wfloat-conversion", "-Wundef", "-Wformat=2", "-Wunused", "-Wimplicit-fallthrough",
          "-Wmissing-noreturn", "-Werror"]
CLANG_ONLY = ["-Wunreachable-code-break", "-Wunreachable-code-return",
              "-Wshift-sign-overflow"]
C_ONLY = ["-Wstrict-prototypes", "-Wmissing-prototypes", "-Wold-style-definition"]
CXX_ONLY = ["-Wnon-virtual-dtor", "-Woverloaded-virtual", "-Wextra-semi", "-Wdeprecated"]


def main():
    inc, reader_inc, c_file, cpp_file = sys.argv[1:5]
    tree = [f"-I{inc}", f"-I{reader_inc}", f"-I{inc}/recorder/compat/tracy"]
    failures = runs = 0
    plans = [(cc, "c", std, c_file, C_ONLY) for cc in ("gcc", "clang") for std in ("c99", "c11")]
    plans += [(cc, "c++", std, cpp_file, CXX_ONLY) for cc in ("g++", "clang++") for std in ("c++11", "c++17", "c++20")]
    for cc, lang, std, src, extra in plans:
        if not shutil.which(cc):
            print(f"FAIL: {cc} is not installed")
            failures += 1
            continue
        for impl in ([], ["-DRECORDER_IMPLEMENTATION"]):
            clang = CLANG_ONLY + (["-Wmissing-prototypes", "-Wglobal-constructors"] if lang == "c++" else [])
            cmd = [cc, f"-std={std}", *COMMON, *extra, *(clang if cc.startswith("clang") else []), *impl, *tree,
                   "-c", src, "-o", "/dev/null"]
            p = subprocess.run(cmd, capture_output=True, text=True)
            runs += 1
            what = f"{cc} -std={std}{' -DRECORDER_IMPLEMENTATION' if impl else ''}"
            if p.returncode != 0:
                failures += 1
                print(f"FAIL: {what}\n" + "\n".join(p.stderr.splitlines()[:12]))
            else:
                print(f"ok: {what}")
    print(f"{runs - failures} of {runs} compiled cleanly")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
