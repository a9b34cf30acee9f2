#!/usr/bin/env python3
"""Issue 44's measures of the claim files, as the closing notes quote them.

  body lines   per claim file (claims/*.cpp that registers a claim): lines after its opening comment block that are neither blank, nor comments, nor
               #include lines (the code a reader reads after the claim's statement);
  common       all lines of claims/common/*.

  registration the body lines of its `const RegisterClaim reg{...}` (the claim's declaration: id, title, source,
               statement, parameters, parts, table), counted by --breakdown beside the rest of the body.

Usage: python3 bench/claim_metrics.py [--all | --breakdown]   (--all: every file's body, smallest first;
       --breakdown: the same with its registration lines and the rest, and the median of the rest)
"""
import glob
import os
import statistics
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def body_lines(path):
    lines = open(path, encoding="utf-8").read().split("\n")
    i = 0
    while i < len(lines) and (lines[i].startswith("//") or not lines[i].strip()):
        i += 1
    code = [l.strip() for l in lines[i:]]
    return sum(1 for l in code if l and not l.startswith("//") and not l.startswith("#include"))


def registration_lines(path):
    n, inside = 0, False
    for line in open(path, encoding="utf-8").read().split("\n"):
        s = line.strip()
        if s.startswith("const RegisterClaim"):
            inside = True
        if inside:
            if s and not s.startswith("//"):
                n += 1
            if s.endswith("}};"):
                inside = False
    return n


def main():
    # The claim files: those that register a claim (claims/papers.cpp registers the papers, no claim).
    files = sorted(f for f in glob.glob(os.path.join(ROOT, "claims", "*.cpp"))
                   if "const RegisterClaim" in open(f, encoding="utf-8").read())
    bodies = sorted((body_lines(f), os.path.relpath(f, ROOT)) for f in files)
    common = sum(len(open(f, encoding="utf-8").read().split("\n")) - 1
                 for f in glob.glob(os.path.join(ROOT, "claims", "common", "*")))
    if "--all" in sys.argv:
        for n, f in bodies:
            print(f"{n:5d}  {f}")
    if "--breakdown" in sys.argv:
        print(" body  registration  rest  file")
        rest = []
        for n, f in bodies:
            reg = registration_lines(os.path.join(ROOT, f))
            rest.append(n - reg)
            print(f"{n:5d}  {reg:12d}  {n - reg:4d}  {f}")
        print(f"median of the rest (body less registration): {statistics.median(rest):g}")
    small = sum(1 for n, _ in bodies if n <= 60)
    print(f"claim files: {len(bodies)}; median body {statistics.median(n for n, _ in bodies):g} lines "
          f"(largest {bodies[-1][0]}, {bodies[-1][1]}); {small} at most 60")
    print(f"claims/common: {common} lines")


if __name__ == "__main__":
    main()
