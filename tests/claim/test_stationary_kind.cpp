// The stationary kind (lib/icl/claim/kinds/stationary.hpp) on its own, with no claim: the family search finds the
// stationary point of a known objective from every start, and each decision confirms only what its numbers show (a
// gradient above the precision, a control that cannot see a gradient, an engine that disagrees with the family
// objective, or a Monte Carlo contradiction leave the case inconclusive; nothing refutes).
#include "icl/claim/kinds/stationary.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <string>
#include <vector>

namespace test_stationary_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// f(t) = (t0 - 1)^2 + 3 (t1 + 2)^2 + (t0 - 1)^4: one stationary point, at (1, -2), loss 0.
double quartic(const Eigen::Ref<const Eigen::VectorXd>& t, Eigen::VectorXd& g) {
  const double a = t[0] - 1, b = t[1] + 2;
  g.resize(2);
  g[0] = 2 * a + 4 * a * a * a;
  g[1] = 6 * b;
  return a * a + 3 * b * b + a * a * a * a;
}

// Numbers of a point where everything holds: the gradient 1e-12 of the reference's, controls well above 100 x 1e-8.
stationary::Gradients good_point(const Eigen::VectorXd& g_family) {
  stationary::Gradients gr;
  gr.loss_engine = 2.5;
  gr.G_star = 1e-12;
  gr.G_ref = 1.0;
  gr.relative = 1e-12;
  gr.off_relative = 1e-4;
  gr.on_relative = 0.3;
  gr.direction_residual = 1e-15;
  gr.g_family_engine = g_family;
  return gr;
}

}  // namespace

TEST_CASE("stationary kind: the family search reaches the stationary point from every start, reproducibly") {
  stationary::Settings s;
  s.starts = 4;
  const stationary::Search a = stationary::search_family(quartic, 2, s, 11, 22);
  CHECK(a.converged == 4);
  CHECK(a.start_losses.size() == 4);
  CHECK(std::abs(a.best.theta[0] - 1) < 1e-9);
  CHECK(std::abs(a.best.theta[1] + 2) < 1e-9);
  CHECK(a.best.gradient_norm <= 1e-10);
  const stationary::Search b = stationary::search_family(quartic, 2, s, 11, 22);
  CHECK(b.start_losses == a.start_losses);  // the same stream, the same starts
}

TEST_CASE("stationary kind: each decision confirms only what its numbers show, and nothing refutes") {
  stationary::Settings s;
  s.starts = 2;
  const stationary::Search fs = stationary::search_family(quartic, 2, s, 1, 2);
  const Eigen::VectorXd g0 = Eigen::VectorXd::Zero(2);
  Decision mc_ok{Verdict::confirmed, 0, 0, "within the band"};

  const stationary::Decisions ok = stationary::decide(s, good_point(g0), fs, 2.5, g0);
  CHECK(ok.stationary.verdict == Verdict::confirmed);
  CHECK(ok.control.verdict == Verdict::confirmed);
  CHECK(ok.consistency.verdict == Verdict::confirmed);
  CHECK(ok.search.verdict == Verdict::confirmed);
  CHECK(stationary::case_verdict(ok, mc_ok) == Verdict::confirmed);
  Decision mc_noisy{Verdict::inconclusive, 0, 0, "too noisy"};
  CHECK(stationary::case_verdict(ok, mc_noisy) == Verdict::confirmed);  // too noisy does not block the exact verdict
  Decision mc_against{Verdict::refuted, 0, 0, "contradicts the engine"};
  CHECK(stationary::case_verdict(ok, mc_against) == Verdict::inconclusive);

  stationary::Gradients far = good_point(g0);
  far.relative = 1e-6;  // above the precision 1e-8
  const stationary::Decisions d1 = stationary::decide(s, far, fs, 2.5, g0);
  CHECK(d1.stationary.verdict == Verdict::inconclusive);
  CHECK(stationary::case_verdict(d1, mc_ok) == Verdict::inconclusive);

  stationary::Gradients blind = good_point(g0);
  blind.off_relative = 1e-9;  // a control that sees no gradient: the check could not have failed
  CHECK(stationary::decide(s, blind, fs, 2.5, g0).control.verdict == Verdict::inconclusive);
  blind = good_point(g0);
  blind.on_relative = 1e-9;
  CHECK(stationary::decide(s, blind, fs, 2.5, g0).control.verdict == Verdict::inconclusive);
  s.on_family_control = false;  // without the on-family control only the off-family one counts
  CHECK(stationary::decide(s, blind, fs, 2.5, g0).control.verdict == Verdict::confirmed);
  s.on_family_control = true;

  // The engine against the family objective: the loss, then the family derivative.
  CHECK(stationary::decide(s, good_point(g0), fs, 2.5 * (1 + 1e-6), g0).consistency.verdict == Verdict::inconclusive);
  Eigen::VectorXd g_off(2);
  g_off << 1e-6, 0;
  CHECK(stationary::decide(s, good_point(g0), fs, 2.5, g_off).consistency.verdict == Verdict::inconclusive);

  // A search that did not converge.
  stationary::Search stuck = fs;
  stuck.best.gradient_norm = 1e-3;
  CHECK(stationary::decide(s, good_point(g0), stuck, 2.5, g0).search.verdict == Verdict::inconclusive);
}

TEST_CASE("stationary kind: the case's record and the run's tally") {
  stationary::Settings s;
  s.starts = 3;
  s.reference = "origin";
  const stationary::Search fs = stationary::search_family(quartic, 2, s, 1, 2);
  const Eigen::VectorXd g0 = Eigen::VectorXd::Zero(2);
  const stationary::Gradients gr = good_point(g0);
  const stationary::Decisions ds = stationary::decide(s, gr, fs, 2.5, g0);
  CHECK(ds.stationary.why.find("at the origin") != std::string::npos);
  EqualityOutcome o;
  o.mc_vs_stated = Decision{Verdict::confirmed, 0, 0, "within the band"};
  o.total = Accumulator(3);
  const Verdict v = stationary::case_verdict(ds, o.mc_vs_stated);
  CaseJson j(Case{{{"d", 2.0}}});
  stationary::write_gradients(j, s, gr);
  stationary::write_losses(j, gr, 2.5, o, 0.0);
  stationary::write_verdict(j, v, stationary::evidence(v, "a = 1", ds, o.mc_vs_stated), ds, o, fs);
  const nlohmann::ordered_json out = j.json();
  CHECK(out["verdict"] == "confirmed");
  CHECK(out["quantities"].contains("relative_gradient_norm"));
  CHECK(out["quantities"].contains("loss_mc"));
  CHECK(out["decisions"]["family_start_losses"].size() == 3);
  CHECK(out.contains("search"));
  CHECK(out["evidence"].get<std::string>().rfind("confirmed. Stationary point on the family: a = 1.", 0) == 0);

  stationary::Tally t;
  stationary::Gradients worse = gr;
  worse.relative = 1e-10;
  worse.off_relative = 1e-5;
  t.add("case 1", s, gr);
  t.add("case 2", s, worse);
  CHECK(t.worst_relative == 1e-10);
  CHECK(t.worst_label == "case 2");
  CHECK(t.least_control == 1e-5);
  t.add_variance_reduction(3);
  t.add_variance_reduction(7);
  CHECK(t.vr_min == 3);
  CHECK(t.vr_max == 7);
}

}  // namespace test_stationary_kind
