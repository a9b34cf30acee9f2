#include "icl/claim/parts.hpp"

#include <fmt/format.h>

#include <set>
#include <stdexcept>

namespace icl {

const char* to_string(Strength s) {
  switch (s) {
    case Strength::theorem: return "theorem";
    case Strength::asymptotic: return "asymptotic";
    case Strength::conditional: return "conditional";
    case Strength::informal: return "informal";
    default: return "empirical";
  }
}

const char* to_string(RefutationClass c) {
  switch (c) {
    case RefutationClass::substantive: return "substantive";
    case RefutationClass::slip: return "slip";
    case RefutationClass::missing_assumption: return "missing-assumption";
    default: return "reading";
  }
}

RefutationClass refutation_class_from_string(const std::string& s) {
  for (auto c : {RefutationClass::substantive, RefutationClass::slip, RefutationClass::missing_assumption,
                 RefutationClass::reading})
    if (s == to_string(c)) return c;
  throw std::invalid_argument("unknown refutation class '" + s + "' (substantive, slip, missing-assumption, reading)");
}

nlohmann::ordered_json Refutation::to_json() const {
  nlohmann::ordered_json j;
  j["class"] = to_string(cls);
  j["explanation"] = explanation;
  j["counterexample"] = counterexample;
  if (!corrected.empty()) j["corrected"] = corrected;
  return j;
}

PartOutcome& PartOutcome::decide(Verdict v, std::string why) {
  verdict = v;
  evidence = std::move(why);
  return *this;
}

PartOutcome& PartOutcome::on_refuted(Refutation r) {
  refutation = std::move(r);
  return *this;
}

namespace {

[[noreturn]] void fail(const std::string& claim, const std::string& what) {
  throw std::logic_error(fmt::format("{}: {}", claim, what));
}

const std::set<std::string> kStrengths = {"theorem", "asymptotic", "conditional", "informal", "empirical"};
const std::set<std::string> kVerdicts = {"confirmed", "refuted", "inconclusive"};

std::string count_text(std::size_t confirmed, std::size_t refuted, std::size_t total) {
  return fmt::format("{} of {} cases confirmed, {} refuted, {} inconclusive", confirmed, total, refuted,
                     total - confirmed - refuted);
}

}  // namespace

JudgedClaim judge_claim(const std::string& claim_id, const std::vector<PartSpec>& declared,
                        const std::map<std::string, PartOutcome>& outcomes, nlohmann::ordered_json& cases) {
  if (declared.empty())
    fail(claim_id, "declares no parts (Claim::parts: what the paper asserts, part by part, with its strength)");
  std::set<std::string> ids;
  for (const auto& p : declared) {
    if (p.id.empty() || p.statement.empty()) fail(claim_id, "a declared part has an empty id or statement");
    if (!ids.insert(p.id).second) fail(claim_id, "part '" + p.id + "' is declared twice");
  }
  for (const auto& [id, o] : outcomes)
    if (!ids.count(id)) fail(claim_id, "an outcome is given for the undeclared part '" + id + "'");
  for (auto& c : cases) {
    if (!c.is_object() || !c.contains("verdict")) fail(claim_id, "a case has no verdict");
    if (!c.contains("part")) {
      if (declared.size() != 1) fail(claim_id, "a case names no part, and the claim has several: CaseJson::part()");
      c["part"] = declared.front().id;
    }
    if (!c["part"].is_string() || !ids.count(c["part"].get<std::string>()))
      fail(claim_id, "a case names the undeclared part " + c["part"].dump());
  }

  JudgedClaim out;
  bool any_refuted = false, all_confirmed = true;
  for (const auto& p : declared) {
    std::size_t n = 0, nc = 0, nr = 0;
    const nlohmann::ordered_json* first_refuted = nullptr;
    for (const auto& c : cases) {
      if (c["part"] != p.id) continue;
      ++n;
      const Verdict v = verdict_from_string(c["verdict"].get<std::string>());
      if (v == Verdict::confirmed) ++nc;
      if (v == Verdict::refuted) {
        ++nr;
        if (!first_refuted) first_refuted = &c;
      }
    }
    const auto it = outcomes.find(p.id);
    const PartOutcome* o = it == outcomes.end() ? nullptr : &it->second;
    Verdict v;
    std::string evidence;
    if (o && o->verdict) {
      v = *o->verdict;
      if (o->evidence.empty()) fail(claim_id, "part '" + p.id + "' is decided without evidence");
      if (v == Verdict::confirmed && nr > 0)
        fail(claim_id, fmt::format("part '{}' is decided confirmed while {} of its cases refute it", p.id, nr));
      evidence = o->evidence;
      if (n > 0) evidence += fmt::format(" ({})", count_text(nc, nr, n));
    } else {
      v = nr > 0 ? Verdict::refuted : (n > 0 && nc == n) ? Verdict::confirmed : Verdict::inconclusive;
      evidence = n == 0 ? "no case of this run judges this part" : count_text(nc, nr, n);
      if (o && !o->evidence.empty()) evidence = o->evidence + " (" + evidence + ")";
    }
    nlohmann::ordered_json j;
    j["id"] = p.id;
    j["statement"] = p.statement;
    j["strength"] = to_string(p.strength);
    j["verdict"] = to_string(v);
    j["evidence"] = evidence;
    j["cases"] = n;
    if (v == Verdict::refuted) {
      if (!o || !o->refutation)
        fail(claim_id, "part '" + p.id + "' is refuted but carries no refutation (class, explanation, counterexample)");
      Refutation r = *o->refutation;
      if (r.explanation.empty()) fail(claim_id, "part '" + p.id + "' is refuted with an empty explanation");
      if (r.counterexample.is_null()) r.counterexample = nlohmann::ordered_json::object();  // `{}` in an initializer
      if (!r.counterexample.is_object()) fail(claim_id, "part '" + p.id + "': the counterexample is not an object");
      if (r.counterexample.empty()) {
        if (!first_refuted)
          fail(claim_id, "part '" + p.id + "' is refuted with no counterexample and no refuted case to take one from");
        r.counterexample = (*first_refuted)["params"];
      }
      j["refutation"] = r.to_json();
      if (out.refutation.is_null()) out.refutation = j["refutation"];
    }
    any_refuted |= v == Verdict::refuted;
    all_confirmed &= v == Verdict::confirmed;
    out.parts.push_back(j);
  }
  out.verdict = any_refuted ? Verdict::refuted : all_confirmed ? Verdict::confirmed : Verdict::inconclusive;
  return out;
}

std::vector<std::string> check_parts_block(const nlohmann::ordered_json& r) {
  std::vector<std::string> bad;
  auto check_refutation = [&](const nlohmann::ordered_json& f, const std::string& where) {
    if (!f.is_object()) return bad.push_back(where + ": refutation is not an object");
    if (!f.contains("class") || !f["class"].is_string()) return bad.push_back(where + ": refutation has no class");
    try {
      refutation_class_from_string(f["class"].get<std::string>());
    } catch (const std::invalid_argument& e) {
      bad.push_back(where + ": " + e.what());
    }
    if (!f.contains("explanation") || !f["explanation"].is_string() || f["explanation"].get<std::string>().empty())
      bad.push_back(where + ": refutation has no explanation");
    if (!f.contains("counterexample") || !f["counterexample"].is_object() || f["counterexample"].empty())
      bad.push_back(where + ": refutation has no counterexample");
    if (f.contains("corrected") && !f["corrected"].is_string()) bad.push_back(where + ": corrected is not a string");
  };
  if (!r.contains("parts") || !r["parts"].is_array() || r["parts"].empty()) {
    bad.push_back("no parts");
    return bad;
  }
  std::set<std::string> ids;
  std::map<std::string, std::string> part_verdict;
  bool any_refuted = false, all_confirmed = true;
  for (const auto& p : r["parts"]) {
    const std::string id = p.value("id", "");
    const std::string where = "part '" + id + "'";
    if (id.empty() || !ids.insert(id).second) bad.push_back(where + ": missing or repeated id");
    if (p.value("statement", "").empty()) bad.push_back(where + ": no statement");
    if (!kStrengths.count(p.value("strength", ""))) bad.push_back(where + ": strength is not one of the five");
    const std::string v = p.value("verdict", "");
    if (!kVerdicts.count(v)) bad.push_back(where + ": no valid verdict");
    if (p.value("evidence", "").empty()) bad.push_back(where + ": no evidence");
    if (v == "refuted") {
      if (!p.contains("refutation")) bad.push_back(where + ": refuted without a refutation");
      else check_refutation(p["refutation"], where);
    } else if (p.contains("refutation")) {
      bad.push_back(where + ": a refutation on a part that is " + v);
    }
    part_verdict[id] = v;
    any_refuted |= v == "refuted";
    all_confirmed &= v == "confirmed";
  }
  const std::string expected = any_refuted ? "refuted" : all_confirmed ? "confirmed" : "inconclusive";
  if (r.value("verdict", "") != expected)
    bad.push_back("claim verdict '" + r.value("verdict", "") + "' is not the one its parts give ('" + expected + "')");
  if (expected == "refuted") {
    if (!r.contains("refutation")) bad.push_back("refuted claim without a refutation");
    else check_refutation(r["refutation"], "claim");
  } else if (r.contains("refutation")) {
    bad.push_back("a refutation on a claim that is " + expected);
  }
  if (r.contains("cases"))
    for (const auto& c : r["cases"]) {
      const std::string part = c.value("part", "");
      if (!ids.count(part)) {
        bad.push_back("a case names no declared part: " + c.value("params", nlohmann::ordered_json()).dump());
        continue;
      }
      if (c.value("verdict", "") == "refuted" && part_verdict[part] == "confirmed")
        bad.push_back("part '" + part + "' is confirmed while a case of it refutes it");
    }
  if (r.contains("findings")) {
    if (!r["findings"].is_array()) bad.push_back("findings is not an array");
    else
      for (const auto& f : r["findings"])
        if (!f.is_string() || f.get<std::string>().empty()) bad.push_back("a finding is not a sentence");
  }
  return bad;
}

}  // namespace icl
