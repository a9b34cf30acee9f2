// The exact population loss of the acds (002) multi-layer forms and its gradient.
//
// Setting: x ~ N(0, Sigma), w ~ N(0, Sigma_w), y = <w, x>, n context examples, acds prompts (rows x, y),
// L masked LSA layers with scale 1/n, P_i = [B_i, 0; 0, 1] (form (11); B_i = 0 is form (8)),
// Q_i = -[A_i, 0; 0, 0]; loss E[(yhat + y_q)^2] (the project's sign convention, docs/claims.md "Conventions").
//
// Derivation (ours). With X_k the first d rows of Z_k and S = (1/n) X_0 M X_0^T: the x rows evolve as
// X_{k+1} = X_k - B_k S_k A_k X_k, S_k = (1/n) X_k M X_k^T, so X_k = T_k X_0 with T_0 = I,
// T_{k+1} = T_k - B_k T_k S T_k^T A_k T_k. The label row stays Y_k = w^T X_0 M~ + v_k^T X_0 (M~ zeroes the query
// column, v_0 = 0), and u_k = w + v_k obeys u_{k+1}^T = u_k^T (I - S C_k), C_k = T_k^T A_k T_k. The prediction
// is v_L^T x_q, so yhat + y_q = u_L^T x_q and, x_q being independent of the context,
//   L = E tr(Sigma_w Pi Sigma Pi^T),   Pi = (I - S C_0)(I - S C_1) ... (I - S C_{L-1}),
// a polynomial in S (degree 2L for form (8)); exact/wishart_chain.hpp takes its expectation exactly.
// Form (8) at L = 1 is a single layer with P = e e^T, i.e. the sparse loss of exact/sparse_attention.hpp.
// Cost: the number of Wick matchings (`matchings()`): form (8) L = 2: 188, L = 3: 17992 (d = 5: well under a
// second); form (11) grows faster (L = 2 reaches degree 8; L = 3 reaches degree 22 and is refused).
// Tests: tests/exact/test_wishart_chain.cpp (the moment engine's direct expansion, chi-square moments at d = 1,
// finite differences, the single-layer sparse loss) and tests/learn/test_population_gradient.cpp (loss and
// theta-gradient against the mean of the trainer's per-prompt loss and gradient through the real forward and
// backward passes, 200000 prompts, z = 4.5 intervals). learn::acds_exact_loss (constructions/acds_forms.hpp) evaluates it
// at a form's theta.
#pragma once
#include "icl/exact/wishart_chain.hpp"

#include <Eigen/Dense>

#include <memory>
#include <vector>

namespace icl {

class AcdsPopulation {
public:
  AcdsPopulation(Eigen::MatrixXd sigma, Eigen::MatrixXd sigma_w, int n, int L, bool form11);
  int d() const { return static_cast<int>(sigma_.rows()); }
  int layers() const { return L_; }
  int n() const { return n_; }
  bool form11() const { return form11_; }
  std::uint64_t matchings() const { return expectation_->matchings(); }

  // A: L matrices (d x d); B: L matrices for form (11) (ignored, may be empty, for form (8)).
  double loss(const std::vector<Eigen::MatrixXd>& A, const std::vector<Eigen::MatrixXd>& B = {}) const;
  double loss_and_gradient(const std::vector<Eigen::MatrixXd>& A, const std::vector<Eigen::MatrixXd>& B,
                           std::vector<Eigen::MatrixXd>& gA, std::vector<Eigen::MatrixXd>& gB) const;

private:
  std::vector<Eigen::MatrixXd> bases(const std::vector<Eigen::MatrixXd>& A, const std::vector<Eigen::MatrixXd>& B) const;
  Eigen::MatrixXd sigma_, sigma_w_;
  int n_, L_;
  bool form11_;
  std::shared_ptr<TraceExpectation> expectation_;
};

}  // namespace icl
