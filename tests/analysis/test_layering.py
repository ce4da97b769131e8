#!/usr/bin/env python3
"""test_layering.py [ANALYSIS_DIR] -- librecorder/analysis/ stays layered
(docs/architecture-analysis.md): the files call each other only
downwards, in the order of LAYERS below, and never in a circle.

Each .c file's calls are read from its text: the functions it names that
another file of the folder defines (a header's static inline function
counts as the calls it makes, where it is used).  Each file must belong
to a layer; a call may go to a lower layer, or within a layer only as
ALLOWED_WITHIN lists; and the graph of all calls must have no cycle.
The includes follow the same rule: a file includes only its layer's
header or lower ones (HEADERS), so the exporters, views and aggregates see
the model through model.h and never the feed's write side.

The layers, bottom first (a file may call only those before it):
  util        maps, output buffers, Python names: no model at all
  core        the model's registries, clock, record order, the event log,
              wait and fold names (model.h is its interface)
  aggregates  statistics tables, coverage, counters, messages, P99s
  feed        events into the model, polling, captures, the lifetime
  views       what viewers and reports read: items, tree, GPU report
  stream      the streaming export's core: plan answers, queues and
              walker, lifetime, GPU args
  encoders    how JSON and Perfetto write each thing
  formats     the four sinks (JSON, Perfetto, CSV, folded)
  drivers     the formats' door and a logged model's export, then the
              export of a whole source
"""
import os
import re
import sys

LAYERS = [
    ("util", ["u64map.c", "outbuf.c", "outbuf_thread.c", "pyname.c"]),
    ("core", ["model.c", "wait.c", "fold.c", "event_log.c"]),
    ("aggregates", ["agg.c", "cover.c", "stats.c", "counters.c", "messages.c", "scope_detail.c"]),
    ("feed", ["model_feed.c", "model_poll.c", "model_cap.c", "model_life.c"]),
    ("views", ["view.c", "tree.c", "gpu_report.c", "stat_diff.c", "diff_run.c"]),
    ("stream", ["export_plan.c", "export_stream.c", "export_life.c", "gpu_args.c", "scope_args.c"]),
    ("encoders", ["json_events.c", "perfetto_events.c", "perfetto_pyargs.c"]),
    ("formats", ["export_json.c", "export_perfetto.c", "export_csv.c", "export_folded.c", "gaps.c"]),
    ("drivers", ["export_model.c", "export_source.c"]),
]
# Calls inside a layer, lower file first: each pair "a.c -> b.c" allowed.
ALLOWED_WITHIN = {
    ("pyname.c", "outbuf.c"),
    ("outbuf_thread.c", "outbuf.c"),
    ("wait.c", "model.c"), ("fold.c", "model.c"), ("event_log.c", "model.c"),
    ("cover.c", "agg.c"), ("stats.c", "agg.c"), ("stats.c", "cover.c"), ("counters.c", "cover.c"),
    ("scope_detail.c", "agg.c"), ("scope_detail.c", "cover.c"), ("scope_detail.c", "stats.c"),
    ("model_poll.c", "model_feed.c"), ("model_poll.c", "model_life.c"), ("model_cap.c", "model_life.c"),
    ("gpu_report.c", "view.c"),
    ("export_stream.c", "export_plan.c"), ("export_life.c", "export_stream.c"), ("gpu_args.c", "export_plan.c"),
    ("perfetto_events.c", "perfetto_pyargs.c"),
    ("export_source.c", "export_model.c"),
}
# The headers, by the lowest layer that may include them.
HEADERS = {
    "u64map.h": "util", "outbuf.h": "util", "grow.h": "util", "pyname.h": "util", "histogram.h": "util", "pb_write.h": "util",
    "model.h": "core", "model_write.h": "core", "aggregates.h": "aggregates", "view.h": "views",
    "export_stream.h": "stream", "export_queue.h": "stream", "json_write.h": "encoders", "perfetto_write.h": "encoders",
}
# What only the model's write side, the feed and the drivers may include:
# the exporters, views and aggregates' readers see the model through model.h.
WRITE_SIDE = {"model_write.h": {"core", "aggregates", "feed", "drivers"},
              "aggregates.h": {"aggregates", "feed", "views", "formats"}}
NOT_CALLS = {"if", "while", "for", "switch", "return", "sizeof"}


def strip(src):
    src = re.sub(r"/\*.*?\*/", " ", src, flags=re.S)
    src = re.sub(r"//[^\n]*", " ", src)
    src = re.sub(r'"(\\.|[^"\\\n])*"', '""', src)
    src = re.sub(r"'(\\.|[^'\\\n])*'", "''", src)
    return src


