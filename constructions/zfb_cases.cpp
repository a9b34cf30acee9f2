#include "constructions/zfb_cases.hpp"

#include "constructions/zfb.hpp"
#include "constructions/zfb_flow.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/montecarlo.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::zfb {

Eigen::MatrixXd thm4_covariance(int cov, int d, std::uint64_t seed) {
  const double kappa = cov == 0 ? 1.0 : cov <= 2 ? 10.0 : cov == 3 ? 30.0 : 100.0;
  Eigen::VectorXd lam(d);
  for (int i = 0; i < d; ++i) lam[i] = d == 1 ? 1.0 : std::pow(kappa, -static_cast<double>(i) / (d - 1));
  if (cov <= 1) return lam.asDiagonal();
  PromptRng rng(seed, stable_hash("rotation"), static_cast<std::uint64_t>(d));
  Eigen::MatrixXd g(d, d);
  rng.fill_normal(g);
  const Eigen::MatrixXd U = g.householderQr().householderQ();
  return U * lam.asDiagonal() * U.transpose();
}

std::string thm4_covariance_name(int cov, int d) {
  if (d == 1) return "variance 1 (d = 1)";
  static const char* n[] = {"isotropic", "diagonal (kappa 10)", "rotated (kappa 10)", "ill-conditioned (kappa 30)",
                            "ill-conditioned (kappa 100)"};
  return n[cov];
}

Thm4Case thm4_case(int cov, int d, int N, int theta, double sigma_fraction, std::uint64_t seed) {
  Thm4Case k;
  k.lambda = thm4_covariance(cov, d, seed);
  k.pl = PopulationLoss::gaussian(k.lambda, N);
  k.sigma_bound = thm4_sigma_bound(k.lambda, N);
  k.sigma = sigma_fraction * k.sigma_bound;
  k.init = assumption3_init(k.sigma, assumption3_theta(theta, d, seed));
  k.stated = thm4_limit(k.lambda, N);
  k.prompts.d = d;
  k.prompts.N = N;
  k.prompts.chol = k.lambda.llt().matrixL();
  return k;
}

nlohmann::ordered_json thm4_flows_outside(int d, int N, const std::vector<double>& fractions, const FlowOptions& opt,
                                          std::uint64_t seed) {
  nlohmann::ordered_json outside = nlohmann::ordered_json::array();
  for (int cov : {0, 2}) {
    for (double f : fractions) {
      const Thm4Case k = thm4_case(cov, d, N, 0, f, seed);
      const ZfbFlow z = zfb_gradient_flow(k.pl, k.init, k.stated, opt);
      nlohmann::ordered_json j;
      j["d"] = d, j["N"] = N, j["covariance"] = thm4_covariance_name(cov, d);
      j["sigma_over_bound"] = f;
      j["sigma2_gamma_op_sqrt_d"] = 2 * f * f;
      j["flow"] = z.flow.to_json(false);
      j["distance_flow_to_stated"] = relative_distance(z.end, k.stated);
      j["loss_gap_to_global_min"] = k.pl.loss(z.end) - k.pl.tensor_lower_bound();
      j["reduced_form"] = z.reduced.to_json();
      outside.push_back(j);
    }
  }
  return outside;
}

std::vector<double> EntryLaw::moments() const {
  std::vector<double> m = dist.raw_moments_to_3();
  for (std::size_t k = 0; k < m.size(); ++k) m[k] *= std::pow(scale, static_cast<double>(k));
  return m;
}

std::string EntryLaw::label() const { return scale == 1 ? dist.label() : fmt::format("{:.3g} x {}", scale, dist.label()); }

std::vector<EntryLaw> thm8_entry_laws(int dist, int d) {
  std::vector<EntryLaw> laws;
  for (int k = 0; k < d; ++k) {
    EntryLaw l;
    l.dist = PositiveDistribution::parse(dist <= 3 ? dist : k % 4);
    if (dist == 5 && d > 1) l.scale = std::pow(2.0, (2.0 * k - (d - 1)) / (d - 1));
    laws.push_back(l);
  }
  return laws;
}

