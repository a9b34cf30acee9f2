// The exact population loss of the acds multi-layer forms (exact/acds_population.hpp) restricted to the scalar
// families A_i = a_i Sigma^-1 (form (8)) and A_i = a_i Sigma^-1, B_i = b_i I (form (11)), with x ~ N(0, Sigma),
// w ~ N(0, Sigma^-1), y = <w, x>, n context examples.
//
// The reduced family loss (our derivation; it locates the stationary points of form (11) cheaply and cross-checks the
// engine on both forms). Write S = Sigma^{1/2} W Sigma^{1/2}, W the sample second moment of n
// standard normal vectors. On the family the engine's T_k = Sigma^{1/2} tau_k(W) Sigma^{-1/2} with scalar
// polynomials tau_0 = 1, tau_{k+1} = tau_k (1 - a_k b_k W tau_k^2), and Pi = Sigma^{1/2} pi(W) Sigma^{-1/2} with
// pi = prod_k (1 - a_k W tau_k^2), so the loss E tr(Sigma_w Pi Sigma Pi^T) = E tr(pi(W)^2) = sum_j c_j(a, b) m_j
// with the Wishart trace moments m_j = E tr(W^j) (exact/wishart_chain.hpp, Sigma = I): a polynomial in
// (a, b) that does not depend on Sigma. Its degree in W is 2L (form (8)) and 8 at L = 2 (form (11)).
//
#pragma once
#include <Eigen/Dense>

#include <vector>

namespace icl {

// m_j = E tr(W^j), j = 0..jmax, W = (1/n) sum_{i<=n} z_i z_i^T, z_i ~ N(0, I_d); jmax <= 8.
std::vector<double> wishart_trace_moments(int d, int n, int jmax);

// The family loss E tr(pi(W)^2) and its gradient in theta = (a_0, [b_0,] a_1, [b_1,] ...), the group order of
// learn::acds_family(d, L, Sigma^-1, with_B).
class ReducedFamilyLoss {
public:
  ReducedFamilyLoss(int d, int n, int L, bool with_B);
  double operator()(const Eigen::Ref<const Eigen::VectorXd>& theta, Eigen::VectorXd& grad) const;
  int size() const { return with_B_ ? 2 * L_ : L_; }

private:
  int L_;
  bool with_B_;
  std::vector<double> moments_;
};

}  // namespace icl
