#include "icl/cli/engine.hpp"

#include "icl/montecarlo/montecarlo.hpp"
#include "icl/report/report.hpp"

#include <fmt/format.h>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <unistd.h>

namespace icl {

namespace fs = std::filesystem;

double available_memory_bytes() {
  std::ifstream f("/proc/meminfo");
  std::string key;
  double kb = 0;
  std::string unit;
  while (f >> key >> kb >> unit)
    if (key == "MemAvailable:") return kb * 1024.0;
  return 8.0 * 1024 * 1024 * 1024;
}

namespace {

double parse_number(const std::string& key, const std::string& text) {
  std::size_t pos = 0;
  double v = 0;
  try {
    v = std::stod(text, &pos);
  } catch (...) {
    pos = 0;
  }
  if (text.empty() || pos != text.size() || !std::isfinite(v))
    throw UsageError(fmt::format("--set {}: '{}' is not a number", key, text));
  return v;
}

}  // namespace

std::map<std::string, std::vector<double>> parse_sets(const std::vector<std::string>& sets) {
  std::map<std::string, std::vector<double>> r;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw UsageError(fmt::format("--set '{}': expected KEY=V1,V2,...", s));
    const std::string key = s.substr(0, eq);
    std::vector<double> values;
    std::size_t start = eq + 1;
    while (true) {
      const auto comma = s.find(',', start);
      values.push_back(parse_number(key, s.substr(start, comma == std::string::npos ? std::string::npos : comma - start)));
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    r[key] = values;
  }
  return r;
}

std::vector<Case> build_cases(const Claim& c, const std::map<std::string, std::vector<double>>& sets, bool quick) {
  std::vector<Case> cases{Case{}};
  for (const auto& p : c.params) {
    std::vector<double> values = quick ? p.quick : p.defaults;
    if (auto it = sets.find(p.name); it != sets.end()) values = it->second;
    for (double v : values) {
      if (p.integer && v != std::floor(v))
        throw UsageError(fmt::format("{}: parameter {} must be an integer, got {:g}", c.id, p.name, v));
      if (v < p.min || v > p.max)
        throw UsageError(fmt::format("{}: parameter {} must be in [{:g}, {:g}], got {:g}", c.id, p.name, p.min, p.max, v));
    }
    std::vector<Case> next;
    for (const auto& base : cases)
      for (double v : values) {
        Case k = base;
        k.params.emplace_back(p.name, v);
        next.push_back(k);
      }
    cases = std::move(next);
  }
  return cases;
}

std::vector<PlannedClaim> plan_run(const RunOptions& o) {
  if (o.claims.empty()) throw UsageError("run: name at least one claim ID, or 'all' (see 'icl-verify list')");
  std::vector<const Claim*> claims;
  std::set<std::string> seen;
  for (const auto& id : o.claims) {
    if (id == "all") {
      for (const auto& c : claim_registry())
        if (seen.insert(c.id).second) claims.push_back(&c);
      continue;
    }
    const Claim* c = find_claim(id);
    if (!c) {
      for (const auto& e : claim_catalogue())
        if (id == e.id) throw UsageError(fmt::format("claim '{}' is catalogued but not implemented yet", id));
      throw UsageError(fmt::format("unknown claim ID '{}' (see 'icl-verify list')", id));
    }
    if (seen.insert(c->id).second) claims.push_back(c);
  }
  if (o.threads < 0) throw UsageError("--threads must be >= 1");
  if (o.samples && *o.samples < 1) throw UsageError("--samples must be >= 1");
  if (!(o.alpha > 0 && o.alpha < 1)) throw UsageError("--alpha must be in (0, 1)");
  if (o.expect) try {
      verdict_from_string(*o.expect);
    } catch (const std::invalid_argument& e) {
      throw UsageError(std::string("--expect: ") + e.what());
    }
  const auto sets = parse_sets(o.sets);
  for (const auto& [key, values] : sets) {
    bool known = false;
    for (const Claim* c : claims)
      for (const auto& p : c->params) known |= p.name == key;
    if (!known) throw UsageError(fmt::format("--set {}: no selected claim has a parameter '{}'", key, key));
  }
  const int threads = o.threads > 0 ? o.threads : default_thread_count();
  const double mem = available_memory_bytes();
  std::vector<PlannedClaim> plan;
  for (const Claim* c : claims) {
    PlannedClaim p{c, {}};
    p.ctx.claim_id = c->id;
    p.ctx.seed = o.seed;
    p.ctx.threads = threads;
    p.ctx.quick = o.quick;
    p.ctx.samples = o.samples ? static_cast<std::uint64_t>(*o.samples) : (o.quick ? c->quick_samples : c->default_samples);
    p.ctx.alpha = o.alpha;
    p.ctx.cases = build_cases(*c, sets, o.quick);
    for (const auto& k : p.ctx.cases) {
      const double need = c->memory_bytes ? c->memory_bytes(k, threads) : 0.0;
      if (need > 0.8 * mem)
        throw UsageError(fmt::format("{}: case {} needs about {:.1f} GiB, only {:.1f} GiB available: grid too large for memory",
                                     c->id, k.label(), need / (1 << 30), mem / (1 << 30)));
    }
    plan.push_back(std::move(p));
  }
  return plan;
}

nlohmann::ordered_json run_claim(const PlannedClaim& p, const RunOptions&, std::map<std::string, std::string>* files) {
  const Claim& c = *p.claim;
  const auto t0 = std::chrono::steady_clock::now();
  ClaimContext ctx = p.ctx;
  const bool tty = ::isatty(2);
  bool printed = false;
  ctx.progress = [&](std::size_t done, std::size_t total) {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!tty || el < 2.0) return;
    std::fprintf(stderr, "\r[%s] %zu/%zu cases, %.0f s   ", c.id.c_str(), done, total, el);
    std::fflush(stderr);
    printed = true;
  };
  ClaimResult res = c.run(ctx);
  if (files) *files = res.files;
  if (printed) std::fprintf(stderr, "\r%60s\r", "");
  const double elapsed = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  nlohmann::ordered_json r;
  r["schema"] = "icl-verify/report/v1";
  r["claim"] = c.id;
  r["title"] = c.title;
  r["source"] = c.source;
  r["statement"] = c.statement;
  // The claim's verdict from its parts (parts.hpp); throws std::logic_error (exit 3) on an invalid parts block.
  const JudgedClaim judged = judge_claim(c.id, c.parts, res.parts, res.cases);
  r["verdict"] = to_string(judged.verdict);
  r["summary"] = res.summary;
  if (judged.verdict == Verdict::refuted) r["refutation"] = judged.refutation;
  r["parts"] = judged.parts;
  if (res.extra.contains("findings")) {
    const auto& f = res.extra["findings"];
    if (!f.is_array()) throw std::logic_error(c.id + ": findings is not an array of sentences");
    for (const auto& s : f)
      if (!s.is_string()) throw std::logic_error(c.id + ": a finding is not a sentence");
    r["findings"] = f;
  }
  r["seed"] = ctx.seed;
  r["threads"] = ctx.threads;
  r["elapsed_s"] = std::round(elapsed * 100) / 100;
  r["quick"] = ctx.quick;
  r["sample_budget_per_case"] = ctx.samples;
  for (auto it = res.extra.begin(); it != res.extra.end(); ++it)
    if (it.key() != "findings") r[it.key()] = it.value();
  r["cases"] = res.cases;
  return r;
}

