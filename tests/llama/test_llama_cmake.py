"""test_llama_cmake.py -- docs/llama.cpp.md's CMake lines, used as the doc
says: the llama.cpp-shaped project in cmake/ is configured and built with
them, once against an installed recorder (recorder.pc and librecorder.pc
from `meson install --destdir`, found by pkg-config) and once against the
build tree (RECORDER_DIR, RECORDER_BUILD), the first in llama.cpp's newer
shape of a tool (the library llama-completion-impl compiles completion.cpp,
the program is main.cpp alone), the second in its older one
(llama-completion compiles it); each llama-completion then runs
from the build tree without LD_LIBRARY_PATH (the RPATH CMake gives it is
enough) and writes a simple-perf session trace that holds the pool
threads' op scopes.  Skipped (77) without cmake or pkg-config.  In a
sanitizer build (SANITIZE, meson's b_sanitize) the project is compiled (at -O0) and
linked with the same -fsanitize, as a sanitized librecorder needs its
runtime first in the program.

usage: test_llama_cmake.py SOURCE_ROOT BUILD_ROOT [SANITIZE]"""
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))


def run(cmd, env=None, timeout=400):
    r = subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=timeout)
    if r.returncode != 0:
        print("$", " ".join(cmd))
        print(r.stdout[-3000:], r.stderr[-3000:], sep="\n")
    return r.returncode == 0


def sanitize_defs(sanitize):
    """CMake flags that give the project meson's -fsanitize."""
    if not sanitize or sanitize == "none":
        return []
    f = f"-fsanitize={sanitize}"
    return [f"-DCMAKE_C_FLAGS={f}", f"-DCMAKE_CXX_FLAGS={f}", f"-DCMAKE_EXE_LINKER_FLAGS={f}",
            f"-DCMAKE_SHARED_LINKER_FLAGS={f}"]


def build_and_run(tmp, label, defs, env, sanitized):
    build = os.path.join(tmp, label)
    env = dict(env)
    env.pop("LD_LIBRARY_PATH", None)
    # Release, as llama.cpp builds; sanitized, -O0: the same lines link the
    # same way, and an -O3 compile under ASan+UBSan took 2.5 times as long.
    btype = "Debug" if sanitized else "Release"
    if not run(["cmake", "-S", os.path.join(HERE, "cmake"), "-B", build, f"-DCMAKE_BUILD_TYPE={btype}"] + defs, env):
        return f"{label}: cmake configure failed"
    if not run(["cmake", "--build", build, "-j", "2"], env):
        return f"{label}: build failed"
    trace = os.path.join(tmp, label + ".json")
    renv = {k: v for k, v in env.items() if not k.startswith("RECORDER")}
    renv["RECORDER_NAME"] = f"llama-cmake-{os.getpid()}-{label}"
    if not run([os.path.join(build, "targets", "llama-completion"), "--threads", "3", "--session", trace], renv, 120):
        return f"{label}: llama-completion failed"
    with open(trace) as f:
        ev = json.load(f)["traceEvents"]
    threads = {(e.get("pid"), e.get("tid")) for e in ev if e.get("name") == "MUL_MAT"}
    if len(threads) != 3:
        return f"{label}: MUL_MAT scopes on {len(threads)} threads, want 3"
    print(f"ok: {label}: built, ran from the build tree, {len(ev)} trace events, MUL_MAT on 3 threads")
    return None


def main():
    src, bld = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    san = sanitize_defs(sys.argv[3] if len(sys.argv) > 3 else "")
    if not shutil.which("cmake"):
        print("cmake is not installed: skipped")
        return 77
    failures = []
    with tempfile.TemporaryDirectory() as tmp:
        env = dict(os.environ)
        # llama.cpp's newer shape (llama-completion-impl) with the build
        # tree, its older one (llama-completion alone) with pkg-config.
        err = build_and_run(tmp, "tree", ["-DRECORDER_VIA=recorder_tree", f"-DRECORDER_DIR={src}",
                                          f"-DRECORDER_BUILD={bld}", "-DSTANDIN_SHAPE=split"] + san, env, bool(san))
        if err:
            failures.append(err)
        if not shutil.which("pkg-config"):
            print("pkg-config is not installed: the recorder.pc variant is skipped")
        else:
            dest = os.path.join(tmp, "dest")
            if not run(["meson", "install", "-C", bld, "--destdir", dest, "--no-rebuild", "--quiet"]):
                failures.append("meson install --destdir failed")
            else:
                pcs = glob.glob(os.path.join(dest, "**", "recorder.pc"), recursive=True)
                if len(pcs) != 1:
                    failures.append(f"recorder.pc installed {len(pcs)} times")
                else:
                    env["PKG_CONFIG_PATH"] = os.path.dirname(pcs[0])
                    env["PKG_CONFIG_SYSROOT_DIR"] = dest   # the .pc files say the real prefix
                    err = build_and_run(tmp, "pkgconfig", ["-DRECORDER_VIA=recorder_pkgconfig",
                                                           "-DSTANDIN_SHAPE=single"] + san, env, bool(san))
                    if err:
                        failures.append(err)
    for f in failures:
        print("FAIL:", f)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
