#!/usr/bin/env python3
"""lib/icl is a stack: each folder includes only folders below it on the data path, no cycle of any length.

The order is written here once (STACK, bottom first) and docs/architecture.md shows it; the test fails on an
include that reaches up the stack (file:line and the two folders), on a folder missing from STACK, and, as a
check of its own reading, on a cycle among the folders' include edges (Tarjan's strongly connected components),
so a reordering of STACK cannot hide one.
Usage: lib_stack.py [REPO]   (default: the repository holding this file)
"""
import os
import re
import sys

# Bottom first: a folder may include only folders listed before it.
STACK = ["algebra", "io", "layers", "model", "exact", "execute", "cuda", "backends", "montecarlo", "verdict",
         "learn", "search", "claim", "report", "cli"]
INCLUDE = re.compile(r'\s*#\s*include\s*[<"]icl/([A-Za-z0-9_]+)/')


def include_edges(root):
    edges = {}  # (from, to) -> [file:line]
    for folder in sorted(os.listdir(root)):
        top = os.path.join(root, folder)
        if not os.path.isdir(top):
            continue
        for dirpath, _, files in os.walk(top):
            for name in sorted(files):
                path = os.path.join(dirpath, name)
                with open(path, errors="replace") as f:
                    for number, line in enumerate(f, 1):
                        m = INCLUDE.match(line)
                        if m and m.group(1) != folder:
                            edges.setdefault((folder, m.group(1)), []).append(
                                f"{os.path.relpath(path, root)}:{number}")
    return edges


def cycles(nodes, edges):
    succ = {n: sorted({b for (a, b) in edges if a == n}) for n in nodes}
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in succ.get(v, []):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            group = []
            while True:
                w = stack.pop()
                on.discard(w)
                group.append(w)
                if w == v:
                    break
            if len(group) > 1:
                out.append(sorted(group))

    for n in sorted(nodes):
        if n not in index:
            visit(n)
    return out


def main():
    repo = sys.argv[1] if len(sys.argv) > 1 else os.path.dirname(os.path.dirname(os.path.dirname(
        os.path.abspath(__file__))))
    root = os.path.join(repo, "lib", "icl")
    folders = sorted(d for d in os.listdir(root) if os.path.isdir(os.path.join(root, d)))
    edges = include_edges(root)
    problems = []
    for f in folders:
        if f not in STACK:
            problems.append(f"lib/icl/{f}/ is not in the stack (tests/headers/lib_stack.py STACK): place it")
    for (a, b), where in sorted(edges.items()):
        if a in STACK and b in STACK and STACK.index(b) > STACK.index(a):
            problems.append(f"{a}/ includes {b}/, which is above it: {', '.join(where[:4])}")
    for group in cycles(set(folders) | {b for (_, b) in edges}, edges):
        problems.append("include cycle among " + ", ".join(group))
    for p in problems:
        print(p)
    if problems:
        return 1
    print(f"lib/icl: {len(folders)} folders, {len(edges)} include edges between them, all downward: "
          + " < ".join(f for f in STACK if f in folders))
    return 0


if __name__ == "__main__":
    sys.exit(main())
