// A claim of one's own about a model's loss (lib/icl/claim/kinds/formula.hpp), the mechanism behind the Python module's
// check(): the one-step gradient-descent layer of examples/own_claim with its loss formula (confirmed) and the same
// formula without a term (refuted, with a counterexample); the report files are those `icl-verify run` writes; the
// claim is registered only for the run; bad descriptions are UsageErrors.
#include "icl/cli/check.hpp"

#include "icl/cli/engine.hpp"
#include "icl/model/gaussian_model.hpp"
#include "tests/support/npy_files.hpp"

#include <doctest/doctest.h>

#include <regex>

#include <algorithm>
#include <cmath>
#include <functional>
#include <filesystem>
#include <string>

namespace test_formula_claim {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

namespace fs = std::filesystem;

// P = [[0, 0], [0, -eta]], Q = [[I, 0], [0, 0]]: one GD step of size eta from w = 0.
LsaStack gd_layer(const Case& c) {
  const int d = c.geti("d");
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = -c.get("eta");
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d).setIdentity();
  LsaStack st;
  st.d = d;
  st.layout = "named";
  st.layers = {{a}};
  return st;
}

// L(eta) = tr S - 2 eta tr S^2 + eta^2 ((n+1)/n tr S^3 + tr S tr S^2 / n); `last` = 0 drops the last term.
double gd_loss(const Case& c, double last = 1.0) {
  const int n = c.geti("n");
  const double eta = c.get("eta");
  const Eigen::MatrixXd S = test_covariance(c.geti("d"), c.geti("cov"));
  const double t1 = S.trace(), t2 = (S * S).trace(), t3 = (S * S * S).trace();
  return t1 - 2 * eta * t2 + eta * eta * ((n + 1.0) / n * t3 + last * t1 * t2 / n);
}

FormulaClaim gd_claim(const std::string& id, double last) {
  FormulaClaim f;
  f.id = id;
  f.statement = "One LSA layer taking one GD step of size eta has loss tr S - 2 eta tr S^2 + ...";
  f.grid = {ParamSpec{"d", {2, 3}, {2}, 1, 64, true, "input dimension"},
            ParamSpec{"n", {20}, {20}, 1, 1e6, true, "context length"},
            ParamSpec{"eta", {0.5}, {0.5}, -1e300, 1e300, false, "step"},
            ParamSpec{"cov", {0, 2}, {0}, 0, 3, true, "covariance"}};
  f.stated = [last](const Case& c) { return gd_loss(c, last); };
  f.model = gd_layer;
  return f;
}

}  // namespace

TEST_CASE("formula claim: a true loss formula is confirmed, a wrong one refuted, with the report files of `run`") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  const auto r = check_formula_claim(gd_claim("mine.gd", 1.0), out, 1, 2);
  CHECK(r["schema"] == "icl-verify/report/v1");
  CHECK(r["claim"] == "mine.gd");
  CHECK(r["verdict"] == "confirmed");
  REQUIRE(r["cases"].size() == 4);
  for (const auto& c : r["cases"]) {
    CHECK(c["quantities"]["exact"]["value"].get<double>() ==
          doctest::Approx(c["quantities"]["stated"]["value"].get<double>()).epsilon(1e-12));
    CHECK(c["decisions"].contains("mc_vs_exact"));
  }
  CHECK(r.contains("error_rates"));
  for (const char* f : {"mine.gd.json", "mine.gd.tex", "summary.md"}) CHECK(fs::exists(fs::path(out) / f));
  CHECK(find_claim("mine.gd") == nullptr);  // registered for the run only

  const auto w = check_formula_claim(gd_claim("mine.gd_wrong", 0.0), out, 1, 2);
  CHECK(w["verdict"] == "refuted");
  const auto& cases = w["cases"];
  CHECK(std::any_of(cases.begin(), cases.end(), [&](const auto& c) { return c["params"] == w["refutation"]["counterexample"]; }));
  CHECK(find_claim("mine.gd_wrong") == nullptr);

  // A bound: 1.5 x the loss is an upper bound and not a lower one.
  FormulaClaim b = gd_claim("mine.bound", 1.0);
  b.stated = [](const Case& c) { return 1.5 * gd_loss(c); };
  b.kind = "upper_bound";
  CHECK(check_formula_claim(b, out, 1, 2)["verdict"] == "confirmed");
  b.kind = "lower_bound";
  CHECK(check_formula_claim(b, out, 1, 2)["verdict"] == "refuted");
}

