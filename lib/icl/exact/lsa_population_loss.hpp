// The population loss of one unmasked linear self-attention layer on linear tasks (the setting of Zhang,
// Frei, Bartlett (003)), in closed form, with its gradient over the full weights W^{PV}, W^{KQ} in
// R^{(d+1)x(d+1)}. Monte Carlo through the forward pass: montecarlo/lsa_prompt_worker.hpp.
//
// Convention (docs/claims.md "Conventions", zfb): E = [x_1 .. x_N x_q; y_1 .. y_N 0], f(E) = E + W^{PV} E (E^T W^{KQ} E) / N
// (no mask), yhat = f(E)[d, N], L = 1/2 E[(yhat - y_q)^2], x ~ N(0, Lambda), y = <w, x>, w ~ N(0, I).
//
// Derivation. With u^T the last row of W^{PV}, V the first d columns of W^{KQ} and G = E E^T / N,
//   yhat = u^T G V x_q = sum_{a,b,c} u_a V_bc T_abc,   T_abc = G_ab x_{q,c},
// so L = 1/2 (p^T K p - 2 m^T p + E y_q^2) with p = u (x) V, K = E[T T^T], m = E[T y_q]. Given w, the
// context columns z_i = (x_i, <w, x_i>) are i.i.d. N(0, Sigma_w), Sigma_w = [Lam, Lam w; w^T Lam, w^T Lam w],
// and the query column z_q = (x_q, 0) ~ N(0, Lam~), Lam~ = diag(Lam, 0), is independent of them. With
// S = sum_i z_i z_i^T (E[S_ab S_a'b' | w] = N^2 Sig_ab Sig_a'b' + N (Sig_aa' Sig_bb' + Sig_ab' Sig_ba')) and
// Q = z_q z_q^T,
//   K = Lam_cc' E_w[Sig_ab Sig_a'b' + (Sig_aa' Sig_bb' + Sig_ab' Sig_ba') / N]
//     + (E_w[Sig_ab] F4(a',b',c,c') + E_w[Sig_a'b'] F4(a,b,c,c')) / N + F6(a,b,a',b',c,c') / N^2,
// F4, F6 the Isserlis moments of z_q, and E_w of products of Sigma_w entries from w ~ N(0, I):
// E[(w^T Lam w)^2] = tr(Lam)^2 + 2 tr(Lam^2), E[(Lam w)_k (Lam w)_k'] = (Lam^2)_kk', odd terms vanish.
// Also m_abc = (Lam^2)_{c k} when {a, b} = {k, d} (k < d), else 0; E y_q^2 = tr(Lam).
// The tests check the whole expression against the moment engine's direct expansion of E[(yhat-y)^2]
// in all (N+2) d Gaussian variables, against Monte Carlo through the forward pass, and the gradient
// against finite differences.
//
// A random covariance Lambda_tau (zfb Theorem 8) enters K, m, E y^2 linearly, and K is a polynomial of degree
// 3 in the entries of Lambda: a mixture of Gaussian components (weights summing to 1) gives the loss
// averaged over tau exactly when the mixture matches the moments of Lambda_tau up to order 3.
#pragma once
#include "icl/layers/network.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"

#include <Eigen/Dense>

#include <functional>
#include <vector>

namespace icl {

// theta = [vec(W^{PV}); vec(W^{KQ})] (column-major), 2 (d+1)^2 entries.
struct LsaWeights {
  Eigen::MatrixXd pv, kq;
  static LsaWeights zero(int d);
  static LsaWeights from_theta(int d, const Eigen::Ref<const Eigen::VectorXd>& theta);
  Eigen::VectorXd theta() const;
  int d() const { return static_cast<int>(pv.rows()) - 1; }
};
inline int theta_size(int d) { return 2 * (d + 1) * (d + 1); }

class PopulationLoss {
public:
  // x ~ N(0, lambda).
  static PopulationLoss gaussian(const Eigen::MatrixXd& lambda, int N);
  // Lambda drawn from a finite mixture: sum_k weight_k * (loss under lambda_k).
  static PopulationLoss mixture(const std::vector<double>& weights, const std::vector<Eigen::MatrixXd>& lambdas, int N);
  // Lambda = diag(lambda_1..lambda_d), lambda_i i.i.d. on the given nodes with the given weights (a quadrature
  // rule): the tensor-product mixture of its nodes^d Gaussian components.
  static PopulationLoss random_diagonal(const std::vector<double>& nodes, const std::vector<double>& weights, int d,
                                        int N);
  // Lambda = diag(lambda_1..lambda_d) with independent entries, entry i on its own rule (nodes[i], weights[i]):
  // the tensor-product mixture. Exact for the loss when each rule matches its entry's moments up to order 3.
  static PopulationLoss independent_diagonal(const std::vector<std::vector<double>>& nodes,
                                             const std::vector<std::vector<double>>& weights, int N);

  int d() const { return d_; }
  int N() const { return N_; }
  double loss(const LsaWeights& w) const;
  double loss(const Eigen::Ref<const Eigen::VectorXd>& theta) const;
  // Returns the loss and writes its gradient with respect to theta (zero outside the last row of W^{PV}
  // and the first d columns of W^{KQ}, which do not enter yhat).
  double loss_and_gradient(const Eigen::Ref<const Eigen::VectorXd>& theta, Eigen::Ref<Eigen::VectorXd> grad) const;
  // inf over all tensors p of 1/2 (p^T K p - 2 m^T p + E y^2): a lower bound for the loss over all weights
  // (p = u (x) V is only a rank-one tensor); equal to the global minimum when a rank-one p attains it.
  double tensor_lower_bound() const;
  // The minimiser over B of the loss restricted to u = (0, 1), V = [B; 0] (yhat = w^T S B x_q / N):
  // an exact linear solve, independent of any stated formula.
  Eigen::MatrixXd reduced_minimiser() const;
  const Eigen::MatrixXd& K() const { return K_; }
  const Eigen::VectorXd& m() const { return m_; }
  double ey2() const { return ey2_; }
  // E[yhat y_q] = m^T p: the prediction's covariance with the target.
  double cross_moment(const LsaWeights& w) const;
  int index(int a, int b, int c) const { return a + (d_ + 1) * (b + (d_ + 1) * c); }

private:
  void add_gaussian(const Eigen::MatrixXd& lambda, double weight);
  int d_ = 1, N_ = 1;
  Eigen::MatrixXd K_;
  Eigen::VectorXd m_;
  double ey2_ = 0;
};

}  // namespace icl
