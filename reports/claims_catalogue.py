#!/usr/bin/env python3
"""The statement blocks of docs/claims.md, generated from `icl-verify list CLAIM` (never typed).

docs/claims.md holds, for every claim, a block between `<!-- claim:ID:begin -->` and `<!-- claim:ID:end -->`: its
title, paper, source, statement as the paper gives it, parts, parameters and budget, as `icl-verify list ID` prints
them. The text around the blocks (the evidence of the standard run, corrected statements) is written by hand.

  claims_catalogue.py --binary build/icl-verify                      print every claim's block
  claims_catalogue.py --binary build/icl-verify --write docs/claims.md
                                                                     replace every block in the file

With --write, a claim that `list` shows but the file has no block for (or a block for a claim `list` does not
show) is an error (exit 2): add or remove the block's markers by hand, then run it again.

The source line names the paper's section or theorem; a leading "Authors (year)," (the paper, named just before) or
a leading file name of a transcription (NNN_hash.txt) is
left out, since the paper line already names the paper. Python 3 standard library only.
"""
import argparse
import os
import re
import subprocess
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import readme_table  # noqa: E402  (the one parser of `icl-verify list`)

MARK = re.compile(r"<!-- claim:([A-Za-z0-9_.]+):begin -->\n.*?<!-- claim:\1:end -->", re.S)
TRANSCRIPT = re.compile(r"^\d{3}_[0-9a-f]{16}\.txt,\s*")
AUTHOR_YEAR = re.compile(r"^[^,()]+(?:, [^,()]+)*(?: and [^,()]+)? \(\d{4}\),\s*")  # "Sun, Jadbabaie and Azizan (2025), "


def run(binary, *args):
    return subprocess.run([binary, *args], check=True, capture_output=True, text=True).stdout


def block(binary, claim):
    """The Markdown block of one claim from `list CLAIM`."""
    lines = run(binary, "list", claim).splitlines()
    head = lines[0]
    title = head.split(":", 1)[1].strip() if ":" in head else ""
    fields, params, parts, budget = {}, [], [], ""
    section = None
    for line in lines[1:]:
        s = line.strip()
        if line.startswith("  ") and not line.startswith("    "):
            section = None
            if s.startswith("parameters"):
                section = "params"
            elif s.startswith("parts of the statement"):
                section = "parts"
            elif s.startswith("Monte Carlo budget"):
                budget = s
            elif ":" in s:
                k, v = s.split(":", 1)
                fields[k.strip()] = v.strip()
            continue
        if section == "params":
            params.append(line[4:])
        elif section == "parts":
            parts.append(s)
    source = AUTHOR_YEAR.sub("", TRANSCRIPT.sub("", fields.get("source", "")))  # the paper is named just before
    out = [f"<!-- claim:{claim}:begin -->", f"### `{claim}`: {title}", ""]
    out.append(f"**Paper:** {fields.get('paper', '')}; {source}.")
    out.append("")
    out.append(f"**Statement:** {fields.get('statement', '')}")
    out.append("")
    if parts:
        out.append("**Parts** (each with the paper's own strength):")
        out.append("")
        for p in parts:
            m = re.match(r"^\(([^,]+), ([a-z-]+)\)\s*(.*)$", p)
            out.append(f"- ({m.group(1)}, {m.group(2)}) {m.group(3)}" if m else f"- {p}")
        out.append("")
    if params or budget:
        out.append(f"**Parameters** (`--set KEY=V1,V2,...`) and budget:")
        out.append("")
        out.append("```text")
        out.extend(params)
        if budget:
            out.append(budget)
        out.append("```")
    out.append(f"<!-- claim:{claim}:end -->")
    return "\n".join(out)


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True, help="icl-verify")
    ap.add_argument("--write", metavar="FILE", help="replace every claim's block in this file (docs/claims.md)")
    ap.add_argument("--check", metavar="FILE", help="exit 1 when a block in this file is not what list prints")
    args = ap.parse_args(argv)
    claims = readme_table.read_listing(args.binary)
    blocks = {c: block(args.binary, c) for c in claims}
    target = args.write or args.check
    if not target:
        print("\n\n".join(blocks[c] for c in claims))
        return 0
    with open(target, encoding="utf-8") as f:
        text = f.read()
    present = MARK.findall(text)
    missing = [c for c in claims if c not in present]
    extra = [c for c in present if c not in blocks]
    if missing or extra:
        for c in missing:
            print(f"claims_catalogue: {target} has no block for {c} (add '<!-- claim:{c}:begin -->' and "
                  f"'<!-- claim:{c}:end -->')", file=sys.stderr)
        for c in extra:
            print(f"claims_catalogue: {target} has a block for {c}, which 'list' does not show", file=sys.stderr)
        return 2
    new = MARK.sub(lambda m: blocks[m.group(1)], text)
    if args.check:
        if new != text:
            import difflib
            sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), new.splitlines(True), target,
                                                       target + " (from icl-verify list)"))
            return 1
        return 0
    if new != text:
        with open(target, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
