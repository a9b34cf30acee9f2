// Reports: JSON per claim (REPORT-FORMAT.md), a Markdown summary of a report folder, and a LaTeX
// (booktabs) table per claim. Every file is written whole or not at all (temporary file + rename).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace icl {

void write_file_atomic(const std::string& path, const std::string& content);
std::string read_file(const std::string& path);

std::string latex_table(const nlohmann::ordered_json& report);
std::string markdown_claim(const nlohmann::ordered_json& report);
std::string markdown_summary(const std::vector<nlohmann::ordered_json>& reports);

// Reads every <dir>/*.json report and rewrites <dir>/<claim>.tex and <dir>/summary.md. Returns the number of
// reports found. A .json file that is not an icl-verify report (not JSON, another schema, fields of the wrong
// type) is left out and named in `skipped`. Everything is rendered before anything is written, so a failure
// writes nothing; dry_run renders only (to count the reports).
int rebuild_reports(const std::string& dir, std::vector<std::string>* skipped = nullptr, bool dry_run = false);

// "0.0352", "1.2e-05": short, round-trippable enough for tables.
std::string format_number(double v);

}  // namespace icl