std::string thm8_dist_name(int dist) {
  static const char* n[] = {"Exp(1)", "Gamma(2, 1/2)", "Uniform[0.5, 1.5]", "LogNormal(0, 1/2)", "mixed laws",
                            "mixed laws and scales"};
  return n[dist];
}

namespace {

// E[||Gamma_tau||_op ||Lambda_tau||_F^2] by Monte Carlo over tau (mean and standard error).
std::pair<double, double> condition_denominator(const std::vector<EntryLaw>& laws, int N, std::uint64_t seed,
                                                std::uint64_t purpose, std::uint64_t samples) {
  Accumulator acc(1);
  const int d = static_cast<int>(laws.size());
  for (std::uint64_t i = 0; i < samples; ++i) {
    PromptRng rng(seed, purpose, i);
    double mx = 0, tr = 0, f2 = 0;
    for (int k = 0; k < d; ++k) {
      const double l = laws[static_cast<std::size_t>(k)].quantile(rng.uniform() - 0x1p-54);
      mx = std::max(mx, l), tr += l, f2 += l * l;
    }
    const double v = ((N + 1.0) / N * mx + tr / N) * f2;
    acc.add(&v);
  }
  return {acc.mean[0], std::sqrt(acc.variance(0) / static_cast<double>(acc.count))};
}

}  // namespace

Thm8Case thm8_case(int dist, int d, int N, int theta, double sigma_fraction, std::uint64_t seed,
                   std::uint64_t condition_purpose, std::uint64_t condition_samples) {
  Thm8Case k;
  k.dist = dist;
  k.laws = thm8_entry_laws(dist, d);
  Eigen::VectorXd m1(d), m2(d), m3(d);
  for (int i = 0; i < d; ++i) {
    const std::vector<double> m = k.laws[static_cast<std::size_t>(i)].moments();
    const GaussRule rule = gauss_rule_from_moments(m, 2);
    k.nodes.push_back(rule.nodes), k.weights.push_back(rule.weights);
    m1[i] = m[1], m2[i] = m[2], m3[i] = m[3];
    k.moments.push_back(m);
  }
  k.pl = PopulationLoss::independent_diagonal(k.nodes, k.weights, N);
  Eigen::VectorXd eg(d);  // (E Gamma_tau Lambda_tau^2)_ii
  for (int i = 0; i < d; ++i) eg[i] = (N + 1.0) / N * m3[i] + (m3[i] + m2[i] * (m1.sum() - m1[i])) / N;
  k.stated = thm8_limit(eg.asDiagonal(), m2.asDiagonal());
  const Eigen::VectorXd a_diag = m2.cwiseQuotient(eg);
  k.spread = a_diag.maxCoeff() / a_diag.minCoeff();

  k.theta = assumption3_theta(theta, d, seed);
  const Eigen::MatrixXd tt = k.theta * k.theta.transpose();
  const double tt_norm = tt.norm();
  // ||E Lambda_tau Theta||_F^2 once ||Theta Theta^T||_F = 1 (Assumption 3's normalisation).
  k.e_lambda_theta_f2 = (m1.cwiseProduct(m1).asDiagonal() * tt).trace() / tt_norm;
  k.init_offdiagonal = (tt / tt_norm - Eigen::MatrixXd((tt / tt_norm).diagonal().asDiagonal())).norm();
  std::tie(k.denominator, k.denominator_se) = condition_denominator(k.laws, N, seed, condition_purpose, condition_samples);
  // (21); the bound uses the upper end of a 5-standard-error interval for the denominator, so sigma below it
  // satisfies (21) with overwhelming probability.
  k.sigma_bound = std::sqrt(2 * k.e_lambda_theta_f2 / (std::sqrt(static_cast<double>(d)) * (k.denominator + 5 * k.denominator_se)));
  k.sigma = sigma_fraction * k.sigma_bound;
  k.init = assumption3_init(k.sigma, k.theta);
  k.prompts.d = d;
  k.prompts.N = N;
  for (const auto& l : k.laws) k.prompts.lambda_quantiles.push_back([l](double u) { return l.quantile(u); });
  return k;
}