// The GD step's loss with a step of one's own `c` (d, n, c varied), stated `factor` x too small; `step` maps (d, c) to
// the layer's step.
FormulaClaim gd_small(const std::string& id, std::function<double(int, double)> step) {
  FormulaClaim f;
  f.id = id;
  f.statement = "one GD step: loss 0.9 d (c^2 (n+d+1)/n - 2c + 1)";
  f.grid = {ParamSpec{"d", {2, 5}, {2, 5}, 1, 64, true, "input dimension"},
            ParamSpec{"n", {20, 50}, {20, 50}, 1, 1e5, true, "context length"},
            ParamSpec{"c", {0.5, 1}, {0.5, 1}, -1e300, 1e300, false, "step"}};
  f.stated = [step](const Case& k) {
    const double d = k.geti("d"), n = k.geti("n"), c = step(k.geti("d"), k.get("c"));
    return 0.9 * d * (c * c * (n + d + 1) / n - 2 * c + 1);
  };
  f.model = [step](const Case& k) {
    Case g;
    g.params = {{"d", k.get("d")}, {"eta", step(k.geti("d"), k.get("c"))}};
    return gd_layer(g);
  };
  f.samples = 131072;
  return f;
}

TEST_CASE("formula claim: a refuted loss formula gets a proposed correction, verified exactly on held-out cases") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  const auto r = check_formula_claim(gd_small("mine.gd_small", [](int, double c) { return c; }), out, 1, 2);
  REQUIRE(r["verdict"] == "refuted");
  const auto& p = r["proposed_correction"];
  CHECK(p["verified"] == true);
  CHECK(p["formula"] == "d*(c^2 - 2*c + 1) + d*c^2*(d + 1)/n");
  CHECK(p["fitted_on"] == 216);
  CHECK(p["held_out"].get<int>() >= 3);
  CHECK(p["claim_cases"]["equal"] == 8);
  for (const auto& h : p["held_out_cases"]) CHECK(h["equal"] == true);
  for (const auto& c : r["cases"])
    CHECK(c["quantities"]["proposed"]["value"].get<double>() ==
          doctest::Approx(c["quantities"]["exact"]["value"].get<double>()).epsilon(1e-12));
  CHECK(r["refutation"]["corrected"].get<std::string>().find("loss = d*(c^2 - 2*c + 1)") != std::string::npos);

  // A step 2^-d: the loss is no polynomial in d; the report says so and proposes nothing.
  const auto w = check_formula_claim(gd_small("mine.gd_pow", [](int d, double c) { return std::ldexp(c, -d); }), out, 1, 2);
  REQUIRE(w["verdict"] == "refuted");
  const auto& q = w["proposed_correction"];
  CHECK(q["verified"] == false);
  CHECK(q["formula"].is_null());
  CHECK(q["why"].get<std::string>().find("no formula in the searched family fits: along d") != std::string::npos);
  for (const auto& c : w["cases"]) CHECK_FALSE(c["quantities"].contains("proposed"));
  CHECK(w["refutation"].value("corrected", "") == "");
}

TEST_CASE("formula claim: the exact loss decides an equality that Monte Carlo alone leaves open") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  // The true formula at 20,000 prompts, d = 5: Monte Carlo's interval is wider than the 5% band, the exact loss decides.
  FormulaClaim f = gd_claim("mine.gd_few", 1.0);
  f.grid[0].defaults = {5};
  f.grid[3].defaults = {0};
  f.samples = 20000;
  const auto r = check_formula_claim(f, out, 1, 2);
  CHECK(r["verdict"] == "confirmed");
  for (const auto& c : r["cases"]) {
    CHECK(c["basis"] == nlohmann::ordered_json::array({"exact_vs_stated"}));
    CHECK(c["decisions"]["mc_vs_exact"]["verdict"] != "refuted");
  }
}

