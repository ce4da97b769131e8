"""recorder-top end-to-end tests of the Counters and Messages views, the
details panel, names at 80x24, the mouse, and the defaults shared with
recorder-web.  Run through tui_test.py (CASE counters, messages, details,
names80, mouse, views_pause, views_partial, demo), against
tests/tui/tui_workload (two counters, instants every 20 frames, one
holding an escape), tests/tui/tui_stress (a writer no reader keeps up
with) and the demo program (examples/inference).

The mouse is tmux's: recorder-top asks the terminal for mouse reports,
and the test writes the reports themselves (X10 encoding, what
tmux-256color's kmous says) to the pane with send-keys -H.
"""
import re
import subprocess

from tui_harness import BLOCKS, Fail, Stress, line_with, row_names, tab_bar, top_ready


def body(screen):
    """The lines between the column titles (line 3) and the summary: what
    a view shows, without the title bar, whose rates move while paused."""
    return screen.rstrip("\n").split("\n")[3:-2]


def report(x, y, button):
    """A mouse report at column x, line y (0-based), X10 encoding."""
    return ["1b", "5b", "4d", f"{32 + button:02x}", f"{33 + x:02x}", f"{33 + y:02x}"]


def send(t, *reports):
    """The reports in one write to the pane, as a terminal sends what the
    hand did while recorder-top was busy."""
    t.tmux("send-keys", "-t", "t", "-H", *(b for r in reports for b in r))


def click(t, x, y, times=1):
    send(t, *[report(x, y, b) for _ in range(times) for b in (0, 3)])   # press, release


def wheel(t, x, y, down):
    send(t, report(x, y, 65 if down else 64))   # a notch: a press with no release (64: up)


def selected_row(t):
    """The index of the selected row of the list under the column titles
    (line 2), by its color (the 256-color theme's selection background,
    117), or -1."""
    lines = t.screen(escapes=True).split("\n")[3:]
    return next((i for i, l in enumerate(lines) if "48;5;117" in l), -1)


def rows_under(screen, head, end):
    """The rows of a list: the lines after the first holding every word of
    head, up to a blank line or one matching the regex end (the summary)."""
    lines = screen.split("\n")
    h = next(i for i, l in enumerate(lines) if all(w in l for w in head))
    out = []
    for l in lines[h + 1:]:
        if not l.strip() or re.search(end, l):
            break
        out.append(l)
    return out


def counter_rows(screen):
    return rows_under(screen, ("COUNTER", "LATEST"), r"^ \d+ counters")


def message_rows(screen):
    return rows_under(screen, ("MESSAGE", "AGO"), r"\d+ (of \d+ )?messages, newest first")


