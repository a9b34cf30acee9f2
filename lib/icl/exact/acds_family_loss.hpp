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

// The optimum of the form (8) family (no B): min over a of E tr(pi(W)^2), pi(x) = prod_k (1 - a_k x). The loss is a
// quadratic form in the coefficients c of pi(x) = 1 + sum_{j=1..L} c_j x^j (its Hankel matrix of Wishart moments
// m_{i+j} is positive definite), so the optimum over all such polynomials solves sum_j m_{i+j} c_j = -m_i (i = 1..L)
// and has loss m_0 + sum_j c_j m_j. It is the kernel polynomial of the spectral measure of W at 0, whose roots are
// real and positive, so it lies in the family: a_k = 1 / root_k. The loss is symmetric in the a_k (the factors
// commute), which is why a search started on the diagonal a_0 = ... = a_{L-1} never leaves it (it finds the best
// common step, not this optimum). `a` ascending; `max_root_imag` the largest |imaginary part| of a root (0 up to
// rounding), `gradient_norm` the reduced loss's gradient at a (0 up to rounding: the stationary equations). L <= 4.
struct FamilyOptimum {
  double loss = 0;
  Eigen::VectorXd a;
  double max_root_imag = 0, gradient_norm = 0;
};
FamilyOptimum reduced_family_optimum(int d, int n, int L);

}  // namespace icl
