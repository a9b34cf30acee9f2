#!/usr/bin/env python3
"""The README's verdict table, generated from the JSON reports (never typed).

One line per claim: claim ID, verdict (bold when refuted; the parts that fail or hold when the claim's parts
differ), refutation class, the budget the verdict comes from, and a one-line key result taken from the report's
`summary`.

  readme_table.py [--reports DIR] [--binary PATH]                 print the table (Markdown) to stdout
  readme_table.py [--reports DIR] [--binary PATH] --write README.md
                                                                  replace the text between the markers
                                                                  <!-- verdicts:begin --> and <!-- verdicts:end -->,
                                                                  and the tally line between <!-- tally:begin -->
                                                                  and <!-- tally:end --> where the README has them

Without --binary the claims are those with a report in DIR (default: reports/latest next to this script). With
--binary, `PATH list` adds every registered claim without a report, as "no report". The order is always the same: by paper (sja, acds, zfb, xlssc, then any other prefix),
then by claim ID with numbers compared as numbers (sja.thm2 before sja.thm5, sja.lemma3 before sja.lemma12).

Each claim's row (verdict, class, budget, key result) comes from its report at the strongest budget committed:
reports/paper/ (run mode paper), else reports/deciding/ (budget deciding), else reports/latest/; the budget cell
names it, and the tally counts the rows.

The paper budget (claims that train models): the measured cost of the paper's own settings on one machine, in
core-hours, from reports/paper/estimates.json (written by reports/paper_estimates.py from `icl-verify run CLAIM
--budget paper --estimate`), and the verdict of a paper-budget run where reports/paper/ holds one.

The budget: the report's run mode (standard, quick or custom) and its Monte Carlo prompts per case; for a
claim that trains models at settings other than the paper's (`training.paper_settings` false with
`training.paper_settings_differences`), "reduced training" and, of the settings the paper states and the run reduces
("(paper ...)"), the one in steps (else the first), with how many more there are.

Python 3 standard library only. tests/readme/check_readme.py checks that README.md holds this output.
"""
import argparse
import glob
import json
import os
import re
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
DEFAULT_REPORTS = os.path.join(ROOT, "reports", "latest")
DEFAULT_PAPER = os.path.join(ROOT, "reports", "paper")
DEFAULT_DECIDING = os.path.join(ROOT, "reports", "deciding")
# The budgets a row may come from, strongest first: a claim's row shows the report of the strongest budget with a
# committed report (reports/paper, then reports/deciding, then the standard run in reports/latest).
BUDGET_RANK = {"paper": 0, "deciding": 1}
BEGIN = "<!-- verdicts:begin -->"
END = "<!-- verdicts:end -->"
# The one-line tally near the top of the README (optional: written where these markers are).
TALLY_BEGIN = "<!-- tally:begin -->"
TALLY_END = "<!-- tally:end -->"
PAPER_ORDER = ["sja", "acds", "zfb", "xlssc"]
KEY_LIMIT = 160  # characters of the key result
# A period after these does not end a sentence.
ABBREVIATIONS = {"sec", "secs", "app", "eq", "eqs", "fig", "figs", "thm", "prop", "cor", "e.g", "i.e", "cf",
                 "vs", "al", "ref", "no", "approx", "i.i.d"}


def natural_key(claim_id):
    prefix = claim_id.split(".", 1)[0]
    rank = PAPER_ORDER.index(prefix) if prefix in PAPER_ORDER else len(PAPER_ORDER)
    parts = re.split(r"(\d+)", claim_id)
    return (rank, prefix, [int(p) if p.isdigit() else p for p in parts])


def split_top(text, sep):
    """Splits text at each `sep` outside parentheses and brackets."""
    out, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif depth == 0 and text.startswith(sep, i):
            out.append(text[start:i])
            start = i + len(sep)
            i = start
            continue
        i += 1
    out.append(text[start:])
    return out


