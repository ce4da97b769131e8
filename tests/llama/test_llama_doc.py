"""test_llama_doc.py -- docs/llama.cpp.md's code blocks and the compiled
fragments in tests/llama are the same text.

In the doc, every fenced code block follows a marker line:

    <!-- snippet: NAME -->    the block is the region NAME of a file here
    <!-- command -->          a shell command line, not compiled

In a file here (C, C++, CMake), a region runs from a comment line
"snippet: NAME" to "end snippet: NAME" (as /* */, // or # comments); lines
between "snippet: hide" and "snippet: show" inside it are the stand-in for
ggml's or llama.cpp's own code, which the doc does not repeat, and are left
out.  The check fails on a block without a marker, a marker without a
region, a region the doc does not use, a region defined twice, and any
difference of text (trailing blanks aside).

usage: test_llama_doc.py DOC FRAGMENT_DIR"""
import os
import re
import sys

MARK = re.compile(r"^\s*(?:/\*|//|#)\s*(end )?snippet: (\S+?)\s*(?:\*/)?\s*$")
DOC_MARK = re.compile(r"^<!-- (?:snippet: (\S+)|(command)) -->$")


def regions(root):
    """{name: (file, [lines])} of every region under root."""
    found, problems = {}, []
    for dirpath, _, files in os.walk(root):
        for f in sorted(files):
            if f.endswith((".py", ".md", ".build")):
                continue
            path = os.path.join(dirpath, f)
            rel = os.path.relpath(path, root)
            cur, hide = None, False
            with open(path, encoding="utf-8") as fh:
                for n, line in enumerate(fh.read().split("\n"), 1):
                    m = MARK.match(line)
                    if m and m.group(2) in ("hide", "show"):
                        if cur is None or hide == (m.group(2) == "hide"):
                            problems.append(f"{rel}:{n}: stray 'snippet: {m.group(2)}'")
                        hide = m.group(2) == "hide"
                    elif m and m.group(1):
                        if cur is None or cur[0] != m.group(2) or hide:
                            problems.append(f"{rel}:{n}: 'end snippet: {m.group(2)}' does not close an open region")
                        else:
                            if cur[0] in found:
                                problems.append(f"{rel}: region {cur[0]} also in {found[cur[0]][0]}")
                            found[cur[0]] = (rel, cur[1])
                        cur, hide = None, False
                    elif m:
                        if cur is not None:
                            problems.append(f"{rel}:{n}: region {m.group(2)} opens inside {cur[0]}")
                        cur = (m.group(2), [])
                    elif cur is not None and not hide:
                        cur[1].append(line.rstrip())
            if cur is not None:
                problems.append(f"{rel}: region {cur[0]} is not closed")
    return found, problems


def doc_blocks(path):
    """[(marker line no, name or None for a command, [lines])]; problems."""
    with open(path, encoding="utf-8") as fh:
        lines = fh.read().split("\n")
    blocks, problems, i = [], [], 0
    while i < len(lines):
        if lines[i].startswith("```"):
            start = i
            j = i + 1
            while j < len(lines) and not lines[j].startswith("```"):
                j += 1
            prev = start - 1
            while prev >= 0 and not lines[prev].strip():
                prev -= 1
            m = DOC_MARK.match(lines[prev]) if prev >= 0 else None
            if not m:
                problems.append(f"docs line {start + 1}: a code block without a '<!-- snippet: NAME -->' "
                                "or '<!-- command -->' marker before it")
            else:
                blocks.append((prev + 1, m.group(1), [x.rstrip() for x in lines[start + 1:j]]))
            i = j + 1
        else:
            i += 1
    return blocks, problems


def main():
    doc, root = sys.argv[1], sys.argv[2]
    found, problems = regions(root)
    blocks, p2 = doc_blocks(doc)
    problems += p2
    used = set()
    for line, name, text in blocks:
        if name is None:
            continue
        if name in used:
            problems.append(f"docs line {line}: snippet {name} shown twice")
        used.add(name)
        if name not in found:
            problems.append(f"docs line {line}: no region {name} in {root}")
            continue
        rel, want = found[name]
        if text != want:
            problems.append(f"docs line {line}: snippet {name} differs from {rel}:\n--- doc:\n" + "\n".join(text) +
                            f"\n--- {rel}:\n" + "\n".join(want))
    for name in sorted(set(found) - used):
        problems.append(f"region {name} ({found[name][0]}) is not in the doc")
    for p in problems:
        print("FAIL:", p)
    n = sum(1 for b in blocks if b[1])
    print(f"{n} snippets compared, {len(blocks) - n} command blocks, {len(found)} regions")
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
