#!/usr/bin/env python3
"""sec_craft: the attacker's cases with crafted segments (craft_seg) --
hostile rings through every reader (capture, convert, dump, report, ls,
recorder-top, recorder-web) -- and with segment files truncated under a
live reader.  Run through sec_test.py CASE.
"""
import os
import re
import subprocess
import time

from sec_common import (A, DEADLINE, FORMAT, OK, TIMEOUT, TRUNCATED, Holder, Tmux, begins, capture_summary,
                        check, env_of, load_json, ls_row, names_in, other, printable, rec, require,
                        sanitizer_clean, top_watch, web)

# ---- cases: crafted segments through every reader --------------------------

# What each scenario's rings must at least yield as bad entries (entries of
# a type the writer never makes, instants with impossible lengths), and
# the plain slot that must still decode exactly.
SCENARIOS = {
    # scenario: (min bad entries, plain tid, plain scopes)
    "types": (492, 1001, 20),
    "exploit": (329, 1000, 20),
    "instant": (215, 1001, 20),
    "heads": (2, 1000, 20),
    "dropped": (1, 1000, 20),
    "strings": (0, 1000, 20),
    "values": (0, None, 0),
    # A ring of 2^19 entries that each pack to 19 bytes: the capture's
    # 8 MiB output buffer fills with them within one poll.
    "packmax": (0, None, 0),
}
EXTRA = {"packmax": ["--ring-entries", "524288"]}


def check_trace(doc, scen, what):
    if doc is None:
        return
    min_bad, tid, n = SCENARIOS[scen]
    o = other(doc)
    bad = o.get("entries_bad", -1)
    # A capture file keeps the implausible heads it saw in LOSS records
    # (docs/capture-format.md): counted as bad there too, never as lost.
    check(bad >= min_bad, f"{what}: hostile entries counted as bad ({bad} >= {min_bad})")
    if tid is not None:
        got = begins(doc, "craft_outer", tid), begins(doc, "craft_inner", tid)
        check(got == (n, n), f"{what}: the well-formed thread decodes whole ({got} == {(n, n)})")
    lost = o.get("entries_not_kept", 0) + o.get("entries_overwritten", 0) + o.get("entries_dropped", 0)
    if scen in ("heads", "dropped"):
        check(lost == 0, f"{what}: impossible heads and counters are not counted as lost entries ({lost})")
    check(lost < 2 ** 40, f"{what}: losses stay plausible ({lost})")


def case_craft_cli():
    """Guarantees 1 and 6: each crafted scenario through capture (packed and
    raw) + convert, dump, report and ls."""
    for scen in SCENARIOS:
        h = Holder(scen, extra=EXTRA.get(scen, ()))
        what = f"[{scen}]"
        # ls: listed alive, with sane numbers
        row, _ = ls_row("recorder." + h.name)
        if check(row is not None and row.get("state") == "alive", f"{what} ls lists it alive ({row})"):
            if scen in ("heads", "dropped"):
                check(row["events"] == 82 and row["lost"] == 0 and row["overwritten"] == 0,
                      f"{what} ls: only the plausible head counts (events {row['events']} == 82, lost "
                      f"{row['lost']}, overwritten {row['overwritten']})")
            check(row["events"] < 2 ** 40 and row["lost"] < 2 ** 40, f"{what} ls: numbers stay sane ({row})")
        code, out, _ = rec("ls")
        check(code == OK and printable(out), f"{what} ls: exit 0, nothing a terminal would act on")
        # dump
        j = os.path.join(A.work, f"dump-{scen}.json")
        code, _, err = rec("dump", h.target, "-o", j)
        check(code == OK, f"{what} dump exits 0 ({code}; {err.strip()[-300:]!r})")
        check(printable(err), f"{what} dump's summary has no control bytes")
        if code == OK:
            check_trace(load_json(j, what), scen, f"{what} dump")
        # report
        code, out, err = rec("report", h.target)
        check(code == OK and "pid" in out, f"{what} report exits 0 ({code}; {err.strip()[-300:]!r})")
        check(printable(out) and printable(err), f"{what} report prints nothing a terminal would act on")
        # capture, packed and raw, then every conversion
        for raw in ([], ["--raw"]):
            tag = f"{what} capture{' --raw' if raw else ''}"
            f = os.path.join(A.work, f"cap-{scen}{'-raw' if raw else ''}.rec")
            code, _, err = rec("capture", h.target, "-o", f, "--duration", "0.3", *raw)
            s = capture_summary(err)
            check(code == OK and s is not None, f"{tag}: exit 0 with its summary ({code}; {err.strip()[-400:]!r})")
            if s and scen in ("heads", "dropped"):
                check(s["history"] + s["lost"] == 0, f"{tag}: no absurd losses ({s})")
                m = re.search(r"warning: (\d+) impossible ring heads or drop counts were seen", err)
                check(m is not None and int(m.group(1)) >= SCENARIOS[scen][0],
                      f"{tag}: says how many impossible heads it saw ({err.strip()[-300:]!r})")
            if code != OK:
                continue
            for ext in ("json", "csv", "folded"):
                o = os.path.join(A.work, f"cap-{scen}.{ext}")
                c2, _, e2 = rec("convert", f, "-o", o)
                check(c2 == OK and os.path.exists(o), f"{tag} | convert .{ext}: exit 0 ({c2}; {e2.strip()[-300:]!r})")
                if c2 == OK and ext == "json":
                    check_trace(load_json(o, tag), scen, f"{tag} | convert")
            c2, out, _ = rec("report", f)
            check(c2 == OK and printable(out), f"{tag} | report: exit 0, printable")
        h.stop()
        check(not os.path.exists(h.path), f"{what} craft_seg removed its file")


