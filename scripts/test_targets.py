#!/usr/bin/env python3
"""test_targets.py -- the targets a set of tests needs, for scripts/test and
scripts/py313 alike (one rule, one place).

    meson introspect BUILD --tests --targets | test_targets.py BUILD DEFAULTS [--suite S | --no-suite S]...

Prints the files (relative to BUILD) of every target the selected tests
depend on, from Meson's own introspection -- the tests' executables and
what they declare they run -- and the targets built by default that
DEFAULTS names:
  none       nothing more;
  product    those outside tests/, and tests/web's helpers, which
             web_test_env hands every web test;
  no-bench   all but bench/;
  python     those defined under python/: the package as built (its
             copies, its dist-info: the pytest plugin).
(Not ninja's "all": Meson makes it depend on every test's targets, the
fuzzers included.)  A suite S matches "S" and "PROJECT:S".
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def main():
    build, defaults, args = sys.argv[1], sys.argv[2], sys.argv[3:]
    info = json.load(sys.stdin)
    want = [args[i + 1] for i in range(0, len(args) - 1) if args[i] == "--suite"]
    skip = [args[i + 1] for i in range(0, len(args) - 1) if args[i] == "--no-suite"]

    def has(t, names):
        return any(s == n or s.endswith(":" + n) for s in t["suite"] for n in names)

    ids = set()
    for t in info["tests"]:
        if (not want or has(t, want)) and not has(t, skip):
            ids.update(t["depends"])
    top = "/" + build.strip("/") + "/"
    python_dir = os.path.join(ROOT, "python") + os.sep
    for t in info["targets"]:
        files = [f.split(top, 1)[1] if top in f else f for f in t["filename"]]

        def under(d):
            return all(f.startswith(d) for f in files)

        default = t["build_by_default"] and (
            defaults == "product" and (not under("tests/") or under("tests/web/"))
            or defaults == "no-bench" and not under("bench/")
            or defaults == "python" and t["defined_in"].startswith(python_dir))
        if t["id"] in ids or default:
            print("\n".join(files))
    return 0


if __name__ == "__main__":
    sys.exit(main())