def functions(src, inline_only):
    """{name: body} of the top-level function definitions in src (static
    ones left out of a .c file's external set by the caller)."""
    out = {}
    depth, start, name = 0, None, None
    for m in re.finditer(r"[{}]|([A-Za-z_]\w*)\s*\([^;{}()]*(?:\([^;{}()]*\)[^;{}()]*)*\)\s*(?=\{)", src):
        t = m.group(0)
        if t == "{":
            if depth == 0 and name is None:
                start = None
            depth += 1
        elif t == "}":
            depth -= 1
            if depth == 0 and name is not None:
                out[name[0]] = (name[1], src[start:m.end()])
                name = None
        elif depth == 0 and m.group(1) not in NOT_CALLS:
            pre = src[max(src.rfind(";", 0, m.start()), src.rfind("}", 0, m.start())) + 1 : m.start()]
            pre = re.sub(r"^\s*#[^\n]*\n", "", pre, flags=re.M)
            static = re.search(r"\bstatic\b", pre) is not None
            inline = re.search(r"\binline\b", pre) is not None
            if not inline_only or inline:
                name = (m.group(1), static)
                start = m.start()
    return out


def main():
    here = os.path.dirname(os.path.abspath(__file__))
    d = sys.argv[1] if len(sys.argv) > 1 else os.path.join(here, "..", "..", "librecorder", "analysis")
    files = sorted(os.listdir(d))
    cs = [f for f in files if f.endswith(".c")]
    hs = [f for f in files if f.endswith(".h")]
    errors = []
    layer_of = {}
    for i, (name, members) in enumerate(LAYERS):
        for f in members:
            layer_of[f] = (i, name)
    for f in cs:
        if f not in layer_of:
            errors.append(f"{f}: in no layer (add it to LAYERS in tests/analysis/test_layering.py and the docs)")
    for f in layer_of:
        if f not in cs:
            errors.append(f"{f}: listed in LAYERS but not in {d}")
    for h in hs:
        if h not in HEADERS:
            errors.append(f"{h}: a header in no layer (add it to HEADERS)")
    text = {f: strip(open(os.path.join(d, f), encoding="utf-8").read()) for f in files}
    # inline functions of headers: their calls, resolved where they are used
    inline = {}
    for h in hs:
        for n, (_, body) in functions(text[h], True).items():
            inline[n] = set(re.findall(r"[A-Za-z_]\w*", body))
    owner = {}
    for f in cs:
        for n, (static, _) in functions(text[f], False).items():
            if not static:
                owner.setdefault(n, f)
    edges = {f: {} for f in cs}
    for f in cs:
        names = set(re.findall(r"[A-Za-z_]\w*", text[f]))
        todo = [n for n in names if n in inline]
        seen = set()
        while todo:
            n = todo.pop()
            if n in seen:
                continue
            seen.add(n)
            names |= inline[n]
            todo += [k for k in inline[n] if k in inline]
        for n in names:
            o = owner.get(n)
            if o and o != f:
                edges[f].setdefault(o, []).append(n)
    for f in cs:
        if f not in layer_of:
            continue
        lf = layer_of[f]
        for o, ns in sorted(edges[f].items()):
            if o not in layer_of:
                continue
            lo = layer_of[o]
            if lo[0] > lf[0] or (lo[0] == lf[0] and (f, o) not in ALLOWED_WITHIN):
                errors.append(f"{f} ({lf[1]}) calls {o} ({lo[1]}): {', '.join(sorted(set(ns))[:4])}")
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(os.path.join(d, f), encoding="utf-8").read(), re.M):
            base = os.path.basename(inc)
            if base in HEADERS:
                hl = [i for i, (n, _) in enumerate(LAYERS) if n == HEADERS[base]][0]
                if hl > lf[0]:
                    errors.append(f"{f} ({lf[1]}) includes {base} ({HEADERS[base]}), a layer above it")
                if base in WRITE_SIDE and lf[1] not in WRITE_SIDE[base]:
                    errors.append(f"{f} ({lf[1]}) includes {base}: only {sorted(WRITE_SIDE[base])} may")
    # headers include only headers of their layer or below
    for h in hs:
        if h not in HEADERS:
            continue
        hl = [i for i, (n, _) in enumerate(LAYERS) if n == HEADERS[h]][0]
        for inc in re.findall(r'^\s*#\s*include\s+"([^"]+)"', open(os.path.join(d, h), encoding="utf-8").read(), re.M):
            base = os.path.basename(inc)
            if base in HEADERS and [i for i, (n, _) in enumerate(LAYERS) if n == HEADERS[base]][0] > hl:
                errors.append(f"{h} ({HEADERS[h]}) includes {base} ({HEADERS[base]}), a layer above it")
    # no circle, whatever the layers say
    index, low, stack, on, sccs, counter = {}, {}, [], set(), [], [0]
    sys.setrecursionlimit(10000)

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges[v]:
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                sccs.append(sorted(comp))

    for f in cs:
        if f not in index:
            visit(f)
    for comp in sccs:
        errors.append(f"a circle of calls among {len(comp)} files: {', '.join(comp)}")
    n_edges = sum(len(e) for e in edges.values())
    if n_edges < 60 or len(owner) < 150:
        errors.append(f"the parser found only {n_edges} calls between files and {len(owner)} functions: broken?")
    for e in errors:
        print("FAIL:", e)
    if errors:
        sys.exit(1)
    print(f"ok: {len(cs)} files in {len(LAYERS)} layers, {n_edges} calls between files, no circle")


main()
