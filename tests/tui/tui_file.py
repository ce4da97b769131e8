#!/usr/bin/env python3
"""recorder-top on capture files (docs/tui.md, "Capture files"), through tmux.

    tui_file.py CASE --top PATH --recorder PATH --workload PATH --dir DIR

The capture is made the way a user makes one (`recorder capture PID -o
F --duration S` of tests/tui/tui_workload); the figures recorder-top shows
for a window are checked against the same capture exported to JSON by
`recorder convert` and counted here, independently of the model.  The
hostile files get the exit status `recorder report` gives the same file.
Every wait polls the screen (tui_harness.py): nothing here measures time.
"""
import json
import math
import os
import re
import shutil
import struct
import subprocess
import sys
from collections import Counter

from tui_harness import DEADLINE, Fail, Tmux, Workload, line_with, parse_case, run_case, run_plain, table_rows

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "cli"))
from capfile import Capture, entry  # noqa: E402


def make_capture(a, name, seconds=3.5, workers=1):
    path = os.path.join(a.dir, name)
    w = Workload(a.workload, workers=workers)
    try:
        r = subprocess.run([a.recorder, "capture", str(w.pid), "-o", path, "--duration", str(seconds), "-q"],
                           capture_output=True, text=True, timeout=60 + seconds)
    finally:
        w.stop()
    if r.returncode != 0:
        raise Fail(f"recorder capture: {r.returncode} {r.stderr}")
    return path


def export_json(a, path):
    out = path + ".json"
    r = subprocess.run([a.recorder, "convert", path, "-o", out], capture_output=True, text=True, timeout=120)
    if r.returncode != 0:
        raise Fail(f"recorder convert: {r.returncode} {r.stderr}")
    with open(out) as f:
        return json.load(f)


def slice_ends(doc):
    """(name, end in ns since the calibration point) of every slice that
    ended in the capture: B/E paired per thread; slices the exporter closed
    at the end (still open when the capture stopped) left out."""
    other = doc["otherData"]["recorder"]
    t0, end = other["t0_ns"], other["end_ns"]
    stacks, out = {}, []
    for e in doc["traceEvents"]:
        if e["ph"] == "B":
            stacks.setdefault(e["tid"], []).append(e["name"])
        elif e["ph"] == "E":
            name = stacks[e["tid"]].pop()
            ns = t0 + e["ts"] * 1000.0
            if ns < end - 1000:
                out.append((name, ns))
    return out


def fmt_rate(v):
    """format.c's fmt_si for the counts this workload makes (< 1000/s)."""
    if v < 99.95 and abs(v - round(v)) >= 0.05:
        return f"{v:.1f}"
    return f"{v:.0f}"


def cursor(screen):
    """The window the title shows: 't A-B s of E s' -> (A, B) in seconds."""
    return title_times(screen)[:2]


def title_times(screen):
    """'t A-B s of E s' -> (A, B, E) in seconds (E None while unknown)."""
    m = re.search(r"│ t ([\d.]+)-([\d.]+) s of ([\d.?]+) s", screen.split("\n")[0])
    if not m:
        raise ValueError("no cursor")
    return float(m.group(1)), float(m.group(2)), None if m.group(3) == "?" else float(m.group(3))


def summary_span(screen):
    """Top's 'over 4.07s' (or 999ms) in seconds."""
    m = re.search(r"scopes · over ([\d.]+)(ms|s) ·", screen)
    if not m:
        raise ValueError("no summary")
    return float(m.group(1)) / (1000 if m.group(2) == "ms" else 1)


def wait_cursor(t, end_s, what):
    return t.wait(lambda s: cursor(s)[1] == end_s and "q Quit" in s.rstrip("\n").split("\n")[-1], what, stable=True)


def wait_at_end(t, what):
    """Waits until the window ends at the file's end (B == E), read."""
    return t.wait(lambda s: title_times(s)[2] is not None and title_times(s)[1] == title_times(s)[2]
                  and "reading" not in s.split("\n")[0] and "q Quit" in s.rstrip("\n").split("\n")[-1],
                  what, stable=True)