TEST_CASE("formula claim: without an exact loss, an undecided case is named with the prompts that would decide it") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  // Two layers (the second zero): no exact loss. The stated value 3% above the loss: inside the 5% band, too close
  // to its edge for 8192 prompts.
  FormulaClaim f = gd_claim("mine.gd_deep", 1.0);
  f.grid[0].defaults = {2};
  f.grid[3].defaults = {0};
  f.stated = [](const Case& c) { return 1.03 * gd_loss(c); };
  f.model = [](const Case& c) {
    LsaStack st = gd_layer(c);
    LinearSelfAttention zero = st.layers[0][0];
    zero.P.setZero();
    st.layers.push_back({zero});
    return st;
  };
  f.samples = 8192;
  const auto r = check_formula_claim(f, out, 1, 2);
  REQUIRE(r["verdict"] == "inconclusive");
  const auto& c = r["cases"][0];
  CHECK_FALSE(c["quantities"].contains("exact"));
  REQUIRE(c["decisions"].contains("samples_to_decide"));
  const auto need = c["decisions"]["samples_to_decide"].get<std::uint64_t>();
  CHECK(need > 8192);
  const std::string summary = r["summary"];
  CHECK(summary.find("undecided: d=2, n=20, eta=0.5, cov=0 (about " + std::to_string(need) + " prompts would decide it") !=
        std::string::npos);
  // With the cap raised to twice that count (the extrapolation holds the mean where it is; more prompts move it a
  // little), Monte Carlo decides: the stated value is 3% off, so the interval excludes it and refutes it, although it
  // lies inside the 5% band (issue 65: Monte Carlo never confirms what its interval excludes).
  f.samples = 2 * need;
  const auto again = check_formula_claim(f, out, 1, 2);
  CHECK(again["verdict"] == "refuted");
  CHECK_FALSE(again["cases"][0]["decisions"].contains("samples_to_decide"));
  const std::string why = again["cases"][0]["decisions"]["mc_vs_stated"]["why"];
  CHECK(why.find("excludes") != std::string::npos);
  CAPTURE(why);
  // The discrepancy it shows: about -3% of the stated value (the loss is 1/1.03 of it, -2.9%, with Monte Carlo noise).
  CHECK(std::regex_search(why, std::regex(R"(a discrepancy of -0\.0[0-9]+, -[23]\.[0-9]+% of it)")));
}

// kind "argmin": the step eta minimising the GD layer's loss, n / (n + d + 1) for isotropic inputs.
FormulaClaim gd_argmin(const std::string& id, std::function<double(double, double)> stated) {
  FormulaClaim f;
  f.id = id;
  f.kind = "argmin";
  f.argmin_over = "eta";
  f.statement = "one GD step: the loss is least at eta = n / (n + d + 1)";
  f.grid = {ParamSpec{"d", {2, 5}, {2}, 1, 64, true, "input dimension"},
            ParamSpec{"n", {10, 40}, {10}, 1, 1e6, true, "context length"}};
  f.stated = [stated](const Case& c) { return stated(c.get("d"), c.get("n")); };
  f.model = gd_layer;
  f.samples = 16384;
  return f;
}

TEST_CASE("formula claim: argmin, a stated minimiser judged on the exact loss by a grid and Brent's method") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  const auto r = check_formula_claim(gd_argmin("mine.eta", [](double d, double n) { return n / (n + d + 1); }), out, 1, 2);
  CHECK(r["verdict"] == "confirmed");
  REQUIRE(r["cases"].size() == 4);
  for (const auto& c : r["cases"]) {
    const double d = c["params"]["d"], n = c["params"]["n"];
    CHECK(c["quantities"]["search_argmin"]["value"].get<double>() == doctest::Approx(n / (n + d + 1)).epsilon(1e-7));
    CHECK(c["decisions"]["exact_vs_stated"]["verdict"] == "confirmed");
    CHECK(c["decisions"]["mc_vs_exact"]["verdict"] != "refuted");
  }
  for (auto wrong : {std::function<double(double, double)>([](double d, double n) { return n / (n + d); }),
                     std::function<double(double, double)>([](double, double n) { return 1 / n; })}) {
    const auto w = check_formula_claim(gd_argmin("mine.eta_wrong", wrong), out, 1, 2);
    REQUIRE(w["verdict"] == "refuted");
    const auto& ce = w["refutation"]["counterexample"];
    const double d = ce["d"], n = ce["n"];
    CHECK(ce["eta"].get<double>() == doctest::Approx(n / (n + d + 1)).epsilon(1e-7));
    CHECK(ce["loss"].get<double>() < ce["loss_at_stated"].get<double>());
    CHECK(ce["stated_eta"].get<double>() == doctest::Approx(wrong(d, n)));
  }
  // A stated minimiser outside the range given, argmin_over in the grid: usage errors.
  FormulaClaim bad = gd_argmin("mine.eta_bad", [](double d, double n) { return n / (n + d + 1); });
  bad.argmin_range = std::make_pair(2.0, 3.0);
  CHECK_THROWS_AS(check_formula_claim(bad, out, 1, 2), UsageError);
  bad = gd_argmin("mine.eta_bad", [](double, double) { return 0.5; });
  bad.grid.push_back(ParamSpec{"eta", {0.5}, {0.5}, -1e300, 1e300, false, "step"});
  CHECK_THROWS_AS(check_formula_claim(bad, out, 1, 2), UsageError);
  CHECK(find_claim("mine.eta_bad") == nullptr);
}

