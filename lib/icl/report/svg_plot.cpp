#include "icl/report/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl {

namespace {

// Axis ticks: powers of ten on a log axis, about 6 round numbers on a linear one.
std::vector<double> linear_ticks(double lo, double hi) {
  const double raw = (hi - lo) / 6.0;
  const double mag = std::pow(10.0, std::floor(std::log10(raw)));
  double step = mag;
  for (double m : {1.0, 2.0, 5.0, 10.0})
    if (m * mag >= raw) {
      step = m * mag;
      break;
    }
  std::vector<double> t;
  for (double v = std::ceil(lo / step) * step; v <= hi + 1e-9 * step; v += step) t.push_back(v);
  return t;
}

}  // namespace

std::string svg_plot(const PlotSpec& p) {
  const double W = 640, H = 400, L = 70, R = 170, T = 30, B = 45;
  auto tx = [&](double v) { return p.log_x ? std::log10(v) : v; };
  auto ty = [&](double v) { return p.log_y ? std::log10(v) : v; };
  auto usable = [&](double t, double y) {
    return std::isfinite(t) && std::isfinite(y) && (!p.log_x || t > 0) && (!p.log_y || y > 0);
  };
  double xmin = INFINITY, xmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto& s : p.series)
    for (std::size_t i = 0; i < s.t.size(); ++i)
      if (usable(s.t[i], s.y[i])) {
        xmin = std::min(xmin, tx(s.t[i]));
        xmax = std::max(xmax, tx(s.t[i]));
        ymin = std::min(ymin, ty(s.y[i]));
        ymax = std::max(ymax, ty(s.y[i]));
      }
  if (!std::isfinite(xmin)) xmin = 0, xmax = 1;
  if (!std::isfinite(ymin)) ymin = 0, ymax = 1;
  if (!(xmax > xmin)) xmax = xmin + 1;
  if (!(ymax > ymin)) ymax = ymin + 1;
  if (p.log_x) xmin = std::floor(xmin), xmax = std::ceil(xmax);
  if (p.log_y) ymin = std::floor(ymin), ymax = std::ceil(ymax);
  auto X = [&](double v) { return L + (v - xmin) / (xmax - xmin) * (W - L - R); };
  auto Y = [&](double v) { return H - B - (v - ymin) / (ymax - ymin) * (H - T - B); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"18\" font-size=\"13\">{}</text>\n",
      W, H, L, p.title);
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", L, T,
                   W - L - R, H - T - B);
  if (p.log_x) {
    const int step = std::max(1, static_cast<int>((xmax - xmin) / 8));
    for (int k = static_cast<int>(xmin); k <= static_cast<int>(xmax); k += step)
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">1e{}</text>\n", X(k), H - B + 15, k);
  } else {
    for (double v : linear_ticks(xmin, xmax))
      s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{:g}</text>\n", X(v), H - B + 15, v);
  }
  if (p.log_y) {
    const int step = std::max(1, static_cast<int>((ymax - ymin) / 8));
    for (int k = static_cast<int>(ymin); k <= static_cast<int>(ymax); k += step)
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">1e{}</text>\n", L - 4, Y(k) + 4, k);
  } else {
    for (double v : linear_ticks(ymin, ymax))
      s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{:g}</text>\n", L - 4, Y(v) + 4, v);
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2, H - 8, p.xlabel);
  s += fmt::format("<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">{}</text>\n",
                   (T + H - B) / 2, (T + H - B) / 2, p.ylabel);
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  for (std::size_t k = 0; k < p.series.size(); ++k) {
    const auto& sr = p.series[k];
    std::string pts;
    for (std::size_t i = 0; i < sr.t.size(); ++i)
      if (usable(sr.t[i], sr.y[i])) pts += fmt::format("{:.1f},{:.1f} ", X(tx(sr.t[i])), Y(ty(sr.y[i])));
    const char* col = colours[k % 8];
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"/>\n", col,
                     sr.dashed ? " stroke-dasharray=\"4 3\"" : "", pts);
    s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", W - R + 8, T + 14 * (k + 1), col, sr.name);
  }
  s += "</svg>\n";
  return s;
}

std::string svg_loglog_plot(const std::string& title, const std::string& ylabel, const std::vector<PlotSeries>& series) {
  return svg_plot(PlotSpec{title, "t", ylabel, true, true, series});
}

}  // namespace icl
