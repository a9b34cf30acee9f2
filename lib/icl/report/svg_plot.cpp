#include "icl/report/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl {

std::string svg_loglog_plot(const std::string& title, const std::string& ylabel, const std::vector<PlotSeries>& series) {
  const double W = 640, H = 400, L = 70, R = 170, T = 30, B = 45;
  double tmin = INFINITY, tmax = -INFINITY, ymin = INFINITY, ymax = -INFINITY;
  for (const auto& s : series)
    for (std::size_t i = 0; i < s.t.size(); ++i)
      if (s.t[i] > 0 && s.y[i] > 0 && std::isfinite(s.y[i])) {
        tmin = std::min(tmin, std::log10(s.t[i]));
        tmax = std::max(tmax, std::log10(s.t[i]));
        ymin = std::min(ymin, std::log10(s.y[i]));
        ymax = std::max(ymax, std::log10(s.y[i]));
      }
  if (!(tmax > tmin)) tmax = tmin + 1;
  if (!(ymax > ymin)) ymax = ymin + 1;
  tmin = std::floor(tmin), tmax = std::ceil(tmax), ymin = std::floor(ymin), ymax = std::ceil(ymax);
  auto X = [&](double lt) { return L + (lt - tmin) / (tmax - tmin) * (W - L - R); };
  auto Y = [&](double ly) { return H - B - (ly - ymin) / (ymax - ymin) * (H - T - B); };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"18\" font-size=\"13\">{}</text>\n",
      W, H, L, title);
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", L, T,
                   W - L - R, H - T - B);
  const int tstep = std::max(1, static_cast<int>((tmax - tmin) / 8));
  for (int k = static_cast<int>(tmin); k <= static_cast<int>(tmax); k += tstep)
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">1e{}</text>\n", X(k), H - B + 15, k);
  const int ystep = std::max(1, static_cast<int>((ymax - ymin) / 8));
  for (int k = static_cast<int>(ymin); k <= static_cast<int>(ymax); k += ystep)
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">1e{}</text>\n", L - 4, Y(k) + 4, k);
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">t</text>\n", (L + W - R) / 2, H - 8);
  s += fmt::format("<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">{}</text>\n",
                   (T + H - B) / 2, (T + H - B) / 2, ylabel);
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  for (std::size_t k = 0; k < series.size(); ++k) {
    const auto& sr = series[k];
    std::string pts;
    for (std::size_t i = 0; i < sr.t.size(); ++i)
      if (sr.t[i] > 0 && sr.y[i] > 0 && std::isfinite(sr.y[i]))
        pts += fmt::format("{:.1f},{:.1f} ", X(std::log10(sr.t[i])), Y(std::log10(sr.y[i])));
    const char* col = colours[k % 8];
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\" points=\"{}\"/>\n", col, pts);
    s += fmt::format("<text x=\"{}\" y=\"{}\" fill=\"{}\">{}</text>\n", W - R + 8, T + 14 * (k + 1), col, sr.name);
  }
  s += "</svg>\n";
  return s;
}

}  // namespace icl