def case_counters(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("4")
    # queue_depth goes round 0..9 every 10 frames (~20 a second): over the
    # 10 s window its min is 0, its max 9 and its mean 4.5.
    def ready(s):
        rows = counter_rows(s)
        q = next(r for r in rows if "queue_depth" in r).split()
        return len(rows) == 2 and q[2:5] == ["0", "4.5", "9"] and any(b in q[-1] for b in BLOCKS)
    s = t.wait(ready, "tokens_per_s and queue_depth with min 0, avg 4.5, max 9 and a sparkline")
    rows = counter_rows(s)
    # tokens_per_s is used first by the program: the first row.
    if not rows[0].split()[0] == "tokens_per_s":
        raise Fail("tokens_per_s should be the first counter:\n" + "\n".join(rows))
    tok = rows[0].split()
    if not (40 <= float(tok[1]) <= 44 and tok[2] == "40" and tok[4] == "44"):
        raise Fail("tokens_per_s: latest in 40..44, min 40, max 44:\n" + rows[0])
    for text in ("4 Counters", "LATEST", "MIN", "AVG", "MAX", "window 10s", "2 counters", "? Help"):
        if text not in s:
            raise Fail(f"the Counters view lacks {text!r}:\n{s}")
    # w: the 1 s window, then the whole run; the rows stay.
    t.keys("w")
    t.wait(lambda s: "window whole run" in tab_bar(s) and len(counter_rows(s)) == 2, "the whole run")
    t.keys("w")
    t.wait(lambda s: "window 1s" in tab_bar(s) and "min/avg/max over" in s, "the 1 s window")
    # Arrows move; nothing breaks at the ends.
    t.keys("Down", "Down", "End", "Home")
    t.wait(lambda s: len(counter_rows(s)) == 2, "the counters still shown")


def case_messages(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("5")
    s = t.wait(lambda s: sum("checkpoint" in r for r in message_rows(s)) >= 3 and
               any("alert" in r for r in message_rows(s)), "checkpoints and an alert")
    # Newest first: frame numbers go down the list.
    frames = [int(m.group(1)) for m in (re.search(r"frame (\d+) done", r) for r in message_rows(s)) if m]
    if frames != sorted(frames, reverse=True) or len(set(frames)) != len(frames):
        raise Fail(f"checkpoints not newest first: {frames}\n{s}")
    for r in message_rows(s):
        if "checkpoint" in r and not re.match(r"^\s+[\d.]+(ns|µs|ms|s|m|h)\s+main\s+checkpoint\s+frame \d+ done", r):
            raise Fail("a message row should read AGO, THREAD, NAME, MESSAGE:\n" + r)
    # The escape in the alert's text is drawn as '?': the screen was not
    # cleared (the title bar is still there) and the text is shown.
    alert = next(r for r in message_rows(s) if "alert" in r)
    if "?[2Jcleared?" not in alert or "tui_workload" not in s.split("\n")[0]:
        raise Fail("the alert's escape should be defused:\n" + s)
    # /: filter on names and messages as you type; Enter keeps it.
    t.keys("/")
    t.wait_text("Filter:")
    t.type("ALERT")
    t.wait(lambda s: message_rows(s) and all("alert" in r for r in message_rows(s)), "only alerts")
    t.keys("Enter")
    t.wait(lambda s: 'filter "ALERT"' in tab_bar(s) and "Filter:" not in s and " of " in s.split("\n")[-3],
           "the filter kept, and 'N of M messages'")
    # The filter is the Messages view's own: Top is not filtered.
    t.keys("1")
    t.wait(lambda s: "matmul" in row_names(s) and 'filter "' not in tab_bar(s), "Top unfiltered")
    t.keys("5")
    t.wait(lambda s: 'filter "ALERT"' in tab_bar(s), "the Messages filter still there")
    t.type("/")
    t.wait_text("Filter:")
    t.keys("C-u")   # the prompt opens with the filter: clear it
    t.type("frame 1")
    t.wait(lambda s: message_rows(s) and all(re.search(r"frame 1\d* done", r) for r in message_rows(s)),
           "the message text filtered too")
    t.keys("Escape")   # cancels the prompt and drops the filter
    t.wait(lambda s: any("alert" in r for r in message_rows(s)) and 'filter "' not in tab_bar(s), "unfiltered")
    # t: one thread's messages (main records them all; the workers and the
    # sleeper none). Threads go in slot order, and which of the others took
    # the slot after main's depends on which wrote first: accept any of them.
    t.keys("t")
    t.wait(lambda s: "main (" in tab_bar(s) and any("checkpoint" in r for r in message_rows(s)), "main's messages")
    t.keys("t")
    t.wait(lambda s: re.search(r"· (worker-\d+|sleeper) \(\d+\)", tab_bar(s)) and not message_rows(s) and
           "No message from this thread" in s, "none of another thread's")


def case_details(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    t.keys("/")
    t.type("softmax")
    t.keys("Enter")
    t.wait(lambda s: row_names(s) == ["softmax"], "only softmax")
    t.keys("Enter")
    s = t.wait(lambda s: "softmax · window 10s · all threads" in s and "P99.9" in s and
               "P99 per second, last minute" in s, "the details panel of softmax")
    pct = re.search(r"P50 (\S+)\s+P90 (\S+)\s+P99 (\S+)\s+P99\.9 (\S+)", s)
    if not pct:
        raise Fail("no percentiles line:\n" + s)
    # Histogram rows: a duration range, a bar, a count and a share; the
    # shares add up to about 100%.
    bars = re.findall(r"(\S+)-(\S+) ([" + BLOCKS + "▏▎▍▌▋▊▉ ]*?)\s+([\d.]+[kM]?)\s+([\d.]+)%", s)
    if len(bars) < 2 or not any(b[2].strip() for b in bars):
        raise Fail("no histogram bars:\n" + s)
    total = sum(float(b[4]) for b in bars)
    if not 98 <= total <= 102:
        raise Fail(f"the histogram's shares add up to {total}%:\n{s}")
    # softmax spins 30 µs: its P50 is in the 16.4µs-32.8µs or next octave.
    if not re.match(r"[23]\d\.\dµs|[34]\d\.\dµs", pct.group(1)):
        raise Fail(f"softmax's P50 should be ~30µs, not {pct.group(1)}")
    if not any(ch in line_with(s, "P99 per second") for ch in BLOCKS):
        raise Fail("no P99 sparkline:\n" + s)
    keybar = s.rstrip("\n").split("\n")[-1]
    if "Esc Close" not in keybar or "? Help" not in keybar:
        raise Fail("the key bar should say how to close it, and keep ?:\n" + s)
    # w changes the window the panel is over; Esc closes it.
    t.keys("w")
    t.wait_text("softmax · window whole run")
    t.keys("Escape")
    t.wait(lambda s: "P99.9" not in s and row_names(s) == ["softmax"], "the panel closed, the filter kept")


def case_names80(a, t, w):
    """At 80x24 two long names that differ only at the end stay distinct:
    cut in the middle.  Every view keeps '? Help' on the key bar."""
    t.start([a.top, str(w.pid)], width=80, height=24)
    top_ready(t, w.pid)
    t.keys("/")
    t.type("matmul_blk")
    t.keys("Enter")
    s = t.wait(lambda s: len(row_names(s)) == 2, "the two matmul_blk rows")
    names = sorted(row_names(s))
    if not (all("…" in n and n.startswith("matmul_") for n in names) and names[0].endswith("ffn_down")
            and names[1].endswith("ffn_up")):
        raise Fail(f"the names should be cut in the middle and keep their ends: {names}\n{s}")
    for key, view in (("1", "Top"), ("2", "Flame"), ("3", "Threads"), ("4", "Counters"), ("5", "Messages")):
        t.keys(key)
        s = t.wait(lambda s: "? Help" in s.rstrip("\n").split("\n")[-1], f"'? Help' on {view}'s key bar")
        if any(len(l) > 80 for l in s.split("\n")):
            raise Fail(f"{view}: a line is wider than 80 columns:\n{s}")
    t.keys("1", "Enter")
    t.wait(lambda s: "P99.9" in s and "? Help" in s.rstrip("\n").split("\n")[-1], "the details panel at 80x24, ? kept")


def case_mouse(a, t, w):
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    s = t.screen()
    bar = tab_bar(s)
    # Tabs.
    click(t, bar.index("4 Counters") + 2, 1)
    t.wait(lambda s: any("tokens_per_s" in r for r in counter_rows(s)), "Counters, by a click on its tab")
    click(t, bar.index("5 Messages") + 2, 1)
    t.wait(lambda s: "MESSAGE" in s, "Messages, by a click on its tab")
    click(t, bar.index("1 Top") + 2, 1)
    s = t.wait(lambda s: "SCOPE" in s and "CALLS/S" in s, "Top, by a click on its tab")
    # A column title sorts by it; again, reverses.
    head = line_with(s, "CALLS/S")
    click(t, head.index("P99") + 1, 2)
    t.wait(lambda s: "sort P99" in tab_bar(s) and "P99▼" in s, "sorted by P99")
    click(t, head.index("P99") + 1, 2)
    t.wait(lambda s: "P99▲" in s, "P99 reversed")
    # Clicks that arrive together all act, in order: SCOPE, then SCOPE
    # reversed (mouse.c; the last alone would leave SCOPE▼).
    click(t, head.index("SCOPE") + 1, 2, times=2)
    t.wait(lambda s: "sort SCOPE" in tab_bar(s) and "SCOPE▲" in s, "sorted by name, then reversed, by a burst")
    click(t, head.index("SCOPE") + 1, 2)
    t.wait(lambda s: "SCOPE▼" in s, "sorted by name")
    s = t.wait(lambda s: row_names(s) == sorted(row_names(s), key=lambda n: n.encode()) and len(row_names(s)) > 8,
               "the rows A to Z")
    names = row_names(s)
    # A click on the third row selects it: Enter shows its details.
    click(t, 10, 3 + 2)
    t.wait(lambda s: selected_row(t) == 2, "the third row selected")
    t.keys("Enter")
    t.wait_text(f"{names[2]} · window 10s")
    click(t, 10, 10)   # a click closes the panel
    t.wait(lambda s: "P99.9" not in s, "the panel closed by a click")
    # The wheel scrolls the selection three rows at a time.
    wheel(t, 10, 6, down=True)
    t.wait(lambda s: selected_row(t) == 5, "the sixth row selected")
    t.keys("Enter")
    t.wait_text(f"{names[5]} · window 10s")
    t.keys("Escape")
    send(t, report(10, 6, 64), report(10, 6, 64))   # two notches up, together: both act
    t.wait(lambda s: selected_row(t) == 0, "the first row selected")
    t.keys("Enter")
    t.wait_text(f"{names[0]} · window 10s")
    t.keys("Escape")
    # Keys still work after all that.
    t.keys("q")
    if t.wait_exit() != 0:
        raise Fail("q after the mouse: non-zero exit")


def case_views_pause(a, t, w):
    """Pause freezes Counters and Messages too, while reading goes on."""
    t.start([a.top, str(w.pid)])
    top_ready(t, w.pid)
    for key, rows in (("4", counter_rows), ("5", message_rows)):
        t.keys(key)
        t.wait(lambda s: len(rows(s)) >= 2, "rows")
        t.keys("p")
        s1 = t.wait_text("PAUSED")
        b1, title1 = body(s1), s1.split("\n")[0]
        t.wait(lambda s: s.split("\n")[0] != title1, "the title bar to update while paused")
        if body(t.screen()) != b1:
            raise Fail("the view changed while paused:\n" + "\n".join(b1) + "\n---\n" + "\n".join(body(t.screen())))
        t.keys("p")
        t.wait_gone("PAUSED")
        t.wait(lambda s: body(s) != b1, "the view to move again")


def case_demo(a, t, w):
    """The demo (scripts/demo runs examples/inference): tokens_per_s is
    the first thing the Counters view shows."""
    p = subprocess.Popen([a.inference, "--threads", "2", "--layers", "2", "--dim", "64", "--rate", "50", "--quiet"])
    try:
        t.start([a.top, "--wait=30", str(p.pid)])
        t.wait(lambda s: f"pid {p.pid}" in s and "SCOPE" in s, "recorder-top on the demo")
        t.keys("4")
        s = t.wait(lambda s: len(counter_rows(s)) >= 2, "the demo's counters")
        if counter_rows(s)[0].split()[0] != "tokens_per_s":
            raise Fail("the demo's first counter should be tokens_per_s:\n" + s)
        t.keys("5")
        t.wait(lambda s: any(re.search(r"token\s+#\d+ seq \d+ pos \d+ id \d+", r) for r in message_rows(s)),
               "the demo's token messages")
    finally:
        p.terminate()
        p.wait()


def case_views_partial(a, t, w):
    """A writer no reader keeps up with: its counter, its messages and the
    details panel are marked partial (~), and the bottom line says why."""
    st = Stress(a.stress, ["busy"], env={"RECORDER_RING_KB": "64"})
    try:
        t.start([a.top, str(st.pid)], width=80, height=24)
        t.wait(lambda s: "partial" in s.split("\n")[0] and re.search(r"^~ hot\s", s, re.M), "Top, partial")
        t.keys("4")
        t.wait(lambda s: re.search(r"^~ stress_level\s", s, re.M) and
               "~ partial (entries lost): of the samples read" in s, "the counter marked ~")
        t.keys("5")
        t.wait(lambda s: any(r.startswith("~") and "stress_note" in r for r in message_rows(s)) and
               "messages may be missing" in s, "messages after a loss marked ~")
        t.keys("1", "Enter")
        t.wait(lambda s: re.search(r"~ (hot|inner) · window 10s", s) and "~ P50" in s, "the details panel marked ~")
    finally:
        st.stop()