def strip_verdict_prefix(summary):
    """'refuted (a transpose slip): X' -> 'X'; the prefix may hold nested parentheses."""
    m = re.match(r"\s*(confirmed|refuted|inconclusive)\b", summary)
    if not m:
        return summary.strip()
    i = m.end()
    while i < len(summary) and summary[i] == " ":
        i += 1
    if i < len(summary) and summary[i] == "(":
        depth = 0
        while i < len(summary):
            if summary[i] == "(":
                depth += 1
            elif summary[i] == ")":
                depth -= 1
                if depth == 0:
                    i += 1
                    break
            i += 1
    rest = summary[i:].lstrip()
    if rest.startswith(":"):
        rest = rest[1:]
    return rest.strip()


def sentences(text):
    """Splits text into sentences at full stops outside parentheses and quotations that end a sentence (not an
    abbreviation, a decimal point or 'i.i.d.')."""
    out, depth, quoted, start = [], 0, False, 0
    for i, ch in enumerate(text):
        before = text[i - 1:i]
        after = text[i + 1:i + 2]
        if ch == "'" and not quoted and before in ("", " ", "(", ":"):
            quoted = True
        elif ch == "'" and quoted and (after == "" or not after.isalnum()):
            quoted = False
            if before == "." and after in ("", " "):  # a quotation ending its sentence: 'is also 0.'
                out.append(text[start:i + 1].strip())
                start = i + 1
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth = max(0, depth - 1)
        elif ch == "." and depth == 0 and not quoted and after in ("", " "):
            word = re.search(r"([A-Za-z.]+)$", text[:i])
            if word and word.group(1).lower().rstrip(".") in ABBREVIATIONS:
                continue
            out.append(text[start:i].strip())
            start = i + 1
    tail = text[start:].strip().rstrip(".")
    if tail:
        out.append(tail)
    return [s for s in out if s]


def first_sentence(text):
    """The first sentence that is not only a quotation of the paper (e.g. "Sec. 4.2: '...'")."""
    all_sentences = sentences(text)
    for s in all_sentences:
        if not re.match(r"^[^']{0,24}:\s*'", s) and not s.startswith("'"):
            return s
    return all_sentences[0] if all_sentences else ""


COUNTS = re.compile(r"[;:,]?\s*(?:cases )?confirmed in \d+, inconclusive \(too noisy to decide\) in \d+, "
                    r"refuted in \d+ of \d+ cases")


def removable_groups(text):
    """Outermost parenthetical remarks that can go: after a space (not a function's arguments such as C(d+2,2)),
    of three words or more, holding '=' or ':' or starting "see", and holding no legend of brackets ("mean [sd]")."""
    groups, depth, start = [], 0, None
    for i, ch in enumerate(text):
        if ch == "(":
            if depth == 0:
                start = i
            depth += 1
        elif ch == ")" and depth > 0:
            depth -= 1
            if depth == 0:
                inner = text[start + 1:i]
                if (start > 0 and text[start - 1] == " " and "[" not in inner
                        and (len(inner.split()) >= 3 or "=" in inner or ":" in inner or inner.startswith("see "))):
                    groups.append((start, i + 1))
    return groups


def drop_remarks(text):
    """Text without its removable parenthetical remarks."""
    while True:
        groups = removable_groups(text)
        if not groups:
            return text.strip()
        s, e = groups[-1]
        text = text[:s].rstrip() + text[e:]


def shorten(text, limit=KEY_LIMIT):
    """Drops the counting boilerplate; if still too long, drops parenthetical remarks (longest first), then
    trailing clauses after a top-level ';'; then cuts at a word boundary with an ellipsis."""
    text = COUNTS.sub("", text).strip().rstrip(";:,").strip()
    while len(text) > limit:
        groups = removable_groups(text)
        if not groups:
            break
        s, e = max(groups, key=lambda g: g[1] - g[0])
        text = (text[:s].rstrip() + text[e:]).strip()
    clauses = split_top(text, ";")
    while len(text) > limit and len(clauses) > 1:
        clauses.pop()
        text = ";".join(clauses).strip()
    if len(text) > limit:
        cut = text[:limit - 1]
        if " " in cut:
            cut = cut[:cut.rfind(" ")]
        text = cut.rstrip(" ,;:") + "…"
    return text