nlohmann::ordered_json thm8_flow_outside(const Thm8Case& k, const std::string& label, double factor,
                                         const FlowOptions& opt) {
  const ZfbFlow z = zfb_gradient_flow(k.pl, assumption3_init(factor * k.sigma_bound, k.theta), k.stated, opt);
  return {{"case", label},
          {"distribution", k.laws_label()},
          {"sigma_over_bound", factor},
          {"flow", z.flow.to_json(false)},
          {"distance_flow_to_stated", relative_distance(z.end, k.stated)}};
}

std::string Thm8Case::laws_label() const {
  if (dist <= 3) return "i.i.d. " + laws.front().label();
  std::string s = dist == 4 ? "independent, different laws: " : "independent, different laws and scales: ";
  for (std::size_t k = 0; k < laws.size(); ++k) s += fmt::format("{}{}", k ? ", " : "", laws[k].label());
  return s;
}

nlohmann::ordered_json Thm8Case::fields() const {
  nlohmann::ordered_json j;
  j["distribution"] = laws_label();
  j["raw_moments"] = moments;
  j["quadrature"] = {{"nodes", nodes}, {"weights", weights}, {"components", 1 << static_cast<int>(laws.size())}};
  j["sigma"] = sigma;
  j["condition_21"] = {{"E_gamma_op_lambda_F2", denominator},
                       {"stderr", denominator_se},
                       {"E_lambda_Theta_F2", e_lambda_theta_f2},
                       {"sigma_bound", sigma_bound},
                       {"holds", sigma < sigma_bound}};
  return j;
}

void Thm8Case::write(CaseJson& j) const {
  const nlohmann::ordered_json f = fields();  // named: items() refers to it (a temporary would die before the loop)
  for (const auto& [key, value] : f.items()) j.field(key, value);
  j.quantity("stated_A_diagonal_spread", spread).quantity("init_kq_offdiagonal_norm", init_offdiagonal);
}

void Thm8Tally::note(const Thm8Case& k, int theta) {
  dists.insert(k.dist), thetas.insert(theta), ds.insert(static_cast<int>(k.laws.size()));
  min_spread = std::min(min_spread, k.spread), max_spread = std::max(max_spread, k.spread);
  max_offdiag_init = std::max(max_offdiag_init, k.init_offdiagonal);
}

std::string Thm8Tally::cases_words() const {
  std::vector<std::string> laws;
  for (int k : dists) laws.push_back(thm8_dist_name(k));
  return fmt::format(" (d = {}; entries of Lambda_tau: {}; {} Theta draw{})", fmt::join(ds, ", "), fmt::join(laws, ", "),
                     thetas.size(), thetas.size() == 1 ? "" : "s");
}

std::string Thm8Tally::spread_words() const {
  return fmt::format("; the stated A = [E Gamma Lambda^2]^-1 E Lambda^2 has diagonal entries differing by a factor up "
                     "to {:.3g}", max_spread);
}

std::string Thm8Tally::structure_finding() const {
  return fmt::format("Matrix structure: the flows start from dense Theta Theta^T (off-diagonal part up to {:.3g} of its "
                     "unit Frobenius norm) and the stated A ranges from a multiple of I (i.i.d. entries, spread {:.3g}) "
                     "to diagonal entries differing by {:.3g}x (entries with different laws).",
                     max_offdiag_init, min_spread, max_spread);
}

std::map<std::string, std::string> theta_latex() {
  return {{"gauss-a", "Gaussian (a)"}, {"gauss-b", "Gaussian (b)"}, {"gauss-c", "Gaussian (c)"},
          {"gauss-d", "Gaussian (d)"}, {"rank-one", "rank one"}};
}

std::map<std::string, std::string> thm8_dist_latex() {
  return {{"exp", "Exp(1)"},
          {"gamma", "Gamma(2, 1/2)"},
          {"uniform", "Uniform[0.5, 1.5]"},
          {"lognormal", "LogNormal(0, 1/2)"},
          {"mixed", "mixed"},
          {"mixed-scaled", "mixed, scaled"}};
}

}  // namespace icl::zfb
