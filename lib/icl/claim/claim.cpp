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
        const auto& v = grid(p, budget);  // the run's budget's value (quick, standard, deciding or paper)
        if (!v.empty()) return v.front();
      }
  throw std::logic_error(claim_id + ": no budget parameter '" + name + "'");
}

bool ClaimContext::at_paper(const Case& c) const {
  const Claim* claim = find_claim(claim_id);
  if (!claim) return false;
  const auto among = [](const std::vector<double>& values, double v) {
    return std::find(values.begin(), values.end(), v) != values.end();
  };
  for (const auto& p : claim->params) {
    const double v = p.budget ? setting(p.name) : c.get(p.name);
    if (!more_repetitions(p, Budget::paper, v) && !among(grid(p, Budget::paper), v)) return false;
  }
  return true;
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
    case Budget::deciding: return "deciding";
    case Budget::paper: return "paper";
  }
  return "?";
}

Budget budget_from_name(const std::string& name) {
  for (Budget b : {Budget::quick, Budget::standard, Budget::deciding, Budget::paper})
    if (name == to_string(b)) return b;
  throw std::invalid_argument("unknown budget '" + name + "' (quick, standard, deciding or paper)");
}

const std::vector<double>& grid(const ParamSpec& p, Budget b) {
  if (b == Budget::quick) return p.quick;
  if (b == Budget::paper && !p.paper.empty()) return p.paper;
  if (b == Budget::deciding && !p.deciding.empty()) return p.deciding;
  return p.defaults;
}

bool more_repetitions(const ParamSpec& p, Budget b, double v) {
  const auto& g = grid(p, b);
  return p.replications && !g.empty() && v >= *std::max_element(g.begin(), g.end());
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

namespace {

std::vector<Claim>& unlisted_claims() {
  static std::vector<Claim> r;
  return r;
}

}  // namespace

RegisterUnlistedClaim::RegisterUnlistedClaim(Claim c) { unlisted_claims().push_back(std::move(c)); }

const Claim* find_report_claim(const std::string& id) {
  if (const Claim* c = find_claim(id)) return c;
  for (const auto& c : unlisted_claims())
    if (c.id == id) return &c;
  return nullptr;
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
