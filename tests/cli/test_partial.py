#!/usr/bin/env python3
"""test_partial.py -- statistics of partial data, in `recorder report`
(docs/analysis.md, "Loss, and statistics of partial data").

A program spends all its time in back-to-back "busy" scopes and is
captured through a 4 KiB ring, so the capture drops most of its entries.
The report must say the data is partial, and still call the thread ~100%
busy and "busy" ~100% of its time: shares are of the time the decoded
data covers, not of the whole run.  (Without that, both read as the share
decoded: a few percent.  The bound is loose, 60%, because on a loaded
machine preemption between two scopes and the slices cut at each drop take
a few more percent; the failure it guards against reads near the share
decoded.)

    test_partial.py RECORDER CLI_PROG WORKDIR TEST
"""
import os
import re

from clitest import OK, WORK, PROG, check, main, rec, require


def test_report():
    out = os.path.join(WORK, "busy.rec")
    code, _, err = rec("capture", "-o", out, "--ring-kb", "4", "--", PROG, "busy", "2000000")
    require(code == OK, f"capture -- cli_prog busy ({code}, {err[-300:]!r})")
    m = re.search(rb"lost (\d+) entries: (\d+) dropped", err)
    require(m and int(m.group(1)) > 0, f"the 4 KiB ring lost entries ({err[-300:]!r})")
    code, so, err = rec("report", out)
    text = so.decode(errors="replace")
    require(code == OK, f"report exits 0 ({code}, {err!r})")
    check("partial:" in text, "the report says its figures are partial")
    m = re.search(r"partial: ([\d.]+)% of its events decoded", text)
    # Strictly partial.  (Plain builds decode about a third; under ASan the
    # writer slows more than the capture, which then decodes up to 90%.)
    check(m and 0 < float(m.group(1)) < 100, f"with the share of events decoded ({m and m.group(1)})")
    m = re.search(r"Thread busy-thread \(tid \d+\) Showing .* ([\d.]+)% busy", text)
    check(m and float(m.group(1)) > 60, f"the thread is ~100% busy over the time its data covers ({m and m.group(1)})")
    m = re.search(r"^\s+([\d.]+)%\s+[\d.]+\s+\d+\s+[\d.]+\s+[\d.]+\s+[\d.]+\s+busy$", text, re.M)
    check(m and float(m.group(1)) > 60, f"'busy' takes ~100% of the covered time ({m and m.group(1)})")


if __name__ == "__main__":
    main({"report": test_report})
