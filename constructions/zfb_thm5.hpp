// Zhang, Frei, Bartlett (003, slides), Theorem 5: the limit model of Theorem 4 trained on prompts of length N with
// x ~ N(0, Lam),
//   W_KQ = tr(Gam^-2)^{-1/4} [Gam^-1, 0; 0, 0],  W_PV = tr(Gam^-2)^{1/4} [0, 0; 0, 1],  Gam = (1 + 1/N) Lam + tr(Lam)/N I,
// as an unmasked LSA on test prompts of length M (zfb convention: E + W_PV E (E^T W_KQ E) / M); the theorem's test
// tasks; and the family its final bound quantifies over (every Lam, N, M), as an exact scan grid and as the search
// space of a worst-case search.
#pragma once
#include "icl/layers/network.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/search/search.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <string>

namespace icl::zfb {

// Theorem 5's tasks (the claim's parameter `task`): 0 noiseless linear y = <w, x> with a fixed w; 1 noisy linear
// y = <w, x> + 0.5 eps with a fixed w; 2 a fixed quadratic y (coefficients over 1, x_i, x_i x_j); 3 linear with
// w ~ N(0, I) per prompt. The fixed coefficients are N(0, 1) from PromptRng(seed, purpose, 0).
std::string thm5_task_name(int task);
GaussianIclModel thm5_task(int task, int d, const Eigen::MatrixXd& Lam, std::uint64_t seed, std::uint64_t purpose);

// The limit model's matrices at training length N: Gam, Gam^-1, Gam^-2 (Gm2), tr(Lam) and Lam's condition number.
struct Thm5Setting {
  Eigen::MatrixXd Lam, Gam, Gam_inv, Gm2;
  double trL = 0, kappa = 1;
};
Thm5Setting thm5_setting(const Eigen::MatrixXd& Lam, int N);
// The limit model as the project's LSA: P = tr(Gam^-2)^{1/4} e e^T, Q = diag(Gam^-1 / tr(Gam^-2)^{1/4}, 0), unmasked,
// scale 1/M.
LinearSelfAttention thm5_limit_model(const Thm5Setting& s, int M);

// The exact scan: d = 1..4, condition numbers kappa in {1, 10, 100}, three spectrum shapes (0 geometric lam_i =
// kappa^(i/(d-1)), 1 one large (kappa, 1, ..., 1), 2 one small (1, kappa, ..., kappa); at d = 1 lam = kappa, 1 or 1
// by shape), N in {1, 2, 5, 20, 100, 10^4}, M in {1, 2, 10, 100, 10^4}; visit is called for each point in that order.
struct Thm5ScanPoint {
  int d = 1, shape = 0, N = 1, M = 1;
  double kappa = 1;
  Eigen::VectorXd lam;  // the diagonal of Lam
};
void thm5_scan_family(const std::function<void(const Thm5ScanPoint&)>& visit);

// The search space: x = (log lam_1..lam_d, log N, log M), N and M rounded to whole numbers in [1, 10^6].
Eigen::VectorXd thm5_encode(const Eigen::VectorXd& lam, int N, int M);
void thm5_decode(int d, const Eigen::VectorXd& x, Eigen::VectorXd& lam, int& N, int& M);
// The worst-case search problem at one d (search/search.hpp) for an objective on x (the claim's exact error over its
// bound): one structured start x0 named start_name; refinement: compass search (initial step 0.5); continuation: the
// spectrum's log-spread about its mean scaled by the factor.
SearchProblem thm5_search_problem(int d, const std::function<double(const Eigen::VectorXd&)>& objective,
                                  const Eigen::VectorXd& x0, const std::string& start_name);

}  // namespace icl::zfb
