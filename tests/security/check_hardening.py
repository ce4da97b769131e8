#!/usr/bin/env python3
"""check_hardening.py -- the shipped binaries are hardened as Debian builds
its packages (docs/security.md, "Build hardening").

    check_hardening.py [--fortify] BINARY...

For each ELF file: position independent (an executable is DYN with the
PIE flag), full RELRO (a GNU_RELRO segment and BIND_NOW), and the stack
protector (it imports __stack_chk_fail).  With --fortify, at least one
fortified libc call (__*_chk) too: sanitized builds go without FORTIFY.
Reads the files with binutils' readelf, so it checks what the linker
made, not what meson was asked.  Exit 0 all pass, 1 a check failed.
"""
import re
import subprocess
import sys


def readelf(*args):
    return subprocess.run(["readelf", "-W", *args], check=True, capture_output=True, text=True).stdout


def problems(path, fortify):
    out = []
    header = readelf("-h", path)
    dynamic = readelf("-d", path)
    kind = re.search(r"Type:\s+(\w+)", header).group(1)
    if kind != "DYN":
        out.append(f"not position independent (ELF type {kind})")
    elif ".so" not in path and not re.search(r"FLAGS_1\).*\bPIE\b", dynamic):
        out.append("an executable without the PIE flag")
    if "GNU_RELRO" not in readelf("-l", path):
        out.append("no RELRO segment")
    if not re.search(r"\(FLAGS\).*BIND_NOW", dynamic) and not re.search(r"FLAGS_1\).*\bNOW\b", dynamic):
        out.append("no immediate binding (partial RELRO only)")
    syms = readelf("--dyn-syms", path)
    if "__stack_chk_fail" not in syms:
        out.append("no stack protector (__stack_chk_fail not imported)")
    if fortify and not re.search(r"\b__\w+_chk\b", syms.replace("__stack_chk_fail", "")):
        out.append("no fortified libc call (__*_chk)")
    return out


def main():
    args = sys.argv[1:]
    fortify = "--fortify" in args
    files = [a for a in args if a != "--fortify"]
    if not files:
        print(__doc__, file=sys.stderr)
        return 2
    bad = 0
    for f in files:
        p = problems(f, fortify)
        for msg in p:
            print(f"{f}: {msg}")
        bad += bool(p)
        if not p:
            print(f"{f}: hardened")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
