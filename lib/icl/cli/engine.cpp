#include "icl/cli/engine.hpp"

#include "icl/claim/param_names.hpp"
#include "icl/cli/output_folder.hpp"
#include "icl/execute/thread_pool.hpp"
#include "icl/report/figures_pdf.hpp"
#include "icl/execute/executor.hpp"
#include "icl/backends/backends.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/execute/ranks.hpp"
#include "icl/learn/checkpoint.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/report/paper.hpp"
#include "icl/execute/progress_line.hpp"
#include "icl/report/provenance.hpp"
#include "icl/verdict/mutation.hpp"
#include "icl/report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <chrono>
#include <csignal>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <set>
#include <stdexcept>
#include <unistd.h>

namespace icl {

void select_backend(const std::string& name) {
  try {
    execute::set_default_backend(execute::backend_from_name(name));
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--backend: ") + e.what());
  }
}

void select_precision(const std::string& name) {
  execute::Precision p;
  try {
    p = execute::precision_from_name(name);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--precision: ") + e.what());
  }
  if (p == execute::Precision::f32 && execute::default_backend() == execute::Backend::cpu)
    throw UsageError("--precision float32 runs on the portable and cuda backends; the cpu backend computes in float64");
  execute::set_default_precision(p);
}

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

// A user's text inside a message: one line, at most a few dozen characters.
std::string shown(const std::string& text) { return printable_line(text, 60); }

// Edit distance, case-insensitive (for did-you-mean: "my.Claim" -> "my.claim").
std::size_t edit_distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> prev(b.size() + 1), cur(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) prev[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    cur[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const bool same = std::tolower(static_cast<unsigned char>(a[i - 1])) == std::tolower(static_cast<unsigned char>(b[j - 1]));
      cur[j] = std::min({prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + (same ? 0 : 1)});
    }
    std::swap(prev, cur);
  }
  return prev[b.size()];
}

}  // namespace

std::string nearest_name(const std::string& word, const std::vector<std::string>& candidates, std::size_t max_edits) {
  std::string best;
  if (word.size() > 64) return best;  // nobody mistypes 64 characters; and the distance is quadratic
  std::size_t dist = max_edits + 1;
  for (const auto& c : candidates) {
    const std::size_t d = edit_distance(word, c);
    if (d < dist) dist = d, best = c;
  }
  return best;
}

namespace {

// "unknown claim ID 'x' (see 'icl-verify list')", with the nearest claim ID when one is within 2 edits.
std::string unknown_claim(const std::string& id) {
  std::vector<std::string> ids;
  for (const auto& c : claim_registry()) ids.push_back(c.id);
  const std::string best = nearest_name(id, ids);
  return best.empty() ? fmt::format("unknown claim ID '{}' (see 'icl-verify list')", shown(id))
                      : fmt::format("unknown claim ID '{}': did you mean '{}'? (see 'icl-verify list')", shown(id), best);
}

double parse_number(const std::string& key, const std::string& text) {
  const auto v = decimal_number(text);
  if (!v) throw UsageError(fmt::format("--set {}: '{}' is not a number", shown(key), shown(text)));
  return *v;
}

}  // namespace

std::optional<double> decimal_number(const std::string& text) {
  // -? (digits [. digits?] | . digits) ([eE] [+-]? digits)?
  std::size_t i = 0;
  const auto digits = [&] {
    const std::size_t start = i;
    while (i < text.size() && text[i] >= '0' && text[i] <= '9') ++i;
    return i - start;
  };
  if (i < text.size() && text[i] == '-') ++i;
  std::size_t mantissa = digits();
  if (i < text.size() && text[i] == '.') {
    ++i;
    mantissa += digits();
  }
  if (mantissa == 0) return std::nullopt;
  if (i < text.size() && (text[i] == 'e' || text[i] == 'E')) {
    ++i;
    if (i < text.size() && (text[i] == '+' || text[i] == '-')) ++i;
    if (digits() == 0) return std::nullopt;
  }
  if (i != text.size()) return std::nullopt;
  double v = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
  if (ec != std::errc() || end != text.data() + text.size() || !std::isfinite(v)) return std::nullopt;
  return v;
}

std::map<std::string, std::vector<double>> parse_sets(const std::vector<std::string>& sets) {
  std::map<std::string, std::vector<double>> r;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size())
      throw UsageError(fmt::format("--set '{}': expected KEY=V1,V2,...", shown(s)));
    const std::string key = s.substr(0, eq);
    if (r.count(key))
      throw UsageError(fmt::format("--set {}: given more than once; list every value in one --set {}=V1,V2,...",
                                   shown(key), shown(key)));
    std::vector<double> values;
    std::size_t start = eq + 1;
    while (true) {
      const auto comma = s.find(',', start);
      const double v = parse_number(key, s.substr(start, comma == std::string::npos ? std::string::npos : comma - start));
      if (std::find(values.begin(), values.end(), v) != values.end())
        throw UsageError(fmt::format("--set {}: value {:g} given twice", shown(key), v));
      values.push_back(v);
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    r[key] = values;
  }
  return r;
}

