#!/usr/bin/env python3
"""check_layout.py -- the include and link rules of docs/architecture.md,
checked on the source tree, so the document stays true.

    check_layout.py SOURCE_ROOT

Rules (each a function below, named in its failure messages):
  writer    include/recorder.h and include/recorder/writer/ include only
            each other (and system headers): never librecorder's API or
            anything under librecorder/, viewer-*/, gpu/, python/.
  order     the writer's parts, in writer_impl.h's order, use only what is
            defined above them or declared by the writer's interface
            (recorder.h, lanes.h): no function crosses back from a later
            part to an earlier one, so the parts form no circle.
  api       librecorder's public headers (librecorder/include/recorder/)
            include only each other and recorder.h: no internals.
  viewers   viewer-tui/ and viewer-web/ include only their own files, the
            writer's recorder.h and librecorder's public API: never the
            writer's internals nor librecorder's internal headers.
  inproc    what runs inside a traced program (python/src/, gpu/) includes
            only its own files and the writer.
  library   librecorder never includes a viewer's, gpu/'s or python/'s files.
  links     the writer never links librecorder: recorder_writer_dep, the
            Python extension and the CUDA library name neither
            librecorder_dep nor reader_inc (the API's include folder).

Then it proves that it can fail: on a copy of the tree with one rule
broken at a time, each rule must report.  Exit 0 when the tree keeps every
rule and every broken copy is caught, 1 otherwise.
"""
import os
import re
import shutil
import sys
import tempfile

INC_RE = re.compile(r'^\s*#\s*include\s+"([^"]+)"', re.M)
WRITER_API = "include/recorder.h"
API_DIR = "librecorder/include/recorder"
SOURCES = (".c", ".h", ".cpp", ".hpp")


def files_under(root, rel):
    out = []
    for dirpath, _, names in os.walk(os.path.join(root, rel)):
        out += [os.path.relpath(os.path.join(dirpath, n), root) for n in names if n.endswith(SOURCES)]
    return sorted(out)


def read(root, rel):
    with open(os.path.join(root, rel), encoding="utf-8", errors="replace") as f:
        return f.read()


def resolve(root, rel, name, extra_dirs=()):
    """Where `#include "name"` in rel lands: its own folder first, then the
    project's include roots (include/, librecorder's API) and extra_dirs,
    as the compiler searches.  None if nowhere (a generated file)."""
    dirs = [os.path.dirname(rel), "include", "librecorder/include", *extra_dirs]
    for d in dirs:
        p = os.path.normpath(os.path.join(d, name))
        if os.path.isfile(os.path.join(root, p)):
            return p
    return None


def includes(root, rel, extra_dirs=()):
    for name in INC_RE.findall(read(root, rel)):
        yield name, resolve(root, rel, name, extra_dirs)


def is_writer(p):
    return p == WRITER_API or p.startswith("include/recorder/writer/")


def is_api(p):
    return p.startswith(API_DIR + "/")


def check_includes(root, rule, sources, allowed, extra_dirs=()):
    errs = []
    for rel in sources:
        for name, p in includes(root, rel, extra_dirs):
            if p is not None and not allowed(rel, p):
                errs.append(f"{rule}: {rel} includes \"{name}\" ({p})")
    return errs


def rule_writer(root):
    srcs = [WRITER_API] + files_under(root, "include/recorder/writer")
    return check_includes(root, "writer", srcs, lambda rel, p: is_writer(p))


def strip_comments(s):
    return re.sub(r"/\*.*?\*/|//[^\n]*", " ", s, flags=re.S)


DEF_RE = re.compile(r"^[A-Za-z_][\w \t\*]*?\b(rec_{1,2}\w+)\s*\([^;{]*\)\s*\{", re.M)


PROTO_RE = re.compile(r"\b(rec_{1,2}\w+)\s*\([^;{)]*\)\s*;")


def rule_order(root):
    wdir = "include/recorder/writer"
    impl = read(root, f"{wdir}/writer_impl.h")
    parts = [f"{wdir}/{n}" for n in INC_RE.findall(impl)]
    # The writer's declared interface (recorder.h, lanes.h): functions users
    # and the inline hot path call, defined wherever the parts put them.
    interface = set()
    for rel in (WRITER_API, f"{wdir}/lanes.h"):
        interface |= set(PROTO_RE.findall(strip_comments(read(root, rel))))
    defined = {}
    for i, rel in enumerate(parts):
        for fn in DEF_RE.findall(strip_comments(read(root, rel))):
            defined.setdefault(fn, i)
    errs = []
    for i, rel in enumerate(parts):
        used = set(re.findall(r"\b(rec_{1,2}\w+)\b", strip_comments(read(root, rel))))
        for fn in sorted(used):
            j = defined.get(fn)
            if j is not None and j > i and fn not in interface:
                errs.append(f"order: {rel} uses {fn}, defined in the later {parts[j]}")
    if not parts:
        errs.append("order: writer_impl.h includes no parts")
    return errs


