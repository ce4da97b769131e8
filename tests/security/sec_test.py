#!/usr/bin/env python3
"""The attacker's test suite: hostile segments and hostile names against
every tool that reads /dev/shm (tests/security/README.md says which case
checks which guarantee).

usage: sec_test.py CASE --recorder R --top T --web W --craft C --prog P --work DIR

Each CASE is a function case_CASE in sec_craft.py (crafted and truncated
segments) or sec_names.py (names that are not segments, other users, the
launch race); sec_common.py holds what they share.  A case prints "ok:" /
"FAILED:" for each check and exits 1 if any failed, 77 (skipped) when it
needs root or a tool that is missing.  Nothing is timed: every timeout only turns a hang
into a failure ("hung"), and a hang is exactly what several of these
attacks try to cause.  Sanitizer reports (the ASan+UBSan build) in any
tool's stderr fail the check that ran it.
"""
import sys

sys.dont_write_bytecode = True   # the modules below: no __pycache__ in the source tree
import sec_common  # noqa: E402
import sec_craft  # noqa: E402
import sec_names  # noqa: E402

CASES = {name[len("case_"):]: fn for mod in (sec_craft, sec_names)
         for name, fn in vars(mod).items() if name.startswith("case_")}

if __name__ == "__main__":
    sys.exit(sec_common.main(CASES))