TEST_CASE("formula claim: argmin without an exact loss searches the Monte Carlo loss and decides on paired prompts") {
  // Two layers (the second zero, so the function is one GD step) have no exact loss: the Monte Carlo path.
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  auto two_layers = [](FormulaClaim f) {
    f.model = [](const Case& c) {
      LsaStack st = gd_layer(c);
      LinearSelfAttention zero;
      zero.P = Eigen::MatrixXd::Zero(st.d + 1, st.d + 1);
      zero.Q = zero.P;
      st.layers.push_back({zero});
      return st;
    };
    f.grid = {ParamSpec{"d", {2}, {2}, 1, 64, true, "input dimension"},
              ParamSpec{"n", {10}, {10}, 1, 1e6, true, "context length"}};
    return f;
  };
  const auto r = check_formula_claim(two_layers(gd_argmin("mine.eta_mc", [](double d, double n) { return n / (n + d + 1); })),
                                     out, 1, 2);
  CAPTURE(r["cases"].dump());
  CHECK(r["verdict"] == "confirmed");
  REQUIRE(r["cases"].size() == 1);
  const auto& c = r["cases"][0];
  CHECK(c["decisions"]["search"]["method"].get<std::string>().find("Monte Carlo") != std::string::npos);
  CHECK(c["quantities"]["search_argmin"]["value"].get<double>() == doctest::Approx(10.0 / 13).epsilon(0.05));
  for (auto wrong : {std::function<double(double, double)>([](double d, double n) { return n / (n + d); }),
                     std::function<double(double, double)>([](double, double n) { return 1 / n; })}) {
    const auto w = check_formula_claim(two_layers(gd_argmin("mine.eta_mc_wrong", wrong)), out, 1, 2);
    CAPTURE(w["cases"].dump());
    REQUIRE(w["verdict"] == "refuted");
    const auto& ce = w["refutation"]["counterexample"];
    CHECK(ce["loss"].get<double>() < ce["loss_at_stated"].get<double>());
  }
}

TEST_CASE("formula claim: kind rate, the tuned GD step's loss ~ 1/n confirmed on exact losses, a fixed step's refuted") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  auto rate = [](const std::string& id, bool tuned) {
    FormulaClaim f;
    f.id = id;
    f.kind = "rate";
    f.statement = "one GD step's loss decays like 1/n";
    f.grid = {ParamSpec{"d", {2, 5}, {2}, 1, 64, true, "input dimension"},
              ParamSpec{"n", {100, 300, 1000, 3000}, {100}, 1, 1e6, true, "context length"}};
    f.stated = [](const Case&) { return -1.0; };
    f.model = [tuned](const Case& c) {
      Case k = c;
      const double d = c.get("d"), n = c.get("n");
      k.params.emplace_back("eta", tuned ? n / (n + d + 1) : 0.5);
      return gd_layer(k);
    };
    return f;
  };
  const auto r = check_formula_claim(rate("mine.rate", true), out, 1, 2);
  CHECK(r["verdict"] == "confirmed");
  REQUIRE(r["cases"].size() == 2);  // one per d: the groups
  for (const auto& c : r["cases"]) {
    CHECK(c["quantities"]["slope"]["value"].get<double>() == doctest::Approx(-1).epsilon(0.01));
    CHECK(c["points"].size() == 4);
  }
  const auto w = check_formula_claim(rate("mine.rate_fixed", false), out, 1, 2);
  CHECK(w["verdict"] == "refuted");
  CHECK(w["refutation"]["counterexample"]["points"].size() == 4);
  // Fewer than 3 values of rate_over: no trend, a usage error.
  FormulaClaim bad = rate("mine.rate_bad", true);
  bad.grid[1].defaults = {100, 300};
  CHECK_THROWS_AS(check_formula_claim(bad, out, 1, 2), UsageError);
  CHECK(find_claim("mine.rate_bad") == nullptr);
}

