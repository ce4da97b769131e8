#!/usr/bin/env python3
"""Names that differ only inside stay distinguishable in recorder-top's
Top view (issue 20, item 2; docs/tui.md, "Names"), through tmux.

    tui_names.py CASE --top PATH --workload PATH

tests/tui/tui_workload --layer-names records matmul_blk.N.ffn_down and
matmul_blk.N.ffn_up for N = 2, 3, 11, 12, as llama.cpp names its ops: the
layer number in the middle is all that tells them apart.  At 80x24 the
name column is too narrow for them: each row must still show its own
layer number (a fixed middle cut showed "matmul_…ffn_down" four times),
and the details panel shows the whole name.  At 200x50 the name column is
as wide as the names need, so the numbers sit beside them, whole.  Every
wait polls the screen (tui_harness.py): nothing here measures time.
"""
import re
import sys

from tui_harness import Fail, Tmux, Workload, parse_case, run_case, table_rows, top_ready

LAYERS = (2, 3, 11, 12)
NAMES = [f"matmul_blk.{n}.ffn_{k}" for n in LAYERS for k in ("down", "up")]
LONG = "matmul_blk.12.attention.ffn_down.q8_0.a_name_longer_than_the_details_panel_is_wide_at_80x24"
UNIT = re.compile(r"^[\d.]+(ns|µs|us|ms|s|m|h)$")


def layer_rows(screen):
    """The rows of NAMES on screen: {name: the row's SCOPE cell}, by the
    layer and kind each cell shows (a cut cell starts with the ellipsis)."""
    out = {}
    for r in table_rows(screen):
        cell = r[2:].split("  ")[0].strip()
        for name in NAMES:
            n, k = name.split(".")[1], name.split("_")[-1]
            if re.search(rf"(^|\.|…){n}\.ffn_{k}$", cell) or cell == name:
                if name in out:
                    raise Fail(f"two rows read as {name}: {out[name]!r} and {cell!r}:\n{screen}")
                out[name] = cell
    return out


def check_units(screen, what, n):
    """Every duration cell (the last n of a row) ends in its unit (never cut)."""
    for r in table_rows(screen):
        cells = r.split()
        for c in cells[-n:]:
            if not UNIT.match(c):
                raise Fail(f"{what}: a duration cell {c!r} without its unit in {r!r}:\n{screen}")


def case_names_layers(a, t):
    w = Workload(a.workload, workers=1, args=["--layer-names", "2"])
    try:
        # 80x24: the layer rows, filtered to them, each with its layer.
        t.start([a.top, str(w.pid)], width=80, height=24)
        top_ready(t, w.pid)
        t.keys("/")
        t.type("matmul_blk.")
        t.keys("Enter")
        s = t.wait(lambda s: len(layer_rows(s)) == len(NAMES), "80x24: every layer's row, each its own")
        cells = layer_rows(s)
        if any(c == n for n, c in cells.items()):
            raise Fail(f"80x24: the name column should be too narrow for the full names:\n{s}")
        if len(set(cells.values())) != len(NAMES):
            raise Fail(f"80x24: rows read the same: {cells}\n{s}")
        if any(len(l) > 80 for l in s.split("\n")):
            raise Fail(f"80x24: a line is wider than 80 columns:\n{s}")
        check_units(s, "80x24", 4)   # AVG P50 P99 MAX
        # Counters: kv_cache.blk.N.attention.bytes, whose value is N, each
        # shows its own layer (a middle cut read "kv_cache.…tion.bytes").
        t.keys("4")
        s = t.wait(lambda s: sum("attention.bytes" in l or "…" in l for l in s.split("\n")) >= 4 and
                   all(re.search(rf"\S*{n}\S*\s+{n}\s", s) for n in LAYERS), "80x24: the per-layer counters")
        for n in LAYERS:
            row = next(l for l in s.split("\n") if re.search(rf"\s{n}\s+{n}\s+{n}\s", l))
            cell = row[2:].split("  ")[0].strip()
            if not re.search(rf"(^|\.|…){n}\.", cell):
                raise Fail(f"80x24: the counter of layer {n} reads {cell!r}, without its layer:\n{s}")
        t.keys("1")
        # The details panel: the whole name, over lines of its own.
        t.keys("/", "C-u")   # Ctrl-U empties the prompt
        t.type("a_name_longer")
        t.keys("Enter")
        t.wait(lambda s: len(table_rows(s)) == 1, "80x24: the long name's row alone")
        t.keys("Enter")
        s = t.wait(lambda s: "P99.9" in s, "80x24: the details of the long name")
        inside = "".join(m.group(1) for m in (re.match(r"^ │ (.*?) *│$", l) for l in s.split("\n")[4:7]) if m)
        if LONG not in inside:
            raise Fail(f"80x24: the details panel lacks the whole name {LONG!r}:\n{s}")
        t.keys("Escape", "q")
        if t.wait_exit() != 0:
            raise Fail("q: non-zero exit")
    finally:
        w.stop()
    w = Workload(a.workload, workers=1, args=["--layer-names", "1"])
    t = Tmux("names-200")
    try:
        # 200x50: every name whole, the numbers right after the widest.
        t.start([a.top, str(w.pid)], width=200, height=50)
        top_ready(t, w.pid)
        s = t.wait(lambda s: len(layer_rows(s)) == len(NAMES), "200x50: every layer's row")
        cells = layer_rows(s)
        if any(c != n for n, c in cells.items()):
            raise Fail(f"200x50: the names should be whole: {cells}\n{s}")
        widest = max(len(r[2:].split("  ")[0].strip()) for r in table_rows(s))
        head = next(l for l in s.split("\n") if "CALLS/S" in l)
        first_number = re.search(r"SCOPE\s+", head).end()   # where the first number column's title starts
        if first_number > 2 + widest + 10:
            raise Fail(f"200x50: the numbers start at column {first_number}, the widest name is {widest} wide:\n{s}")
        if any(len(l) > 200 for l in s.split("\n")):
            raise Fail(f"200x50: a line is wider than 200 columns:\n{s}")
        check_units(s, "200x50", 5)   # AVG P50 P95 P99 MAX
        t.keys("q")
        if t.wait_exit() != 0:
            raise Fail("q: non-zero exit")
    finally:
        t.close()
        w.stop()



def main():
    return run_case(*parse_case(globals(), "top", "workload"))


if __name__ == "__main__":
    sys.exit(main())
