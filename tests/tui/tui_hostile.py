"""recorder-top end-to-end tests of what must never mislead or hang it:
a writer no reader keeps up with (partial statistics), a segment that
shrinks under it, files in /dev/shm that are not what their names say,
history a ring no longer held when it attached, and threads the program
could not record.  Run through tui_test.py (CASE partial, truncate,
picker_hostile, notkept, notrec), against tests/tui/tui_stress and
tui_workload.
"""
import os
import re
import signal
import sys

from tui_harness import LIST_DEADLINE, Fail, Stress, Tmux, Workload, details, line_with, row_names, run_plain, si


def case_partial(a, t, w):
    """A writer no reader keeps up with: every figure is marked partial,
    and the share of its always-busy scope is taken over the time the
    decoded data covers (~100%), not over the window (the share decoded)."""
    st = Stress(a.stress, ["busy"], env={"RECORDER_RING_KB": "64"})
    try:
        t.start([a.top, str(st.pid)], width=80, height=24)
        hot = re.compile(r"^~ hot\s+(?:[\d.]+[kMG]?\s+){1,2}([\d.]+)%")

        def busy_share(s):
            title = s.split("\n")[0]
            for m in map(hot.match, s.split("\n")):
                if m:
                    return re.search(r"partial: (<1|\d+)% decoded", title) and float(m.group(1)) > 80
            return False

        # The share moves with what each refresh decoded: wait for it to
        # read as it should (without the correction it never exceeds the
        # few % decoded).
        s = t.wait(busy_share, "'partial: N% decoded' and hot's TOTAL% over 80%")
        print("partial header at 80x24:\n" + "\n".join(s.split("\n")[:4]), file=sys.stderr)
        if not re.search(r"^~ partial \(entries lost\)", s.split("\n")[-3]):
            raise Fail("the summary line does not explain the mark:\n" + s)
        if not re.search(r"lost [\d.]+[kMG]", s.split("\n")[0]):
            raise Fail("the title does not count the loss:\n" + s)
        # Threads: the thread is marked, its losses are by cause.
        t.keys("3")
        t.wait(lambda s: re.search(r"^~ stress\s", s, re.M) and
               re.search(r"stress: lost [\d.]+[kMG] \(overwritten [\d.]+[kMG], dropped 0, bad 0\)", s),
               "the thread marked ~, and its losses by cause")
        # Flame: the selected frame's shares are marked.
        t.keys("2")
        t.wait(lambda s: "~ partial (entries lost)" in s and re.search(r"total \S+ \(~[\d.]+%\)", details(s)),
               "the flame view marked partial")
        # The help says what the mark means.
        t.keys("?")
        t.wait_text("recorder-top help")
        t.keys("PageDown", "PageDown")
        t.wait_text("~ partial", "entries were lost in the window", "not kept", "flight recorder")
    finally:
        st.stop()


def case_truncate(a, t, w):
    """The program shrinks its segment while it is watched: recorder-top
    stays up, says so, and keeps what it showed."""
    st = Stress(a.stress, ["truncate"])
    try:
        t.start([a.top, str(st.pid)])
        t.wait(lambda s: "before_truncation" in row_names(s) and "running" in s.split("\n")[0],
               "the scope written before the truncation")
        st.p.send_signal(signal.SIGUSR1)
        if st.line().strip() != "truncated":
            raise Fail("tui_stress did not truncate its segment")
        s = t.wait_text("segment truncated", "nothing more can be read")
        if "running" in s.split("\n")[0]:
            raise Fail("the title still says running:\n" + s)
        if "before_truncation" not in row_names(s):
            raise Fail("the data shown before the truncation is gone:\n" + s)
        # Still answering keys, every view.
        t.keys("3")
        t.wait(lambda s: "stress" in s and "INSIDE NOW" in s, "the threads view after the truncation")
        t.keys("2")
        t.wait(lambda s: "▏before_truncation" in s, "the flame view after the truncation")
        t.keys("1")
        t.wait(lambda s: "before_truncation" in row_names(s), "the top view, as it was")
        t.keys("q")
        status = t.wait_exit()
        if status != 0:
            raise Fail(f"q after the truncation: status {status}")
    finally:
        st.stop()