def rule_api(root):
    return check_includes(root, "api", files_under(root, API_DIR),
                          lambda rel, p: is_api(p) or p == WRITER_API)


def rule_viewers(root):
    errs = []
    for v in ("viewer-tui", "viewer-web"):
        errs += check_includes(root, "viewers", files_under(root, v),
                               lambda rel, p, v=v: p.startswith(v + "/") or p == WRITER_API or is_api(p),
                               extra_dirs=(v,))
    return errs


def rule_inproc(root):
    errs = []
    for d in ("python/src", "gpu"):
        errs += check_includes(root, "inproc", files_under(root, d),
                               lambda rel, p, d=d: p.startswith(d + "/") or is_writer(p), extra_dirs=(d,))
    return errs


def rule_library(root):
    bad = ("viewer-tui/", "viewer-web/", "gpu/", "python/")
    return check_includes(root, "library", files_under(root, "librecorder"),
                          lambda rel, p: not p.startswith(bad), extra_dirs=("librecorder",))


def meson_block(text, start):
    """The call that starts at `start` (a target's definition), to its
    closing parenthesis."""
    i = text.find("(", start)
    depth = 0
    for j in range(i, len(text)):
        depth += {"(": 1, ")": -1}.get(text[j], 0)
        if depth == 0:
            return text[start:j + 1]
    return text[start:]


def rule_links(root):
    errs = []
    for rel, target in (("meson.build", "recorder_writer_dep"),
                        ("python/recorder/meson.build", "py_ext"),
                        ("gpu/meson.build", "librecorder_cuda")):
        text = read(root, rel)
        m = re.search(rf"^{target}\s*=", text, re.M)
        if not m:
            errs.append(f"links: {rel} defines no {target}")
            continue
        block = strip_comments(re.sub(r"#[^\n]*", " ", meson_block(text, m.start())))
        for word in ("librecorder", "librecorder_dep", "reader_inc"):
            if re.search(rf"\b{word}\b", block):
                errs.append(f"links: {target} ({rel}) names {word}")
    return errs


RULES = [rule_writer, rule_order, rule_api, rule_viewers, rule_inproc, rule_library, rule_links]


def check(root):
    errs = []
    for rule in RULES:
        errs += rule(root)
    return errs


def edit(root, rel, old, new):
    path = os.path.join(root, rel)
    text = read(root, rel)
    if old not in text:
        raise SystemExit(f"self-test: {old!r} not in {rel}: update the breakage")
    with open(path, "w", encoding="utf-8") as f:
        f.write(text.replace(old, new, 1))


# One breakage per rule: (rule, file, text, replacement).
BREAKS = [
    ("writer", "include/recorder/writer/writer_config.h", "\n", '\n#include "recorder/reader.h"\n'),
    ("order", "include/recorder/writer/writer_impl.h", '#include "writer_threads.h"\n#include "writer_names.h"',
     '#include "writer_names.h"\n#include "writer_threads.h"'),
    ("api", f"{API_DIR}/outfile.h", "\n", '\n#include "../../internal.h"\n'),
    ("viewers", "viewer-tui/main.c", "\n", '\n#include "recorder/writer/writer_state.h"\n'),
    ("inproc", "python/src/writer.c", "\n", '\n#include "recorder/capture.h"\n'),
    ("library", "librecorder/outfile.c", "\n", '\n#include "../viewer-web/source.h"\n'),
    ("links", "meson.build", "recorder_writer_dep = declare_dependency(",
     "recorder_writer_dep = declare_dependency(link_with : librecorder, "),
]


def self_test(root):
    errs = []
    keep = ("include", "librecorder", "viewer-tui", "viewer-web", "python", "gpu")
    for rule, rel, old, new in BREAKS:
        with tempfile.TemporaryDirectory() as tmp:
            for d in keep:
                shutil.copytree(os.path.join(root, d), os.path.join(tmp, d),
                                ignore=shutil.ignore_patterns("node_modules", "*.py", "*.js"))
            shutil.copy(os.path.join(root, "meson.build"), tmp)
            edit(tmp, rel, old, new)
            found = [e for e in check(tmp) if e.startswith(rule + ":")]
            if not found:
                errs.append(f"self-test: breaking {rule} in {rel} was not caught")
            else:
                print(f"ok: broken {rule} caught: {found[0]}")
    return errs


def main():
    root = os.path.abspath(sys.argv[1])
    errs = check(root)
    for e in errs:
        print("FAIL:", e)
    if not errs:
        print("ok: the tree keeps every rule")
    broken = self_test(root)
    for e in broken:
        print("FAIL:", e)
    return 1 if errs or broken else 0


if __name__ == "__main__":
    sys.exit(main())