def cell(text):
    return text.replace("|", "\\|").replace("*", "\\*").replace("\n", " ")


def verdict_cell(report, weaker=()):
    """The verdict, with the parts that fail or hold; `weaker`: reports of the same claim at weaker budgets, whose
    confirmed parts this report leaves undecided are named with their budget ("c confirmed at standard")."""
    verdict = report.get("verdict", "?")
    parts = report.get("parts") or []
    shown = f"**{verdict}**" if verdict == "refuted" else verdict
    if len(parts) > 1:
        if verdict == "refuted":
            bad = [p["id"] for p in parts if p.get("verdict") == "refuted"]
            if len(bad) < len(parts):
                shown += f" (part{'s' if len(bad) > 1 else ''} {', '.join(bad)})"
        elif verdict == "inconclusive":
            good = [p["id"] for p in parts if p.get("verdict") == "confirmed"]
            undecided = {p["id"] for p in parts if p.get("verdict") == "inconclusive"}
            extra = []
            for w in weaker:
                held = [p["id"] for p in w.get("parts") or [] if p.get("verdict") == "confirmed" and p["id"] in undecided]
                undecided -= set(held)
                if held:
                    extra.append(f"{', '.join(held)} confirmed at {w.get('run_mode', '?')}")
            # an undecided part with some of its cases confirmed: how many ("a: 4 of 6 cases")
            partly = []
            for p in parts:
                if p.get("verdict") != "inconclusive" or p["id"] not in undecided:
                    continue
                m = re.match(r"(\d+) of (\d+) cases confirmed", str(p.get("evidence", "")))
                if m and 0 < int(m.group(1)) < int(m.group(2)):
                    partly.append(f"{p['id']}: {m.group(1)} of {m.group(2)} cases confirmed")
            inner = ([f"{', '.join(good)} confirmed"] if good else []) + extra + partly
            if inner:
                shown += f" ({'; '.join(inner)})"
    return shown


def class_cell(report):
    if report.get("verdict") != "refuted":
        return ""
    ref = report.get("refutation") or {}
    if ref.get("class"):
        return ref["class"]
    classes = sorted({(p.get("refutation") or {}).get("class", "") for p in report.get("parts") or []} - {""})
    return ", ".join(classes)


def reduced_training(report):
    """The paper-settings difference that says most about the training budget: the one about steps (else the
    first), with how many more there are ("200 steps (paper 20000) and 2 more")."""
    t = report.get("training")
    if not isinstance(t, dict) or t.get("paper_settings", True):
        return None
    diffs = t.get("paper_settings_differences")
    if not diffs:
        return None
    if isinstance(diffs, list):
        items = [str(d) for d in diffs]
    else:
        items = [i for part in split_top(str(diffs), ";") for i in split_top(part, ",")]
    items = [i.strip() for i in items if i.strip()]
    # The settings the paper states and the run reduces ("batch 200 (paper 4000)"), not the ones it leaves open.
    reduced = [i for i in items if "(paper" in i] or items[:1]
    if not reduced:
        return None
    steps = [i for i in reduced if re.search(r"\bsteps\b", i)]
    shown = steps[0] if steps else reduced[0]
    more = len(reduced) - 1
    return shown + (f" and {more} more" if more else "")


def budget_cell(report):
    mode = report.get("run_mode") or ("quick" if report.get("quick") else "?")
    text = mode
    samples = report.get("sample_budget_per_case")
    if isinstance(samples, int):
        text += f", {samples} prompts/case"
    reduced = reduced_training(report)
    if reduced:
        text += f"; reduced training: {reduced}"
    return text