def case_picker_hostile(a, t, w):
    """A FIFO named like a segment, a segment still starting and (as root)
    another user's segment: the picker lists each for what it is, and
    nothing hangs."""
    me = os.getpid()
    fifo = f"/dev/shm/recorder.tuififo{me}"
    starting = f"/dev/shm/recorder.tuistart{me}"
    by_pid = f"/dev/shm/recorder.{me}"   # this script's pid: no writer has it
    other = f"/dev/shm/recorder.tuiuid{me}"
    link = f"/dev/shm/recorder.tuilink{me}"
    made = []
    small = None

    def zeroes(path):
        """A file whose header is not written yet (a writer creating it)."""
        with open(path, "wb") as f:
            f.write(b"\0" * 8192)
        made.append(path)

    try:
        os.mkfifo(fifo, 0o600)
        made.append(fifo)
        os.symlink("/nonexistent", link)   # dangling: by name it is still a link, refused
        made.append(link)
        if os.geteuid() == 0:
            # A copy of a small live segment, given to another user.
            small = Stress(a.stress, ["wrap", "10"], env={"RECORDER_RING_KB": "4", "RECORDER_MAX_THREADS": "2",
                                                         "RECORDER_STRINGS_KB": "16"})
            if small.line().strip() != "wrapped":
                raise Fail("tui_stress wrap 10 did not start")
            with open(small.seg, "rb") as src, open(other, "wb") as dst:
                dst.write(src.read())
            made.append(other)
            os.chown(other, 65534, 65534)
        # On the command line: one line, the right status, no hang.
        r = run_plain([a.top, fifo])
        if r.returncode != 5 or "FIFO" not in r.stderr or r.stderr.count("\n") != 1:
            raise Fail(f"recorder-top FIFO: status {r.returncode}, {r.stderr!r}")
        r = run_plain([a.top, f"tuilink{me}"])
        if r.returncode != 5 or "symbolic link" not in r.stderr:
            raise Fail(f"recorder-top NAME of a dangling link: status {r.returncode}, {r.stderr!r}")
        zeroes(by_pid)   # young: a pid's segment is waited for while it is
        r = run_plain([a.top, str(me)])
        if r.returncode != 11 or "still starting" not in r.stderr or r.stderr.count("\n") != 1:
            raise Fail(f"recorder-top PID of a starting segment: status {r.returncode}, {r.stderr!r}")
        # The picker.  The file still being created first: after 10 s
        # without a header it is called incomplete.
        zeroes(starting)
        t.start([a.top])
        t.wait_text("pick a program to watch")
        t.keys("/")
        t.type(f"tuistart{me}")
        t.wait(lambda s: re.search(r"\(header not written yet\)\s+-\s+starting\s", s), "the starting segment",
               timeout=LIST_DEADLINE)
        t.keys("Enter", "BSpace", "/")
        t.type(f"tuififo{me}")
        t.wait(lambda s: re.search(r"^\s+-\s+\(a FIFO\)\s+-\s+skipped\s", s, re.M) and
               len([l for l in s.split("\n")[2:] if re.match(r"^\s+(-|\d+)\s", l)]) == 1, "the FIFO, skipped")
        t.keys("Enter")   # closes the prompt
        t.keys("Enter")   # on the row: why not
        t.wait(lambda s: f"Cannot watch recorder.tuififo{me}: skipped, a FIFO" in s.split("\n")[-2],
               "why the FIFO cannot be watched")
        if os.geteuid() == 0:
            t.keys("BSpace", "/")
            t.type(f"tuiuid{me}")
            t.wait(lambda s: re.search(rf"\b{small.pid}\s+tui_stress \(owned by uid 65534\)\s+\d+\s+running", s),
                   "another user's segment, labelled with its owner")
            t.keys("Enter")
        t.keys("q")
        status = t.wait_exit()
        if status != 0:
            raise Fail(f"q in the picker: status {status}")
    finally:
        if small:
            small.stop()
        for path in made:
            if os.path.lexists(path):
                os.unlink(path)


def case_notkept(a, t, w):
    """A ring that wrapped before the attach: its oldest entries were not
    kept, which is no loss of recorder-top's."""
    st = Stress(a.stress, ["wrap", "200000"])   # 400000 entries, a 65536-entry ring
    try:
        if st.line().strip() != "wrapped":
            raise Fail("tui_stress did not wrap its ring")
        t.start([a.top, str(st.pid)])
        s = t.wait(lambda s: re.search(r"│ lost 0 │.*│ not kept [\d.]+k", s.split("\n")[0]),
                   "lost 0 and not kept > 0 in the title")
        if "partial" in s.split("\n")[0]:
            raise Fail("history not kept made the window partial:\n" + s)
        t.keys("3")
        s = t.wait(lambda s: "NOT KEPT" in s and
                   re.search(r"stress: lost 0 \(overwritten 0, dropped 0, bad 0\), not kept [\d.]+k", s),
                   "the thread's history not kept, and no loss")
        head = line_with(s, "NOT KEPT")
        row = line_with(s, " stress ")
        lost = row[head.index("LOST") - 3:head.index("LOST") + 4].split()
        kept = row[head.index("NOT KEPT"):head.index("NOT KEPT") + 8].split()
        if lost != ["0"] or si(kept[0]) < 100000:
            raise Fail(f"LOST {lost}, NOT KEPT {kept}: want 0 and over 100k (400000 written, a 65536 ring)\n{s}")
    finally:
        st.stop()


THREADS_NO_SLOT_OFF = 272   # struct rec_header (include/recorder.h, docs/format.md)


def case_notrec(a, t, w):
    """Threads the program could not record (every slot live: 5 workers
    and a sleeper on RECORDER_MAX_THREADS=2) are never silent: the title
    says "N threads not recorded", N being the segment's count; watched
    with another program (every thread recorded), the count is the sum."""
    nr = Workload(a.workload, workers=5, env={"RECORDER_MAX_THREADS": "2"})
    both = Tmux(a.case + "-both")
    try:
        path = f"/dev/shm/recorder.{nr.pid}"

        def shows_count(s):
            # Both read fresh each time: the count settles once every
            # thread has tried for a slot, and the title follows it.
            with open(path, "rb") as f:
                f.seek(THREADS_NO_SLOT_OFF)
                n = int.from_bytes(f.read(8), "little")
            return n > 0 and f"{n} threads not recorded" in s.split("\n")[0]

        t.start([a.top, str(nr.pid)])
        t.wait(shows_count, "the title says how many threads were not recorded")
        both.start([a.top, str(w.pid), str(nr.pid)], width=160)
        both.wait(shows_count, "two programs: the title says how many of their threads were not recorded")
    finally:
        both.close()
        nr.stop()
