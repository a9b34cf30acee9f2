#!/usr/bin/env python3
"""Runs every ```python block of a Markdown page, in order, in one namespace, in a scratch folder (ctest python_docs).

    run_python_md.py docs/python.md

Each block is executed as written; a block that raises (an assert in it fails, or the API changed) fails the test
with the block's line number in the page. A page with no python block fails too: the test must check something.
"""
import os
import re
import sys
import tempfile
import time
import traceback


def blocks(text):
    """(first line number, source) of each ```python ... ``` block."""
    out, lines, i = [], text.split("\n"), 0
    while i < len(lines):
        if lines[i].strip() == "```python":
            start, body = i + 2, []
            i += 1
            while i < len(lines) and lines[i].strip() != "```":
                body.append(lines[i])
                i += 1
            if i == len(lines):
                raise SystemExit(f"unterminated ```python block at line {start - 1}")
            out.append((start, "\n".join(body)))
        i += 1
    return out


def main():
    if len(sys.argv) != 2:
        raise SystemExit("usage: run_python_md.py PAGE.md")
    page = os.path.abspath(sys.argv[1])
    with open(page) as f:
        found = blocks(f.read())
    if not found:
        print(f"{page}: no ```python block", file=sys.stderr)
        return 1
    namespace = {"__name__": "__docs__"}
    with tempfile.TemporaryDirectory() as scratch:
        os.chdir(scratch)
        for line, src in found:
            t0 = time.time()
            try:
                exec(compile(src, f"{os.path.basename(page)}:{line}", "exec"), namespace)
            except Exception:
                traceback.print_exc()
                print(f"FAILED: the block at {os.path.basename(page)} line {line}", file=sys.stderr)
                return 1
            print(f"ok: block at line {line} ({time.time() - t0:.1f} s)")
    print(f"{len(found)} blocks of {os.path.basename(page)} ran")
    return 0


if __name__ == "__main__":
    sys.exit(main())