def capitalised(text):
    """The first word capitalised when it is an ordinary lower-case word (not a symbol such as d, n or x_q)."""
    return text[:1].upper() + text[1:] if re.match(r"^[a-z]{2,} ", text) else text


def key_cell(report):
    """Refuted: what is wrong (the first sentence of `refutation.explanation`); otherwise the first sentence of
    `summary` without its verdict, and for an inconclusive claim with a short summary the statements of the parts
    that were confirmed."""
    explanation = (report.get("refutation") or {}).get("explanation") if report.get("verdict") == "refuted" else None
    if explanation:
        return capitalised(shorten(first_sentence(explanation)))
    key = shorten(first_sentence(strip_verdict_prefix(report.get("summary", ""))))
    held = [p for p in report.get("parts") or [] if p.get("verdict") == "confirmed"]
    if report.get("verdict") == "inconclusive" and held and len(key) < 80:
        # A short summary of an undecided claim: say what did hold, part by part.
        statements = [drop_remarks(str(p.get("statement", ""))).rstrip(".") for p in held]
        statements = [re.sub(r"^(The|A|An) ", lambda m: m.group(1).lower() + " ", s) for s in statements if s]
        key = shorten(key + "; confirmed: " + "; ".join(statements))
    return capitalised(key)


def read_reports(folder):
    reports = {}
    for path in sorted(glob.glob(os.path.join(folder, "*.json"))):
        try:
            with open(path, encoding="utf-8") as f:
                r = json.load(f)
        except (OSError, ValueError) as e:
            raise SystemExit(f"readme_table: cannot read {path}: {e}")
        if isinstance(r, dict) and isinstance(r.get("claim"), str) and "verdict" in r:
            reports[r["claim"]] = r
    return reports


def read_listing(binary):
    """Every claim ID `binary list` shows, in its order."""
    out = subprocess.run([binary, "list"], check=True, capture_output=True, text=True).stdout
    return [m.group(1) for m in (re.match(r"^([a-z0-9]+\.[A-Za-z0-9_]+)\s", line) for line in out.splitlines()) if m]


def verdict_counts(reports):
    """(verdict, count) in the order confirmed, refuted, inconclusive, for the verdicts some report has."""
    counts = {}
    for r in reports.values():
        counts[r["verdict"]] = counts.get(r["verdict"], 0) + 1
    return [(v, counts[v]) for v in ("confirmed", "refuted", "inconclusive") if v in counts]


def footer(reports):
    tally = ", ".join(f"{n} {v}" for v, n in verdict_counts(reports))

    def values(get):
        return sorted({str(get(r)) for r in reports.values()})

    modes = values(lambda r: r.get("run_mode"))
    seeds = values(lambda r: r.get("seed"))
    threads = values(lambda r: r.get("threads"))
    versions = values(lambda r: (r.get("provenance") or {}).get("version"))
    commits = values(lambda r: str((r.get("provenance") or {}).get("commit"))[:12])
    dates = values(lambda r: str((r.get("provenance") or {}).get("started_at"))[:10])
    return (f"{len(reports)} claims with a report: {tally}. Run mode {', '.join(modes)}, seed {', '.join(seeds)}, "
            f"{', '.join(threads)} threads, icl-verify {', '.join(versions)} at commit {', '.join(commits)}, "
            f"run on {', '.join(dates)}.")


def core_hours(h):
    return f"{h:.2g}" if h < 10 else f"{h:.0f}"