def case_craft_table():
    """The growing string table (docs/format.md, "Strings"), hostile: a
    2^35-byte region (the most a reader accepts) whose only string past
    the first page is at its far end, level and commit fields no writer
    writes, and a count of names at the limit no program could reach.
    dump, report and ls open it, show the far name, bound the count, and
    a reader's name cache follows the strings it reads, not the region
    (a cache sized by the region would be 32 GiB)."""
    h = Holder("table", extra=["--strings-size", str(2 ** 35)])
    what = "[table]"
    most = 2 ** 53 - 1
    j = os.path.join(A.work, "dump-table.json")
    code, _, err = rec("dump", h.target, "-o", j)
    check(code == OK, f"{what} dump exits 0 ({code}; {err.strip()[-300:]!r})")
    check(f"{most} names recorded as <strings full>" in err,
          f"{what} dump says how many names are <strings full>, bounded ({err.strip()[-300:]!r})")
    if code == OK:
        doc = load_json(j, what)
        if doc is not None:
            got = begins(doc, "far_name", 1001), begins(doc, "craft_outer", 1000)
            check(got == (20, 20), f"{what} dump: the far name and the plain thread decode whole ({got})")
    code, out, err = rec("report", h.target)
    check(code == OK and f"{most} names recorded as <strings full>" in out,
          f"{what} report exits 0 and says it ({code}; {out.strip()[:300]!r}; {err.strip()[-300:]!r})")
    row, _ = ls_row("recorder." + h.name)
    check(row is not None and row.get("names_strings_full") == most,
          f"{what} ls --json: names_strings_full bounded ({row and row.get('names_strings_full')})")
    code, out, _ = rec("ls")
    check(code == OK and f"({most} names recorded as <strings full>)" in out, f"{what} ls says it ({out[-300:]!r})")
    h.stop()


