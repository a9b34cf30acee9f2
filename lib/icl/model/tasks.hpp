// Task distributions: inputs x ~ N(0, Sigma) and targets y = sum_m w_m x^{e_m} over a set of
// monomials with i.i.d. N(0, 1) coefficients (linear, quadratic, degree-p, or any named subset).
#pragma once
#include "icl/algebra/gaussian_moments.hpp"
#include "icl/model/rng.hpp"

#include <Eigen/Dense>
#include <string>
#include <vector>

namespace icl {

// All monomials of total degree in [min_degree, max_degree] in d variables, graded, then
// lexicographic with x_1 first (1; x1..xd; x1^2, x1x2, ..., xd^2; ...).
std::vector<Exponent> monomials_up_to(int d, int max_degree, int min_degree = 0);
std::string monomial_name(const Exponent& e);

struct PolynomialTask {
  int d = 1;
  std::vector<Exponent> monomials;  // y = sum_m w_m x^{e_m}, w ~ N(0, I)
  std::string name;

  static PolynomialTask linear(int d);        // y = <w, x>
  static PolynomialTask quadratic(int d);     // sja: w0 + sum w_i x_i + sum_{i<=j} w_ij x_i x_j
  static PolynomialTask polynomial(int d, int p);

  int num_coefficients() const { return static_cast<int>(monomials.size()); }
  // y for each column of X (d x m) given the coefficients w.
  void evaluate(const Eigen::Ref<const Eigen::MatrixXd>& X, const Eigen::Ref<const Eigen::VectorXd>& w,
                Eigen::Ref<Eigen::RowVectorXd> y) const;
  // The monomials as polynomials phi_m, so that E_w[y(x) y(x')] = sum_m phi_m(x) phi_m(x').
  std::vector<Polynomial<Rational>> features() const;
  // E_w[y(x)^2] = sum_m phi_m(x)^2 as a polynomial in x.
  Polynomial<Rational> kernel_diagonal() const;
};

// A task by the name a claim of one's own (check, eval) gives it: "linear", "quadratic", "degreeP" (every monomial of
// total degree <= P, 1 <= P <= 6) or "monomials:E;E;..." (each E one monomial's d exponents, comma-separated:
// "monomials:2,0;1,1" is y = w1 x1^2 + w2 x1 x2). Throws std::invalid_argument with the reason for anything else, or
// for exponents of another d.
PolynomialTask named_task(const std::string& name, int d);
// The largest total degree of a named task's monomials (d aside), or -1 with the reason in `why` when the name is
// none named_task reads.
int named_task_degree(const std::string& name, std::string& why);

// Inputs x ~ N(0, Sigma) drawn as L z, z ~ N(0, I).
struct InputDistribution {
  Eigen::MatrixXd sigma;  // d x d
  Eigen::MatrixXd chol;   // lower Cholesky factor
  bool isotropic = true;
  static InputDistribution standard(int d);
  static InputDistribution with_covariance(const Eigen::MatrixXd& sigma);
  int dim() const { return static_cast<int>(sigma.rows()); }
  void sample(PromptRng& rng, Eigen::Ref<Eigen::MatrixXd> X) const;  // fills d x m, column per point
};

}  // namespace icl
