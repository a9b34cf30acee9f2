#include "icl/exact/block_coordinate_descent.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace icl {

template <class S>
VectorS<S> least_squares_gradient(const MatrixS<S>& Phi, const VectorS<S>& t, const VectorS<S>& w) {
  const Eigen::Index m = Phi.rows(), n = Phi.cols();
  if (t.size() != n || w.size() != m) throw std::invalid_argument("least_squares_gradient: shapes do not match");
  VectorS<S> g = VectorS<S>::Zero(m);
  for (Eigen::Index i = 0; i < n; ++i) {
    S r = -t[i];  // residual phi_i^T w - t_i
    for (Eigen::Index k = 0; k < m; ++k) r += Phi(k, i) * w[k];
    for (Eigen::Index k = 0; k < m; ++k) g[k] += r * Phi(k, i);
  }
  return g / static_cast<S>(n);
}

template <class S>
std::vector<VectorS<S>> block_coordinate_descent(const MatrixS<S>& Phi, const VectorS<S>& t,
                                                 const std::vector<BlockStep>& steps, const VectorS<S>& w0) {
  std::vector<VectorS<S>> iterates{w0};
  VectorS<S> w = w0;
  for (const auto& s : steps) {
    const Eigen::Index b = static_cast<Eigen::Index>(s.block.size());
    if (s.eta.rows() != b || s.eta.cols() != b) throw std::invalid_argument("block step: eta must be |block| square");
    const VectorS<S> g = least_squares_gradient(Phi, t, w);  // at w^(l-1), before any coordinate moves
    VectorS<S> gb(b);
    for (Eigen::Index a = 0; a < b; ++a) {
      const int j = s.block[static_cast<std::size_t>(a)];
      if (j < 0 || j >= w.size()) throw std::invalid_argument("block step: coordinate out of range");
      gb[a] = g[j];
    }
    const VectorS<S> delta = s.eta.template cast<S>() * gb;
    for (Eigen::Index a = 0; a < b; ++a) w[s.block[static_cast<std::size_t>(a)]] -= delta[a];
    iterates.push_back(w);
  }
  return iterates;
}

template <class S>
std::vector<VectorS<S>> preconditioned_gradient_descent(const MatrixS<S>& Phi, const VectorS<S>& t,
                                                        const std::vector<Eigen::MatrixXd>& A) {
  const int m = static_cast<int>(Phi.rows());
  std::vector<int> all(static_cast<std::size_t>(m));
  for (int k = 0; k < m; ++k) all[static_cast<std::size_t>(k)] = k;
  std::vector<BlockStep> steps;
  for (const auto& a : A) steps.push_back({all, a});
  return block_coordinate_descent<S>(Phi, t, steps, VectorS<S>::Zero(m));
}

template <class S>
MatrixS<S> monomial_features(const std::vector<Exponent>& monomials, const MatrixS<S>& X) {
  MatrixS<S> F(static_cast<Eigen::Index>(monomials.size()), X.cols());
  for (Eigen::Index c = 0; c < X.cols(); ++c)
    for (std::size_t m = 0; m < monomials.size(); ++m) {
      if (static_cast<Eigen::Index>(monomials[m].size()) != X.rows())
        throw std::invalid_argument("monomial_features: exponent length != rows of X");
      S v = 1;
      for (Eigen::Index k = 0; k < X.rows(); ++k)
        for (int p = 0; p < monomials[m][static_cast<std::size_t>(k)]; ++p) v *= X(k, c);
      F(static_cast<Eigen::Index>(m), c) = v;
    }
  return F;
}

Eigen::MatrixXd quadratic_form_matrix(int d, const std::vector<Exponent>& monomials, const Eigen::VectorXd& w) {
  Eigen::MatrixXd W = Eigen::MatrixXd::Zero(d + 1, d + 1);
  for (std::size_t m = 0; m < monomials.size(); ++m) {
    std::vector<int> vars;  // 1-based positions in [1 x]
    for (int k = 0; k < d; ++k)
      for (int p = 0; p < monomials[m][static_cast<std::size_t>(k)]; ++p) vars.push_back(k + 1);
    if (vars.size() > 2) throw std::invalid_argument("quadratic_form_matrix: degree > 2");
    while (vars.size() < 2) vars.insert(vars.begin(), 0);  // pad with the constant 1
    const double c = w[static_cast<Eigen::Index>(m)];
    if (vars[0] == vars[1])
      W(vars[0], vars[0]) += c;
    else {
      W(vars[0], vars[1]) += c / 2;
      W(vars[1], vars[0]) += c / 2;
    }
  }
  return W;
}

std::vector<int> monomial_indices(const std::vector<Exponent>& monomials, const std::vector<Exponent>& block) {
  std::vector<int> idx;
  for (const auto& e : block) {
    int found = -1;
    for (std::size_t m = 0; m < monomials.size(); ++m)
      if (monomials[m] == e) found = static_cast<int>(m);
    if (found < 0) throw std::invalid_argument("monomial_indices: monomial not in the list");
    idx.push_back(found);
  }
  return idx;
}

#define ICL_BCD_INSTANTIATE(S)                                                                                    \
  template VectorS<S> least_squares_gradient<S>(const MatrixS<S>&, const VectorS<S>&, const VectorS<S>&);        \
  template std::vector<VectorS<S>> block_coordinate_descent<S>(const MatrixS<S>&, const VectorS<S>&,             \
                                                               const std::vector<BlockStep>&, const VectorS<S>&); \
  template std::vector<VectorS<S>> preconditioned_gradient_descent<S>(const MatrixS<S>&, const VectorS<S>&,      \
                                                                      const std::vector<Eigen::MatrixXd>&);     \
  template MatrixS<S> monomial_features<S>(const std::vector<Exponent>&, const MatrixS<S>&);

ICL_BCD_INSTANTIATE(double)
ICL_BCD_INSTANTIATE(long double)
#undef ICL_BCD_INSTANTIATE

}  // namespace icl