def case_craft_churn():
    """Guarantees 1 and 6 while the segment changes between reads: heads
    that run backwards, jump by 2^63 and back, dropped counters that fall,
    fresh random entries of every type -- through capture (a reader that
    polls for a while), dump, report and ls."""
    h = Holder("all", churn=True)
    f = os.path.join(A.work, "churn.rec")
    code, _, err = rec("capture", h.target, "-o", f, "--duration", "1.5")
    s = capture_summary(err)
    check(code == OK and s is not None, f"capture of a churning segment: exit 0 ({code}; {err.strip()[-400:]!r})")
    if s:
        check(s["lost"] + s["history"] < 2 ** 40, f"capture: losses stay plausible ({s})")
    for ext in ("json", "csv", "folded"):
        o = os.path.join(A.work, f"churn.{ext}")
        c2, _, e2 = rec("convert", f, "-o", o)
        check(c2 == OK, f"convert .{ext} of it: exit 0 ({c2}; {e2.strip()[-300:]!r})")
    doc = load_json(os.path.join(A.work, "churn.json"), "churn capture")
    if doc:
        o = other(doc)
        check(o.get("entries_bad", 0) > 0, f"the capture counted bad entries ({o.get('entries_bad')})")
        check("craft_outer" in names_in(doc), "and decoded the valid scopes among them")
    for i in range(5):
        j = os.path.join(A.work, f"churn-dump{i}.json")
        code, _, err = rec("dump", h.target, "-o", j)
        check(code == OK, f"dump #{i} of a churning segment: exit 0 ({code}; {err.strip()[-300:]!r})")
        doc = load_json(j, "churn dump") if code == OK else None
        if doc:
            o = other(doc)
            lost = o.get("entries_not_kept", 0) + o.get("entries_overwritten", 0) + o.get("entries_dropped", 0)
            check(lost < 2 ** 40, f"dump #{i}: losses stay plausible ({lost})")
        code, out, _ = rec("report", h.target)
        check(code == OK and printable(out), f"report #{i}: exit 0, printable")
        row, _ = ls_row(h.target)
        check(row is not None and row.get("events", 2 ** 63) < 2 ** 40 and row.get("lost", 2 ** 63) < 2 ** 40,
              f"ls #{i}: sane numbers ({row})")
    check(h.p.poll() is None, "the hostile writer is still running (the readers never disturbed it)")
    h.stop()


def case_craft_top():
    """Guarantee 1 in recorder-top's drain: every scenario, and the
    churning one, drawn for a while; it stays up and quits cleanly."""
    for scen in ["all"] + list(SCENARIOS):
        h = Holder(scen, churn=(scen == "all"))
        top_watch(h.target, [f"pid {h.pid}"], f"recorder-top [{scen}]", frames=30,
                  before_quit=lambda t: [t.tmux("send-keys", "-t", "t", k) for k in ("2", "3", "1")])
        h.stop()


def case_craft_top_file():
    """Guarantee 1 in recorder-top's capture-file path: each crafted
    scenario captured (packed and raw), then browsed: every record passes
    the reader's checks, so the hostile entries reach the model; the
    cursor goes to the end, back and to the start; it stays up and quits
    cleanly."""
    keys = ("]", ">", "[", "<", "2", "3", "1")
    for scen in ["all"] + list(SCENARIOS):
        h = Holder(scen)
        for raw in ([], ["--raw"]):
            f = os.path.join(A.work, f"top-{scen}{'-raw' if raw else ''}.rec")
            code, _, err = rec("capture", h.target, "-o", f, "--duration", "0.3", *raw)
            require(code == OK, f"capture of [{scen}] ({code}; {err.strip()[-300:]!r})")
            top_watch(f, ["file top-", "1 Top"], f"recorder-top FILE [{scen}{' raw' if raw else ''}]", frames=20,
                      before_quit=lambda t: [t.tmux("send-keys", "-t", "t", k) for k in keys])
        h.stop()


def case_craft_web_file():
    """Guarantee 1 in recorder-web's capture-file path: each crafted
    scenario captured (packed and raw), then served: the file read at
    open builds the time index, and windows of it read on demand (all of
    it, all of time, inverted, past its end) are answered; the server
    stays up and stops cleanly."""
    for scen in ["all"] + list(SCENARIOS):
        h = Holder(scen)
        for raw in ([], ["--raw"]):
            f = os.path.join(A.work, f"web-{scen}{'-raw' if raw else ''}.rec")
            code, _, err = rec("capture", h.target, "-o", f, "--duration", "0.3", *raw)
            require(code == OK, f"capture of [{scen}] ({code}; {err.strip()[-300:]!r})")
            web(f, f"FILE [{scen}{' raw' if raw else ''}]", "file")
        h.stop()


def case_craft_web():
    """Guarantee 1 in recorder-web's drain: every scenario, and the
    churning one; a WebSocket client receives messages, the snapshot
    exports, the server stays up."""
    for scen in ["all"] + list(SCENARIOS):
        h = Holder(scen, churn=(scen == "all"))
        web(h.target, f"[{scen}]", "watch", holder=h)
        h.stop()


# ---- cases: truncation -------------------------------------------------------

