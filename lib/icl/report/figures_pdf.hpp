// PDF figures from the command line itself (`icl-verify run`, `icl-verify report`): the reports' plot data (training
// curves, a report's `figures` block) drawn with matplotlib by reports/plot_figures.py, which the library embeds
// (CMakeLists.txt generates its text into the build), run with python3 (ICL_VERIFY_PYTHON, else /usr/bin/python3,
// else python3 on PATH). The SVG figures are the C++ writer's (svg_plot.hpp) and need nothing beyond the build; where
// python3 or matplotlib is missing, or the script fails, the PDFs are left out and `note` says so in one line.
#pragma once
#include <string>
#include <utility>
#include <vector>

namespace icl {

struct PdfFigures {
  std::vector<std::pair<std::string, std::string>> files;  // file name ("<claim ID>.training.pdf"), content
  std::string note;  // "" when every figure was drawn (or there was nothing to draw); else why none was
};

// Whether a report holds data a PDF figure is drawn from (a non-empty `figures` block, or a training `curve`).
bool has_figure_data(const std::string& report_json_text);

// Draws the per-claim PDF figures of the reports in `json_files` (paths, any folder). Runs nothing when none holds
// figure data. Throws execute::Cancelled when a stop is requested meanwhile (Ctrl-C: the plotting process is ended).
PdfFigures pdf_figures(const std::vector<std::string>& json_files);

// The embedded reports/plot_figures.py (generated source).
extern const char* const kPlotFiguresScript;

}  // namespace icl
