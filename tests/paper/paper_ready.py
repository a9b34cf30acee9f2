#!/usr/bin/env python3
"""ctest `paper_ready` (issue 46): what the command line gives a paper's author and a user at a terminal.

    tests/paper/paper_ready.py ICL_VERIFY_BINARY SOURCE_DIR

- A training claim's run writes its figures as PDF (matplotlib, through python3) beside the SVG, titles without the
  claim ID; with python3 that lacks matplotlib the run says so in one line and still writes the SVG.
- A --quick table says so in its caption's text (not only in a % comment); no confidence level with more than two
  decimals ("99.9955%"); a correction equal to the exact value has no column of its own; no note on "--" where no
  cell holds one; a training table spells its parts out and sends nobody to summary.md.
- `eval --name P1=KEY` reads weights under any names; without it such a file is refused with one line.
- Ctrl-C: one line on stderr, exit 130 within seconds, no report file written, the output folder left as it was.
"""
import os
import re
import signal
import subprocess
import sys
import tempfile
import time

BIN, SRC = sys.argv[1], sys.argv[2]
failures = []


def check(ok, what):
    print(("ok    " if ok else "FAIL  ") + what, flush=True)
    if not ok:
        failures.append(what)


def run(args, env=None, timeout=600):
    return subprocess.run([BIN] + args, capture_output=True, text=True, env=env, timeout=timeout)


def caption(tex):
    m = re.search(r"\\caption\[\{.*?\}\]\{(.*)\}\n\\label", tex, re.S)
    return m.group(1) if m else ""


