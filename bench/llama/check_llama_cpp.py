#!/usr/bin/env python3
"""check_llama_cpp.py -- docs/llama.cpp.md followed on a real llama.cpp.

tests/llama keeps every snippet of the doc compiled against stand-ins of
our own; this script is the other half: it takes a real llama.cpp checkout,
copies it (the checkout is never touched), puts each snippet where the doc
says it goes -- the snippets' text is read from the doc itself, so the
doc is what is checked -- configures it with the doc's CMake lines for a
recorder build tree and `-DLLAMA_FATAL_WARNINGS=ON`, and builds the
instrumented targets.  With --model it also runs llama-completion under
`recorder capture` and checks the trace: op > tensor scopes on every pool
thread, ggml_barrier() recorded as a wait scope (inside ops too), the
`fused` instant on one thread only, flash attention's rows folding.

A place the doc names that the tree no longer has is reported with the
doc's section, which is what a llama.cpp developer following the doc would
hit.  Exit status: 0 all steps passed, 1 a step failed, 77 no checkout.

usage: check_llama_cpp.py LLAMA_CPP_DIR [--recorder-src DIR] [--recorder-build DIR]
                          [--work DIR] [--model MODEL.gguf] [--jobs N]
       (LLAMA_CPP_DIR may also come from $LLAMA_CPP_DIR)

Run it when a checkout is at hand; it needs cmake, a C/C++ compiler and
some minutes of CPU (ggml-cpu, llama and one tool are built, not all).
"""
import argparse
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
DOC = os.path.join(ROOT, "docs", "llama.cpp.md")


def snippets(doc):
    """{name: text} of the doc's code blocks marked <!-- snippet: NAME -->."""
    out, name, block = {}, None, None
    for line in open(doc, encoding="utf-8").read().split("\n"):
        m = re.match(r"^<!-- snippet: (\S+) -->$", line)
        if m:
            name = m.group(1)
        elif name and block is None and line.startswith("```"):
            block = []
        elif block is not None and line.startswith("```"):
            out[name] = "\n".join(block) + "\n"
            name, block = None, None
        elif block is not None:
            block.append(line)
    return out


class Tree:
    """A copy of the checkout being edited, with a failure list."""

    def __init__(self, root):
        self.root, self.failed = root, []

    def edit(self, rel, section, how):
        path = os.path.join(self.root, rel)
        if not os.path.exists(path):
            self.failed.append(f"{section}: {rel} is not in this tree")
            return
        text = open(path, encoding="utf-8").read()
        new = how(text)
        if new is None:
            self.failed.append(f"{section}: the place the doc names was not found in {rel}")
            return
        open(path, "w", encoding="utf-8").write(new)
        print(f"ok: {section}: {rel}")


def after(pattern, add, flags=0):
    """An edit that inserts add after the first match of pattern."""
    def how(text):
        m = re.search(pattern, text, flags)
        return None if not m else text[:m.end()] + add + text[m.end():]
    return how


def before(pattern, add, flags=0):
    def how(text):
        m = re.search(pattern, text, flags)
        return None if not m else text[:m.start()] + add + text[m.start():]
    return how


def first_line(add):
    return lambda text: add + text


