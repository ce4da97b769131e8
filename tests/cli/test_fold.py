#!/usr/bin/env python3
"""test_fold.py -- `recorder report --fold` (docs/analysis.md, "Folding
layer numbers"): a program that runs blk.0.ffn_up ... blk.3.ffn_up 25 times
each shows four rows, and with --fold one row, blk.*.ffn_up, of 100 calls.

    test_fold.py RECORDER CLI_PROG WORKDIR TEST
"""
import os
import re

from clitest import OK, WORK, PROG, check, main, rec, require


def rows(text):
    """name -> calls, from a report's table rows."""
    out = {}
    for line in text.splitlines():
        f = line.split(None, 6)
        if len(f) == 7 and f[0].endswith("%"):
            out[f[6]] = int(f[2])
    return out


def test_report():
    out = os.path.join(WORK, "layers.rec")
    code, _, err = rec("capture", "-o", out, "--", PROG, "layers", "25")
    require(code == OK, f"capture -- cli_prog layers ({code}, {err[-300:]!r})")
    code, so, err = rec("report", out)
    require(code == OK, f"report exits 0 ({code}, {err!r})")
    plain = rows(so.decode())
    check(all(plain.get(f"blk.{l}.ffn_up") == 25 for l in range(4)), f"four layers of 25 calls: {plain}")
    check("blk.*.ffn_up" not in plain, "no folded row without --fold")
    code, so, err = rec("report", out, "--fold")
    require(code == OK, f"report --fold exits 0 ({code}, {err!r})")
    folded = rows(so.decode())
    check(folded.get("blk.*.ffn_up") == 100, f"one folded row of 100 calls: {folded}")
    check(not any(re.match(r"blk\.\d", n) for n in folded), f"no layer left unfolded: {folded}")
    code, so, _ = rec("report", "--help")
    check(code == OK and b"--fold" in so, "--help lists --fold")


if __name__ == "__main__":
    main({"report": test_report})
