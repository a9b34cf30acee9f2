#!/usr/bin/env python3
"""The paper budgets' measured cost: runs `icl-verify run CLAIM --budget paper --estimate` for each claim that
trains models and writes what it printed, as numbers, to reports/paper/estimates.json (the README's verdict table
reads it: reports/readme_table.py).

  paper_estimates.py --binary build/icl-verify [--threads 2] [--claims C ...] [--write reports/paper/estimates.json]

Without --claims: every claim whose `icl-verify list CLAIM` shows a `steps` parameter (the training claims).
Without --write the JSON goes to stdout. Each entry keeps the command, the machine (CPU model, cores), the date and
the estimate's own lines, so a reader can repeat the measurement. Python 3 standard library only.
"""
import argparse
import datetime
import json
import os
import platform
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import readme_table  # noqa: E402  (the one parser of `icl-verify list`)

ROOT = os.path.dirname(HERE)
DEFAULT_OUT = os.path.join(ROOT, "reports", "paper", "estimates.json")
UNITS = {"s": 1.0, "min": 60.0, "h": 3600.0}


def seconds(text):
    m = re.match(r"^([0-9.]+) (s|min|h)$", text.strip())
    if not m:
        raise ValueError(f"not a duration: {text!r}")
    return float(m.group(1)) * UNITS[m.group(2)]


def training_claims(binary):
    found = []
    for c in readme_table.read_listing(binary):
        text = subprocess.run([binary, "list", c], check=True, capture_output=True, text=True).stdout
        if re.search(r"^\s*steps\b", text, re.M):
            found.append(c)
    return found


def parse(claim, text):
    """The claim's line of the estimate: '  CLAIM  33.8 min  (5 training runs, 25000 steps, up to 0.083 s per
    step: 33.6 min; the rest, run: 12 s)'."""
    for line in text.splitlines():
        m = re.match(r"^\s+" + re.escape(claim) + r"\s+([0-9.]+ (?:s|min|h))\s+\((.*)\)\s*$", line)
        if not m:
            continue
        entry = {"predicted_s": seconds(m.group(1)), "line": line.strip()}
        t = re.match(r"(\d+) training runs?, (\d+) steps, up to ([0-9.e+-]+) s per step", m.group(2))
        if t:
            entry.update(training_runs=int(t.group(1)), steps=int(t.group(2)), step_s_max=float(t.group(3)))
        return entry
    raise SystemExit(f"paper_estimates: no estimate line for {claim} in:\n{text}")


def cpu_model():
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or "unknown"


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--binary", required=True)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--claims", nargs="*")
    ap.add_argument("--write", nargs="?", const=DEFAULT_OUT, metavar="FILE")
    args = ap.parse_args(argv)
    claims = args.claims or training_claims(args.binary)
    old = {}
    if args.write and os.path.exists(args.write):
        with open(args.write, encoding="utf-8") as f:
            old = json.load(f).get("claims", {})
    result = {"what": "predicted wall time of each claim's paper budget on the machine named, from "
                      "`icl-verify run CLAIM --budget paper --estimate` (reports/paper_estimates.py)",
              "claims": dict(old)}
    for c in claims:
        cmd = [args.binary, "run", c, "--budget", "paper", "--estimate", "--threads", str(args.threads)]
        print("paper_estimates: " + " ".join(cmd[1:]), file=sys.stderr)
        text = subprocess.run(cmd, check=True, capture_output=True, text=True).stdout
        e = parse(c, text)
        e["threads"] = args.threads
        e["core_hours"] = e["predicted_s"] / 3600 * args.threads
        e["command"] = "icl-verify " + " ".join(cmd[1:])
        e["machine"] = f"{cpu_model()}, {os.cpu_count()} cores"
        e["date"] = datetime.date.today().isoformat()
        result["claims"][c] = e
    body = json.dumps(result, indent=2, sort_keys=False) + "\n"
    if not args.write:
        sys.stdout.write(body)
        return 0
    tmp = args.write + ".tmp"
    with open(tmp, "w", encoding="utf-8") as f:
        f.write(body)
    os.replace(tmp, args.write)
    return 0


if __name__ == "__main__":
    sys.exit(main())
