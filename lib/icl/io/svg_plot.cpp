#include "icl/io/svg_plot.hpp"

#include <fmt/format.h>

#include <cctype>

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

namespace {

std::string xml_escape(const std::string& t) {
  std::string r;
  for (char c : t) {
    if (c == '<') r += "&lt;";
    else if (c == '>') r += "&gt;";
    else if (c == '&') r += "&amp;";
    else r += c;
  }
  return r;
}

// "10<tspan dy=-5>k</tspan>": a power of ten with a raised exponent.
std::string pow10_label(int k) {
  if (k == 0) return "1";
  if (k == 1) return "10";
  return fmt::format("10<tspan dy=\"-5\" font-size=\"8\">{}</tspan>", k < 0 ? "\u2212" + std::to_string(-k) : std::to_string(k));
}

}  // namespace

std::string figure_title(const std::string& title) {
  // "paper.fig1: quadratic ICL" (a claim ID, then ": "): a title of an older report, its ID left out.
  std::size_t i = 0;
  while (i < title.size() && std::islower(static_cast<unsigned char>(title[i]))) ++i;
  if (i == 0 || i >= title.size() || title[i] != '.') return title;
  std::size_t j = i + 1;
  while (j < title.size() && (std::islower(static_cast<unsigned char>(title[j])) ||
                              std::isdigit(static_cast<unsigned char>(title[j])) || title[j] == '_'))
    ++j;
  if (j == i + 1 || title.compare(j, 2, ": ") != 0) return title;
  std::string rest = title.substr(j + 2);
  if (!rest.empty()) rest[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(rest[0])));
  return rest;
}

std::string svg_plot(const PlotSpec& p) {
  // The legend sits below the axes, in two columns, so it never covers a curve and the canvas grows to fit it.
  const std::size_t rows = (p.series.size() + 1) / 2;
  const double W = 640, L = 70, R = 20, T = 30, B = 45, plot_h = 330, legend_h = 16.0 * static_cast<double>(rows) + 10;
  const double H = T + plot_h + B + legend_h;
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
  const double axis_bottom = T + plot_h;
  auto X = [&](double v) { return L + (v - xmin) / (xmax - xmin) * (W - L - R); };
  auto Y = [&](double v) { return axis_bottom - (v - ymin) / (ymax - ymin) * plot_h; };
  std::string s = fmt::format(
      "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"{}\" height=\"{}\" font-family=\"sans-serif\" "
      "font-size=\"11\">\n<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n"
      "<text x=\"{}\" y=\"18\" font-size=\"13\">{}</text>\n",
      W, H, L, xml_escape(figure_title(p.title)));
  s += fmt::format("<rect x=\"{}\" y=\"{}\" width=\"{}\" height=\"{}\" fill=\"none\" stroke=\"black\"/>\n", L, T,
                   W - L - R, plot_h);
  const auto xtick = [&](double x, const std::string& label) {
    s += fmt::format("<line x1=\"{0:.1f}\" y1=\"{1}\" x2=\"{0:.1f}\" y2=\"{2}\" stroke=\"black\"/>\n", x, axis_bottom,
                     axis_bottom + 4);
    s += fmt::format("<text x=\"{:.1f}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", x, axis_bottom + 17, label);
  };
  const auto ytick = [&](double y, const std::string& label) {
    s += fmt::format("<line x1=\"{0}\" y1=\"{1:.1f}\" x2=\"{2}\" y2=\"{1:.1f}\" stroke=\"black\"/>\n", L - 4, y, L);
    s += fmt::format("<text x=\"{}\" y=\"{:.1f}\" text-anchor=\"end\">{}</text>\n", L - 6, y + 4, label);
  };
  if (p.log_x) {
    const int step = std::max(1, static_cast<int>((xmax - xmin) / 8));
    for (int k = static_cast<int>(xmin); k <= static_cast<int>(xmax); k += step) xtick(X(k), pow10_label(k));
  } else {
    for (double v : linear_ticks(xmin, xmax)) xtick(X(v), fmt::format("{:g}", v));
  }
  if (p.log_y) {
    const int step = std::max(1, static_cast<int>((ymax - ymin) / 8));
    for (int k = static_cast<int>(ymin); k <= static_cast<int>(ymax); k += step) ytick(Y(k), pow10_label(k));
  } else {
    for (double v : linear_ticks(ymin, ymax)) ytick(Y(v), fmt::format("{:g}", v));
  }
  s += fmt::format("<text x=\"{}\" y=\"{}\" text-anchor=\"middle\">{}</text>\n", (L + W - R) / 2, axis_bottom + 34,
                   xml_escape(p.xlabel));
  s += fmt::format("<text x=\"14\" y=\"{}\" transform=\"rotate(-90 14 {})\" text-anchor=\"middle\">{}</text>\n",
                   T + plot_h / 2, T + plot_h / 2, xml_escape(p.ylabel));
  static const char* colours[] = {"#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b", "#e377c2", "#17becf"};
  static const char* dashes[] = {"", " stroke-dasharray=\"6 3\"", " stroke-dasharray=\"2 2\""};
  for (std::size_t k = 0; k < p.series.size(); ++k) {
    const auto& sr = p.series[k];
    std::string pts;
    for (std::size_t i = 0; i < sr.t.size(); ++i)
      if (usable(sr.t[i], sr.y[i])) pts += fmt::format("{:.1f},{:.1f} ", X(tx(sr.t[i])), Y(ty(sr.y[i])));
    const char* col = colours[k % 8];
    // Eight colours, then the same colours dashed, then dotted: every curve tells apart from the others.
    const std::string dash = sr.dashed ? std::string(" stroke-dasharray=\"4 3\"") : dashes[(k / 8) % 3];
    s += fmt::format("<polyline fill=\"none\" stroke=\"{}\" stroke-width=\"1.5\"{} points=\"{}\"/>\n", col, dash, pts);
    const double lx = L + (k % 2 == 0 ? 0.0 : (W - L - R) / 2), ly = axis_bottom + 52 + 16.0 * static_cast<double>(k / 2);
    s += fmt::format("<line x1=\"{}\" y1=\"{}\" x2=\"{}\" y2=\"{}\" stroke=\"{}\" stroke-width=\"1.5\"{}/>\n", lx, ly - 4,
                     lx + 24, ly - 4, col, dash);
    s += fmt::format("<text x=\"{}\" y=\"{}\">{}</text>\n", lx + 30, ly, xml_escape(sr.name));
  }
  s += "</svg>\n";
  return s;
}