def paper_cell(claim, estimates, paper_reports, other_reports=None):
    """'0.88 core-h; run: inconclusive (a confirmed)' for a training claim; empty for the others. A report in
    reports/paper/ at other settings (run mode custom, e.g. earlier runs re-judged) is named as such, and an entry's
    `progress` (a paper run under way, e.g. "5 of 10 trainings finished") where no paper report exists."""
    e = estimates.get(claim)
    r = paper_reports.get(claim)
    o = (other_reports or {}).get(claim)
    if not e and not r and not o:
        return ""
    text = f"{core_hours(e['core_hours'])} core-h" if e else "cost not measured"
    if r:
        text += f"; run: {verdict_cell(r)}"
    elif o:
        text += f"; not run; reports/paper/ holds a {o.get('run_mode', '?')} run: {verdict_cell(o)}"
    elif e and e.get("progress"):
        text += f"; partly run: {e['progress']}"
    else:
        text += "; not run"
    return text.replace("|", "\\|")  # generated Markdown (its verdict in bold): only the column separator escaped


def read_paper(paper_dir):
    estimates = {}
    path = os.path.join(paper_dir, "estimates.json")
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            estimates = json.load(f).get("claims", {})
    reports = read_reports(paper_dir) if os.path.isdir(paper_dir) else {}
    return estimates, {c: r for c, r in reports.items() if r.get("run_mode") == "paper"}, \
        {c: r for c, r in reports.items() if r.get("run_mode") != "paper"}


def read_budget(folder, mode):
    """The reports of `folder` whose run mode is `mode` (none where the folder does not exist); for the deciding
    budget also a run at `--budget deciding` with a setting given (run mode custom), e.g. sja.fig4's committed models
    re-judged with `--set attention=full`, the model they were trained as."""
    reports = read_reports(folder) if folder and os.path.isdir(folder) else {}
    return {c: r for c, r in reports.items()
            if r.get("run_mode") == mode or (mode == "deciding" and r.get("budget") == "deciding")}


def strongest(reports, paper_dir=DEFAULT_PAPER, deciding_dir=DEFAULT_DECIDING):
    """Per claim, the report of the strongest budget committed: paper, else deciding, else the one in `reports`."""
    out = dict(reports)
    for c, r in read_budget(deciding_dir, "deciding").items():
        out[c] = r
    for c, r in read_budget(paper_dir, "paper").items():
        out[c] = r
    return out


def table(reports_dir, binary=None, paper_dir=DEFAULT_PAPER, reports=None, deciding_dir=DEFAULT_DECIDING):
    """The verdict table of the reports in reports_dir (`reports`: those already read from it), each claim's row from
    its strongest committed budget (strongest())."""
    reports = read_reports(reports_dir) if reports is None else reports
    base = reports
    reports = strongest(reports, paper_dir, deciding_dir)
    deciding_reports = read_budget(deciding_dir, "deciding")

    def weaker(claim):
        """The claim's reports at the budgets below its row's, strongest first."""
        row = reports[claim]
        out = [r for r in (deciding_reports.get(claim), base.get(claim)) if r is not None and r is not row]
        return out if row.get("run_mode") == "paper" else [r for r in out if r.get("run_mode") != "deciding"]
    estimates, paper_reports, other_paper = read_paper(paper_dir)
    if not reports:
        raise SystemExit(f"readme_table: no JSON reports in {reports_dir}")
    missing = {c: "no report" for c in read_listing(binary) if c not in reports} if binary else {}
    lines = ["| claim | verdict | class | budget | paper budget: cost, verdict | key result |",
             "|---|---|---|---|---|---|"]
    for claim in sorted(set(reports) | set(missing), key=natural_key):
        if claim in reports:
            r = reports[claim]
            lines.append(f"| `{claim}` | {verdict_cell(r, weaker(claim))} | {cell(class_cell(r))} | {cell(budget_cell(r))} | "
                         f"{paper_cell(claim, estimates, paper_reports, other_paper)} | {cell(key_cell(r))} |")
        else:
            lines.append(f"| `{claim}` | {missing[claim]} |  |  | {paper_cell(claim, estimates, paper_reports, other_paper)} |  |")
    rel = os.path.relpath(os.path.abspath(reports_dir), ROOT)
    lines.append("")
    stronger = sorted((c for c in reports if reports[c] is not base.get(c)), key=natural_key)
    from_text = f"From `{rel}/`"
    if stronger:
        from_text += (f" ({', '.join(f'`{c}`' for c in stronger)} from the strongest committed budget: "
                      f"reports/paper/, else reports/deciding/)")
    lines.append(f"{from_text}: {footer(reports)} "
                 f"Generated by `python3 reports/readme_table.py --write README.md`.")
    if estimates:
        machines = sorted({str(e.get("machine", "?")).split(", loaded")[0] for e in estimates.values()})
        dates = sorted({str(e.get("date", "?")) for e in estimates.values()})
        loaded = sorted((c for c, e in estimates.items() if "loaded" in str(e.get("machine", ""))), key=natural_key)
        under_load = (f"; {', '.join(f'`{c}`' for c in loaded)} measured under load, an upper estimate" if loaded
                      else "")
        lines.append("")
        lines.append(f"Paper budget: the predicted cost of the paper's settings (`--budget paper --estimate` on "
                     f"{'; '.join(machines)}, {', '.join(dates)}{under_load}; core-hours = hours x threads) and the "
                     f"verdict of a paper-budget run where `reports/paper/` holds one ([docs/budgets.md](docs/budgets.md)).")
    return "\n".join(lines) + "\n"


