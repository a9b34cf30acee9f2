#!/usr/bin/env python3
"""Plot "what depth buys" from icl-verify reports: loss after L blocks (log scale) for the tables in
sja.thm7.json and sja.cor8.json ("depth" entries), as one SVG. Standard library only.

    reports/plot_depth.py reports/latest [out.svg]
"""
import json
import math
import os
import sys


def series(report_dir):
    out = []
    for claim in ("sja.thm7", "sja.cor8"):
        path = os.path.join(report_dir, claim + ".json")
        if not os.path.exists(path):
            continue
        with open(path) as f:
            r = json.load(f)
        for t in r.get("depth", []):
            pts = [(row["blocks"], row["loss"]) for row in t["table"] if isinstance(row["blocks"], int)]
            label = f"{claim} d={t['d']}" + (f" p={t['p']}" if "p" in t else "") + \
                    (f" damping {t['damping']:g}" if "damping" in t else "")
            out.append((label, pts))
    return out


def main():
    report_dir = sys.argv[1] if len(sys.argv) > 1 else "reports/latest"
    dest = sys.argv[2] if len(sys.argv) > 2 else os.path.join(report_dir, "depth.svg")
    data = series(report_dir)
    if not data:
        sys.exit("no depth tables (run sja.thm7 / sja.cor8 without --quick)")
    W, H, m = 720, 440, 60
    xs = [x for _, p in data for x, _ in p]
    ys = [math.log10(max(y, 1e-12)) for _, p in data for _, y in p]
    x0, x1 = min(xs), max(xs)
    y0, y1 = math.floor(min(ys)), math.ceil(max(ys))
    sx = lambda x: m + (W - 2 * m) * (x - x0) / max(x1 - x0, 1)
    sy = lambda y: H - m - (H - 2 * m) * (math.log10(max(y, 1e-12)) - y0) / max(y1 - y0, 1)
    colors = ["#1b9e77", "#d95f02", "#7570b3", "#e7298a", "#66a61e", "#e6ab02"]
    svg = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{W}" height="{H}" font-family="sans-serif" font-size="12">',
           f'<rect width="{W}" height="{H}" fill="white"/>',
           f'<line x1="{m}" y1="{H-m}" x2="{W-m}" y2="{H-m}" stroke="black"/>',
           f'<line x1="{m}" y1="{m}" x2="{m}" y2="{H-m}" stroke="black"/>',
           f'<text x="{W/2}" y="{H-20}" text-anchor="middle">blocks L</text>',
           f'<text x="15" y="{H/2}" transform="rotate(-90 15 {H/2})" text-anchor="middle">E(yhat + y_q)^2 (log10)</text>']
    for k in range(y0, y1 + 1):
        y = H - m - (H - 2 * m) * (k - y0) / max(y1 - y0, 1)
        svg.append(f'<text x="{m-8}" y="{y+4}" text-anchor="end">1e{k}</text>')
    for i, (label, pts) in enumerate(data):
        c = colors[i % len(colors)]
        path = " ".join(f"{sx(x):.1f},{sy(y):.1f}" for x, y in pts)
        svg.append(f'<polyline fill="none" stroke="{c}" stroke-width="2" points="{path}"/>')
        svg.append(f'<text x="{W-m-5}" y="{m+16*i}" text-anchor="end" fill="{c}">{label}</text>')
    svg.append("</svg>")
    with open(dest, "w") as f:
        f.write("\n".join(svg))
    print("wrote", dest)


if __name__ == "__main__":
    main()