def apply_doc(t, s):
    """Section by section, each snippet where docs/llama.cpp.md puts it."""
    ggml = "ggml/src/ggml-cpu/ggml-cpu.c"
    t.edit(ggml, "2 (ggml-impl)", first_line(s["ggml-impl"]))
    t.edit(ggml, "3 (ggml-node-name)", before(r"^static thread_ret_t ggml_graph_compute_thread\(", s["ggml-node-name"] + "\n",
                                              re.M))
    # The thread name once `state` and the params are set: after the params'
    # initializer, the first "};" in ggml_graph_compute_thread().
    t.edit(ggml, "3 (ggml-thread-name)",
           after(r"static thread_ret_t ggml_graph_compute_thread\(void \* data\) \{.*?\n    \};\n", s["ggml-thread-name"],
                 re.S))

    def ops(text):
        m = re.search(r"\n( *)const int n_fused = ggml_cpu_try_fuse_ops\([^\n]*\n(?:.*?\n)*?\1\}\n", text)
        if not m:
            return None
        lines = s["ggml-ops"].split("\n")
        # The doc's block: the two begins, a comment standing for ggml's lines, the instant and ends.
        cut = next(i for i, l in enumerate(lines) if "ggml's lines" in l)
        head = "\n".join(lines[:cut]) + "\n"
        tail = "\n".join(lines[cut + 2:])
        return text[:m.start() + 1] + head + text[m.start() + 1:m.end()] + tail + text[m.end():]
    t.edit(ggml, "3 (ggml-ops)", ops)
    t.edit(ggml, "3 (ggml-barrier)",
           after(r"void ggml_barrier\(struct ggml_threadpool \* tp\) \{.*?if \(n_threads == 1\) \{\s*return;\s*\}\n",
                 s["ggml-barrier"], re.S))
    t.edit(ggml, "3 (ggml-graph-compute)",
           after(r"enum ggml_status ggml_graph_compute\(struct ggml_cgraph \* cgraph, struct ggml_cplan \* cplan\) \{\n",
                 s["ggml-graph-compute"]))
    t.edit("src/llama.cpp", "2 (llama-impl)", first_line(s["llama-impl"]))
    t.edit("src/llama-context.cpp", "2 (llama-context-include)", after(r'#include "llama-context.h"\n',
                                                                       s["llama-context-include"]))
    dec = s["llama-decode"].split("\n")
    # The decode that does the work: the one that sets n_tokens_all.
    t.edit("src/llama-context.cpp", "4 (llama-decode, first line)",
           after(r"int llama_context::decode\(const llama_batch[_a-z]* & batch_inp\) \{\n(?=(?:(?!\n\}).)*n_tokens_all)",
                 "\n".join(dec[:2]) + "\n", re.S))
    t.edit("src/llama-context.cpp", "4 (llama-decode, n_tokens)",
           after(r"\n *const uint32_t n_tokens_all *= [^\n]*\n", "\n".join(dec[2:4]) + "\n"))
    t.edit("src/llama-context.cpp", "4 (llama-decode, pos)",
           after(r"\n *const auto & ubatch = mctx->get_ubatch\(\);\n", "\n".join(dec[4:7]) + "\n"))
    t.edit("src/llama-context.cpp", "4 (llama-build-graph)",
           after(r"llama_context::process_ubatch\(.*?\n *\} else \{\n(?=(?:(?!\n\}).)*build_graph)", s["llama-build-graph"],
                 re.S))
    t.edit("tools/completion/completion.cpp", "2 (the program's implementation)", first_line(s["llama-impl"]))
    t.edit("tools/completion/completion.cpp", "4 (token-instant)",
           after(r"\n *const llama_token id = common_sampler_sample\([^\n]*\n", s["token-instant"]))
    cm = "CMakeLists.txt"
    t.edit(cm, "1 (cmake-completion-target, cmake-tree)",
           lambda text: text + "\n# recorder (docs/llama.cpp.md)\n" + s["cmake-completion-target"] + s["cmake-tree"])


def run(cmd, **kw):
    print("$", " ".join(cmd), flush=True)
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if r.returncode != 0:
        print(r.stdout[-4000:], r.stderr[-4000:], sep="\n")
    return r


