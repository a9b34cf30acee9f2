#include "icl/claim/claim.hpp"

#include "icl/model/rng.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <stdexcept>

namespace icl {

double Case::get(const std::string& name) const {
  for (const auto& [k, v] : params)
    if (k == name) return v;
  throw std::logic_error("case has no parameter '" + name + "'");
}

nlohmann::ordered_json Case::to_json() const {
  nlohmann::ordered_json j = nlohmann::ordered_json::object();
  for (const auto& [k, v] : params) {
    if (v == static_cast<double>(static_cast<long long>(v)))
      j[k] = static_cast<long long>(v);
    else
      j[k] = v;
  }
  return j;
}

std::string Case::label() const {
  std::string s;
  for (const auto& [k, v] : params) s += fmt::format("{}{}={:g}", s.empty() ? "" : ", ", k, v);
  return s;
}

double ClaimContext::setting(const std::string& name) const {
  if (auto it = settings.find(name); it != settings.end()) return it->second;
  if (const Claim* c = find_claim(claim_id))
    for (const auto& p : c->params)
      if (p.name == name && p.budget) {
        const auto& v = quick ? p.quick : p.defaults;
        if (!v.empty()) return v.front();
      }
  throw std::logic_error(claim_id + ": no budget parameter '" + name + "'");
}

std::uint64_t ClaimContext::purpose(const std::string& tag) const {
  return stable_hash((claim_id + "/" + tag).c_str());
}

std::vector<Claim>& claim_registry() {
  static std::vector<Claim> r;
  return r;
}

const char* to_string(Budget b) {
  switch (b) {
    case Budget::quick: return "quick";
    case Budget::standard: return "standard";
    case Budget::paper: return "paper";
  }
  return "?";
}

Budget budget_from_name(const std::string& name) {
  for (Budget b : {Budget::quick, Budget::standard, Budget::paper})
    if (name == to_string(b)) return b;
  throw std::invalid_argument("unknown budget '" + name + "' (quick, standard or paper)");
}

const std::vector<double>& grid(const ParamSpec& p, Budget b) {
  if (b == Budget::quick) return p.quick;
  if (b == Budget::paper && !p.paper.empty()) return p.paper;
  return p.defaults;
}

const Claim* find_claim(const std::string& id) {
  for (const auto& c : claim_registry())
    if (c.id == id) return &c;
  return nullptr;
}

RegisterClaim::RegisterClaim(Claim c) {
  auto& r = claim_registry();
  r.push_back(std::move(c));
  std::sort(r.begin(), r.end(), [](const Claim& a, const Claim& b) { return a.id < b.id; });
}

const std::vector<CatalogueEntry>& claim_catalogue() {
  static const std::vector<CatalogueEntry> c = {
      {"sja.prop1", "LSA stacks cannot beat the best linear predictor (quadratic task)"},
      {"sja.thm2", "App. C bilinear block: loss ((d+2)(d+1)+d)/(2n)"},
      {"sja.fig3", "App. C block at d=4: log-log slope -1, r^2 = 0.97"},
      {"sja.lemma3", "The C(d+2,2) variables v_ij are orthonormal"},
      {"sja.lemma12", "Loss decomposition of a sparse LSA on i.i.d. pairs"},
      {"sja.prop4", "Kernel of projected dimension d~ forces loss >= C(d+2,2) - d~"},
      {"sja.remark1", "Width dbar < C(d+2,2) forces loss >= C(d+2,2) - dbar"},
      {"sja.thm5", "Optimal attention is sparse, ||Gamma* + E[xx^T]^-1||_F bound"},
      {"sja.cor6", "Algorithm 1 gives x -> M v and loss O(1/n)"},
      {"sja.thm7", "2L-layer bilinear Transformer = block-coordinate descent (App. G)"},
      {"sja.cor8", "Deep bilinear stack cycles through all monomials of degree <= p"},
      {"sja.cor9", "Orthonormal features: projected dimension d~ < m forces loss >= m - d~"},
      {"sja.cor10", "Width d+h+1 stack = block-coordinate descent over kernel regression"},
      {"sja.sec42", "Sparse bilinear stacks cannot compose degree > 2; dense can"},
      {"sja.fig1", "Trained bilinear vs linear Transformers on quadratic ICL (Fig. 1)"},
      {"sja.fig2", "Trained dense (11) vs sparse (12) bilinear Transformers on the 10-term cubic (Fig. 2)"},
      {"sja.fig4", "Trained bilinear Transformers by training prompt length (Fig. 4)"},
      {"acds.thm1", "Single-layer global minimiser of LSA for x ~ N(0, Sigma)"},
      {"acds.lemma1", "L-layer sparse LSA = L steps of preconditioned GD"},
      {"acds.thm2", "Two layers: diagonal A_1, A_2 are global minimisers"},
      {"acds.thm3", "inf over A_i = a_i Sigma^-1 of the gradient norm is 0"},
      {"acds.thm4", "Same with P_i = [B_i 0; 0 1], B_i = b_i I"},
      {"acds.exp43", "Sec. 4.3: trained 3-layer form (8) -> loss ~ 0, Sigma^1/2 A_i Sigma^1/2 ~ I"},
      {"acds.exp51", "Sec. 5.1: trained 3-layer form (11) -> B_i ~ I, A_i ~ Sigma^-1, growing ||A_i||"},
      {"acds.figs67", "App. D: trained L-layer LSA at least as good as L-step preconditioned GD"},
      {"zfb.thm4", "Gradient flow converges to the stated W_KQ*, W_PV*"},
      {"zfb.thm5", "Error decomposition of the limit model at test length M"},
      {"zfb.thm8", "Gradient flow limit with random diagonal covariances"},
      {"zfb.shift", "Covariate scaling c gives c^2 x_q^T w; Exp(1) gives (1/3) w^T x_q"},
      {"xlssc.onelayer", "One-layer attention on unstructured prompts predicts 0"},
      {"xlssc.twolayer", "Two-layer look-ahead construction gives y_q approximately"},
      {"xlssc.fig2", "GPT-2-style Transformers with and without the look-ahead mask on unstructured prompts (Figs. 1-2, 4)"},
  };
  return c;
}

Verdict aggregate_verdict(const nlohmann::ordered_json& cases) {
  if (cases.empty()) return Verdict::inconclusive;
  bool all_confirmed = true;
  for (const auto& c : cases) {
    const Verdict v = verdict_from_string(c.at("verdict").get<std::string>());
    if (v == Verdict::refuted) return Verdict::refuted;
    if (v != Verdict::confirmed) all_confirmed = false;
  }
  return all_confirmed ? Verdict::confirmed : Verdict::inconclusive;
}

Verdict claim_verdict(const ClaimContext& ctx, const ClaimResult& res) {
  const Claim* c = find_claim(ctx.claim_id);
  if (!c) throw std::logic_error("claim_verdict: unknown claim " + ctx.claim_id);
  nlohmann::ordered_json cases = res.cases;
  return judge_claim(c->id, c->parts, res.parts, cases).verdict;
}

}  // namespace icl
