// The flow-limit kind (lib/icl/claim/kinds/flow_limit.hpp) on its own, with no claim: gradient flow on a quadratic
// with a known minimiser; the limit decision confirms the true limit, refutes a wrong one that an independent exact
// limit contradicts, and says nothing where the flow did not converge; the case verdict needs Monte Carlo to agree.
#include "icl/claim/kinds/flow_limit.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>

#include <string>

namespace test_flow_limit_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

// L(theta) = 1/2 ||A (theta - t*)||^2 + 0.25, global minimum 0.25 at t* = (1, -2, 0.5).
const Eigen::Vector3d kStar(1.0, -2.0, 0.5);
double loss(const Eigen::Ref<const Eigen::VectorXd>& th, Eigen::Ref<Eigen::VectorXd> g) {
  const Eigen::Vector3d a(1.0, 2.0, 0.5);
  const Eigen::VectorXd r = a.cwiseProduct(th - kStar);
  g = a.cwiseProduct(r);
  return 0.5 * r.squaredNorm() + 0.25;
}
double loss_at(const Eigen::VectorXd& th) {
  Eigen::VectorXd g(3);
  return loss(th, g);
}

FlowResult flow(std::size_t max_steps = 2000000) {
  FlowOptions opt;
  opt.t_max = 1e4;
  opt.max_steps = max_steps;
  return gradient_flow(loss, Eigen::VectorXd::Zero(3), opt);
}

flow_limit::Numbers numbers(const FlowResult& f, const Eigen::VectorXd& stated, const Eigen::VectorXd& independent) {
  return flow_limit::numbers(f, f.theta, stated, independent, loss_at(f.theta), loss_at(stated), 0.25);
}

EqualityOutcome mc(Verdict v, Verdict vs_exact) {
  EqualityOutcome o;
  o.verdict.verdict = v;
  o.verdict.why = to_string(v);
  o.verdict.basis = {"mc_vs_stated"};
  o.mc_vs_exact = Decision{};
  o.mc_vs_exact->verdict = vs_exact;
  return o;
}

const flow_limit::Texts kTexts{"converges to it ({d_fs:.1e})", "another limit ({d_fs:.3g} away)", "mixed"};

}  // namespace

TEST_CASE("flow limit: the exact limit decision") {
  const FlowResult f = flow();
  REQUIRE(f.status == FlowStatus::converged);
  const Eigen::VectorXd star = kStar;
  CHECK(flow_limit::limit_decision(numbers(f, star, star), {}).verdict == Verdict::confirmed);
  CHECK(flow_limit::limit_decision(numbers(f, star, star), {}).why.find("independent limit to the stated limit") !=
        std::string::npos);
  CHECK(flow_limit::limit_decision(numbers(f, star, star), {}, "exact solve").why.find("exact solve to the stated") !=
        std::string::npos);
  // A stated limit 10% off, the independent limit the true one: refuted.
  const Eigen::VectorXd wrong = 1.1 * star;
  const flow_limit::Numbers k = numbers(f, wrong, star);
  CHECK(k.d_fs > 1e-3);
  CHECK(k.d_fe < 1e-5);
  CHECK(flow_limit::limit_decision(k, {}).verdict == Verdict::refuted);
  // The flow and the stated limit agree but the independent limit does not: neither.
  CHECK(flow_limit::limit_decision(numbers(f, star, wrong), {}).verdict == Verdict::inconclusive);
  // A flow stopped early decides nothing, whatever its endpoint.
  const FlowResult early = flow(5);
  REQUIRE(early.status != FlowStatus::converged);
  const Decision d = flow_limit::limit_decision(numbers(early, star, star), {});
  CHECK(d.verdict == Verdict::inconclusive);
  CHECK(d.why.find("did not converge") != std::string::npos);
}

TEST_CASE("flow limit: the case verdict needs Monte Carlo to agree") {
  const FlowResult f = flow();
  const Eigen::VectorXd star = kStar, wrong = 1.1 * star;
  const flow_limit::Numbers good = numbers(f, star, star), bad = numbers(f, wrong, star);
  const Decision lg = flow_limit::limit_decision(good, {}), lb = flow_limit::limit_decision(bad, {});
  const Decision v = flow_limit::verdict(good, mc(Verdict::confirmed, Verdict::confirmed), lg, kTexts);
  CHECK(v.verdict == Verdict::confirmed);
  CHECK(v.basis == std::vector<std::string>{"mc_vs_stated", "limit_vs_stated"});
  CHECK(v.why.rfind("converges to it", 0) == 0);
  CHECK(flow_limit::verdict(good, mc(Verdict::inconclusive, Verdict::confirmed), lg, kTexts).verdict == Verdict::inconclusive);
  const Decision r = flow_limit::verdict(bad, mc(Verdict::refuted, Verdict::confirmed), lb, kTexts);
  CHECK(r.verdict == Verdict::refuted);
  CHECK(r.why.rfind("another limit", 0) == 0);
  // Monte Carlo contradicting the exact loss at the endpoint keeps the refutation back.
  CHECK(flow_limit::verdict(bad, mc(Verdict::refuted, Verdict::refuted), lb, kTexts).verdict == Verdict::inconclusive);
}