std::vector<std::string> resolve_value_names(const std::vector<std::string>& sets, const std::vector<std::string>& claim_ids) {
  std::vector<std::string> out;
  for (const auto& s : sets) {
    const auto eq = s.find('=');
    if (eq == std::string::npos || eq == 0 || eq + 1 == s.size()) {
      out.push_back(s);  // parse_sets reports it
      continue;
    }
    const std::string key = s.substr(0, eq);
    std::string resolved = s.substr(0, eq + 1);
    std::size_t start = eq + 1;
    while (true) {
      const auto comma = s.find(',', start);
      const std::string tok = s.substr(start, comma == std::string::npos ? std::string::npos : comma - start);
      // Anything that reads as a number, even one parse_sets refuses ("0x19", " 25", "1e999"), is not a name.
      bool numeric = decimal_number(tok).has_value();
      if (!numeric) try {
          std::size_t pos = 0;
          (void)std::stod(tok, &pos);
          numeric = pos == tok.size();
        } catch (const std::out_of_range&) {
          numeric = true;
        } catch (...) {
        }
      std::string value = tok;
      if (!numeric && !tok.empty()) {
        std::set<double> found;
        std::string valid;
        for (const auto& id : claim_ids)
          for (const auto& [v, n] : param_value_names(id, key)) {
            if (n == tok) found.insert(v);
            if (valid.find(n) == std::string::npos) valid += (valid.empty() ? "" : ", ") + n;
          }
        if (found.size() > 1)
          throw UsageError(fmt::format("--set {}: '{}' means different values for the selected claims; give the number "
                                       "(see 'icl-verify list CLAIM')",
                                       shown(key), shown(tok)));
        if (found.empty() && !valid.empty())
          throw UsageError(fmt::format("--set {}: '{}' is neither a number nor a name (names: {})", shown(key),
                                       shown(tok), shown(valid)));
        if (found.size() == 1) value = fmt::format("{:g}", *found.begin());
      }
      resolved += (start == eq + 1 ? "" : ",") + value;
      if (comma == std::string::npos) break;
      start = comma + 1;
    }
    out.push_back(resolved);
  }
  return out;
}

void check_param_value(const std::string& owner, const ParamSpec& p, double v) {
  if (!std::isfinite(v)) throw UsageError(fmt::format("{}: parameter {} must be a finite number, got {}", owner, p.name, v));
  if (p.integer && v != std::floor(v))
    throw UsageError(fmt::format("{}: parameter {} must be an integer, got {:g}", owner, p.name, v));
  if (v < p.min || v > p.max)
    throw UsageError(fmt::format("{}: parameter {} must be in [{:g}, {:g}], got {:g}", owner, p.name, p.min, p.max, v));
}

std::map<std::string, double> build_settings(const Claim& c, const std::map<std::string, std::vector<double>>& sets,
                                             Budget budget) {
  std::map<std::string, double> out;
  for (const auto& p : c.params) {
    if (!p.budget) continue;
    std::vector<double> values = grid(p, budget);
    if (auto it = sets.find(p.name); it != sets.end()) values = it->second;
    if (values.size() != 1)
      throw UsageError(fmt::format("{}: {} is a budget setting: give one value (--set {}=V)", c.id, p.name, p.name));
    check_param_value(c.id, p, values.front());
    out[p.name] = values.front();
  }
  return out;
}

