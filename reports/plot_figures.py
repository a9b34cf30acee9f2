#!/usr/bin/env python3
"""PDF and SVG figures of an icl-verify report folder, drawn with matplotlib from the JSON reports.

    python3 reports/plot_figures.py reports/latest
    python3 reports/plot_figures.py FOLDER --out DIR --per-claim

`icl-verify run` and `icl-verify report` run this script themselves (the library embeds it) with --out and
--per-claim on the reports they write, and put the PDFs in the report folder with the other files; ./verify runs it
on the folder afterwards for the folder-wide depth figure.

Writes, next to the reports:
  <claim>.<name>.pdf   every figure whose data a report holds in its `figures` block (the gradient-flow curves
                       of zfb.thm4 and zfb.thm8); `icl-verify report` draws the same data as <claim>.<name>.svg.
  depth.pdf, depth.svg loss after L blocks of sja.thm7 / sja.cor8 (their `depth` tables), with error bars of
                       +- 1.96 standard errors of log(loss) (delta method: loss * exp(+-1.96 s.e. / loss)), so that
                       they stay inside the log axis.
  <claim>.training.pdf the training curves a report holds (every `curve` block with `step` and `train_loss`: the
                       training loss against the step, one line per run), beside `icl-verify report`'s
                       <claim>.training.svg.
Options: --out DIR writes the figures there instead of beside the reports; --per-claim draws only the figures of
single claims (not depth.pdf). Without matplotlib the script says so in one line and exits 0, or 3 with --out (the
command line then notes that its figures are SVG only).
Titles name no claim ID (a title an older report holds as "sja.fig1: ..." loses its ID), so that a figure pastes
into a paper as it is; the PDFs carry no creation date (the same data gives the same file).
Within a figure no two series share a colour (tab10 up to 10 series, tab20 up to 20, then evenly spaced colours
of a sequential map), and every axis has tick labels.
matplotlib (Debian: python3-matplotlib) places legends outside the axes and draws tick labels, error bars and
PDF; without it the script says so and exits 0, so `./verify` goes on (the SVGs exist either way).
"""
import json
import os
import re
import sys

# A claim ID at the start of a title ("sja.fig1: quadratic ICL"), left out of what is drawn.
CLAIM_PREFIX = re.compile(r"^[a-z]+\.[a-z0-9_]+: ")
# The depth tables' claims as a paper names them.
DEPTH_SOURCES = {"sja.thm7": "Theorem 7", "sja.cor8": "Corollary 8"}


def figure_title(title):
    rest = CLAIM_PREFIX.sub("", title or "")
    return rest[:1].upper() + rest[1:] if rest != title else title


def load_reports(folder):
    out = []
    for name in sorted(os.listdir(folder)):
        if not name.endswith(".json"):
            continue
        try:
            with open(os.path.join(folder, name)) as f:
                r = json.load(f)
        except (OSError, ValueError):
            continue
        if isinstance(r, dict) and r.get("schema") == "icl-verify/report/v1":
            out.append(r)
    return out


def distinct_colours(plt, n):
    """n colours, no two the same."""
    if n <= 10:
        return [plt.cm.tab10(k) for k in range(n)]
    if n <= 20:
        return [plt.cm.tab20(k) for k in range(n)]
    return [plt.cm.viridis(k / (n - 1)) for k in range(n)]


def finish(fig, ax, path_base, formats):
    # A log axis spanning less than two decades shows one major tick or none: label its minor ticks too, so that
    # every axis can be read.
    from matplotlib.ticker import LogFormatterSciNotation
    for axis in (ax.xaxis, ax.yaxis):
        if axis.get_scale() == "log":
            lo, hi = axis.get_view_interval()
            if lo > 0 and hi / lo < 100:
                axis.set_minor_formatter(LogFormatterSciNotation(labelOnlyBase=False, minor_thresholds=(2, 1.2)))
                axis.set_tick_params(which="minor", labelsize=7)
    # Legend below the axes: it never covers a curve, and bbox_inches="tight" keeps it inside the page.
    handles, labels = ax.get_legend_handles_labels()
    if handles:
        ax.legend(loc="upper center", bbox_to_anchor=(0.5, -0.16), ncol=2, fontsize=8, frameon=False)
    for ext in formats:
        # No creation date in the file: the same data gives the same PDF (and SVG).
        metadata = {"CreationDate": None} if ext == "pdf" else {"Date": None} if ext == "svg" else None
        fig.savefig(path_base + "." + ext, bbox_inches="tight", metadata=metadata)


def draw_figures(plt, folder, reports):
    """Every figure of a report's `figures` block, as <claim>.<name>.pdf in `folder`."""
    written = []
    for r in reports:
        figs = r.get("figures")
        if not isinstance(figs, dict):
            continue
        for name, spec in figs.items():
            fig, ax = plt.subplots(figsize=(6.4, 4.2))
            series = spec.get("series", [])
            colours = distinct_colours(plt, len(series))
            for k, s in enumerate(series):
                pts = [(x, y) for x, y in zip(s.get("x", []), s.get("y", []))
                       if (not spec.get("log_x", True) or x > 0) and (not spec.get("log_y", True) or y > 0)]
                if not pts:
                    continue
                xs, ys = zip(*pts)
                ax.plot(xs, ys, linestyle="--" if s.get("dashed") else "-", color=colours[k], label=s.get("name", ""))
            if spec.get("log_x", True):
                ax.set_xscale("log")
            if spec.get("log_y", True):
                ax.set_yscale("log")
            ax.set_xlabel(spec.get("xlabel", ""))
            ax.set_ylabel(spec.get("ylabel", ""))
            ax.set_title(figure_title(spec.get("title", "")), fontsize=10)
            ax.grid(True, which="major", alpha=0.3)
            base = os.path.join(folder, "%s.%s" % (r["claim"], name))
            finish(fig, ax, base, ["pdf"])
            plt.close(fig)
            written.append(base + ".pdf")
    return written