def replace_between_markers(text, body, begin=BEGIN, end=END):
    b, e = text.find(begin), text.find(end)
    if b < 0 or e < 0 or e < b:
        return None
    return text[:b + len(begin)] + "\n" + body + text[e:]


def tally(reports):
    """One line for the top of the README: how many claims, and how many of each verdict."""
    parts = []
    for v, n in verdict_counts(reports):
        text = f"{n} {v}"
        if v == "inconclusive" and all(isinstance(r.get("training"), dict) for r in reports.values()
                                       if r["verdict"] == "inconclusive"):
            text += " (training experiments at a reduced budget)"
        parts.append(text)
    return (f"**What it found:** {len(reports)} claims, {', '.join(parts)}: "
            f"[the table](#what-it-found).\n")


def render(text, reports_dir, binary=None, paper_dir=DEFAULT_PAPER, deciding_dir=DEFAULT_DECIDING):
    """The README with its verdict table (and its tally line, where it has the markers) regenerated; None when the
    verdict table's markers are missing."""
    reports = read_reports(reports_dir)
    new = replace_between_markers(text, table(reports_dir, binary, paper_dir, reports, deciding_dir))
    if new is None:
        return None
    with_tally = replace_between_markers(new, tally(strongest(reports, paper_dir, deciding_dir)), TALLY_BEGIN, TALLY_END)
    return with_tally if with_tally is not None else new


def main(argv=None):
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--reports", default=DEFAULT_REPORTS, help="report folder (default reports/latest)")
    ap.add_argument("--binary", help="icl-verify, to list catalogued claims without a report")
    ap.add_argument("--paper", default=DEFAULT_PAPER, help="paper-budget folder (default reports/paper)")
    ap.add_argument("--deciding", default=DEFAULT_DECIDING, help="deciding-budget folder (default reports/deciding)")
    ap.add_argument("--write", metavar="README", help="replace the table between the markers in this file")
    args = ap.parse_args(argv)
    if not args.write:
        sys.stdout.write(table(args.reports, args.binary, args.paper, deciding_dir=args.deciding))
        return 0
    with open(args.write, encoding="utf-8") as f:
        text = f.read()
    new = render(text, args.reports, args.binary, args.paper, args.deciding)
    if new is None:
        print(f"readme_table: {args.write} has no '{BEGIN}' ... '{END}' markers", file=sys.stderr)
        return 2
    if new != text:
        with open(args.write, "w", encoding="utf-8") as f:
            f.write(new)
    return 0


if __name__ == "__main__":
    sys.exit(main())