nlohmann::ordered_json plot_json(const PlotSpec& p, std::size_t max_points) {
  nlohmann::ordered_json j;
  j["title"] = p.title;
  j["xlabel"] = p.xlabel;
  j["ylabel"] = p.ylabel;
  j["log_x"] = p.log_x;
  j["log_y"] = p.log_y;
  j["series"] = nlohmann::ordered_json::array();
  for (const auto& sr : p.series) {
    std::vector<double> x, y;
    const std::size_t n = std::min(sr.t.size(), sr.y.size());
    std::size_t last = n;  // index of the last point kept
    for (std::size_t i = 0; i < n; ++i) {
      // keep the first and last points and about max_points evenly spread in index
      const bool keep = n <= max_points || i == 0 || i + 1 == n ||
                        (i * (max_points - 1)) / (n - 1) != ((i - 1) * (max_points - 1)) / (n - 1);
      if (!keep || !std::isfinite(sr.t[i]) || !std::isfinite(sr.y[i])) continue;
      if (last != n && x.size() && sr.t[i] == x.back()) continue;
      x.push_back(sr.t[i]);
      y.push_back(sr.y[i]);
      last = i;
    }
    j["series"].push_back({{"name", sr.name}, {"dashed", sr.dashed}, {"x", x}, {"y", y}});
  }
  return j;
}

PlotSpec plot_from_json(const nlohmann::ordered_json& j) {
  PlotSpec p;
  p.title = j.value("title", "");
  p.xlabel = j.value("xlabel", "");
  p.ylabel = j.value("ylabel", "");
  p.log_x = j.value("log_x", true);
  p.log_y = j.value("log_y", true);
  if (j.contains("series") && j["series"].is_array())
    for (const auto& s : j["series"]) {
      PlotSeries sr;
      sr.name = s.value("name", "");
      sr.dashed = s.value("dashed", false);
      sr.t = s.value("x", std::vector<double>{});
      sr.y = s.value("y", std::vector<double>{});
      p.series.push_back(std::move(sr));
    }
  return p;
}

std::string svg_loglog_plot(const std::string& title, const std::string& ylabel, const std::vector<PlotSeries>& series) {
  return svg_plot(PlotSpec{title, "t", ylabel, true, true, series});
}

}  // namespace icl
