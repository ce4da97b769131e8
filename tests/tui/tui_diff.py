#!/usr/bin/env python3
"""recorder-top A.rec B.rec (docs/tui.md, "Two runs side by side"), through
tmux at 80x24 and 200x50.

    tui_diff.py CASE --top PATH --dir DIR

Two crafted captures (tests/cli/capfile.py: ticks are ns, so every figure
is known): alpha's mean goes from 4 us to 6.5 us (+62.5%) and its P99 from
10 us to 20 us, beta gains a call, gone is only in A, fresh only in B.
The diff table lists them by the change in mean, each row with the right
figures; s sorts by the change in P50, S reverses; Enter overlays both
runs' histograms (a bar each for A and B); q exits 0.  At 200 columns the
name column takes what the names need, not the width.  Every wait polls
the screen (tui_harness.py): nothing here measures time.
"""
import os
import re
import shutil
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from capfile import Capture, entry  # noqa: E402
from tui_harness import Fail, parse_case, run_case  # noqa: E402

A = {"alpha": [1000, 2000, 3000, 10000], "beta": [500, 500], "gone": [700]}
B = {"alpha": [1000, 2000, 3000, 20000], "beta": [500, 500, 800], "fresh": [50, 50]}


def crafted(path, scopes):
    ids = {n: 3 + i for i, n in enumerate(sorted(scopes))}
    c = Capture().source(max_threads=8).strings([(i, n.encode()) for n, i in ids.items()]).thread(0, 4242, b"main")
    t, ents = 1000, []
    for n in sorted(scopes):
        for d in scopes[n]:
            ents += [entry(1, t, ids[n]), entry(2, t + d, ids[n])]
            t += d + 100
    c.chunk(0, ents)
    return c.end().write(path)


def rows(screen):
    """The table's rows: {name: the rest of the line split}, and the order."""
    lines = screen.splitlines()
    head = next(i for i, l in enumerate(lines) if l.lstrip().startswith("SCOPE"))
    out, order = {}, []
    for l in lines[head + 1:]:
        f = l.split()
        if not f or f[0] in ("s", "│", "┌─"):
            break
        out[f[0]] = f[1:]
        order.append(f[0])
    return out, order


def check(cond, what, screen):
    if not cond:
        raise Fail(f"{what}; the screen shows:\n{screen}")


def diff_case(a, t, width, height):
    os.makedirs(a.dir, exist_ok=True)
    fa, fb = crafted(os.path.join(a.dir, "a.rec"), A), crafted(os.path.join(a.dir, "b.rec"), B)
    t.start([a.top, fa, fb], width=width, height=height)
    s = t.wait_text("recorder-top diff", "fresh", "by the change in mean")
    r, order = rows(s)
    check(order == ["alpha", "gone", "beta", "fresh"], f"rows by the change in mean: {order}", s)
    check("P50/P99 within 1.6%" in s, "it says how close P50 and P99 are", s)
    al = r["alpha"]
    check("4.00µs" in al and "6.50µs" in al and "+62.5%" in al, f"alpha: mean 4 -> 6.5 us, +62.5%: {al}", s)
    check(r["gone"][:2] == ["1", "-"] and "gone" in r["gone"], f"gone: only in A: {r['gone']}", s)
    check(r["fresh"][:2] == ["-", "2"] and "new" in r["fresh"], f"fresh: only in B: {r['fresh']}", s)
    check(r["beta"][:2] == ["2", "3"] and "+20.0%" in r["beta"], f"beta: 2 -> 3 calls, mean +20%: {r['beta']}", s)
    head = next(l for l in s.splitlines() if l.lstrip().startswith("SCOPE"))
    if width >= 200:
        check(al[-3:] == ["10.0µs", "20.0µs", "+100.0%"], f"alpha: P99 10 -> 20 us at 200 columns: {al}", s)
        check("P50 A" in head and "ΔP99" in head, f"every column at 200: {head!r}", s)
        check(head.index("CALLS A") < 40, f"the name column takes what the names need: {head!r}", s)
    for line in s.splitlines():
        check(len(line) <= width, f"a line past {width} columns: {line!r}", s)
    t.keys("Enter")
    s = t.wait_text("alpha: A and B")
    check("P99 10.0µs" in s and "P99 20.0µs" in s, "the panel: both runs' P99", s)
    bars = [l for l in s.splitlines() if re.search(r"\b[AB] █", l)]
    check(any(" A █" in l for l in bars) and any(" B █" in l for l in bars), "a histogram bar for A and for B", s)
    t.keys("Escape")
    t.wait_gone("alpha: A and B")
    t.keys("s")
    s = t.wait_text("by the change in p50")
    _, order = rows(s)
    check(order == ["gone", "fresh", "alpha", "beta"], f"rows by the change in P50: {order}", s)
    t.keys("S")
    s = t.wait_text("(reversed)")
    _, order = rows(s)
    check(order == ["beta", "alpha", "fresh", "gone"], f"reversed: {order}", s)
    t.keys("q")
    rc = t.wait_exit()
    check(rc == 0, f"q exits 0 ({rc})", t.screen())


def case_diff80(a, t):
    diff_case(a, t, 80, 24)


def case_diff200(a, t):
    diff_case(a, t, 200, 50)



def main():
    name, case, a = parse_case(globals(), "top", "dir")
    shutil.rmtree(a.dir, ignore_errors=True)
    return run_case(name, case, a)


if __name__ == "__main__":
    sys.exit(main())