TEST_CASE("flow limit: the plots follow the trace") {
  const FlowResult f = flow();
  std::vector<PlotSeries> loss_plot, dist_plot;
  flow_limit::add_plot_series(f, 0.25, "quadratic", loss_plot, dist_plot);
  REQUIRE(loss_plot.size() == 1);
  REQUIRE(loss_plot[0].t.size() == f.trace.size());
  CHECK(loss_plot[0].y.back() == doctest::Approx(f.trace.back().loss - 0.25));
  CHECK(loss_plot[0].y.back() < 1e-12);
}

TEST_CASE("flow-limit kind: its table shows the distance to the stated limit, the loss there and Monte Carlo") {
  const ClaimTable t = flow_limit::table("Theorem~1", "A flow", {{"k", "K"}}, {{"k", {{"a", "A"}}}});
  REQUIRE(t.columns.size() == 3);
  CHECK(t.columns[0].quantity == "distance_flow_to_stated");
  CHECK(t.columns[1].quantity == "stated");
  CHECK(t.columns[2].quantity == "mc");
  CHECK(t.where == "Theorem~1");
  CHECK(t.param_headers.at("k") == "K");
  CHECK(t.param_values.at("k").at("a") == "A");
}

TEST_CASE("flow-limit kind: its flow options, the tally of the cases and the report's blocks") {
  const FlowOptions standard = flow_limit::flow_options(false), quick = flow_limit::flow_options(true);
  CHECK(standard.grad_tol == 1e-10);
  CHECK(standard.t_max == 1e7);
  CHECK(standard.max_steps == 1500000);
  CHECK(quick.max_steps == 200000);
  CHECK(quick.trace_t_min == 1e-2);
  CHECK(quick.trace_per_decade == 4);
  // The worst case is the converged one farthest from the stated limit; a tie goes to the later case only if asked.
  const FlowResult f = flow(), early = flow(5);
  const Eigen::VectorXd star = kStar, wrong = 1.1 * star;
  flow_limit::Tally t;
  t.note(numbers(f, wrong, star), "far");
  t.note(numbers(f, star, star), "near");
  t.note(numbers(early, 2 * star, star), "stopped");
  CHECK(t.worst == "far");
  CHECK(t.worst_dist == doctest::Approx(1 / 1.1 * 0.1).epsilon(1e-4));
  t.note(numbers(f, wrong, star), "tie");
  CHECK(t.worst == "far");
  t.note(numbers(f, wrong, star), "tie", true);
  CHECK(t.worst == "tie");
  t.plot(f, numbers(f, star, star), "quadratic");
  REQUIRE(t.loss_plot.size() == 1);
  CHECK(t.dist_plot[0].name == "quadratic");
  ClaimContext ctx;
  ctx.claim_id = "test.flow_limit";
  ctx.alpha = 0.01;
  ctx.cases = {Case{{{"k", 1.0}}}};
  ClaimRun r(ctx);
  r.note_looks(3);
  flow_limit::write_report(r, standard, "outside", nlohmann::ordered_json::array({{{"case", "a"}}}), t);
  const auto& extra = r.result().extra;
  std::vector<std::string> keys;
  for (const auto& [key, value] : extra.items()) keys.push_back(key);
  CHECK(keys == std::vector<std::string>{"error_rates", "tolerances", "outside", "plots", "figures"});
  CHECK(extra["error_rates"]["split"] == "Bonferroni over 1 cases and up to 3 sequential looks per case");
  CHECK(extra["tolerances"]["gradient_norm_to_stop"] == 1e-10);
  CHECK(extra["outside"][0]["case"] == "a");
  CHECK(extra["plots"][0] == "test.flow_limit.loss.svg");
  CHECK(r.result().files.count("loss.svg") == 1);
}

