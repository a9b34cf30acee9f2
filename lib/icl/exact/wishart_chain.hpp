// Exact expectations of traces of matrix words in the sample second-moment matrix
//   S = (1/n) sum_{i<=n} x_i x_i^T,   x_i i.i.d. N(0, Sigma) in R^d,
// with their gradients: the engine behind the exact population losses of the acds forms
// (exact/acds_population.hpp).
//
// Derivation (Wick / genus expansion; independent of any paper). Write x = Sigma^{1/2} g and a cyclic word
// with m factors of S as tr(S L_0 S L_1 ... S L_{m-1}) = n^{-m} sum_{i_0..i_{m-1}} prod_k g_{i_k}^T L~_k g_{i_{k+1}},
// L~_k = Sigma^{1/2} L_k Sigma^{1/2} (indices cyclic). Each factor k has a left slot (the vector g_{i_k},
// position k) and a right slot (g_{i_{k+1}}, position k+1). By Wick's theorem the expectation over the g's is
// the sum over perfect matchings p of the 2m slots of the product of the contractions; summing over the
// sample indices, a matching contributes n^{c(p)}, c(p) the number of connected components its pairs make
// among the m positions (positions joined by a pair share a sample). Factor edges and matching edges make
// every slot of degree 2, so the contraction is a product of traces over disjoint cycles: walking a factor
// from its left to its right slot multiplies by L~_k, the other way by L~_k^T. Hence
//   E tr(S L_0 ... S L_{m-1}) = sum_p n^{c(p) - m} prod_{cycles} tr(L~_{k1}^(T) L~_{k2}^(T) ...),
// (2m - 1)!! matchings; the tables are built once per m and kept (m <= kMaxDegree).
//
// Words are noncommutative polynomials (NcPoly) in S and named d x d matrices ("base" matrices: A_i, B_i,
// Sigma, ...) and their transposes; TraceExpectation expands E[tr(p)] and its gradient with respect to every
// base matrix (reverse mode through the cycle traces, then through the letter products).
#pragma once
#include <Eigen/Dense>

#include <cstdint>
#include <vector>

namespace icl {

struct NcToken {
  int id = -1;             // -1: S; otherwise a base matrix index
  bool transposed = false;
  bool operator==(const NcToken& o) const { return id == o.id && (id < 0 || transposed == o.transposed); }
  bool operator<(const NcToken& o) const { return id != o.id ? id < o.id : (id >= 0 && transposed < o.transposed); }
};

struct NcTerm {
  double coef = 1.0;
  std::vector<NcToken> tokens;  // the product, left to right; empty = identity
};

// A noncommutative polynomial: sum of coef * token products.
struct NcPoly {
  std::vector<NcTerm> terms;
  static NcPoly identity();
  static NcPoly S();
  static NcPoly base(int id, bool transposed = false);
  NcPoly transpose() const;
  NcPoly operator*(const NcPoly& o) const;
  NcPoly operator+(const NcPoly& o) const;
  NcPoly operator-(const NcPoly& o) const;
  NcPoly operator*(double c) const;
  int max_degree() const;  // largest number of S factors in a term
};

class TraceExpectation {
public:
  static constexpr int kMaxDegree = 8;  // (2m-1)!! = 2027025 matchings at m = 8
  // E[tr(p)] as a function of the base matrices; throws if a term has more than kMaxDegree factors of S.
  TraceExpectation(const NcPoly& p, int num_base);
  int max_degree() const { return max_degree_; }
  std::size_t terms() const { return terms_.size(); }
  // Number of matchings summed per evaluation (the cost).
  std::uint64_t matchings() const;
  double value(const std::vector<Eigen::MatrixXd>& base, const Eigen::MatrixXd& sigma, double n) const;
  // Writes d value / d base[j] into grad[j] (resized; zero for bases that do not occur).
  double value_and_gradient(const std::vector<Eigen::MatrixXd>& base, const Eigen::MatrixXd& sigma, double n,
                            std::vector<Eigen::MatrixXd>& grad) const;

private:
  struct Term {
    double coef;
    int m;                                      // factors of S
    std::vector<std::vector<NcToken>> letters;  // m letters (products of base tokens); m = 0: one letter
  };
  double evaluate(const std::vector<Eigen::MatrixXd>& base, const Eigen::MatrixXd& sigma, double n,
                  std::vector<Eigen::MatrixXd>* grad) const;
  std::vector<Term> terms_;
  int num_base_ = 0;
  int max_degree_ = 0;
};

// E[tr(S L_0 S L_1 ... S L_{m-1})] for given letters (m = letters.size() >= 1) and n, x ~ N(0, Sigma).
// With adjoint != nullptr, adds weight * d/dL_k into (*adjoint)[k].
double wishart_trace(const std::vector<Eigen::MatrixXd>& letters, const Eigen::MatrixXd& sigma, double n,
                     std::vector<Eigen::MatrixXd>* adjoint = nullptr, double weight = 1.0);

}  // namespace icl