std::vector<Case> build_cases(const Claim& c, const std::map<std::string, std::vector<double>>& sets, Budget budget) {
  double count = 1;  // the grid's size, before anything is allocated
  for (const auto& p : c.params) {
    if (p.budget) continue;
    const auto it = sets.find(p.name);
    count *= static_cast<double>(it != sets.end() ? it->second.size() : grid(p, budget).size());
  }
  if (count > static_cast<double>(kMaxCasesPerClaim))
    throw UsageError(fmt::format("{}: the grid has {:.4g} cases, more than the {} one run may ask for", c.id, count,
                                 kMaxCasesPerClaim));
  std::vector<Case> cases{Case{}};
  for (const auto& p : c.params) {
    if (p.budget) continue;  // one value for the whole run (build_settings)
    std::vector<double> values = grid(p, budget);
    if (auto it = sets.find(p.name); it != sets.end()) values = it->second;
    for (double v : values) check_param_value(c.id, p, v);
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

// The value of a whole number written in decimal digits ("100000") or in scientific notation ("1e5", "2.5E4",
// "1e+5", "25000e-1": digits, an optional fraction, e or E, an optional sign, exponent digits) when it is exactly
// a whole number in [0, 2^64); nothing otherwise ("1.5", "1e-3", "1e400", "0x10", " 5", "+5", "-1", "1.0").
// CLI11's own reading would take "0x10", " 5" and "+5", and saturate 10^30.
std::optional<std::uint64_t> whole_number(const std::string& text) {
  const auto is_digits = [](const std::string& t) {
    return !t.empty() && std::all_of(t.begin(), t.end(), [](char c) { return c >= '0' && c <= '9'; });
  };
  std::string digits = text;  // the significant digits, then shifted by the exponent
  long long shift = 0;
  const std::size_t e = text.find_first_of("eE");
  if (e != std::string::npos) {
    const std::string mant = text.substr(0, e);
    std::string ex = text.substr(e + 1);
    const std::size_t dot = mant.find('.');
    const std::string whole = mant.substr(0, dot), frac = dot == std::string::npos ? "" : mant.substr(dot + 1);
    if (!is_digits(whole) || (dot != std::string::npos && !is_digits(frac))) return std::nullopt;
    const bool negative = !ex.empty() && ex[0] == '-';
    if (!ex.empty() && (ex[0] == '-' || ex[0] == '+')) ex.erase(0, 1);
    if (!is_digits(ex)) return std::nullopt;
    ex.erase(0, std::min(ex.find_first_not_of('0'), ex.size() - 1));
    if (ex.size() > 6) ex = "999999";  // far beyond 2^64 either way; only an all-zero mantissa survives it
    shift = (negative ? -1 : 1) * std::stoll(ex) - static_cast<long long>(frac.size());
    digits = whole + frac;
  } else if (!is_digits(text)) {
    return std::nullopt;
  }
  digits.erase(0, std::min(digits.find_first_not_of('0'), digits.size()));  // leading zeros
  if (digits.empty()) return std::uint64_t{0};
  if (shift < 0) {  // the last -shift digits must be zeros for a whole number
    const auto drop = static_cast<std::size_t>(-shift);
    if (drop >= digits.size() || digits.find_first_not_of('0', digits.size() - drop) != std::string::npos)
      return std::nullopt;
    digits.resize(digits.size() - drop);
  } else {
    if (static_cast<long long>(digits.size()) + shift > 20) return std::nullopt;  // 2^64 has 20 digits
    digits.append(static_cast<std::size_t>(shift), '0');
  }
  std::uint64_t v = 0;
  for (char ch : digits) {
    const auto digit = static_cast<std::uint64_t>(ch - '0');
    if (v > (UINT64_MAX - digit) / 10) return std::nullopt;
    v = v * 10 + digit;
  }
  return v;
}

namespace {

std::uint64_t parse_whole(const std::string& text, const char* option, std::uint64_t lo, std::uint64_t hi,
                          const std::string& range) {
  const auto v = whole_number(text);
  if (!v || *v < lo || *v > hi)
    throw UsageError(fmt::format("{} '{}': expected a whole number in {}", option, shown(text), range));
  return *v;
}

}  // namespace

std::uint64_t parse_seed(const std::string& text) { return parse_whole(text, "--seed", 0, UINT64_MAX, "[0, 2^64)"); }

std::uint64_t parse_samples(const std::string& text) {
  return parse_whole(text, "--samples", 1, kMaxSamples, fmt::format("[1, {}]", kMaxSamples));
}

int parse_threads(const std::string& text) {
  return static_cast<int>(parse_whole(text, "--threads", 1, kMaxThreads, fmt::format("[1, {}]", kMaxThreads)));
}

int parse_look(const std::string& text) {
  return static_cast<int>(parse_whole(text, "--look", 1, kMaxLooks, fmt::format("[1, {}]", kMaxLooks)));
}

std::string summary_with_looks(const std::string& summary, const RunOptions& o) {
  if (o.look <= 1) return summary;
  const bool stop = !summary.empty() && summary.back() == '.';
  return summary + (stop ? "" : ".") +
         fmt::format(" Look {} at this claim with a new seed (--look): each look is judged alone at alpha {:g}, so "
                     "over the {} looks the chance of any wrong decision is at most {:g} (Bonferroni over looks).",
                     o.look, o.alpha, o.look, std::min(1.0, o.look * o.alpha));
}

nlohmann::ordered_json looks_json(const RunOptions& o) {
  return {{"this_look", o.look},
          {"false_fail_rate_per_look", o.alpha},
          {"false_fail_rate_over_looks", std::min(1.0, o.look * o.alpha)},
          {"rule", "each look a run at a new seed (fresh random streams), judged alone at its own error rates; over "
                   "the looks a wrong decision has probability at most the sum of their rates (Bonferroni)"}};
}

std::vector<std::string> prepare_output_folder(const std::string& dir, const char* option) {
  const auto bad = [&](const std::string& why) {
    return UsageError(fmt::format("{} '{}': {}", option, shown(dir), why));
  };
  if (dir.empty()) throw bad("empty folder name");
  if (dir.find('\0') != std::string::npos) throw bad("NUL in the folder name");
  // The deepest folder that exists must be a folder we may write in; the ones below it are created.
  std::vector<fs::path> missing;
  fs::path probe = fs::path(dir).lexically_normal();
  if (probe.empty()) probe = ".";
  while (true) {
    std::error_code ec;
    const auto st = fs::status(probe, ec);
    if (!ec && fs::exists(st)) {
      if (!fs::is_directory(st)) throw bad(fmt::format("'{}' exists and is not a folder", shown(probe.string())));
      if (::access(probe.c_str(), W_OK | X_OK) != 0)
        throw bad(fmt::format("cannot write in '{}' ({})", shown(probe.string()), std::strerror(errno)));
      break;
    }
    if (ec && ec != std::errc::no_such_file_or_directory) throw bad(ec.message());
    missing.push_back(probe);
    fs::path parent = probe.parent_path();
    if (parent.empty()) parent = ".";
    if (parent == probe) throw bad("no existing folder above it");
    probe = parent;
  }
  // Create, then prove a file can be written; on any failure remove what was created here.
  const fs::path test = fs::path(dir) / fmt::format(".icl-verify-write-test.{}", ::getpid());
  const auto undo = [&] {
    std::error_code ec;
    fs::remove(test, ec);
    for (const auto& m : missing) fs::remove(m, ec);  // deepest first; fails harmlessly where not empty
  };
  try {
    std::error_code ec;
    for (auto it = missing.rbegin(); it != missing.rend(); ++it)
      if (!fs::create_directory(*it, ec) && ec) throw bad(fmt::format("cannot create '{}' ({})", shown(it->string()), ec.message()));
    {
      std::ofstream f(test, std::ios::binary | std::ios::trunc);
      f << "x";
      f.flush();
      if (!f) throw bad(fmt::format("cannot write a file there ({})", std::strerror(errno)));
    }
    fs::remove(test, ec);
  } catch (...) {
    undo();
    throw;
  }
  std::vector<std::string> created;
  for (const auto& m : missing) created.push_back(m.string());  // deepest first
  return created;
}

std::string resolved_path(const std::string& path) {
  std::error_code ec;
  fs::path p = fs::absolute(path.empty() ? fs::path(".") : fs::path(path), ec);
  if (ec) return path;
  const fs::path r = fs::weakly_canonical(p, ec);
  return (ec ? p.lexically_normal() : r).string();
}

bool same_path(const std::string& a, const std::string& b) { return resolved_path(a) == resolved_path(b); }

CreatedFolders::~CreatedFolders() {
  if (kept_) return;
  std::error_code ec;
  for (const auto& f : folders_) fs::remove(f, ec);  // deepest first; fails harmlessly where not empty
}

void CreatedFolders::add(const std::vector<std::string>& folders) {
  folders_.insert(folders_.end(), folders.begin(), folders.end());
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
    if (!c) throw UsageError(unknown_claim(id));
    if (seen.insert(c->id).second) claims.push_back(c);
  }
  if (o.threads < 0 || o.threads > kMaxThreads) throw UsageError(fmt::format("--threads must be in [1, {}]", kMaxThreads));
  if (o.samples && (*o.samples < 1 || static_cast<std::uint64_t>(*o.samples) > kMaxSamples))
    throw UsageError(fmt::format("--samples must be in [1, {}]", kMaxSamples));
  if (!(o.alpha >= kMinAlpha && o.alpha < 1)) throw UsageError(fmt::format("--alpha must be in [{:g}, 1)", kMinAlpha));
  if (o.look < 1 || o.look > kMaxLooks) throw UsageError(fmt::format("--look must be in [1, {}]", kMaxLooks));
  if (o.expect) try {
      verdict_from_string(*o.expect);
    } catch (const std::invalid_argument& e) {
      throw UsageError(fmt::format("--expect '{}': expected confirmed, refuted or inconclusive", shown(*o.expect)));
    }
  std::vector<std::string> ids;
  for (const Claim* c : claims) ids.push_back(c->id);
  const auto sets = parse_sets(resolve_value_names(o.sets, ids));
  for (const auto& [key, values] : sets) {
    bool known = false;
    for (const Claim* c : claims)
      for (const auto& p : c->params) known |= p.name == key;
    if (!known) {
      std::set<std::string> names;  // the keys the selected claims accept, to say which ones are valid
      for (const Claim* c : claims)
        for (const auto& p : c->params) names.insert(p.name);
      std::string valid;
      for (const auto& n : names) valid += (valid.empty() ? "" : ", ") + n;
      throw UsageError(fmt::format("--set {}: no selected claim has a parameter '{}' (valid: {}; see 'icl-verify list "
                                   "CLAIM')",
                                   shown(key), shown(key), shown(valid.empty() ? std::string("none") : valid)));
    }
  }
  const int threads = o.threads > 0 ? o.threads : default_thread_count();
  const Budget budget = run_budget(o);
  const double mem = available_memory_bytes();
  std::vector<PlannedClaim> plan;
  for (const Claim* c : claims) {
    PlannedClaim p{c, {}};
    p.ctx.claim_id = c->id;
    p.ctx.seed = o.seed;
    p.ctx.threads = threads;
    p.ctx.budget = budget;
    p.ctx.quick = budget == Budget::quick;
    p.ctx.samples = o.samples ? static_cast<std::uint64_t>(*o.samples) : c->samples(budget);
    p.ctx.alpha = o.alpha;
    p.ctx.cases = build_cases(*c, sets, budget);
    p.ctx.settings = build_settings(*c, sets, budget);
    for (const auto& k : p.ctx.cases) {
      const double need = (c->memory_bytes ? c->memory_bytes(k, threads) : 0.0) +
                          kEngineBytesPerSample * static_cast<double>(p.ctx.samples);
      if (need > 0.8 * mem)
        throw UsageError(fmt::format("{}: case {} needs about {:.1f} GiB, only {:.1f} GiB available: grid too large for memory",
                                     c->id, k.label(), need / (1 << 30), mem / (1 << 30)));
    }
    plan.push_back(std::move(p));
  }
  return plan;
}

nlohmann::ordered_json run_claim(const PlannedClaim& p, const RunOptions& o, std::map<std::string, std::string>* files) {
  const Claim& c = *p.claim;
  const auto started_at = std::chrono::system_clock::now();
  const auto t0 = std::chrono::steady_clock::now();
  ClaimContext ctx = p.ctx;
  // On a terminal only (nothing in a log or a pipe), once a claim has run 2 s: one line, cut to the terminal's
  // width, cleared (exactly the columns drawn) when the claim ends.
  ProgressLine line;
  ctx.progress = [&](std::size_t done, std::size_t total) {
    const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    if (!line.enabled() || el < 2.0) return;
    line.show(fmt::format("[{}] {}/{} cases, {:.0f} s", c.id, done, total, el));
  };
  const std::uint64_t prompts_before = execute::executor_prompts(execute::default_backend());
  ClaimResult res = c.run(ctx);
  const std::uint64_t executor_prompts = execute::executor_prompts(execute::default_backend()) - prompts_before;
  if (files) *files = res.files;
  line.clear();
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
  r["summary"] = summary_with_looks(res.summary, o);
  if (o.look > 1) r["looks"] = looks_json(o);
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
  r["budget"] = to_string(ctx.budget);
  // standard: the default grid and budget (what reports/latest holds); quick, paper: that budget's own grids and
  // budgets; custom: anything overridden (--set, --samples, --alpha).
  r["run_mode"] = run_mode_of(o);
  r["sample_budget_per_case"] = ctx.samples;
  r["provenance"] = provenance_json(o.command, started_at, executor_prompts);
  for (auto it = res.extra.begin(); it != res.extra.end(); ++it)
    if (it.key() != "findings") r[it.key()] = it.value();
  r["cases"] = res.cases;
  return r;
}

Budget run_budget(const RunOptions& o) {
  if (o.budget.empty()) return o.quick ? Budget::quick : Budget::standard;
  Budget b;
  try {
    b = budget_from_name(o.budget);
  } catch (const std::invalid_argument& e) {
    throw UsageError(std::string("--budget: ") + e.what());
  }
  if (o.quick && b != Budget::quick)
    throw UsageError(fmt::format("--quick is --budget quick: it cannot go with --budget {}", o.budget));
  return b;
}

namespace {
bool nothing_overridden(const RunOptions& o) { return o.sets.empty() && !o.samples && o.alpha == kDefaultAlpha; }
}  // namespace

bool standard_budget(const RunOptions& o) { return run_budget(o) == Budget::standard && nothing_overridden(o); }

namespace {
// Whether the run's --set values only raise counts of independent repetitions (ParamSpec::replications) to at least
// the budget's largest value, for every claim run, with nothing else overridden: more runs are not a reduction.
bool only_more_replications(const RunOptions& o) {
  if (o.samples || o.alpha != kDefaultAlpha || o.sets.empty()) return false;
  const Budget b = run_budget(o);
  std::map<std::string, std::vector<double>> sets;
  try {
    sets = parse_sets(o.sets);
  } catch (const std::exception&) {
    return false;
  }
  for (const auto& id : o.claims) {
    const Claim* c = find_claim(id);
    if (!c) return false;
    for (const auto& [name, values] : sets) {
      const auto p = std::find_if(c->params.begin(), c->params.end(), [&](const ParamSpec& q) { return q.name == name; });
      if (p == c->params.end()) return false;
      for (double v : values)
        if (!more_repetitions(*p, b, v)) return false;
    }
  }
  return true;
}
}  // namespace

std::string run_mode_of(const RunOptions& o) {
  const Budget b = run_budget(o);
  // a quick run stays quick; a run that only adds repetitions keeps its budget's mode
  return b == Budget::quick || nothing_overridden(o) || only_more_replications(o) ? to_string(b) : "custom";
}

std::string default_out_folder(const RunOptions& o, std::size_t claims_run) {
  if (run_budget(o) == Budget::paper) return kPaperFolder;  // the paper budget's reports have a folder of their own
  if (run_budget(o) == Budget::deciding) return kDecidingFolder;  // and so do the deciding budget's
  const bool full = claims_run == claim_registry().size() && standard_budget(o) && o.seed == kDefaultSeed;
  return full ? kLatestFolder : kPartialFolder;
}

namespace {

std::string duration_text(double s) {
  if (s < 120) return fmt::format("{:.0f} s", s);
  if (s < 2 * 3600) return fmt::format("{:.1f} min", s / 60);
  return fmt::format("{:.1f} h", s / 3600);
}

// --estimate: each claim runs with its training replaced by a calibration of the step cost (learn/trainer.hpp:
// everything else really runs); the prediction is that wall time, less the calibration, plus the predicted steps.
int estimate_command(const std::vector<PlannedClaim>& plan, const RunOptions& o) {
  const bool lead = rank_comm().rank == 0;
  const int ranks = rank_comm().size;
  double total = 0, training = 0;
  if (lead)
    std::printf("predicted time on this machine (backend %s, %d thread%s, %d rank%s; budget %s):\n",
                execute::to_string(execute::default_backend()), plan.empty() ? 0 : plan.front().ctx.threads,
                plan.empty() || plan.front().ctx.threads == 1 ? "" : "s", ranks, ranks == 1 ? "" : "s",
                run_mode_of(o).c_str());
  for (const auto& p : plan) {
    ClaimContext ctx = p.ctx;
    ctx.progress = nullptr;
    learn::begin_training_estimate();
    const auto t0 = std::chrono::steady_clock::now();
    (void)p.claim->run(ctx);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const learn::TrainingEstimate e = learn::end_training_estimate();
    const double rest = std::max(0.0, wall - e.calibration_seconds), predicted = rest + e.predicted_seconds;
    total += predicted;
    training += e.predicted_seconds;
    if (!lead) continue;
    if (e.runs == 0)
      std::printf("  %-14s %10s  (no training: run in full)\n", p.claim->id.c_str(), duration_text(predicted).c_str());
    else
      std::printf("  %-14s %10s  (%lld training runs, %lld steps, up to %.3g s per step: %s; the rest, run: %s)\n",
                  p.claim->id.c_str(), duration_text(predicted).c_str(), e.runs, e.steps, e.step_seconds_max,
                  duration_text(e.predicted_seconds).c_str(), duration_text(rest).c_str());
  }
  if (lead)
    std::printf("  %-14s %10s  (%.3g core-hours at %d thread%s x %d rank%s; training %s)\n", "total",
                duration_text(total).c_str(),
                total / 3600 * (plan.empty() ? 1 : plan.front().ctx.threads) * ranks,
                plan.empty() ? 0 : plan.front().ctx.threads, plan.empty() || plan.front().ctx.threads == 1 ? "" : "s",
                ranks, ranks == 1 ? "" : "s", duration_text(training).c_str());
  return 0;
}

}  // namespace

// --checkpoint DIR / --resume DIR (learn/checkpoint.hpp): the folder holds run.json, what the run is (claims,
// settings, seed, budget, where it writes: the output folder as given, compared by resolved path, so that `--out r`
// and `--out $PWD/r` are one run, and a folder saved with a relative --out goes on in another checkout or on another
// machine: bench/gpu/'s state travels between GPU machines), and the training states. The same run goes on from its saved state; another run is refused (one
// line, exit 2), as is --resume on a folder without a run, and a folder holding a checkpoint file that fails its
// check (learn/checkpoint.hpp: every file is checked before the run starts, so it never half-resumes).
namespace {

nlohmann::ordered_json checkpoint_manifest(const std::vector<PlannedClaim>& plan, const RunOptions& o) {
  nlohmann::ordered_json run;
  for (const auto& p : plan) run["claims"].push_back(p.claim->id);
  run["sets"] = o.sets;
  run["samples"] = o.samples ? nlohmann::ordered_json(*o.samples) : nlohmann::ordered_json(nullptr);
  run["seed"] = o.seed;
  run["budget"] = to_string(run_budget(o));
  run["alpha"] = o.alpha;
  if (o.look > 1) run["look"] = o.look;  // absent at the first look, as in the manifests written before --look
  run["out"] = *o.out;
  return run;
}

// Whether DIR holds a run; throws UsageError when it holds another one (or an unreadable run.json), or none under
// --resume. `out_default`: the folder an older run.json's "" (no --out) stands for.
bool check_manifest(const std::string& dir, const nlohmann::ordered_json& run, const RunOptions& o,
                    const std::string& out_default) {
  const char* option = o.resume ? "--resume" : "--checkpoint";
  const fs::path manifest = fs::path(dir) / "run.json";
  std::error_code ec;
  if (!fs::is_regular_file(manifest, ec)) {
    if (o.resume)
      throw UsageError(fmt::format("--resume '{}': no run to resume there (no run.json); start one with --checkpoint",
                                   shown(dir)));
    return false;
  }
  nlohmann::ordered_json held;
  try {
    held = nlohmann::ordered_json::parse(read_file(manifest.string()));
  } catch (const std::exception&) {
    throw UsageError(fmt::format("{} '{}': its run.json is not readable", option, shown(dir)));
  }
  // The output folders compared by resolved path (an older icl-verify wrote "" for no --out).
  nlohmann::ordered_json same = held, want = run;
  if (same.is_object() && same.contains("out") && same["out"].is_string()) {
    const std::string h = same["out"].get<std::string>();
    same["out"] = resolved_path(h.empty() ? out_default : h);
  }
  want["out"] = resolved_path(run["out"].get<std::string>());
  if (same != want)
    throw UsageError(fmt::format("{} '{}' holds the state of another run ({}); give the same command, or another "
                                 "folder",
                                 option, shown(dir), printable_line(held.dump(), 160)));
  return true;
}

// Runs `f` on rank 0 (the one that writes); under MPI every rank learns whether it failed and fails too, so that no
// rank goes on alone. Rank 0 rethrows its own error; the others throw UsageError(`others`).
template <class F>
void on_lead(F&& f, const std::string& others) {
  std::exception_ptr error;
  std::uint64_t failed = 0;
  if (rank_comm().rank == 0) try {
      f();
    } catch (...) {
      error = std::current_exception();
      failed = 1;
    }
  if (rank_comm().size > 1 && rank_comm().or_all) rank_comm().or_all(&failed, 1);
  if (error) std::rethrow_exception(error);
  if (failed) throw UsageError(others);
}

}  // namespace

int run_command(const RunOptions& options) {
  const auto plan = plan_run(options);  // all validation before anything is written
  if (options.estimate && !options.checkpoint) return estimate_command(plan, options);
  if (options.estimate) throw UsageError("--estimate writes nothing: it cannot go with --checkpoint or --resume");
  if (options.checkpoint && !(options.checkpoint_every > 0))
    throw UsageError("--checkpoint-every: expected a number of seconds > 0");
  RunOptions o = options;
  const std::string out_default = default_out_folder(o, plan.size());
  if (!o.out) o.out = out_default;
  const std::string& out = *o.out;
  std::optional<Verdict> expect;
  if (o.expect) expect = verdict_from_string(*o.expect);
  // A quick or custom run never replaces a standard report (the default grid and budget, e.g. reports/latest).
  if (!standard_budget(o))
    for (const auto& p : plan) {
      const fs::path existing = fs::path(out) / (p.claim->id + ".json");
      std::error_code ec;
      if (!fs::is_regular_file(existing, ec)) continue;
      bool holds_standard = false;
      try {
        const auto j = nlohmann::ordered_json::parse(read_file(existing.string()));
        holds_standard = j.is_object() && j.value("schema", "") == "icl-verify/report/v1" && run_mode(j) == "standard";
      } catch (const std::exception&) {  // unreadable or not a report: nothing standard to protect
      }
      if (holds_standard)
        throw UsageError(fmt::format("--out '{}' holds the standard report of {}; a {} run would replace it: write it "
                                     "to another folder (--out DIR)",
                                     shown(out), p.claim->id, run_mode_of(o)));
    }
  nlohmann::ordered_json manifest;
  if (o.checkpoint) {
    manifest = checkpoint_manifest(plan, o);
    check_manifest(*o.checkpoint, manifest, o, out_default);  // read only: nothing is made for a refused run
  }

  // From here on the run writes. Its folders are made (and removed again, where empty, if it ends before its
  // reports are in), held (one run per folder: output_folder.hpp), and only then is anything in them used.
  const bool lead = rank_comm().rank == 0;
  CreatedFolders created;
  created.add(prepare_output_folder(out, "--out"));
  std::optional<FolderLock> out_lock, ck_lock;
  on_lead([&] { out_lock.emplace(out, "--out"); },
          fmt::format("--out '{}' is in use by another icl-verify run", shown(out)));
  if (o.checkpoint) {
    const std::string& dir = *o.checkpoint;
    const char* option = o.resume ? "--resume" : "--checkpoint";
    created.add(prepare_output_folder(dir, option));
    if (!same_path(dir, out))
      on_lead([&] { ck_lock.emplace(dir, option); },
              fmt::format("{} '{}' is in use by another icl-verify run", option, shown(dir)));
    const bool held = check_manifest(dir, manifest, o, out_default);  // again, now that the folder is held
    try {
      learn::verify_checkpoint_folder(dir);
    } catch (const learn::CheckpointError& e) {
      throw UsageError(fmt::format("{} '{}': {}", option, shown(dir), e.what()));
    }
    if (!held && lead) write_file_atomic((fs::path(dir) / "run.json").string(), manifest.dump(2) + "\n");
    learn::set_checkpoints({dir, o.checkpoint_every});
    // SIGTERM, Ctrl-C and SIGUSR1 stop the run at the next training step with its state saved (exit status 4).
    // SIGUSR1 is the one Open MPI's mpirun forwards to the ranks and then exits with their status (4); on SIGTERM it
    // aborts the job itself (its exit status 1) after the ranks have saved their state (docs/budgets.md).
    for (int sig : {SIGTERM, SIGINT, SIGUSR1}) std::signal(sig, [](int) { learn::stop_requested().store(true); });
  }

  // Every report file of the run is written aside and moved in when all are written (output_folder.hpp).
  std::optional<StagedFiles> staged;  // rank 0 writes
  if (lead) staged.emplace(out);
  std::vector<std::string> expectation_failed;  // "claim got verdict" for each claim whose verdict differs
  // Under mpirun every rank runs every claim on the same numbers (execute/ranks.hpp); rank 0 writes.
  for (const auto& p : plan) {
    std::map<std::string, std::string> files;
    nlohmann::ordered_json r;
    try {
      r = run_claim(p, o, &files);
    } catch (const execute::Unsupported& e) {  // a network or prompts the backend does not run
      throw UsageError(fmt::format("--backend {}: {}: {}; run it with --backend cpu",
                                   execute::to_string(execute::default_backend()), p.claim->id, e.what()));
    }
    if (!lead) continue;
    staged->add(p.claim->id + ".json", r.dump(2) + "\n");
    for (const auto& [suffix, content] : files) staged->add(p.claim->id + "." + suffix, content);
    staged->add(p.claim->id + ".tex", latex_table(r));
    if (needs_cases_appendix(r)) staged->add(p.claim->id + ".cases.tex", latex_cases_longtable(r));
    const std::string v = r["verdict"];
    // The verdict has its column: the summary goes on after its own opening verdict.
    if (!o.quiet)
      std::printf("%-14s %-12s %6.1f s  %s\n", p.claim->id.c_str(), v.c_str(), r["elapsed_s"].get<double>(),
                  summary_after_verdict(r["summary"].get<std::string>(), v).c_str());
    std::fflush(stdout);
    if (expect && v != to_string(*expect)) expectation_failed.push_back(p.claim->id + " got " + v);
  }
  if (!lead) {
    created.keep();
    return 0;
  }
  // summary.md, all.tex, ...: of the reports already in the folder and this run's, rendered and staged too.
  std::vector<std::string> reports;
  std::set<std::string> fresh(staged->names().begin(), staged->names().end());
  for (const auto& f : report_json_files(out))
    if (!fresh.count(fs::path(f).filename().string())) reports.push_back(f);
  for (const auto& name : staged->names())
    if (fs::path(name).extension() == ".json") reports.push_back(staged->staged_path(name));
  std::vector<std::string> skipped;
  for (const auto& [name, content] : render_report_folder(reports, &skipped, nullptr, out)) staged->add(name, content);
  // The PDF figures of this run's claims (matplotlib, through python3): beside their SVGs, moved in with the rest.
  std::vector<std::string> fresh_json;
  for (const auto& name : staged->names())
    if (fs::path(name).extension() == ".json") fresh_json.push_back(staged->staged_path(name));
  const PdfFigures pdfs = pdf_figures(fresh_json);
  for (const auto& [name, content] : pdfs.files) staged->add(name, content);
  if (execute::cancel_requested()) throw execute::Cancelled();  // stopped (Ctrl-C): nothing is moved in
  staged->commit();
  created.keep();
  for (const auto& f : skipped)
    std::fprintf(stderr, "icl-verify: note: %s is not an icl-verify report; left out of summary.md\n", shown(f).c_str());
  if (!pdfs.note.empty()) std::fprintf(stderr, "icl-verify: note: %s\n", pdfs.note.c_str());
  if (!o.quiet)
    std::printf("reports written to %s (summary.md, <claim>.json, <claim>.tex%s)\n", out.c_str(),
                pdfs.files.empty() ? "" : ", figures as PDF and SVG");
  if (!expectation_failed.empty()) {
    std::string which;
    for (const auto& w : expectation_failed) which += (which.empty() ? "" : ", ") + w;
    // One line: which claims, what was expected, what each got.
    std::fprintf(stderr, "icl-verify: --expect did not hold for %zu of %zu claim%s: expected %s, but %s\n",
                 expectation_failed.size(), plan.size(), plan.size() == 1 ? "" : "s", o.expect->c_str(), which.c_str());
    return 1;
  }
  return 0;
}

int report_command(const std::string& dir) {
  std::error_code ec;
  if (!fs::is_directory(dir, ec))
    throw UsageError(fmt::format("report: '{}' is not a folder{}", shown(dir), ec ? " (" + ec.message() + ")" : ""));
  int found = 0;
  try {
    found = rebuild_reports(dir, nullptr, /*dry_run=*/true);
  } catch (const fs::filesystem_error& e) {
    throw UsageError(fmt::format("report: cannot read '{}' ({})", shown(dir), e.code().message()));
  }
  if (found == 0) throw UsageError(fmt::format("report: no icl-verify JSON reports in '{}'", shown(dir)));
  prepare_output_folder(dir, "report --from");
  const FolderLock lock(dir, "report --from");
  std::vector<std::string> skipped;
  int n = 0;
  StagedFiles staged(dir);  // every file rewritten, or none
  const auto json_files = report_json_files(dir);
  for (const auto& [name, content] : render_report_folder(json_files, &skipped, &n, dir)) staged.add(name, content);
  const PdfFigures pdfs = pdf_figures(json_files);
  for (const auto& [name, content] : pdfs.files) staged.add(name, content);
  if (execute::cancel_requested()) throw execute::Cancelled();  // stopped (Ctrl-C): nothing is moved in
  staged.commit();
  for (const auto& f : skipped)
    std::fprintf(stderr, "icl-verify: note: %s is not an icl-verify report; left out\n", shown(f).c_str());
  if (!pdfs.note.empty()) std::fprintf(stderr, "icl-verify: note: %s\n", pdfs.note.c_str());
  std::printf("rebuilt %s: summary.md, %d LaTeX tables with all.tex, preview.tex and icl-verify.bib, and the "
              "figures whose data the reports hold (SVG%s)\n",
              dir.c_str(), n, pdfs.files.empty() ? "" : " and PDF");
  return 0;
}

int list_mutation_sites() {
  for (const auto& m : mutation_sites())
    fmt::print("{}\t{}\t{}\t{}\n", m.id, m.claims, m.matrix ? "scale,shrink,sign,transpose" : "scale,shrink,sign", m.note);
  return 0;
}

int list_command(const std::vector<std::string>& ids) {
  if (ids.empty()) {
    std::string prefix;
    bool first = true;
    for (const auto& id : listed_claim_ids()) {
      const std::string pre = id.substr(0, id.find('.'));
      if (pre != prefix) {
        prefix = pre;
        const PaperRef* p = paper_of(id);
        std::printf("%s%s: %s\n", first ? "" : "\n", pre.c_str(), p ? paper_citation(*p).c_str() : "");
        first = false;
      }
      std::printf("%-14s %s\n", id.c_str(), find_claim(id)->title.c_str());
    }
    return 0;
  }
  // Validate every ID before printing anything (bad input: one line, exit 2, nothing on stdout).
  std::vector<const Claim*> claims;
  for (const auto& id : ids) {
    const Claim* c = find_claim(id);
    if (!c) throw UsageError(unknown_claim(id));
    claims.push_back(c);
  }
  const auto joined = [](const std::vector<double>& v) {
    std::string g;
    for (double x : v) g += fmt::format("{}{:g}", g.empty() ? "" : ",", x);
    return g;
  };
  for (const Claim* c : claims) {
    const PaperRef* paper = paper_of(c->id);
    std::string out = fmt::format("{}: {}\n  paper: {}\n  source: {}\n  statement: {}\n  parameters (--set KEY=V1,V2,...):\n",
                                  c->id, c->title, paper ? paper_citation(*paper) : std::string("-"), c->source,
                                  c->statement);
    for (const auto& p : c->params) {
      // The deciding values where the claim declares a deciding budget (else it runs the standard values: said below).
      const std::string deciding =
          c->has_deciding() ? fmt::format("; --budget deciding {}", joined(grid(p, Budget::deciding))) : std::string();
      out += fmt::format("    {:<10} {} in [{:g}, {:g}]; default {}; --quick {}{}; --budget paper {}{}. {}\n",
                         p.name, p.integer ? "integer" : "number", p.min, p.max, joined(p.defaults), joined(p.quick),
                         deciding, joined(grid(p, Budget::paper)),
                         p.budget ? "; a budget setting (one value for the whole run, names no case)" : "", p.help);
      const auto& names = param_value_names(c->id, p.name);
      if (!names.empty()) {
        std::string n;
        for (const auto& [v, name] : names) n += fmt::format("{}{}={:g}", n.empty() ? "" : ", ", name, v);
        out += fmt::format("    {:<10} names (--set {}=NAME): {}\n", "", p.name, n);
      }
    }
    out += fmt::format("  Monte Carlo budget per case: {} prompts (--quick {}{}; --budget paper {}; --samples N overrides)\n",
                       c->default_samples, c->quick_samples,
                       c->has_deciding() ? fmt::format("; --budget deciding {}", c->samples(Budget::deciding)) : "",
                       c->samples(Budget::paper));
    out += c->has_deciding()
               ? "  deciding budget (--budget deciding): the values above; every model setting the paper states, with "
                 "reduced steps, batch and trials (docs/budgets.md)\n"
               : "  deciding budget (--budget deciding): none declared; it runs the standard values\n";
    out += "  parts of the statement:\n";
    for (const auto& part : c->parts)
      out += fmt::format("    ({}, {}) {}\n", part.id, to_string(part.strength), part.statement);
    std::fputs(out.c_str(), stdout);
  }
  return 0;
}

}  // namespace icl