def draw_depth(plt, folder, reports):
    series = []
    for r in reports:
        if r["claim"] not in DEPTH_SOURCES:
            continue
        for t in r.get("depth", []) or []:
            rows = [row for row in t.get("table", []) if isinstance(row.get("blocks"), int)]
            if not rows:
                continue
            label = "%s, d=%s" % (DEPTH_SOURCES[r["claim"]], t.get("d"))
            if "p" in t:
                label += ", p=%s" % t["p"]
            if "damping" in t:
                label += ", damping %g" % t["damping"]
            series.append((label, rows))
    if not series:
        return []
    import math
    fig, ax = plt.subplots(figsize=(6.4, 4.2))
    colours = distinct_colours(plt, len(series))
    for k, (label, rows) in enumerate(series):
        rows = [row for row in rows if row["loss"] > 0]
        x = [row["blocks"] for row in rows]
        y = [row["loss"] for row in rows]
        # +-1.96 s.e. of log(loss) (delta method): positive at both ends, symmetric on the log axis.
        f = [math.exp(min(50.0, 1.96 * row.get("stderr", 0.0) / row["loss"])) for row in rows]
        err = [[yy - yy / ff for yy, ff in zip(y, f)], [yy * ff - yy for yy, ff in zip(y, f)]]
        ax.errorbar(x, y, yerr=err, marker="o", markersize=3, capsize=2, color=colours[k], label=label)
    ax.set_yscale("log")
    ax.set_xlabel("blocks L")
    ax.set_ylabel("in-context loss (Monte Carlo; bars ±1.96 s.e. of log loss)")
    ax.set_title("What depth buys: loss after L blocks", fontsize=10)
    ax.grid(True, which="major", alpha=0.3)
    base = os.path.join(folder, "depth")
    finish(fig, ax, base, ["pdf", "svg"])
    plt.close(fig)
    return [base + ".pdf", base + ".svg"]


def curves_of(report):
    """(label, steps, train losses) for every `curve` block of the report, labelled by where it sits."""
    found = []

    def walk(o, label, key=""):
        if isinstance(o, dict):
            c = o.get("curve")
            if isinstance(c, dict) and isinstance(c.get("step"), list) and isinstance(c.get("train_loss"), list):
                found.append((label, c["step"], c["train_loss"]))
            name = next((str(o[k]) for k in ("name", "model", "label") if isinstance(o.get(k), (str, int))), None)
            for k, v in o.items():
                if k != "curve":
                    walk(v, name if name and isinstance(v, list) else label, k)
        elif isinstance(o, list):
            word = {"runs": "run", "models": "model", "cases": "case"}.get(key, key)
            for i, v in enumerate(o):
                walk(v, ("%s, %s %d" % (label, word, i)) if label else "%s %d" % (word, i))

    walk(report.get("cases", []), "", "cases")
    walk(report.get("models", []), "", "models")
    return found


def draw_training(plt, folder, reports):
    written = []
    for r in reports:
        curves = [(l, s, y) for l, s, y in curves_of(r) if any(v is not None and v > 0 for v in y)]
        if not curves:
            continue
        fig, ax = plt.subplots(figsize=(6.4, 4.2))
        colours = distinct_colours(plt, len(curves))
        for k, (label, steps, losses) in enumerate(curves):
            pts = [(x, v) for x, v in zip(steps, losses) if v is not None and v > 0]
            if pts:
                xs, ys = zip(*pts)
                ax.plot(xs, ys, color=colours[k], linewidth=1, label=label if len(curves) <= 20 else None)
        ax.set_yscale("log")
        ax.set_xlabel("training step")
        ax.set_ylabel("training (minibatch) loss")
        ax.set_title("Training curves (%d run%s)" % (len(curves), "" if len(curves) == 1 else "s"), fontsize=10)
        ax.grid(True, which="major", alpha=0.3)
        base = os.path.join(folder, "%s.training" % r["claim"])
        finish(fig, ax, base, ["pdf"])
        plt.close(fig)
        written.append(base + ".pdf")
    return written


def main():
    args = sys.argv[1:]
    out = None
    per_claim = "--per-claim" in args
    args = [a for a in args if a != "--per-claim"]
    if "--out" in args:
        k = args.index("--out")
        if k + 1 >= len(args):
            print("plot_figures: --out needs a folder", file=sys.stderr)
            return 2
        out = args[k + 1]
        del args[k:k + 2]
    if len(args) > 1 or any(a.startswith("-") for a in args):
        print("plot_figures: usage: plot_figures.py [FOLDER] [--out DIR] [--per-claim]", file=sys.stderr)
        return 2
    folder = args[0] if args else "reports/latest"
    for f in [folder] + ([out] if out else []):
        if not os.path.isdir(f):
            print("plot_figures: %s is not a folder" % f, file=sys.stderr)
            return 2
    try:
        import matplotlib
        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("plot_figures: matplotlib not found (Debian: apt-get install python3-matplotlib); PDF figures skipped, "
              "the SVG figures of `icl-verify report` are there", file=sys.stderr)
        return 3 if out else 0
    matplotlib.rcParams["svg.hashsalt"] = "icl-verify"  # the same SVG for the same data
    matplotlib.rcParams["pdf.compression"] = 6
    reports = load_reports(folder)
    target = out or folder
    written = draw_figures(plt, target, reports) + draw_training(plt, target, reports)
    if not per_claim:
        written += draw_depth(plt, target, reports)
    print("plot_figures: wrote %d files in %s" % (len(written), target))
    return 0


if __name__ == "__main__":
    sys.exit(main())