with tempfile.TemporaryDirectory() as tmp:
    # --- A training claim at --quick: tables, PDF and SVG figures.
    out = os.path.join(tmp, "quick")
    r = run(["run", "acds.thm1", "sja.thm2", "acds.exp43", "--quick", "--threads", "2", "--out", out])
    check(r.returncode == 0, "run acds.thm1 sja.thm2 acds.exp43 --quick: exit 0 (%d: %s)" % (r.returncode, r.stderr[-300:]))
    pdf = os.path.join(out, "acds.thm1.training.pdf")
    has_mpl = subprocess.run(["/usr/bin/python3", "-c", "import matplotlib"], capture_output=True).returncode == 0
    if has_mpl:
        check(os.path.isfile(pdf) and open(pdf, "rb").read(5) == b"%PDF-", "the training claim's figure as PDF: " + pdf)
        check(os.path.isfile(os.path.join(out, "acds.exp43.training.pdf")), "acds.exp43.training.pdf written")
        check("figures as PDF and SVG" in r.stdout, "the run says it wrote PDF figures")
        check(b"CreationDate" not in open(pdf, "rb").read(), "the PDF carries no creation date (same data, same file)")
    else:
        print("skip  PDF checks: /usr/bin/python3 has no matplotlib")
    svg = os.path.join(out, "acds.thm1.training.svg")
    check(os.path.isfile(svg), "the training claim's figure as SVG")
    svg_text = open(svg).read() if os.path.isfile(svg) else ""
    title = re.search(r'font-size="13">([^<]*)<', svg_text)
    check(bool(title) and "acds.thm1" not in title.group(1), "the SVG's title names no claim ID: %r" % (title.group(1) if title else None))

    tex = open(os.path.join(out, "sja.thm2.tex")).read()
    cap = caption(tex)
    check("Quick run" in cap, "the --quick table says so in its caption's text: %r" % cap[-160:])
    check(not re.search(r"[0-9]\.[0-9]{3,}\\%", tex), "no confidence level with three or more decimals in sja.thm2.tex")
    level = re.search(r"interval at level (at least )?([0-9.]+)\\%", tex)
    check(bool(level) and len(level.group(2).partition(".")[2]) <= 2, "the interval's level has at most two decimals: %r"
          % (level.group(0) if level else None))
    check("& Corrected" not in tex and "equals Exact in every case" in tex,
          "the corrected loss, equal to Exact, has no column of its own and the notes say so")
    check("--: not computed" not in tex, "no note on '--' in a table without one")
    exp = open(os.path.join(out, "acds.exp43.tex")).read()
    check("summary.md" not in exp, "the training table sends nobody to summary.md")
    check("Parts of the statement: (a) the training loss converges" in exp, "the training table spells its parts out")
    check("Quick run" in caption(exp), "the quick training table says so in its caption")
    check("\\texttt{" not in re.sub(r"\\caption\[.*?\]", "", exp.split("\\begin{tabular}")[1]),
          "no parameter in typewriter type in the training table")

    # --- Without matplotlib: one line, the SVG still written.
    wrapper = os.path.join(tmp, "python-without-site")
    with open(wrapper, "w") as f:
        f.write("#!/bin/sh\nexec /usr/bin/python3 -S \"$@\"\n")  # -S: no site-packages, so no matplotlib
    os.chmod(wrapper, 0o755)
    env = dict(os.environ, ICL_VERIFY_PYTHON=wrapper)
    out2 = os.path.join(tmp, "nompl")
    r = run(["run", "acds.thm1", "--quick", "--set", "d=5", "--set", "cov=0", "--out", out2], env=env)
    notes = [l for l in r.stderr.splitlines() if "matplotlib" in l]
    check(r.returncode == 0 and len(notes) == 1 and "SVG only" in notes[0],
          "without matplotlib: exit 0 and one line saying the figures are SVG only (%r)" % r.stderr[-300:])
    check(os.path.isfile(os.path.join(out2, "acds.thm1.training.svg")) and
          not os.path.exists(os.path.join(out2, "acds.thm1.training.pdf")), "without matplotlib: the SVG, no PDF")
    env = dict(os.environ, ICL_VERIFY_PYTHON=os.path.join(tmp, "no-such-python"))
    out3 = os.path.join(tmp, "nopython")
    r = run(["run", "acds.thm1", "--quick", "--set", "d=5", "--set", "cov=0", "--out", out3], env=env)
    check(r.returncode == 0 and r.stderr.count("\n") == 1 and "not found" in r.stderr,
          "without python3: exit 0 and one line (%r)" % r.stderr[-300:])

    # --- eval with weights under other names.
    import numpy as np
    d, n = 2, 20
    P = np.zeros((d + 1, d + 1))
    P[d, d] = 1
    Q = np.zeros((d + 1, d + 1))
    Q[:d, :d] = -n / (n + d + 1) * np.eye(d)
    npz = os.path.join(tmp, "w.npz")
    np.savez(npz, **{"attn.P": P, "attn.Q": Q, "opt.step": np.zeros(1)})
    ev = os.path.join(tmp, "ev")
    r = run(["eval", "--weights", npz, "--name", "P1=attn.P", "--name", "Q1=attn.Q", "--set", "n=20",
             "--samples", "4096", "--out", ev])
    check(r.returncode == 0 and os.path.isfile(os.path.join(ev, "eval.json")),
          "eval --name P1=attn.P --name Q1=attn.Q reads the weights (%r)" % r.stderr[-200:])
    if r.returncode == 0:
        text = open(os.path.join(ev, "eval.json")).read()
        check('"unused_arrays"' in text and "opt.step" in text, "the report lists the array left out")
        md = open(os.path.join(ev, "eval.md")).read()
        check("What the numbers are" in md and "`distance_to_optimum`:" in md, "eval.md says what each number is")
    r = run(["eval", "--weights", npz, "--set", "n=20", "--samples", "4096", "--out", os.path.join(tmp, "ev2")])
    check(r.returncode == 2 and r.stderr.count("\n") == 1 and "--name P1=" in r.stderr and
          not os.path.exists(os.path.join(tmp, "ev2")), "without --name: exit 2, one line naming --name, nothing written")
    r = run(["eval", "--weights", npz, "--name", "P1", "--out", os.path.join(tmp, "ev3")])
    check(r.returncode == 2 and "expected NAME=KEY" in r.stderr, "--name without '=': exit 2")

    # --- Ctrl-C.
    out4 = os.path.join(tmp, "interrupted")
    p = subprocess.Popen([BIN, "run", "sja.thm2", "--threads", "2", "--out", out4], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    time.sleep(2.0)
    t0 = time.monotonic()
    p.send_signal(signal.SIGINT)
    try:
        stdout, stderr = p.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        p.kill()
        stdout, stderr = p.communicate()
    waited = time.monotonic() - t0
    check(p.returncode == 130, "Ctrl-C: exit 130 (got %s)" % p.returncode)
    check(waited < 5, "Ctrl-C: stopped within 5 s (%.2f s)" % waited)
    lines = stderr.splitlines()
    check(len(lines) == 1 and "Ctrl-C" in lines[0], "Ctrl-C: one line on stderr: %r" % stderr)
    check(not os.path.exists(out4) or not any(f.endswith((".json", ".tex", ".md")) for f in os.listdir(out4)),
          "Ctrl-C: no report file written")
    check(not os.path.exists(out4), "Ctrl-C: the output folder the run made is gone again")

if failures:
    print("%d check(s) failed" % len(failures), file=sys.stderr)
    sys.exit(1)
print("all checks passed")
