"""trace_args.py -- move a Python scope's file and line from its name into
its args, in a Perfetto JSON trace written by `recorder`.

The segment has no room for arguments: a Python function is recorded as
"qualname (file:line)" and a line as "file:line (qualname)", which is what
recorder-top and recorder-web show live.  In the exported trace the name
becomes the qualified name (or "file:line") and the rest goes into args,
where Perfetto shows it:

    {"ph":"B",...,"name":"fib (bench.py:12)"}
 -> {"ph":"B",...,"name":"fib","args":{"file":"bench.py","line":12}}

Begin and end get the same name and args, so the trace still pairs and
nests exactly (tests/analysis/check_trace.py) and speedscope, which keys a
frame by name and args, matches them.  The runner does this for -o
FILE.json; by hand:

    python3 -m recorder.trace_args trace.json [more.json ...]

Only names of those two forms with a Python file (ending in .py or .pyw,
or <...> such as <string>) are touched; every other line is kept as is.
"""
import json
import os
import re
import sys

_FUNC = re.compile(r"^(?P<name>.+) \((?P<file><[^()]*>|[^()]*\.pyw?):(?P<line>\d+)\)$", re.S)
_LINE = re.compile(r"^(?P<file><[^()]*>|[^()]*\.pyw?):(?P<line>\d+) \((?P<func>[^()]+)\)$", re.S)
_NAME = re.compile(r'"name":("(?:[^"\\]|\\.)*")')
_PHASES = ('{"ph":"B"', '{"ph":"E"', '{"ph":"i"')


def split(name):
    """(name, args) for a Python scope's recorded name, else None."""
    m = _LINE.match(name)
    if m:
        return (f"{m['file']}:{m['line']}",
                {"function": m["func"], "file": m["file"], "line": int(m["line"])})
    m = _FUNC.match(name)
    if m:
        return m["name"], {"file": m["file"], "line": int(m["line"])}
    return None


def _dump(s):
    return json.dumps(s, ensure_ascii=False, separators=(",", ":"))


def rewrite_line(line, cache):
    """One event line of the exporter's output, rewritten or as it was."""
    if not line.startswith(_PHASES) or '"args":' in line:
        return line
    m = _NAME.search(line)
    if not m:
        return line
    raw = m.group(1)
    new = cache.get(raw)
    if new is None:
        try:
            parts = split(json.loads(raw))
        except ValueError:
            parts = None
        new = f'"name":{_dump(parts[0])},"args":{_dump(parts[1])}' if parts else ""
        cache[raw] = new
    if not new:
        return line
    return line[:m.start()] + new + line[m.end():]


def rewrite(path):
    """Rewrite a trace file in place (through path.tmp).  Returns how many
    events changed."""
    cache = {}
    changed = 0
    tmp = path + ".args.tmp"
    with open(path, encoding="utf-8", errors="surrogateescape", newline="") as src, \
            open(tmp, "w", encoding="utf-8", errors="surrogateescape", newline="") as dst:
        for line in src:
            out = rewrite_line(line, cache)
            changed += out is not line
            dst.write(out)
    os.replace(tmp, path)
    return changed


def main(argv=None):
    argv = sys.argv[1:] if argv is None else argv
    if not argv or argv[0] in ("-h", "--help"):
        print(__doc__.strip().splitlines()[0])
        print("usage: python3 -m recorder.trace_args TRACE.json [TRACE.json ...]")
        return 0 if argv else 2
    rc = 0
    for p in argv:
        try:
            n = rewrite(p)
        except OSError as e:
            print(f"recorder: {p}: {e.strerror}", file=sys.stderr)
            rc = 8
            continue
        print(f"recorder: {p}: file and line in the args of {n} events", file=sys.stderr)
    return rc


if __name__ == "__main__":
    sys.exit(main())