int run_command(const RunOptions& o) {
  const auto plan = plan_run(o);  // all validation before anything is written
  std::optional<Verdict> expect;
  if (o.expect) expect = verdict_from_string(*o.expect);
  fs::create_directories(o.out);
  bool expectation_failed = false;
  for (const auto& p : plan) {
    std::map<std::string, std::string> files;
    auto r = run_claim(p, o, &files);
    write_file_atomic(o.out + "/" + p.claim->id + ".json", r.dump(2) + "\n");
    for (const auto& [suffix, content] : files) write_file_atomic(o.out + "/" + p.claim->id + "." + suffix, content);
    write_file_atomic(o.out + "/" + p.claim->id + ".tex", latex_table(r));
    const std::string v = r["verdict"];
    std::printf("%-14s %-12s %6.1f s  %s\n", p.claim->id.c_str(), v.c_str(), r["elapsed_s"].get<double>(),
                r["summary"].get<std::string>().c_str());
    std::fflush(stdout);
    if (expect && v != to_string(*expect)) expectation_failed = true;
  }
  rebuild_reports(o.out);
  std::printf("reports written to %s (summary.md, <claim>.json, <claim>.tex)\n", o.out.c_str());
  if (expectation_failed) {
    std::fprintf(stderr, "icl-verify: --expect %s did not hold for every claim\n", o.expect->c_str());
    return 1;
  }
  return 0;
}

int report_command(const std::string& dir) {
  if (!fs::is_directory(dir)) throw UsageError(fmt::format("report: '{}' is not a folder", dir));
  const int n = rebuild_reports(dir);
  if (n == 0) throw UsageError(fmt::format("report: no icl-verify JSON reports in '{}'", dir));
  std::printf("rebuilt %s/summary.md and %d LaTeX tables\n", dir.c_str(), n);
  return 0;
}

int list_command() {
  for (const auto& e : claim_catalogue()) {
    const bool implemented = find_claim(e.id) != nullptr;
    std::printf("%-14s %s%s\n", e.id, e.title, implemented ? "" : "  [not implemented yet]");
  }
  return 0;
}

}  // namespace icl
