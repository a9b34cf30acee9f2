// eval explains itself (issue 46): every quantity of a case has its meaning in the report, the summary says what
// its numbers are, weights that fit far better read with the opposite sign get the sign convention named, and the
// Python module's out= writes the three report files.
#include "icl/cli/eval.hpp"

#include <doctest/doctest.h>

#include <filesystem>
#include <regex>
#include <string>
#include <unistd.h>

namespace test_eval_words {  // named: a unity build compiles several test files as one unit

using namespace icl;
namespace fs = std::filesystem;

namespace {

// One GD-like layer (P = e e^T scaled by `sign`, Q = -n/(n+d+1) I) on d = 2.
LsaStack gd_layer(double sign, double skew = 0) {
  const int d = 2, n = 10;
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = sign;
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d) = -double(n) / (n + d + 1) * Eigen::MatrixXd::Identity(d, d);
  a.Q(0, 1) += skew;
  LsaStack st;
  st.d = d;
  st.layout = "named";
  st.layers = {{a}};
  return st;
}

EvalOptions options() {
  EvalOptions o;
  o.sets = {"n=10"};
  o.samples = 4096;
  o.threads = 2;
  return o;
}

}  // namespace

TEST_CASE("eval: every quantity is explained; the summary says what its numbers are") {
  const auto r = evaluate_weights(gd_layer(1.0, 0.3), options());
  REQUIRE(r.contains("quantity_meanings"));
  for (const auto& c : r["cases"])
    for (auto it = c["quantities"].begin(); it != c["quantities"].end(); ++it) {
      CAPTURE(it.key());
      REQUIRE(r["quantity_meanings"].contains(it.key()));
      CHECK(r["quantity_meanings"][it.key()].get<std::string>().size() > 20);
    }
  const std::string summary = r["summary"];
  CHECK_FALSE(std::regex_search(summary, std::regex("distance [0-9]")));
  CHECK(summary.find("above the best single layer's") != std::string::npos);
  CHECK(summary.find("from the optimum's") != std::string::npos);
  const std::string evidence = r["cases"][0]["evidence"];
  CHECK(evidence.find("effective preconditioner Gamma") != std::string::npos);
  CHECK(r["cases"][0]["quantities"].contains("gamma_distance"));
  CHECK(evidence.find("SIGN CONVENTION") == std::string::npos);  // the right sign: no note
}

TEST_CASE("eval: weights trained to predict +Z[d, n] get the sign convention named") {
  const auto r = evaluate_weights(gd_layer(-1.0), options());
  const auto& c = r["cases"][0];
  CHECK(c["verdict"] == "refuted");
  const double loss = c["quantities"]["exact"]["value"], flipped = c["quantities"]["flipped_sign_exact"]["value"];
  CHECK(flipped < 0.5 * loss);
  // The flipped weights are the right-sign ones: their loss is the right-sign layer's.
  const auto right = evaluate_weights(gd_layer(1.0), options());
  CHECK(flipped == doctest::Approx(right["cases"][0]["quantities"]["exact"]["value"].get<double>()).epsilon(1e-12));
  CHECK(c["evidence"].get<std::string>().find("SIGN CONVENTION: read with the opposite sign, yhat = +Z[d, n]") !=
        std::string::npos);
  CHECK(r["summary"].get<std::string>().find("with the opposite sign convention (yhat = +Z[d, n]) the loss would be") !=
        std::string::npos);
}

TEST_CASE("eval: write_eval_report writes the three files together into a folder it makes") {
  const auto r = evaluate_weights(gd_layer(1.0), options());
  const fs::path dir = fs::temp_directory_path() / ("icl-eval-words-" + std::to_string(::getpid()));
  fs::remove_all(dir);
  write_eval_report(r, (dir / "sub").string());
  for (const char* f : {"eval.json", "eval.md", "eval.tex"}) CHECK(fs::is_regular_file(dir / "sub" / f));
  CHECK_FALSE(fs::exists(dir / "sub" / ".icl-verify.lock"));
  fs::remove_all(dir);
}

}  // namespace test_eval_words
