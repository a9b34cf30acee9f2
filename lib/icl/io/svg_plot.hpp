// Plots written as SVG next to a report (loss and distance against time of a gradient flow, training
// curves, ...).
#pragma once
#include <nlohmann/json.hpp>

#include <string>
#include <vector>

namespace icl {

struct PlotSeries {
  std::string name;
  std::vector<double> t, y;
  bool dashed = false;
};

struct PlotSpec {
  std::string title, xlabel = "t", ylabel;
  bool log_x = true, log_y = true;
  std::vector<PlotSeries> series;
};
// Non-positive values on a log axis and non-finite values are skipped. The title is drawn as figure_title gives it.
std::string svg_plot(const PlotSpec& spec);
// A figure's title as drawn: without a claim ID in front ("paper.fig1: quadratic ICL" -> "Quadratic ICL", as older
// reports' figure blocks hold it); figures name no claim, so that they paste into a paper as they are.
std::string figure_title(const std::string& title);

// The plot's data for a report's `figures` block (each series thinned to at most max_points, spread evenly over
// its log-x range), from which `icl-verify report` redraws the SVG and reports/plot_figures.py draws PDF and SVG.
nlohmann::ordered_json plot_json(const PlotSpec& spec, std::size_t max_points = 200);
PlotSpec plot_from_json(const nlohmann::ordered_json& j);

// A small SVG plot of one or more traces (log-log axes): y(t) for each named series.
std::string svg_loglog_plot(const std::string& title, const std::string& ylabel, const std::vector<PlotSeries>& series);

}  // namespace icl