def check_window(screen, ends, end_s, last=False):
    """Top's CALLS/S of the 1 s window ending at end_s against the JSON.
    last: the file's last window, which ends at the file's end (the title's
    B, to the ms) and starts on a 100 ms bucket (the title's A)."""
    lo, hi = (end_s - 1) * 1e9, end_s * 1e9
    spans = [1e9 - 1]   # the model's now is the cursor minus 1 ns
    if last:
        a, b, _ = title_times(screen)
        lo, hi = a * 1e9, math.inf
        spans = [(b - a - 0.0005) * 1e9, (b - a + 0.0005) * 1e9]   # B is to the ms
    want = Counter(n for n, ns in ends if lo <= ns < hi)
    # Names drawn as they are (not the UTF-8 one, not the escaped one).
    plain = lambda n: n.isascii() and n.isprintable() and "?" not in n
    # SCOPE, CALLS, CALLS/S: the rate is checked.
    cells = [re.match(r"\s*~?(\S+)(?: \[wait\])?\s+(\S+)\s+(\S+)", r).groups() for r in table_rows(screen)]
    rows = {n: v for n, _, v in cells if plain(n)}
    if not rows:
        raise Fail(f"no rows at {end_s} s:\n{screen}")
    for name, calls in want.items():
        if not plain(name):
            continue
        got = rows.get(name)
        exp = {fmt_rate(calls * 1e9 / span) for span in spans}
        if got not in exp:
            raise Fail(f"window {lo / 1e9:g}-{end_s:g} s: {name} CALLS/S {got}, the JSON says {sorted(exp)} "
                       f"({calls} calls):\n{screen}")
    extra = set(rows) - {n for n in want if plain(n)}
    if extra:
        raise Fail(f"window {lo / 1e9:g}-{end_s:g} s: rows {sorted(extra)} with no slice in the JSON:\n{screen}")


def check_in_file(s, first_s, what):
    """The title's window and Top's span lie within the file: A not
    negative, B <= its end E, and the span no longer than B - A.  (The
    file's first timestamp may be a little before the first event the JSON
    shows: A is checked against first_s where the window starts the file.)"""
    a, b, e = title_times(s)
    if e is None or a < 0 or b > e:
        raise Fail(f"{what}: the title's t {a}-{b} s is not within the file ({first_s:.3f}-{e} s):\n{s}")
    if summary_span(s) > b - a + 0.01:
        raise Fail(f"{what}: over {summary_span(s)} s, longer than the title's {a}-{b} s:\n{s}")
    return a, b, e


# ---- cases ----------------------------------------------------------------

