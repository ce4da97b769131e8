#!/usr/bin/env python3
"""test_args.py RECORDER ARGS_PROG WORKDIR TEST -- scope arguments
(REC_ARG) in the exports: on each slice's E in the JSON ("args"), as debug
annotations of its end in the protobuf (tests/perfetto/pftrace.py), the
same in both; at most 8 a slice (args_over), one with no scope open
counted (args_outside), a long value cut and marked, a key repeated in
one scope numbered ("step", "step (2)") in both.

  capture  capture -o a.rec -- ARGS_PROG, then convert to .json and
           .pftrace (the streaming capture export)
  dump     the program's kept segment, dump -o .json / .pftrace (the
           live model's export)
"""
import json
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "perfetto"))
from clitest import OK, WORK, PROG, check, rec, run_prog, remove_segment, main  # noqa: E402
import pftrace  # noqa: E402

LONG = "012345678901234567890123456789012345678901..."
MANY = dict({"long": LONG}, **{f"a{i}": "v" for i in range(7)})
WANT = [("mul_mat", {"shape": f"4096x{32 + i}x1x1", "type": "q8_0"}) for i in range(3)]
AGAIN = {"step": "1", "step (2)": "2", "step (3)": "3"}   # a repeated key, numbered: no value hidden
WANT = [x for i in range(3) for x in (WANT[i], ("graph", {"layer": str(i)}))] + [("many", MANY), ("again", AGAIN)]


def slices(events):
    """(name, args of its E) per slice in end order, for the REC_ARG args:
    the JSON's traceEvents and pftrace.decode's events alike."""
    out, st = [], []
    for e in events:
        if e["ph"] == "B":
            st.append(e["name"])
        elif e["ph"] == "E":
            out.append((st.pop(), e.get("args", {})))
    return out


def check_files(stem, what):
    js = json.load(open(os.path.join(WORK, stem + ".json"), encoding="utf-8"))
    got = slices(js["traceEvents"])
    check(got == WANT, f"{what}: the JSON's E events carry the args {got}")
    flat = json.dumps(js["otherData"])
    check('"args_over": 2' in flat or '"args_over":2' in flat, f"{what}: args_over 2 in otherData")
    check('"args_outside": 1' in flat or '"args_outside":1' in flat, f"{what}: args_outside 1 in otherData")
    check(not any(e["ph"] == "i" for e in js["traceEvents"]), f"{what}: no arg became an instant")
    try:
        pf = pftrace.decode(os.path.join(WORK, stem + ".pftrace"))
    except pftrace.DecodeError as e:
        check(False, f"{what}: {stem}.pftrace decodes: {e}")
        return
    got = slices(pf["events"])
    check(got == WANT, f"{what}: the protobuf's slice ends carry the args as annotations {got}")
    check(pf["stats"].get("args_over") == 2 and pf["stats"].get("args_outside") == 1,
          f"{what}: statistics count the args left out {pf['stats'].get('args_over')} {pf['stats'].get('args_outside')}")
    check(not pftrace.compare(pf, js, True, 0), f"{what}: the protobuf holds what the JSON holds")


def test_capture():
    code, _, err = rec("capture", "-o", "a.rec", "--", PROG)
    check(code == OK, f"capture ({err[-200:]!r})")
    for ext in ("json", "pftrace"):
        code, _, err = rec("convert", "a.rec", "-o", "a." + ext)
        check(code == OK, f"convert -o a.{ext} ({err[-200:]!r})")
    check_files("a", "capture")


def test_dump():
    pid = run_prog()
    try:
        for ext in ("json", "pftrace"):
            code, _, err = rec("dump", str(pid), "-o", "d." + ext)
            check(code == OK, f"dump -o d.{ext} ({err[-200:]!r})")
        check_files("d", "dump")
    finally:
        remove_segment(pid)


main({"capture": test_capture, "dump": test_dump})