// kind "identity": the forward pass against a stated prediction, prompt by prompt (identity.hpp).
FormulaClaim gd_identity(const std::string& id, double denominator_extra) {
  FormulaClaim f = gd_claim(id, 1.0);
  f.kind = "identity";
  f.stated = nullptr;
  f.prompts = 300;
  f.reference = [denominator_extra](const Case& c, const Eigen::MatrixXd& x, const Eigen::VectorXd& y) {
    const int n = c.geti("n");
    return c.get("eta") / (n + denominator_extra) * y.dot(x.leftCols(n).transpose() * x.col(n));
  };
  return f;
}

TEST_CASE("formula claim: kind identity confirms one GD step's prediction on every prompt and refutes 1/(n+1)") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  const auto r = check_formula_claim(gd_identity("mine.gd_identity", 0.0), out, 1, 2);
  CHECK(r["verdict"] == "confirmed");
  REQUIRE(r["cases"].size() == 4);
  for (const auto& c : r["cases"]) {
    CHECK(c["verdict"] == "confirmed");
    CHECK(c["quantities"]["prompts"]["value"].get<double>() == 300);
    CHECK(c["quantities"]["max_rel_error"]["value"].get<double>() < 1e-10);
  }
  CHECK(fs::exists(fs::path(out) / "mine.gd_identity.json"));
  CHECK(r["error_rates"]["decision"].get<std::string>().find("deterministic") != std::string::npos);

  const auto w = check_formula_claim(gd_identity("mine.gd_identity_slip", 1.0), out, 1, 2);
  CHECK(w["verdict"] == "refuted");
  for (const auto& c : w["cases"]) CHECK(c["verdict"] == "refuted");
  const auto& ce = w["refutation"]["counterexample"];
  CHECK(ce["prompt"] == 0);
  const double n = ce["n"];
  CHECK(ce["reference"].get<double>() == doctest::Approx(ce["model_prediction"].get<double>() * n / (n + 1)));
  CHECK(ce["inputs"].size() == ce["d"].get<std::size_t>());

  // The reference belongs to kind identity; identity needs one.
  FormulaClaim bad = gd_identity("mine.gd_identity_bad", 0.0);
  bad.reference = nullptr;
  CHECK_THROWS_AS(check_formula_claim(bad, out, 1, 2), UsageError);
  bad = gd_claim("mine.gd_identity_bad", 1.0);
  bad.reference = gd_identity("x", 0.0).reference;
  CHECK_THROWS_AS(check_formula_claim(bad, out, 1, 2), UsageError);
  CHECK(find_claim("mine.gd_identity_bad") == nullptr);
}

TEST_CASE("formula claim: bad descriptions are usage errors, and the claim is not left registered") {
  test::ScratchDir dir;
  const std::string out = (dir.path / "report").string();
  auto message = [&](FormulaClaim f) {
    try {
      check_formula_claim(f, out);
    } catch (const UsageError& e) {
      return std::string(e.what());
    }
    FAIL_CHECK("no UsageError");
    return std::string();
  };
  FormulaClaim f = gd_claim("mine.bad", 1.0);
  f.id = "acds.thm1";
  CHECK(message(f).find("taken") != std::string::npos);
  f.id = "../escape";
  CHECK(message(f).find("claim id") != std::string::npos);
  f = gd_claim("mine.bad", 1.0);
  f.grid.erase(f.grid.begin());  // no d
  CHECK(message(f).find("must give 'd'") != std::string::npos);
  f = gd_claim("mine.bad", 1.0);
  f.kind = "approximately";
  CHECK(message(f).find("kind") != std::string::npos);
  f = gd_claim("mine.bad", 1.0);
  f.model = [](const Case& c) {
    Case other = c;
    for (auto& p : other.params)
      if (p.first == "d") p.second += 1;
    return gd_layer(other);
  };
  CHECK(message(f).find("has d = 3, the case d = 2") != std::string::npos);
  CHECK(find_claim("mine.bad") == nullptr);
}

}  // namespace test_formula_claim