def check_trace(recorder, rec_file, work):
    """What the doc says the trace holds."""
    problems = []
    j = os.path.join(work, "trace.json")
    if run([recorder, "convert", rec_file, "-o", j]).returncode != 0:
        return ["recorder convert failed"]
    ev = json.load(open(j))["traceEvents"]
    threads = {}
    for e in ev:
        threads.setdefault((e.get("pid"), e.get("tid")), []).append(e)
    with_ops = [k for k, es in threads.items() if any(e.get("name") == "MUL_MAT" for e in es)]
    if len(with_ops) < 2:
        problems.append(f"MUL_MAT scopes on {len(with_ops)} threads, want every pool thread")
    fused = [k for k, es in threads.items() if any(e.get("name") == "fused" for e in es)]
    if len(fused) > 1:
        problems.append(f"'fused' instants on {len(fused)} threads, want thread 0 only")
    if not any(e.get("name") == "barrier" for e in ev):
        problems.append("no barrier scope")
    r = run([recorder, "report", "--fold", rec_file])
    if r.returncode == 0 and re.search(r"\(view\) \(permuted\)", r.stdout) and not re.search(r"-\* \(view\)", r.stdout):
        problems.append("flash attention's 'Qcur-N (view) (permuted)' rows did not fold")
    if r.returncode == 0 and "barrier" in r.stdout and "[wait]" not in r.stdout:
        problems.append("the barrier row is not marked [wait]")
    return problems


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("llama", nargs="?", default=os.environ.get("LLAMA_CPP_DIR"))
    ap.add_argument("--recorder-src", default=ROOT)
    ap.add_argument("--recorder-build", default=os.path.join(ROOT, "build"))
    ap.add_argument("--work")
    ap.add_argument("--model")
    ap.add_argument("--jobs", default=str(os.cpu_count() or 2))
    a = ap.parse_args()
    if not a.llama or not os.path.isdir(os.path.join(a.llama, "ggml")):
        print("no llama.cpp checkout (give LLAMA_CPP_DIR): skipped")
        return 77
    if not shutil.which("cmake"):
        print("cmake is not installed: skipped")
        return 77
    work = a.work or tempfile.mkdtemp(prefix="llama-doc-")
    tree = os.path.join(work, "llama.cpp")
    shutil.rmtree(tree, ignore_errors=True)
    shutil.copytree(a.llama, tree, ignore=shutil.ignore_patterns(".git", "build*"), symlinks=True)
    t = Tree(tree)
    apply_doc(t, snippets(DOC))
    if t.failed:
        for f in t.failed:
            print("FAIL: section", f)
        return 1
    build = os.path.join(work, "build")
    r = run(["cmake", "-S", tree, "-B", build, "-DCMAKE_BUILD_TYPE=Release", "-DLLAMA_FATAL_WARNINGS=ON",
             "-DLLAMA_CURL=OFF", f"-DRECORDER_DIR={os.path.abspath(a.recorder_src)}",
             f"-DRECORDER_BUILD={os.path.abspath(a.recorder_build)}"])
    if r.returncode != 0:
        print("FAIL: section 1: cmake configure with the doc's lines")
        return 1
    r = run(["cmake", "--build", build, "-j", a.jobs, "--target", "llama-completion"])
    if r.returncode != 0:
        print("FAIL: the instrumented tree does not build under -DLLAMA_FATAL_WARNINGS=ON")
        return 1
    print("ok: ggml-cpu, llama and llama-completion build with the doc's lines")
    if a.model:
        recorder = os.path.join(a.recorder_build, "librecorder", "cli", "recorder")
        rec_file = os.path.join(work, "run.rec")
        exe = os.path.join(build, "bin", "llama-completion")
        r = run([recorder, "capture", "-q", "-o", rec_file, "--", exe, "-m", a.model, "-p", "Hello", "-n", "16",
                 "-no-cnv", "-t", "4"])
        if r.returncode != 0:
            print("FAIL: section 7: recorder capture -- llama-completion")
            return 1
        problems = check_trace(recorder, rec_file, work)
        for p in problems:
            print("FAIL: trace:", p)
        if problems:
            return 1
        print("ok: the trace is what the doc says")
    return 0


if __name__ == "__main__":
    sys.exit(main())
