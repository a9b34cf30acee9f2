#include "constructions/sja_appC_lemma12.hpp"

#include "constructions/sja_appC.hpp"
#include "icl/claim/param_names.hpp"
#include "icl/model/rng.hpp"

#include <cmath>

namespace icl::sja {

Lemma12Setting lemma12_setting(int setting, int d, int n, std::uint64_t seed, std::uint64_t parameters_purpose) {
  static const char* kDescriptions[] = {"", "quadratic task, u = xbar (App. C bilinear layer), fixed w",
                                        "quadratic task, u = xbar, averaged over w",
                                        "quadratic task, u = xbar, averaged over w, Gamma i.i.d. N(0, 1/dbar)",
                                        "linear task, u = x, averaged over w", "linear task, u = x, fixed w",
                                        "quadratic task, raw features u = (1, x), averaged over w"};
  Lemma12Setting s;
  s.quadratic = setting <= 3 || setting == 6;
  s.bilinear = setting <= 3;
  s.fixed_w = setting == 1 || setting == 5;
  s.n = n;
  s.description = kDescriptions[setting];
  s.task = s.quadratic ? PolynomialTask::quadratic(d) : PolynomialTask::linear(d);
  if (setting <= 3) {
    s.u = kernel_features(d);
    s.shape = sja_shape(d, kernel_width(d), n);
  } else if (setting == 6) {
    s.u.push_back(Polynomial<Rational>::constant(d, Rational(1)));
    for (int j = 0; j < d; ++j) s.u.push_back(Polynomial<Rational>::variable(d, j));
    s.shape = sja_shape(d, d + 1, n);
  } else {
    for (int j = 0; j < d; ++j) s.u.push_back(Polynomial<Rational>::variable(d, j));
    s.shape = acds_shape(d, n);
  }
  const int k = static_cast<int>(s.u.size());
  PromptRng prng(seed, parameters_purpose, 0);
  Eigen::MatrixXd R(k, k);
  prng.fill_normal(R);
  const FeatureMoments avg = feature_moments(s.u, s.task);
  if (setting == 3)
    s.Gamma = R / std::sqrt(static_cast<double>(k));
  else
    s.Gamma = -avg.Lambda.inverse() + 0.3 * R / std::sqrt(static_cast<double>(k));
  s.w.resize(s.task.num_coefficients());
  prng.fill_normal(s.w);
  s.moments = s.fixed_w ? feature_moments_fixed_w(s.u, s.task, s.w) : avg;

  if (s.bilinear) s.features.layers.emplace_back(appC_bilinear(d));
  s.attention.layers.emplace_back(sparse_attention(s.Gamma));
  s.model = GaussianIclModel::from_task(s.task, Eigen::MatrixXd::Identity(d, d));
  if (s.fixed_w) {
    s.model.random_w = false;
    s.model.fixed_w = s.w;
  }
  if (s.bilinear) {
    s.query_features = bilinear_features(appC_bilinear(d), d, s.shape.dbar);
  } else {
    for (const auto& f : s.u) s.query_features.push_back(f.to_double_poly());
  }
  return s;
}

double lemma12_workspace_bytes(int d, int n) { return sja_shape(d, kernel_width(d), n).workspace_bytes(); }

ValueNames lemma12_setting_names() {
  return numbered_names(
      {"quad-fixed-w", "quad-avg-w", "quad-avg-w-random-gamma", "lin-avg-w", "lin-fixed-w", "quad-raw"}, 1);
}

std::map<std::string, std::string> lemma12_setting_latex() {
  return {{"quad-fixed-w", "quadratic, $\\bar x$, fixed $w$"},
          {"quad-avg-w", "quadratic, $\\bar x$, averaged $w$"},
          {"quad-avg-w-random-gamma", "quadratic, $\\bar x$, averaged $w$, random $\\Gamma$"},
          {"lin-avg-w", "linear, $x$, averaged $w$"},
          {"lin-fixed-w", "linear, $x$, fixed $w$"},
          {"quad-raw", "quadratic, $(1, x)$, averaged $w$"}};
}

}  // namespace icl::sja
