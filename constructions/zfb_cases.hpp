// Zhang, Frei, Bartlett (003): the settings of the gradient-flow cases of Theorem 4 (a fixed covariance Lambda) and
// Theorem 8 (random diagonal covariances Lambda_tau with independent entries): the population loss, the stated limit,
// the initialisation of Assumption 3 at a fraction of the theorem's bound on sigma, and the prompts Monte Carlo draws.
// Theorem 8's expectation over tau is exact: each entry's law enters through a two-point Gauss rule matching its
// moments 0..3 (the loss is a polynomial of degree at most 3 in each entry); condition (21)'s denominator
// E[||Gamma_tau||_op ||Lambda_tau||_F^2] is a Monte Carlo estimate, and the bound on sigma uses the upper end of its
// 5-standard-error interval.
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/exact/gradient_flow.hpp"
#include "icl/exact/lsa_population_loss.hpp"
#include "icl/exact/moment_quadrature.hpp"
#include "icl/montecarlo/lsa_prompt_worker.hpp"

#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <cmath>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <vector>

namespace icl::zfb {

// What a gradient-flow case runs on: the population loss, the initialisation of Assumption 3, the stated limit, and the
// prompts Monte Carlo draws at the flow's endpoint.
struct FlowSetting {
  PopulationLoss pl;
  LsaWeights init, stated;
  LsaPromptModel prompts;
};

// Theorem 4's test covariances. cov: 0 isotropic; 1 diagonal, eigenvalues geometric from 1 to 1/10; 2 the same
// rotated by a random orthogonal matrix (not diagonal); 3 ill-conditioned, rotated, kappa = 30; 4 kappa = 100.
Eigen::MatrixXd thm4_covariance(int cov, int d, std::uint64_t seed);
// What thm4_covariance(cov, d, seed) is: at d = 1 the variance 1 whatever cov says.
std::string thm4_covariance_name(int cov, int d);

// A case of Theorem 4: Lambda = thm4_covariance(cov, d, seed), training length N, Theta of kind `theta`
// (assumption3_theta), sigma = sigma_fraction x the bound of Theorem 4.
struct Thm4Case : FlowSetting {
  Eigen::MatrixXd lambda;
  double sigma_bound = 0, sigma = 0;
};
Thm4Case thm4_case(int cov, int d, int N, int theta, double sigma_fraction, std::uint64_t seed);

// Flows outside Assumption 3's condition (sigma^2 ||Gamma||_op sqrt(d) >= 2, where Theorem 4 says nothing): at d and
// N, for the isotropic and the rotated kappa-10 covariance (cov 0 and 2), Theta of kind 0 and sigma each of
// `fractions` times the bound, the flow (zfb_gradient_flow) and its endpoint's distance to eq. (11) and loss gap to
// the global minimum; one JSON record per flow.
nlohmann::ordered_json thm4_flows_outside(int d, int N, const std::vector<double>& fractions, const FlowOptions& opt,
                                          std::uint64_t seed);

// The law of one diagonal entry of Lambda_tau: a PositiveDistribution, scaled by `scale`.
struct EntryLaw {
  PositiveDistribution dist;
  double scale = 1;
  std::vector<double> moments() const;  // E[X^k], k = 0..3
  double quantile(double u) const { return scale * dist.quantile(u); }
  std::string label() const;
};
// dist 0..3: every entry i.i.d. with that law (Exp(1), Gamma(2, 1/2), Uniform[0.5, 1.5], LogNormal(0, 1/2)); 4: entry
// k has law k mod 4; 5: entry k has law k mod 4 scaled by 2^((2k - (d-1)) / (d-1)) (from 1/2 to 2).
std::vector<EntryLaw> thm8_entry_laws(int dist, int d);
std::string thm8_dist_name(int dist);

// A case of Theorem 8: the entries' laws of `dist`, training length N, Theta of kind `theta`, sigma = sigma_fraction
// x the bound of (21); the denominator of (21) from `condition_samples` draws of tau on stream condition_purpose.
struct Thm8Case : FlowSetting {  // pl: exact E over tau
  int dist = 0;
  std::vector<EntryLaw> laws;
  std::vector<std::vector<double>> nodes, weights;  // each entry's Gauss rule
  nlohmann::ordered_json moments = nlohmann::ordered_json::array();  // each entry's raw moments 0..3
  double spread = 1;  // largest over smallest diagonal entry of the stated A (1: (22) is a multiple of I)
  double init_offdiagonal = 0;  // off-diagonal part of Theta Theta^T / ||Theta Theta^T||_F
  double e_lambda_theta_f2 = 0, denominator = 0, denominator_se = 0, sigma_bound = 0, sigma = 0;
  Eigen::MatrixXd theta;
  std::string laws_label() const;
  // The case's fields, in report order: distribution, raw_moments, quadrature, sigma, condition_21.
  nlohmann::ordered_json fields() const;
  // Writes the fields into j, then the quantities stated_A_diagonal_spread (spread) and init_kq_offdiagonal_norm.
  void write(CaseJson& j) const;
};
Thm8Case thm8_case(int dist, int d, int N, int theta, double sigma_fraction, std::uint64_t seed,
                   std::uint64_t condition_purpose, std::uint64_t condition_samples);

// The flow of case k outside condition (21) (where Theorem 8 says nothing): from Assumption 3 with sigma `factor` x the
// bound of (21), Theta and everything else as k's; one JSON record (case `label`, distribution, sigma_over_bound, flow,
// distance_flow_to_stated).
nlohmann::ordered_json thm8_flow_outside(const Thm8Case& k, const std::string& label, double factor,
                                         const FlowOptions& opt);

// What Theorem 8's cases are, over the cases noted: the laws, Theta kinds and dimensions run, the spread of the stated
// A's diagonal (Thm8Case::spread) and the largest off-diagonal part of the initial Theta Theta^T, in the words of the
// claim's summary and findings.
struct Thm8Tally {
  std::set<int> dists, thetas, ds;
  double min_spread = INFINITY, max_spread = 0, max_offdiag_init = 0;
  void note(const Thm8Case& k, int theta);
  // " (d = 5; entries of Lambda_tau: Exp(1), mixed laws; 2 Theta draws)"
  std::string cases_words() const;
  // "; the stated A = [E Gamma Lambda^2]^-1 E Lambda^2 has diagonal entries differing by a factor up to <max_spread>"
  std::string spread_words() const;
  // "Matrix structure: the flows start from dense Theta Theta^T (...) and the stated A ranges from ... to ...".
  std::string structure_finding() const;
};

// The LaTeX labels of the parameter values' names in the claims' tables: Theta's kinds (theorems 4 and 8) and the
// laws of Lambda_tau's entries (Theorem 8).
std::map<std::string, std::string> theta_latex();
std::map<std::string, std::string> thm8_dist_latex();

}  // namespace icl::zfb