def case_file_browse(a, t):
    """Open, the header says file, step the cursor, check a stepped window
    against the JSON, jump to the end and back to the start."""
    path = make_capture(a, "browse.rec")
    ends = slice_ends(export_json(a, path))
    first_end = math.floor(min(ns for _, ns in ends) / 1e9) + 1   # roughly: the first window's end
    last_end = math.floor(max(ns for _, ns in ends) / 1e9) + 1
    t.start([a.top, "--window", "1", path])   # 1 s windows, stepped a second at a time
    s = t.wait(lambda s: "file browse.rec: tui_workload pid" in s and cursor(s) and "CALLS/S" in s
               and "window 1s" in s,
               "the capture's first window", stable=True)
    head = s.split("\n")[0]
    for gone in ("running", "exited", "ev/s", "ring "):
        if gone in head:
            raise Fail(f"a file's title says {gone!r}:\n{head}")
    start = cursor(s)[1]
    if start > first_end:
        raise Fail(f"the first window ends at {start} s, the first slice ends before {first_end} s:\n{s}")
    # Two windows forward: a whole second, checked against the JSON.
    t.keys("]")
    wait_cursor(t, start + 1, "the cursor one window on")
    t.keys("]")
    s = wait_cursor(t, start + 2, "the cursor two windows on")
    check_window(s, ends, start + 2)
    # Back one: the model is read again from the start.
    t.keys("[")
    s = wait_cursor(t, start + 1, "the cursor one window back")
    check_window(s, ends, start + 1)
    # The end: the last window holds the last slices, and ends at the
    # file's end, not on the grid past it (issue 20, item 7).
    t.keys(">")
    s = wait_at_end(t, "the cursor at the end")
    end = title_times(s)[1]
    if not last_end - 1 < end <= last_end:
        raise Fail(f"the file's end {end} s is not in the last second before {last_end} s:\n{s}")
    check_window(s, ends, last_end, last=True)
    t.keys("]")   # past the end: stays
    t.keys("w")   # the 10 s window: "all" the way to the end once w is pressed again
    t.keys("w")
    s = t.wait(lambda s: "window whole run" in s and cursor(s)[1] == end, "the whole run at the end", stable=True)
    calls = sum(1 for n, _ in ends if n == "matmul")
    row = line_with(s, " matmul ")
    span = cursor(s)[1] - cursor(s)[0]
    rate = float(row.split()[2].rstrip("k")) * (1000 if row.split()[2].endswith("k") else 1)   # CALLS/S
    if abs(rate * span - calls) > max(2, 0.01 * calls):
        raise Fail(f"window all: matmul {row.split()[2]}/s over {span:.3f} s, the JSON has {calls} calls:\n{s}")
    t.keys("w", "<")
    s = wait_cursor(t, start, "the cursor back at the start")
    t.keys("q")
    if t.wait_exit() != 0:
        raise Fail("q: non-zero exit")


def case_file_clamp(a, t):
    """The title's times never go past the file (issue 20, item 7), at
    80x24 and at 200x50, under the default 10 s window: the first frame
    is a whole window (here the whole 3.5 s file, not its first second),
    `]` and `>` stop at the file's end, and "whole run" spans the file."""
    path = make_capture(a, "clamp.rec")
    doc = export_json(a, path)
    t0 = doc["otherData"]["recorder"]["t0_ns"]
    first = min(t0 + e["ts"] * 1000.0 for e in doc["traceEvents"] if e["ph"] != "M" and "ts" in e) / 1e9
    for width, height in ((80, 24), (200, 50)):
        t = Tmux(f"file-clamp-{width}")
        t.start([a.top, path], width=width, height=height)
        s = t.wait(lambda s: "window 10s" in s and "reading" not in s.split("\n")[0] and cursor(s)
                   and "CALLS/S" in s, f"{width}x{height}: the first frame", stable=True)
        a0, b0, e = check_in_file(s, first, f"{width}x{height}: the first frame")
        if b0 != e or a0 > first + 0.0005:
            raise Fail(f"{width}x{height}: under window 10s the first frame of a {e} s file shows t {a0}-{b0} s, "
                       f"not the whole file:\n{s}")
        t.keys("]")
        s = wait_at_end(t, f"{width}x{height}: ] at the end")
        check_in_file(s, first, f"{width}x{height}: ]")
        t.keys("]", ">")
        s = wait_at_end(t, f"{width}x{height}: > at the end")
        check_in_file(s, first, f"{width}x{height}: >")
        t.keys("w")
        s = t.wait(lambda s: "window whole run" in s and "q Quit" in s, f"{width}x{height}: whole run", stable=True)
        a1, b1, e = check_in_file(s, first, f"{width}x{height}: whole run")
        if summary_span(s) < b1 - a1 - 0.01 or a1 > first + 0.0005 or b1 != e:
            raise Fail(f"{width}x{height}: the whole run is over {summary_span(s)} s, the title says {a1}-{b1} s:\n{s}")
        t.keys("w", "<")   # 1 s windows from the start: the first second
        s = t.wait(lambda s: "window 1s" in s and cursor(s)[1] == math.floor(first) + 1, f"{width}x{height}: <",
                   stable=True)
        check_in_file(s, first, f"{width}x{height}: <")
        t.keys("q")
        if t.wait_exit() != 0:
            raise Fail("q: non-zero exit")
        t.close()


