#!/usr/bin/env python3
"""README.md's verdict table is what reports/readme_table.py generates from reports/latest (and, with --binary,
docs/claims.md's statement blocks are what reports/claims_catalogue.py generates from `icl-verify list`).

  check_readme.py [--binary build/icl-verify] [--readme README.md] [--reports reports/latest] [--claims docs/claims.md]

Exit 0 when both are current; 1 with a unified diff on stdout when one is stale (regenerate with
`python3 reports/readme_table.py --write README.md` and, for the catalogue,
`python3 reports/claims_catalogue.py --binary build/icl-verify --write docs/claims.md`); 2 when the markers are
missing. Python 3 standard library only.
"""
import argparse
import difflib
import importlib.util
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def load(name):
    spec = importlib.util.spec_from_file_location(name, os.path.join(ROOT, "reports", name + ".py"))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", help="icl-verify: also list catalogued claims and check docs/claims.md")
    ap.add_argument("--readme", default=os.path.join(ROOT, "README.md"))
    ap.add_argument("--reports", default=os.path.join(ROOT, "reports", "latest"))
    ap.add_argument("--claims", default=os.path.join(ROOT, "docs", "claims.md"))
    args = ap.parse_args(argv)

    rt = load("readme_table")
    with open(args.readme, encoding="utf-8") as f:
        text = f.read()
    expected = rt.render(text, args.reports, args.binary)
    if expected is None:
        print(f"check_readme: {args.readme} has no '{rt.BEGIN}' ... '{rt.END}' markers", file=sys.stderr)
        return 2
    status = 0
    if expected != text:
        sys.stdout.writelines(difflib.unified_diff(text.splitlines(True), expected.splitlines(True), args.readme,
                                                   args.readme + " (from reports/readme_table.py)"))
        print("check_readme: the README's verdict table is stale; run "
              "'python3 reports/readme_table.py --write README.md'", file=sys.stderr)
        status = 1
    else:
        print(f"check_readme: the verdict table of {os.path.relpath(args.readme, ROOT)} is current")

    if args.binary:
        cc = load("claims_catalogue")
        rc = cc.main(["--binary", args.binary, "--check", args.claims])
        if rc != 0:
            print("check_readme: docs/claims.md's statement blocks are stale; run 'python3 "
                  "reports/claims_catalogue.py --binary build/icl-verify --write docs/claims.md'", file=sys.stderr)
            status = max(status, rc)
        else:
            print(f"check_readme: the statement blocks of {os.path.relpath(args.claims, ROOT)} are current")
    return status


if __name__ == "__main__":
    sys.exit(main())
