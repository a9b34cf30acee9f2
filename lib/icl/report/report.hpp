// Reports: JSON per claim (docs/reports.md), a Markdown summary of a report folder, and a LaTeX
// (booktabs) table per claim. Every file is written whole or not at all (temporary file + rename).
#pragma once
#include <nlohmann/json.hpp>

#include <map>
#include <string>
#include <utility>
#include <vector>

namespace icl {

void write_file_atomic(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);

// The claim's table (<claim>.tex): its cases when there are at most 12, else one row per part of the statement,
// with every case in an appendix longtable (<claim>.cases.tex, needs_cases_appendix). Columns per claim kind
// (paper.hpp), numbers through siunitx, a caption citing the paper with run mode, budget, seed, date, commit.
std::string latex_table(const nlohmann::ordered_json& report);
std::string latex_cases_longtable(const nlohmann::ordered_json& report);
bool needs_cases_appendix(const nlohmann::ordered_json& report);
// all.tex: \input of every table, then the appendix longtables; preview.tex: a plain article around it.
std::string latex_all(const std::vector<nlohmann::ordered_json>& reports);
std::string latex_preview();
// Claims' summaries open with their verdict ("refuted: ...", "refuted (reading): ..."). Where a line already
// shows the verdict, the summary goes on after it instead of repeating it ("refuted: refuted: ...").
// summary_after_verdict: `summary` without an opening `verdict` word and the ": " after it ("refuted: x" -> "x",
// "refuted (reading): x" -> "(reading): x"); `summary` itself when it does not open with `verdict`.
std::string summary_after_verdict(const std::string& summary, const std::string& verdict);
// The verdict to show before a report's summary and the summary's rest: the summary's own opening where it says
// more than the verdict ("refuted (a transpose slip)"), else the verdict with its refutation class.
struct VerdictLead {
  std::string label;     // "refuted (substantive)", "refuted (a transpose slip)", "confirmed"
  std::string rest;      // the summary after that opening (the whole summary when it opens otherwise)
  bool opened = false;   // whether the summary opened with the verdict
};
VerdictLead verdict_lead(const nlohmann::ordered_json& report);
std::string markdown_claim(const nlohmann::ordered_json& report);
// `elsewhere`: per claim, what the folders of the other budgets hold for it ("reports/paper/: inconclusive (custom,
// seed 2)"), said in the summary's table (other_budget_notes).
std::string markdown_summary(const std::vector<nlohmann::ordered_json>& reports,
                             const std::map<std::string, std::vector<std::string>>& elsewhere = {});
// Where `folder` is one of a project's report folders (its parent holds latest/, deciding/ or paper/ beside it): per
// claim of `reports`, each sibling folder's report of the same claim, "reports/paper/: refuted (paper, seed 2)".
std::map<std::string, std::vector<std::string>> other_budget_notes(const std::string& folder,
                                                                   const std::vector<nlohmann::ordered_json>& reports);

// Reads every <dir>/*.json report and rewrites <dir>/<claim>.tex (and .cases.tex), all.tex, preview.tex,
// icl-verify.bib and summary.md. Returns the number of
// reports found. A .json file that is not an icl-verify report (not JSON, another schema, fields of the wrong
// type) is left out and named in `skipped`. Everything is rendered before anything is written, so a failure
// writes nothing; dry_run renders only (to count the reports).
int rebuild_reports(const std::string& dir, std::vector<std::string>* skipped = nullptr, bool dry_run = false);
// What rebuild_reports writes, rendered from the reports `json_files` (paths, anywhere; taken in the order of their
// file names) and not written: (file name, content) pairs. `count` receives the number of reports among them.
// `folder`: where they will be written (its siblings' reports are named in summary.md: other_budget_notes).
std::vector<std::pair<std::string, std::string>> render_report_folder(const std::vector<std::string>& json_files,
                                                                     std::vector<std::string>* skipped = nullptr,
                                                                     int* count = nullptr,
                                                                     const std::string& folder = "");
// The *.json files of `dir` (paths, sorted).
std::vector<std::string> report_json_files(const std::string& dir);

// "0.0352", "1.2e-05": short, round-trippable enough for tables.
std::string format_number(double v);

}  // namespace icl