def case_file_views(a, t):
    """Flame and Threads work on a file; Threads lists the capture's threads."""
    path = make_capture(a, "views.rec", seconds=2.5, workers=2)
    t.start([a.top, path])
    t.wait(lambda s: cursor(s), "the first window")
    t.keys(">")
    t.keys("3")
    t.wait_text("worker-0", "worker-1", "sleeper")
    t.keys("2")
    t.wait_text("step", "matmul")
    t.keys("q")
    if t.wait_exit() != 0:
        raise Fail("q: non-zero exit")


def report_status(a, path):
    r = subprocess.run([a.recorder, "report", path], capture_output=True, text=True, stdin=subprocess.DEVNULL,
                       timeout=DEADLINE * 4)
    return r.returncode


def case_file_unrecorded(a, t):
    """A capture whose segment could not record everything (its UNRECORDED
    record, type 9: names recorded as <strings full>, threads that got no
    ring) says so in the title, in the words of a live program's."""
    path = os.path.join(a.dir, "unrec.rec")
    c = Capture().source(max_threads=8).strings([(3, b"work")]).thread(0, 4242, b"main")
    c.chunk(0, [entry(1, 1000, 3), entry(2, 5000, 3)])
    c.record(9, struct.pack("<QQ", 7, 2))
    c.end().write(path)
    t.start([a.top, path])
    s = t.wait_text("7 names recorded as <strings full>", "2 threads not recorded", "work")
    if "file unrec.rec" not in s:
        raise Fail(f"the title names the file:\n{s}")


