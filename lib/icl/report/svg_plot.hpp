// Plots written as SVG next to a report (loss and distance against time of a gradient flow, ...).
#pragma once
#include <string>
#include <vector>

namespace icl {

// A small SVG plot of one or more traces (log-log axes): y(t) for each named series.
struct PlotSeries {
  std::string name;
  std::vector<double> t, y;
};
std::string svg_loglog_plot(const std::string& title, const std::string& ylabel, const std::vector<PlotSeries>& series);

}  // namespace icl