TEST_CASE("flow-limit kind: the summary of the flows outside the condition") {
  using J = nlohmann::ordered_json;
  const J ok = {{"flow", {{"status", "converged"}}}, {"distance_flow_to_stated", 1e-8}};
  const J far = {{"flow", {{"status", "converged"}}}, {"distance_flow_to_stated", 0.2}};
  const J stopped = {{"flow", {{"status", "step_limit"}}}, {"distance_flow_to_stated", 1e-9}};
  const flow_limit::Outside none = flow_limit::outside_summary(J::array());
  CHECK((none.converged && none.within && none.worst == 0));
  const flow_limit::Outside a = flow_limit::outside_summary(J::array({ok, far}));
  CHECK((a.converged && !a.within && a.worst == 0.2));
  const flow_limit::Outside b = flow_limit::outside_summary(J::array({ok, stopped}));
  CHECK((!b.converged && !b.within && b.worst == 1e-8));
}

TEST_CASE("flow-limit kind: its evidence sentences name the limit, and a claim's run around its cases") {
  const flow_limit::Texts t = flow_limit::texts("W^{KQ}_*", "exact limit", "tau and prompts");
  const FlowResult f = flow();
  const Eigen::VectorXd star = kStar, wrong = 1.1 * star;
  const Decision v = flow_limit::verdict(numbers(f, star, star), mc(Verdict::confirmed, Verdict::confirmed),
                                         flow_limit::limit_decision(numbers(f, star, star), {}), t);
  CHECK(v.why.rfind("flow endpoint within ", 0) == 0);
  CHECK(v.why.find(" of W^{KQ}_*, exact limit within ") != std::string::npos);  // braces in the name are literal
  CHECK(v.why.find("; Monte Carlo over tau and prompts: confirmed") != std::string::npos);
  const Decision w = flow_limit::verdict(numbers(f, wrong, star), mc(Verdict::refuted, Verdict::confirmed),
                                         flow_limit::limit_decision(numbers(f, wrong, star), {}), t);
  CHECK(w.verdict == Verdict::refuted);
  CHECK(w.why.find("flow and exact limit lie within") != std::string::npos);

  // Three cases: k = 1 lands on the stated limit, k = 2 and 3 (one curve name, so one curve) 1e-7 (relative) from it.
  const Eigen::VectorXd near = (1 + 1e-7) * star;
  ClaimContext ctx;
  ctx.claim_id = "zfb.thm4";  // a registered claim with one part (ClaimRun::finish reads its parts)
  ctx.alpha = 0.01;
  ctx.quick = true;
  ctx.cases = {Case{{{"k", 1.0}}}, Case{{{"k", 2.0}}}, Case{{{"k", 3.0}}}};
  flow_limit::ClaimSpec s{.limit = "eq. (1)", .condition = "the condition", .outside_key = "outside"};
  std::vector<double> alphas;
  s.run_case = [&](ClaimRun& r, const Case& c, double alpha_case, const FlowOptions& opt) {
    alphas.push_back(alpha_case);
    CHECK(opt.max_steps == 200000);  // the kind's flow at --quick
    const Eigen::VectorXd& stated = c.geti("k") == 1 ? star : near;
    const flow_limit::Numbers k = numbers(f, stated, stated);
    CaseJson j(c);
    j.decision("limit_vs_stated", flow_limit::limit_decision(k, {}));
    j.verdict(Verdict::confirmed, "test", {"limit_vs_stated"});
    r.add_case(j);
    return flow_limit::CaseFlow{k, f, c.geti("k") == 1 ? "near" : "far", "", c.geti("k") * 1e-14, 1e-15};
  };
  s.outside = [](const FlowOptions&) {
    return nlohmann::ordered_json::array({{{"flow", {{"status", "converged"}}}, {"distance_flow_to_stated", 1e-8},
                                           {"sigma_over_bound", 3.0}},
                                          {{"flow", {{"status", "converged"}}}, {"distance_flow_to_stated", 1e-2},
                                           {"sigma_over_bound", 30.0}}});
  };
  s.detail = [] { return std::string("; detail"); };
  const ClaimResult res = flow_limit::run_claim(ctx, s);
  CHECK(alphas == std::vector<double>(3, 0.01 / 3));
  CHECK(res.summary ==
        fmt::format("confirmed: over 3 cases the flow's endpoint lies at most {:.2g} (relative) from eq. (1) (case k=2); "
                    "longest time to converge {:.3g}; largest departure from the reduced form 3.0e-14, balance drift "
                    "1.0e-15; detail. Outside the condition the flow did NOT always converge to eq. (1) (largest "
                    "distance 0.01).",
                    flow_limit::relative_distance(f.theta, near), f.t_end));
  CHECK(res.extra["outside"].size() == 2);
  REQUIRE(res.extra["figures"]["loss"]["series"].size() == 2);  // "near" and the first "far"
  CHECK(res.extra["findings"][0] ==
        "Outside the condition, with sigma up to 30 times its bound, the flow did NOT always converge to eq. (1) (2 "
        "runs, largest distance to eq. (1) 0.01).");
}

}  // namespace test_flow_limit_kind