def case_file_hostile(a, t):
    """Files that are not captures, or broken ones: a one-line error and
    recorder report's exit status, nothing hangs; a capture cut short or
    corrupt in the middle opens with the reader's warning."""
    good = make_capture(a, "good.rec", seconds=1.5)
    data = open(good, "rb").read()
    d = a.dir
    cases = {}

    def put(name, content):
        p = os.path.join(d, name)
        with open(p, "wb") as f:
            f.write(content)
        cases[name] = p

    put("empty.rec", b"")
    put("magic-only.rec", data[:6])
    put("header-cut.rec", data[:40])
    put("garbage.rec", os.urandom(4096))
    put("segment-magic.rec", b"RCRDSEG1" + bytes(4088))
    ver = bytearray(data[:4096])
    ver[8:12] = (99).to_bytes(4, "little")
    put("version.rec", bytes(ver))
    bad_src = bytearray(data[:4096])
    bad_src[64 + 20] ^= 0xFF   # the source record's payload: its check word fails
    put("bad-source.rec", bytes(bad_src))
    fifo = os.path.join(d, "fifo.rec")
    os.mkfifo(fifo)
    cases["fifo.rec"] = fifo
    os.mkdir(os.path.join(d, "dir.rec"))
    cases["dir.rec"] = os.path.join(d, "dir.rec")
    cases["missing.rec"] = os.path.join(d, "missing.rec")
    cases["device"] = "/dev/null"
    os.symlink(fifo, os.path.join(d, "link-to-fifo.rec"))
    cases["link-to-fifo.rec"] = os.path.join(d, "link-to-fifo.rec")
    for name, p in cases.items():
        want = report_status(a, p)
        r = run_plain([a.top, p])
        lines = r.stderr.strip().split("\n")
        if want == 0 or r.returncode != want or len(lines) != 1 or not lines[0].startswith("recorder-top: "):
            raise Fail(f"{name}: recorder-top exit {r.returncode} (report: {want}), stderr {r.stderr!r}")
    # A valid capture without a terminal: it opens, then says it needs one.
    r = run_plain([a.top, good])
    if r.returncode != 2 or "needs a terminal" not in r.stderr:
        raise Fail(f"a good capture without a terminal: {r.returncode} {r.stderr!r}")
    # Cut in the middle of a record, and corrupt in the middle: browsable
    # up to there, with the reader's warning under the title (a cut is
    # found by the open, a corrupt chunk when the reader reaches it: after
    # `>` here), in the words of `recorder report`.
    put("cut.rec", data[:len(data) // 2 + 3])
    corrupt = bytearray(data)
    corrupt[len(data) // 2] ^= 0x5A
    put("corrupt.rec", bytes(corrupt))
    for name, words in (("cut.rec", "cut short"), ("corrupt.rec", "corrupt record")):
        t = Tmux("file-" + name.split(".")[0])
        t.start([a.top, cases[name]])
        if name == "cut.rec":
            t.wait(lambda s: words in s.split("\n")[2] and cursor(s) and "CALLS/S" in s, f"{name}: the warning")
        else:
            t.wait(lambda s: cursor(s) and "CALLS/S" in s, f"{name}: the first frame")
        t.keys(">")
        t.wait(lambda s: cursor(s) and "reading" not in s.split("\n")[0], f"{name}: read to the end")
        t.wait(lambda s: words in s.split("\n")[2], f"{name}: the warning once read")
        rep = subprocess.run([a.recorder, "report", cases[name]], capture_output=True, text=True,
                             stdin=subprocess.DEVNULL, timeout=DEADLINE * 4)
        where = re.search(words + r" at byte \d+", rep.stderr)
        if not where or where.group(0) not in t.screen().split("\n")[2]:
            raise Fail(f"{name}: the banner {t.screen().split(chr(10))[2]!r} lacks report's {rep.stderr!r}")
        t.keys("q")
        if t.wait_exit() != 0:
            raise Fail(f"{name}: non-zero exit")
        t.close()
    # Corrupt in its last large chunk (gen_capture writes large ones): the
    # first frame (the first second) comes before the reader gets there,
    # without a warning; the warning comes with `>`.
    long_rec = os.path.join(d, "long.rec")
    subprocess.run([a.gen, long_rec, "paced", "300000"], check=True, capture_output=True, timeout=120)
    data = open(long_rec, "rb").read()
    big = [at for at, typ, size in records(data) if typ in (4, 6) and size >= 4096]
    if not big:
        raise Fail("the capture has no chunk large enough for the open to step over")
    late = bytearray(data)
    late[big[-1] + 16 + 64] ^= 0x5A
    put("late.rec", bytes(late))
    t = Tmux("file-late")
    t.start([a.top, "--window", "1", cases["late.rec"]])   # a first window of one second
    s = t.wait(lambda s: cursor(s) and "CALLS/S" in s, "late.rec: the first frame")
    if "corrupt record" in s.split("\n")[2]:
        raise Fail("late.rec: warned before the reader got there: the open checked every chunk")
    t.keys(">")
    t.wait(lambda s: "corrupt record at byte %d" % big[-1] in s.split("\n")[2], "late.rec: the warning once read")
    t.keys("q")
    if t.wait_exit() != 0:
        raise Fail("late.rec: non-zero exit")
    t.close()


def records(data):
    """(offset, type, size) of each record of a capture in memory."""
    out, at = [], int.from_bytes(data[12:16], "little")
    while at + 16 <= len(data):
        typ, size = int.from_bytes(data[at:at + 4], "little"), int.from_bytes(data[at + 4:at + 8], "little")
        out.append((at, typ, size))
        at += 16 + ((size + 7) & ~7)
    return out



def main():
    name, case, a = parse_case(globals(), "top", "recorder", "workload", "gen", "dir")   # gen: tests/cli/gen_capture
    shutil.rmtree(a.dir, ignore_errors=True)
    os.makedirs(a.dir, mode=0o700)
    rc = run_case(name, case, a)
    if rc == 0:
        shutil.rmtree(a.dir, ignore_errors=True)
    return rc


if __name__ == "__main__":
    sys.exit(main())
