// PolynomialTask::evaluate (monomial-outer, specialised by degree) gives bitwise the values of the
// plain definition y_j = sum_k w_k prod_i x_ij^{e_ki}, summed over k in order, each term w_k times
// the variables in order; so a faster evaluate leaves every Monte Carlo number unchanged.
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <doctest/doctest.h>

namespace test_tasks {  // named: a unity build compiles several test files as one unit

namespace {

void evaluate_by_definition(const icl::PolynomialTask& task, const Eigen::MatrixXd& X, const Eigen::VectorXd& w,
                            Eigen::RowVectorXd& y) {
  for (Eigen::Index j = 0; j < X.cols(); ++j) {
    double s = 0;
    for (std::size_t k = 0; k < task.monomials.size(); ++k) {
      double t = w[static_cast<Eigen::Index>(k)];
      for (int i = 0; i < task.d; ++i)
        for (int p = 0; p < task.monomials[k][i]; ++p) t *= X(i, j);
      s += t;
    }
    y[j] = s;
  }
}

void check_bitwise(const icl::PolynomialTask& task, std::uint64_t seed) {
  const int m = 37;
  icl::PromptRng rng(seed, 0, 0);
  Eigen::MatrixXd X(task.d, m);
  Eigen::VectorXd w(task.num_coefficients());
  rng.fill_normal(X);
  rng.fill_normal(w);
  Eigen::RowVectorXd fast(m), slow(m);
  task.evaluate(X, w, fast);
  evaluate_by_definition(task, X, w, slow);
  for (Eigen::Index j = 0; j < m; ++j) {
    INFO(task.name, " d=", task.d, " column ", j, ": ", fast[j], " vs ", slow[j]);
    CHECK(fast[j] == slow[j]);
  }
}

}  // namespace

TEST_CASE("PolynomialTask::evaluate equals the definition bitwise") {
  for (int d : {1, 2, 4, 7}) {
    check_bitwise(icl::PolynomialTask::linear(d), 1);
    check_bitwise(icl::PolynomialTask::quadratic(d), 2);
    check_bitwise(icl::PolynomialTask::polynomial(d, 3), 3);
    check_bitwise(icl::PolynomialTask::polynomial(d, 5), 4);
  }
  // a named subset in no particular order, with repeated and high-degree monomials
  icl::PolynomialTask odd{3, {{0, 2, 1}, {0, 0, 0}, {4, 0, 0}, {0, 1, 0}, {0, 1, 0}, {1, 1, 1}}, "subset"};
  check_bitwise(odd, 5);
}

TEST_CASE("PolynomialTask::evaluate: a known value") {
  // y = 2 - x1 + 3 x1 x2 + 0.5 x2^2 at x = (2, -1): 2 - 2 - 6 + 0.5 = -5.5
  icl::PolynomialTask t{2, {{0, 0}, {1, 0}, {1, 1}, {0, 2}}, "test"};
  Eigen::MatrixXd X(2, 1);
  X << 2, -1;
  Eigen::VectorXd w(4);
  w << 2, -1, 3, 0.5;
  Eigen::RowVectorXd y(1);
  t.evaluate(X, w, y);
  CHECK(y[0] == doctest::Approx(-5.5).epsilon(1e-15));
}

}  // namespace test_tasks