def case_truncate_cli():
    """Guarantee 5 in the CLI: a live segment truncated (to 4096 bytes, and
    to 0) under `recorder capture` (exit 7, a complete, convertible file
    whose summary says so) and under `recorder dump` (no crash)."""
    for size in (4096, 0):
        tag = f"[truncated to {size}]"
        h = Holder("all", churn=True, truncate_to=size)
        f = os.path.join(A.work, f"trunc-{size}.rec")
        c = subprocess.Popen([A.recorder, "capture", h.target, "-o", f], stderr=subprocess.PIPE, text=True,
                             errors="replace", env=env_of(), cwd=A.work)
        end = time.monotonic() + DEADLINE
        while time.monotonic() < end and not (os.path.exists(f) and os.path.getsize(f) > 65536):
            time.sleep(0.02)
        h.truncate()
        try:
            _, err = c.communicate(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            c.kill()
            _, err = c.communicate()
            check(False, f"{tag} capture returned (it hung)")
        sanitizer_clean(err, f"{tag} capture")
        check(c.returncode == TRUNCATED, f"{tag} capture exits {TRUNCATED} ({c.returncode}; {err.strip()[-400:]!r})")
        s = capture_summary(err)
        check(s is not None and "segment truncated" in s["ended"], f"{tag} its summary says 'segment truncated' ({s})")
        j = os.path.join(A.work, f"trunc-{size}.json")
        code, _, e2 = rec("convert", f, "-o", j)
        check(code == OK and "warning" not in e2, f"{tag} the capture file is complete and converts ({code}; {e2!r})")
        doc = load_json(j, tag) if code == OK else None
        check(doc is not None and "craft_outer" in names_in(doc), f"{tag} with what it had read")
        # dump and report after the truncation, and racing a second one
        for cmd in (["dump", h.target, "-o", j], ["report", h.target], ["ls"]):
            code, _, err = rec(*cmd)
            # 5 for an empty file ("too short for a recorder segment") is
            # accurate; 11 ("still starting") is not: it was published.
            want = (OK, TRUNCATED) + ((FORMAT,) if size == 0 else ())
            check(code in want, f"{tag} recorder {cmd[0]} afterwards: {code} in {want} ({err.strip()[-200:]!r})")
        h.stop()
        # dump racing the truncation: start the dump, truncate while it reads
        for i in range(10):
            h = Holder("all", churn=True, truncate_to=size)
            d = subprocess.Popen([A.recorder, "dump", h.target, "-o", j], stderr=subprocess.PIPE, text=True,
                                 errors="replace", env=env_of(), cwd=A.work)
            h.truncate()
            try:
                _, err = d.communicate(timeout=TIMEOUT)
                sanitizer_clean(err, f"{tag} dump racing it #{i}")
                want = (OK, TRUNCATED) + ((FORMAT,) if size == 0 else ())
                check(d.returncode in want, f"{tag} dump racing it #{i}: exit in {want} ({d.returncode}; "
                                            f"{err.strip()[-200:]!r})")
            except subprocess.TimeoutExpired:
                d.kill()
                d.communicate()
                check(False, f"{tag} dump racing it #{i} returned (it hung)")
            h.stop()


def case_truncate_top():
    """Guarantee 5 in recorder-top: it stays up and keeps drawing when the
    segment it watches shrinks (to 4096 bytes, and to 0)."""
    for size in (4096, 0):
        h = Holder("all", churn=True, truncate_to=size)
        top_watch(h.target, [f"pid {h.pid}"], f"recorder-top [truncated to {size}]", frames=20,
                  before_quit=lambda t: (h.truncate(), t.frames(20),
                                         check(t.exited() is None, "recorder-top is up after the truncation")))
        h.stop()


def case_truncate_top_message():
    """Guarantee 5: recorder-top says 'segment truncated' once the segment
    it watches shrank."""
    h = Holder("all", churn=True, truncate_to=4096)
    t = Tmux("truncmsg")
    t.start([A.top, "--refresh", "50", h.target])
    t.wait(lambda s: f"pid {h.pid}" in s, "recorder-top draws")
    h.truncate()
    t.wait(lambda s: "segment truncated" in s, "recorder-top shows 'segment truncated'")
    check(t.exited() is None, "recorder-top is still up")
    t.quit("recorder-top after a truncation")
    h.stop()


def case_truncate_web():
    """Guarantee 5 in recorder-web: it stays up and serves a new client
    after the segment shrank (to 4096 bytes, and to 0)."""
    for size in (4096, 0):
        h = Holder("all", churn=True, truncate_to=size)
        web(h.target, f"[truncated to {size}]", "truncate", holder=h)
        h.stop()
