// acds eq. (8) stack on hand-computable prompts (d = 1 and d = 2, n = 1).
#include "constructions/acds_lemma1.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/model/prompt.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>

namespace test_acds_lemma1 {  // named: a unity build compiles several test files as one unit

using namespace icl;

TEST_CASE("acds sparse layer, d = 1, n = 1: one GD step by hand") {
  // x_1 = 2, y_1 = 3 (w_* = 1.5), x_q = 1, A_0 = 0.25.
  const PromptShape s = acds_shape(1, 1);
  Eigen::MatrixXd X(1, 2);
  X << 2, 1;
  Eigen::RowVectorXd y(2);
  y << 3, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  acds::sparse_stack({Eigen::MatrixXd::Constant(1, 1, 0.25)}).forward(Z, ws);
  // query: 0 - y_1 x_1 A x_q = -1.5; context: 3 - y_1 x_1 A x_1 = 0; x row unchanged.
  CHECK(Z(1, 1) == doctest::Approx(-1.5));
  CHECK(Z(1, 0) == doctest::Approx(0.0));
  CHECK(Z(0, 0) == 2.0);
  CHECK(Z(0, 1) == 1.0);
  // Lemma 1: w^1 = -A grad R(0) = 0.25 * 2 * 3 = 1.5 and the query entry is -x_q w^1.
  const auto w = preconditioned_gradient_descent<double>(X.leftCols(1), y.head(1).transpose(),
                                                         {Eigen::MatrixXd::Constant(1, 1, 0.25)});
  CHECK(-X(0, 1) * w[1][0] == doctest::Approx(Z(1, 1)));
}

TEST_CASE("acds sparse layer, d = 2: a non-symmetric A acts through its transpose") {
  // x_1 = (1, 0), y_1 = 1, x_q = (0, 1), A = [0 1; 0 0].
  const PromptShape s = acds_shape(2, 1);
  Eigen::MatrixXd X(2, 2);
  X << 1, 0, 0, 1;
  Eigen::RowVectorXd y(2);
  y << 1, 0;
  Eigen::MatrixXd A(2, 2);
  A << 0, 1, 0, 0;
  Eigen::MatrixXd Z = test::embedded(s, X, y);
  ForwardWorkspace ws;
  acds::sparse_stack({A}).forward(Z, ws);
  // The layer adds -(1/n) y_1 x_1^T A x_q = -A(0, 1) = -1 to the query entry.
  CHECK(Z(2, 1) == doctest::Approx(-1.0));
  const auto w_stated = preconditioned_gradient_descent<double>(X.leftCols(1), y.head(1).transpose(), {A});
  const auto w_transposed =
      preconditioned_gradient_descent<double>(X.leftCols(1), y.head(1).transpose(), {Eigen::MatrixXd(A.transpose())});
  const Eigen::VectorXd xq = X.col(1);
  CHECK(-xq.dot(w_stated[1]) == doctest::Approx(0.0));      // the recursion as stated misses it
  CHECK(-xq.dot(w_transposed[1]) == doctest::Approx(-1.0));  // with A^T it matches
}

TEST_CASE("acds lemma1_prompt: with L layers the corrected form holds to rounding, the stated one only for symmetric A") {
  // d = 3, n = 4, L = 3 on clean prompts (family 0: x ~ N(0, I)), and on the two other families.
  const int d = 3, n = 4, L = 3;
  for (std::uint64_t i : {0, 3, 6}) {
    CAPTURE(i);
    const acds::Lemma1Errors g = acds::lemma1_prompt(d, n, L, false, 7, 11, i);  // general A_l
    CHECK(g.family == 0);
    CHECK(g.err[acds::kCorrected] < 1e-13);
    CHECK(g.err[acds::kQueryPlain] < 1e-12);
    CHECK(g.err[acds::kRefSelf] < 1e-13);
    CHECK(g.err[acds::kXRows] == 0.0);
    CHECK(g.err[acds::kStated] > 1e-3);  // the stated recursion misses the transpose
    CHECK(g.err[acds::kStatedClean] == g.err[acds::kStated]);
    CHECK(g.forward == doctest::Approx(g.corrected).epsilon(1e-12));
    CHECK(std::abs(g.forward - g.stated) > 1e-6 * std::abs(g.forward));
    const acds::Lemma1Errors s = acds::lemma1_prompt(d, n, L, true, 7, 11, i);  // symmetric A_l: both forms agree
    CHECK(s.err[acds::kStated] < 1e-13);
    CHECK(s.err[acds::kCorrected] < 1e-13);
    CHECK(s.stated == doctest::Approx(s.corrected).epsilon(1e-12));
  }
  // The same prompt twice is the same draw; the other families keep the corrected form at rounding.
  CHECK(acds::lemma1_prompt(d, n, L, false, 7, 11, 5).forward == acds::lemma1_prompt(d, n, L, false, 7, 11, 5).forward);
  for (std::uint64_t i : {1, 2}) {
    CAPTURE(i);
    const acds::Lemma1Errors g = acds::lemma1_prompt(d, n, L, false, 7, 11, i);
    CHECK(g.family == static_cast<int>(i));
    CHECK(g.err[acds::kCorrected] < 1e-12);
    CHECK(g.err[acds::kStated] > 1e-3);
    CHECK(g.err[acds::kStatedClean] == 0.0);  // only clean prompts count there
  }
  CHECK(std::string(acds::lemma1_family(4)) == "x ~ N(0, 1e6 I), A scaled by 1e-6");
}

TEST_CASE("acds lemma1_quantities: the prompt's predictions and the worst errors under their names, in order") {
  const acds::Lemma1Errors at = acds::lemma1_prompt(2, 3, 2, false, 7, 11, 0);
  WorstCase w{acds::kLemma1Errors};
  for (std::size_t k = 0; k < w.worst.size(); ++k) w.worst[k] = 0.5 + static_cast<double>(k);  // all distinct
  w.prompts = 9;
  CaseJson j(nlohmann::ordered_json{{"d", 2}});
  acds::lemma1_quantities(j, w, at);
  const auto q = j.take()["quantities"];
  std::vector<std::string> keys;
  for (const auto& [k, v] : q.items()) keys.push_back(k);
  CHECK(keys == std::vector<std::string>{"stated", "exact", "corrected", "max_rel_error", "max_rel_error_clean",
                                         "max_rel_error_corrected", "max_rel_error_query", "reference_self_error",
                                         "max_x_row_change", "prompts"});
  CHECK(q["exact"]["value"] == at.forward);
  CHECK(q["corrected"]["value"] == at.corrected);
  CHECK(q["max_rel_error"]["value"] == w.worst[acds::kStated]);
  CHECK(q["max_x_row_change"]["value"] == w.worst[acds::kXRows]);
  CHECK(q["prompts"]["value"] == 9.0);
}

}  // namespace test_acds_lemma1
