#include "icl/report/report.hpp"

#include "icl/claim/param_names.hpp"
#include "icl/report/paper.hpp"
#include "icl/claim/table.hpp"
#include "icl/io/svg_plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>
#include <unistd.h>

namespace icl {

namespace fs = std::filesystem;

void write_file_atomic(const std::string& path, const std::string& content) {
  const std::string tmp = fmt::format("{}.tmp.{}", path, ::getpid());
  {
    std::ofstream f(tmp, std::ios::binary | std::ios::trunc);
    if (!f) throw std::runtime_error("cannot write " + tmp);
    f << content;
    f.flush();
    if (!f) {
      std::remove(tmp.c_str());
      throw std::runtime_error("cannot write " + tmp);
    }
  }
  std::error_code ec;
  fs::rename(tmp, path, ec);
  if (ec) {
    std::remove(tmp.c_str());
    throw std::runtime_error("cannot rename " + tmp + " to " + path + ": " + ec.message());
  }
}

std::string read_file(const std::string& path) {
  std::ifstream f(path, std::ios::binary);
  if (!f) throw std::runtime_error("cannot read " + path);
  std::ostringstream s;
  s << f.rdbuf();
  return s.str();
}

std::string format_number(double v) {
  if (v == 0) return "0";
  if (!std::isfinite(v)) return v > 0 ? "inf" : (v < 0 ? "-inf" : "nan");
  const double a = std::abs(v);
  if (a >= 1e-3 && a < 1e5) return fmt::format("{:.4g}", v);
  return fmt::format("{:.3e}", v);
}

namespace {

std::string latex_escape(const std::string& s) {
  std::string r;
  for (std::size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    // A spaced tilde in prose is a law ("x ~ N(0, I)"): set as \sim, not as an accent.
    if (c == '~' && i > 0 && s[i - 1] == ' ' && i + 1 < s.size() && s[i + 1] == ' ') {
      r += "$\\sim$";
      continue;
    }
    switch (c) {
      case '_': r += "\\_"; break;
      case '%': r += "\\%"; break;
      case '&': r += "\\&"; break;
      case '#': r += "\\#"; break;
      case '$': r += "\\$"; break;
      case '^': r += "\\^{}"; break;
      case '~': r += "\\textasciitilde{}"; break;
      case '<': r += "\\textless{}"; break;
      case '>': r += "\\textgreater{}"; break;
      case '|': r += "\\textbar{}"; break;
      case '{': r += "\\{"; break;
      case '}': r += "\\}"; break;
      case '\\': r += "\\textbackslash{}"; break;
      default: r += c;
    }
  }
  return r;
}

// A quantity as a short string (scalar, MC estimate with half-width, or matrix size).
std::string show(const nlohmann::ordered_json& q, bool latex) {
  if (q.is_null()) return latex ? "--" : "";
  if (q.contains("value")) return latex ? latex_number(round_value(q["value"].get<double>()))
                                        : text_number(round_value(q["value"].get<double>()));
  if (q.contains("mean")) {
    const double m = q["mean"].get<double>();
    const double h = (q["ci_high"].get<double>() - q["ci_low"].get<double>()) / 2;
    return latex ? latex_number(round_with_uncertainty(m, h)) : text_number(round_with_uncertainty(m, h));
  }
  if (q.contains("matrix")) {
    const auto& m = q["matrix"];
    return fmt::format("{}x{} matrix", m.size(), m.empty() ? 0 : m[0].size());
  }
  return latex ? "--" : "";
}

// "refuted (slip)", "confirmed": the verdict with the refutation class where there is one.
std::string verdict_with_class(const nlohmann::ordered_json& r) {
  std::string v = r.value("verdict", "");
  if (r.contains("refutation") && r["refutation"].is_object() && r["refutation"].contains("class"))
    v += " (" + r["refutation"]["class"].get<std::string>() + ")";
  return v;
}

}  // namespace

std::string summary_after_verdict(const std::string& summary, const std::string& verdict) {
  if (verdict.empty() || summary.compare(0, verdict.size(), verdict) != 0) return summary;
  std::size_t i = verdict.size();
  if (i < summary.size() && std::isalnum(static_cast<unsigned char>(summary[i]))) return summary;  // another word
  if (i < summary.size() && summary[i] == ':') ++i;
  while (i < summary.size() && summary[i] == ' ') ++i;
  return summary.substr(i);
}

VerdictLead verdict_lead(const nlohmann::ordered_json& r) {
  const std::string verdict = r.value("verdict", ""), summary = r.value("summary", "");
  VerdictLead lead{verdict_with_class(r), summary, false};
  const std::string after = summary_after_verdict(summary, verdict);
  if (after.size() == summary.size()) return lead;
  lead.opened = true;
  lead.rest = after;
  if (after.empty() || after[0] != '(') return lead;
  // "(a transpose slip): ...": the summary's own qualifier replaces the class in the label.
  int depth = 0;
  for (std::size_t i = 0; i < after.size(); ++i) {
    depth += after[i] == '(' ? 1 : after[i] == ')' ? -1 : 0;
    if (depth != 0) continue;
    lead.label = verdict + " " + after.substr(0, i + 1);
    std::size_t j = i + 1;
    if (j < after.size() && after[j] == ':') ++j;
    while (j < after.size() && after[j] == ' ') ++j;
    lead.rest = after.substr(j);
    break;
  }
  return lead;
}

namespace {

std::string refutation_class(const nlohmann::ordered_json& r) {
  if (r.contains("refutation") && r["refutation"].is_object() && r["refutation"].contains("class"))
    return r["refutation"]["class"].get<std::string>();
  return "";
}

// "d=2, cov=2 (rotated)": the machine-readable value, with its name where the parameter is coded.
std::string params_label(const nlohmann::ordered_json& p, const std::string& claim = "") {
  std::string s;
  for (auto it = p.begin(); it != p.end(); ++it) {
    std::string v = it.value().is_string() ? it.value().get<std::string>() : it.value().dump();
    if (it.value().is_number()) {
      const std::string name = param_value_name(claim, it.key(), it.value().get<double>());
      if (!name.empty()) v += " (" + name + ")";
    }
    s += fmt::format("{}{}={}", s.empty() ? "" : ", ", it.key(), v);
  }
  return s;
}


// "icl-verify 0.1.0, commit 7af8137c1d2e" (12 hex digits, "-dirty" kept) from a report's provenance; "" without one.
std::string build_label(const nlohmann::ordered_json& r) {
  if (!r.contains("provenance") || !r["provenance"].is_object()) return "";
  const auto& p = r["provenance"];
  std::string commit = p.value("commit", "unknown");
  const bool dirty = commit.size() > 6 && commit.compare(commit.size() - 6, 6, "-dirty") == 0;
  if (dirty) commit.resize(commit.size() - 6);
  if (commit.size() > 12) commit.resize(12);
  return fmt::format("icl-verify {}, commit {}{}", p.value("version", "?"), commit, dirty ? "-dirty" : "");
}

// "standard run, 100000 prompts per case, seed 1, 2026-11-23, icl-verify 0.1.0, commit 7af8137c1d2e"
std::string run_line_text(const nlohmann::ordered_json& r) {
  std::string date;
  if (r.contains("provenance") && r["provenance"].is_object())
    date = r["provenance"].value("started_at", "").substr(0, 10);
  const std::string build = build_label(r);
  return fmt::format("{} run, {} prompts per case, seed {}{}{}", run_mode(r), r.value("sample_budget_per_case", 0),
                     r.value("seed", 0), date.empty() ? "" : ", " + date, build.empty() ? "" : ", " + build);
}

// A case's quantity by name; "a|b|c" names alternatives (parts that store the same column under different
// names), the first present wins.
nlohmann::ordered_json quantity(const nlohmann::ordered_json& c, const char* name) {
  if (!c.contains("quantities")) return nullptr;
  const std::string names = name;
  std::size_t start = 0;
  while (start <= names.size()) {
    const std::size_t bar = std::min(names.find('|', start), names.size());
    const std::string one = names.substr(start, bar - start);
    if (c["quantities"].contains(one)) return c["quantities"][one];
    start = bar + 1;
  }
  return nullptr;
}

}  // namespace

namespace {

constexpr std::size_t kCompactRows = 12;  // more cases than this: a parts table, the cases in an appendix longtable

std::string label_of(const std::string& id) {
  std::string label = id;
  std::replace(label.begin(), label.end(), '.', '-');
  return label;
}

// A parameter's column head: the claim's own (ClaimTable::param_headers), else the papers' symbols where there is
// one, plain words for the training settings, else the key in words ("prompts_per_n" -> "Prompts per n"); never
// the key in typewriter type.
std::string latex_param_header(const ClaimTable& t, const std::string& name) {
  if (auto it = t.param_headers.find(name); it != t.param_headers.end()) return it->second;
  static const std::map<std::string, std::string> m = {
      {"d", "$d$"}, {"n", "$n$"}, {"N", "$N$"}, {"M", "$M$"}, {"L", "$L$"}, {"D", "$D$"}, {"D_next", "$D'$"},
      {"dt", "$\\tilde d$"}, {"dbar", "$\\bar d$"}, {"p", "$p$"}, {"m", "$m$"}, {"h", "$h$"}, {"k", "$k$"},
      {"sigma", "$\\sigma/\\sigma_{\\max}$"}, {"theta", "$\\Theta$"}, {"cov", "Cov."}, {"n_min", "$n_{\\min}$"},
      {"n_max", "$n_{\\max}$"}, {"n_train", "$n_{\\mathrm{train}}$"}, {"n_test", "$n_{\\mathrm{test}}$"},
      {"steps", "Steps"}, {"batch", "Minibatch"}, {"trials", "Trials"}, {"runs", "Runs"}, {"lr", "Learning rate"},
      {"resample", "Resampled every"}, {"linear_layers", "Linear layers"}, {"heads", "Heads"},
      {"noise", "Noise s.d."}};
  if (auto it = m.find(name); it != m.end()) return it->second;
  std::string words = name;
  std::replace(words.begin(), words.end(), '_', ' ');
  if (!words.empty()) words[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(words[0])));
  return latex_escape(words);
}

// Code words inside a text value ("loss(n) < loss(n_test)") in the papers' notation.
std::string latex_text_value(const std::string& s) {
  std::string r = latex_escape(s);
  static const std::pair<const char*, const char*> words[] = {
      {"n\\_test", "$n_{\\mathrm{test}}$"}, {"n\\_train", "$n_{\\mathrm{train}}$"}};
  for (const auto& [from, to] : words)
    for (std::size_t i = 0; (i = r.find(from, i)) != std::string::npos; i += std::strlen(to))
      r.replace(i, std::strlen(from), to);
  return r;
}

// A parameter's value for a cell: the claim's words for it (ClaimTable::param_values, by the value's name, its text
// or the number as "{:g}" writes it), else the shared covariance names in words, else the coded value's name, the
// text, or the number through siunitx.
std::string latex_param_value(const ClaimTable& t, const std::string& claim, const std::string& key,
                              const nlohmann::ordered_json& v) {
  std::string name, lookup;
  if (v.is_number()) {
    name = param_value_name(claim, key, v.get<double>());
    lookup = name.empty() ? fmt::format("{:g}", v.get<double>()) : name;
  } else if (v.is_string()) {
    lookup = v.get<std::string>();
  }
  if (auto it = t.param_values.find(key); it != t.param_values.end())
    if (auto jt = it->second.find(lookup); jt != it->second.end()) return jt->second;
  if (!name.empty()) {
    static const std::map<std::string, std::string> shared = {  // test_covariance_names() and zfb's covariances
        {"rot-k100", "rotated, $\\kappa=100$"}, {"rot-k10", "rotated, $\\kappa=10$"},
        {"rot-k30", "rotated, $\\kappa=30$"}, {"diag-k10", "diagonal, $\\kappa=10$"}};
    if (auto it = shared.find(name); it != shared.end()) return it->second;
    return latex_escape(name);
  }
  if (v.is_number()) return latex_number(round_value(v.get<double>()));
  if (v.is_string()) return latex_text_value(v.get<std::string>());
  if (v.is_array()) {  // a list of numbers (a spectrum): each rounded as a number is
    std::string list;
    for (const auto& e : v)
      list += (list.empty() ? "" : ", ") + (e.is_number() ? latex_number(round_value(e.get<double>())) : latex_escape(e.dump()));
    return "(" + list + ")";
  }
  return latex_escape(v.dump());
}

std::string latex_quantity(const nlohmann::ordered_json& q) {
  if (q.is_null()) return "--";
  if (q.contains("value") && q["value"].is_number()) return latex_number(round_value(q["value"].get<double>()));
  if (q.contains("mean") && q.contains("ci_low") && q.contains("ci_high")) {
    const double h = (q["ci_high"].get<double>() - q["ci_low"].get<double>()) / 2;
    return latex_number(round_with_uncertainty(q["mean"].get<double>(), h));
  }
  if (q.contains("matrix")) {
    const auto& m = q["matrix"];
    return fmt::format("${}\\times{}$", m.size(), m.empty() ? 0 : m[0].size());
  }
  return "--";
}

std::string latex_verdict(const std::string& v) { return v == "refuted" ? "\\textbf{refuted}" : latex_escape(v); }

// How a claim's case parameters are laid out in a table: those equal in every case (of two or more) go into the
// caption, those every case has become columns, and the rest (present in some cases only) share one wrapped
// column.
struct ParamLayout {
  std::vector<std::string> constant, columns, other;
};

ParamLayout param_layout(const nlohmann::ordered_json& cases) {
  ParamLayout l;
  std::vector<std::string> all;  // every key, in order of first appearance
  for (const auto& c : cases)
    if (c.contains("params") && c["params"].is_object())
      for (auto it = c["params"].begin(); it != c["params"].end(); ++it)
        if (std::find(all.begin(), all.end(), it.key()) == all.end()) all.push_back(it.key());
  for (const auto& k : all) {
    bool everywhere = true, same = cases.size() > 1;
    for (const auto& c : cases) {
      const bool has = c.contains("params") && c["params"].is_object() && c["params"].contains(k);
      everywhere &= has;
      // (not `same &= ...`: that would read cases[0]["params"][k] after case 0 was found without k, and a const
      // operator[] on a missing key is undefined behaviour; the Debug/sanitizer build's assertion caught it)
      same = same && has && c["params"][k] == cases[0]["params"][k];
    }
    (same ? l.constant : everywhere ? l.columns : l.other).push_back(k);
  }
  return l;
}

// A parameter value for a table cell. Text up to 26 characters (a short comparison, say) keeps its natural width;
// longer text wraps in a 9 em box, so that a table of many columns still fits the text width.
std::string latex_param_cell(const ClaimTable& t, const std::string& claim, const std::string& key,
                             const nlohmann::ordered_json& v) {
  const std::string s = latex_param_value(t, claim, key, v);
  if (v.is_string() && v.get<std::string>().size() > 26) return "\\parbox[t]{9em}{\\raggedright " + s + "}";
  return s;
}

// One parameter in running text: "$d$ $=$ 4" for a symbol, "200 steps" or "minibatch 1000" for a training setting,
// "model: optimal" for a parameter in words.
std::string latex_param_inline(const ClaimTable& t, const std::string& claim, const std::string& key,
                               const nlohmann::ordered_json& v) {
  const std::string value = latex_param_value(t, claim, key, v);
  static const std::map<std::string, std::string> phrases = {
      {"steps", "{} steps"}, {"batch", "minibatch {}"}, {"trials", "{} trials"}, {"runs", "{} runs"},
      {"lr", "learning rate {}"}, {"resample", "minibatch resampled every {} steps"},
      {"linear_layers", "{} linear layers"}, {"heads", "{} heads"}, {"cov", "covariance {}"}};
  if (!t.param_headers.count(key))
    if (auto it = phrases.find(key); it != phrases.end()) return fmt::format(fmt::runtime(it->second), value);
  const std::string head = latex_param_header(t, key);
  if (!head.empty() && head[0] == '$') return head + "$=$" + (v.is_string() ? "\\allowbreak " : "") + value;
  std::string words = head;
  if (words.size() > 1 && std::isupper(static_cast<unsigned char>(words[0])) &&
      std::islower(static_cast<unsigned char>(words[1])))
    words[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(words[0])));
  return words + ": " + value;
}

// The given parameters a case has, in running text, separated by commas.
std::string latex_params_inline(const ClaimTable& t, const std::string& claim, const nlohmann::ordered_json& p,
                                const std::vector<std::string>& keys) {
  std::string s;
  for (const auto& k : keys) {
    if (!p.is_object() || !p.contains(k)) continue;
    s += (s.empty() ? "" : ", ") + latex_param_inline(t, claim, k, p[k]);
  }
  return s;
}

// The columns of a claim's case table that at least one case has; a proposed correction's values (the quantity
// `proposed`, verdict/proposed_correction.hpp) get a column of their own where the layout has none for them.
std::vector<TableColumn> present_columns(const ClaimTable& t, const nlohmann::ordered_json& cases) {
  std::vector<TableColumn> cols;
  bool proposed_declared = false;
  for (const auto& col : t.columns) {
    proposed_declared |= col.quantity == "proposed";
    bool any = false;
    for (const auto& c : cases) any |= !quantity(c, col.quantity.c_str()).is_null();
    if (any) cols.push_back(col);
  }
  bool any_proposed = false;
  for (const auto& c : cases) any_proposed |= !quantity(c, "proposed").is_null();
  if (any_proposed && !proposed_declared)
    cols.push_back({"proposed", "Proposed", "the correction proposed below, fitted on exact values and verified "
                                            "exactly on held-out cases"});
  return cols;
}

// The sentence on a report's proposed correction (verdict/proposed_correction.hpp), for the notes under its table or
// its Markdown; "" without one.
std::string proposed_sentence(const nlohmann::ordered_json& r, bool latex) {
  if (!r.contains("proposed_correction") || !r["proposed_correction"].is_object()) return "";
  const auto& p = r["proposed_correction"];
  const auto esc = [&](const std::string& s) { return latex ? latex_escape(s) : s; };
  std::string scope;
  if (p.contains("scope") && p["scope"].is_string()) {
    scope = " (" + esc(p["scope"].get<std::string>()) + ")";
  }
  if (p.value("verified", false) && p.contains("formula") && p["formula"].is_string()) {
    const std::string formula = latex && p.contains("latex") && p["latex"].is_string()
                                    ? "$" + p["latex"].get<std::string>() + "$"
                                    : "`" + p["formula"].get<std::string>() + "`";
    return fmt::format(" Proposed correction{}: {}, the smallest polynomial in the parameters and 1/n through {} exact "
                       "values, equal to the exact value at each of {} held-out cases.",
                       scope, formula, p.value("fitted_on", 0), p.value("held_out", 0));
  }
  std::string why = p.contains("why") && p["why"].is_string() ? p["why"].get<std::string>() : std::string("not verified");
  // Under a table, the reason's first clause (its numbers, long fractions among them, stay in the JSON).
  if (latex && why.find(':') != std::string::npos) why = esc(why.substr(0, why.find(':'))) + " (the report's proposed\\_correction says where)";
  else why = esc(why);
  return " No correction proposed" + scope + ": " + why + ".";
}

// A correction's column ("corrected", "proposed") whose cells equal an earlier column's in every case repeats it: the
// table leaves it out and its notes say so.
bool correction_column(const TableColumn& c) {
  return c.quantity.find("corrected") != std::string::npos || c.quantity.find("proposed") != std::string::npos;
}

// The columns a case table shows, and the sentences for those it leaves out as repeats (" The corrected loss
// $...$ equals Exact in every case.").
std::vector<TableColumn> shown_columns(const ClaimTable& t, const nlohmann::ordered_json& cases, std::string* repeats) {
  const auto present = present_columns(t, cases);
  std::vector<TableColumn> shown;
  for (const auto& col : present) {
    const TableColumn* same_as = nullptr;
    if (correction_column(col))
      for (const auto& earlier : shown) {
        // Scalars equal to a relative 1e-9 in every case that has the correction (none with the correction alone).
        bool equal = !cases.empty(), any = false;
        for (const auto& c : cases) {
          const auto a = quantity(c, col.quantity.c_str()), b = quantity(c, earlier.quantity.c_str());
          if (a.is_null()) continue;
          any = true;
          const bool scalars = a.is_object() && b.is_object() && a.contains("value") && b.contains("value") &&
                               a["value"].is_number() && b["value"].is_number();
          if (!scalars) {
            equal = false;
            break;
          }
          const double x = a["value"].get<double>(), y = b["value"].get<double>();
          equal = equal && std::abs(x - y) <= 1e-9 * std::max(std::abs(x), std::abs(y));
        }
        if (equal && any) {
          same_as = &earlier;
          break;
        }
      }
    if (!same_as) {
      shown.push_back(col);
      continue;
    }
    if (repeats)
      *repeats += fmt::format(" {} ({}) equals {} in every case (to a relative $10^{{-9}}$); it has no column of its own.",
                              col.header, col.meaning, same_as->header);
  }
  return shown;
}

// Header line and rows of the case table (shared by the compact table and the appendix longtable).
struct CaseRows {
  std::string spec, header, rows;
  std::vector<TableColumn> cols;  // the quantity columns shown
  std::string repeats;            // sentences for correction columns left out as repeats (shown_columns)
  bool wrapped_case = false;
  bool verdict_column = true;  // false when every case has the same verdict (the notes say it)
  std::size_t text_columns = 0;  // parameter columns with text over 12 characters (a model's name, a comparison)
  std::string constant;  // " Every case has d=4, ..." for the caption (parameters equal in every case)
  bool any_dash = false;      // a quantity cell of the rows shows "--" (not computed)
  bool any_interval = false;  // a quantity cell of the rows shows a mean with its interval
};
// The cases a compact table shows: all of them when there are at most kCompactRows; otherwise the refuted
// ones first (the refutation's counterexample among them), then evenly spaced others, in report order.
std::vector<std::size_t> compact_selection(const nlohmann::ordered_json& cases) {
  std::vector<std::size_t> all(cases.size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  if (cases.size() <= kCompactRows) return all;
  std::vector<bool> take(cases.size(), false);
  std::size_t n = 0;
  for (std::size_t i = 0; i < cases.size() && n < kCompactRows / 2; ++i)
    if (cases[i].value("verdict", "") != "confirmed") take[i] = true, ++n;
  std::vector<std::size_t> rest;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (!take[i]) rest.push_back(i);
  const std::size_t want = kCompactRows - n;
  for (std::size_t k = 0; k < want && k < rest.size(); ++k)
    take[rest[(2 * k + 1) * rest.size() / (2 * want)]] = true;
  std::vector<std::size_t> sel;
  for (std::size_t i = 0; i < cases.size(); ++i)
    if (take[i]) sel.push_back(i);
  return sel;
}

CaseRows case_rows(const nlohmann::ordered_json& r, const ClaimTable& t, const std::vector<std::size_t>& which) {
  const std::string id = r.value("claim", "");
  const auto& cases = r["cases"];
  const bool part_column = r.contains("parts") && r["parts"].is_array() && r["parts"].size() > 1;
  const ParamLayout layout = param_layout(cases);
  const auto& keys = layout.columns;
  CaseRows out;
  out.cols = shown_columns(t, cases, &out.repeats);
  const auto& cols = out.cols;
  if (!layout.constant.empty())
    out.constant = " Every case has " + latex_params_inline(t, id, cases[0]["params"], layout.constant) + ".";
  // A verdict every case shares goes into the notes, as a parameter every case shares does: a column fewer.
  bool same_verdict = cases.size() > 1;
  for (const auto& c : cases) same_verdict = same_verdict && c.value("verdict", "") == cases[0].value("verdict", "");
  if (same_verdict) out.constant += " Every case's verdict: " + latex_verdict(cases[0].value("verdict", "")) + ".";
  out.verdict_column = !same_verdict;
  std::vector<std::string> head;
  for (const auto& k : keys) {
    out.spec += "c";
    head.push_back(latex_param_header(t, k));
    bool text = false;
    for (const auto& c : cases) text = text || (c["params"][k].is_string() && c["params"][k].get<std::string>().size() > 12);
    out.text_columns += text ? 1 : 0;
  }
  if (!layout.other.empty()) {  // parameters only some cases have: one column
    out.spec += "l";
    head.push_back(keys.empty() ? "Case" : "Also");
    out.wrapped_case = true;
  }
  if (part_column) {
    out.spec += "c";
    head.push_back("Part");
  }
  if (cases.empty()) {
    out.spec += "l";
    head.push_back("Case");
  }
  for (const auto& c : cols) {
    out.spec += "c";
    head.push_back(c.header);
  }
  if (!same_verdict) {
    out.spec += "l";
    head.push_back("Verdict");
  }
  for (std::size_t i = 0; i < head.size(); ++i) out.header += (i ? " & " : "") + head[i];
  out.header += " \\\\\n";
  for (const std::size_t idx : which) {
    const auto& c = cases[idx];
    std::vector<std::string> cells;
    for (const auto& k : keys) cells.push_back(latex_param_cell(t, id, k, c["params"][k]));
    if (!layout.other.empty()) {
      const auto p = c.value("params", nlohmann::ordered_json::object());
      std::size_t present = 0;
      bool text = false;
      for (const auto& k : layout.other)
        if (p.contains(k)) ++present, text |= p[k].is_string() || p[k].is_array();
      const std::string inline_params = latex_params_inline(t, id, p, layout.other);
      // One number fits on a line; more, or text, wraps in a box.
      cells.push_back(present <= 1 && !text ? inline_params
                                            : "\\parbox[t]{9em}{\\raggedright " + inline_params + "}");
    }
    if (part_column) cells.push_back("(" + latex_escape(c.value("part", "a")) + ")");
    for (const auto& col : cols) {
      const auto q = quantity(c, col.quantity.c_str());
      cells.push_back(latex_quantity(q));
      out.any_dash |= cells.back() == "--";
      out.any_interval |= cells.back().find("+-") != std::string::npos;
    }
    if (!same_verdict) cells.push_back(latex_verdict(c.value("verdict", "")));
    // A row that starts with "[" (a range such as [0,10]) would be read as the optional argument of the previous
    // row's \\: an empty group in front keeps it a cell.
    if (!cells.empty() && !cells[0].empty() && cells[0][0] == '[') cells[0] = "{}" + cells[0];
    for (std::size_t i = 0; i < cells.size(); ++i) out.rows += (i ? " & " : "") + cells[i];
    out.rows += " \\\\\n";
  }
  return out;
}

std::string run_line_latex(const nlohmann::ordered_json& r) {
  std::string date;
  if (r.contains("provenance") && r["provenance"].is_object())
    date = r["provenance"].value("started_at", "").substr(0, 10);
  const std::string build = build_label(r);
  std::string mode = run_mode(r);
  if (!mode.empty()) mode[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(mode[0])));
  return fmt::format("{} run, {} prompts per case, seed {}{}{}", mode,
                     latex_number(round_value(r.value("sample_budget_per_case", 0.0))), r.value("seed", 0),
                     date.empty() ? "" : ", " + date, build.empty() ? "" : ", " + latex_escape(build));
}

// Whether a report's training ran at settings other than the paper's (its `training` block says so).
bool reduced_training(const nlohmann::ordered_json& r) {
  return r.contains("training") && r["training"].is_object() && r["training"].contains("paper_settings") &&
         r["training"]["paper_settings"].is_boolean() && !r["training"]["paper_settings"].get<bool>();
}

// The caption's sentence for a run that is not the standard one (so that a quick table never reads as a standard
// one), and for training at a reduced budget; "" for a standard run at the paper's training settings.
std::string run_mode_sentence(const nlohmann::ordered_json& r) {
  const std::string mode = run_mode(r);
  const std::string prompts =
      latex_number(round_value(r.value("sample_budget_per_case", 0.0))) + " Monte Carlo prompts per case";
  std::string s;
  if (mode == "quick")
    s = " Quick run (a first look, not the standard budget): a reduced grid and " + prompts + ".";
  else if (mode == "custom")
    s = " Custom run (grid or budget changed from the standard one): " + prompts + ".";
  else if (mode == "paper")
    s = " Run at the paper's budget: " + prompts + ".";
  else if (mode != "standard")
    s = " Run at the budget `" + latex_escape(mode) + "': " + prompts + ".";
  if (claim_table(r.value("claim", "")).kind == TableKind::training && reduced_training(r))
    s += " Training at a reduced budget (below).";
  return s;
}

// The one-line caption: what is tested, the paper's citation and the verdict ("App.~C bilinear block: $L = ...$
// \citep[Theorem~2]{sun2025role}. Verdict: \textbf{refuted} (substantive)."), then the run mode where it is not the
// standard one. A claim of one's own has no paper.
std::string caption_head(const nlohmann::ordered_json& r, const ClaimTable& t) {
  const std::string id = r.value("claim", "");
  const PaperRef* p = paper_of(id);
  std::string s = t.latex_title.empty() ? latex_escape(r.value("title", "")) : t.latex_title;
  if (p)
    s += t.where.empty() ? fmt::format(" \\citep{{{}}}", p->bibkey) : fmt::format(" \\citep[{}]{{{}}}", t.where, p->bibkey);
  else if (!t.where.empty())
    s += " (" + t.where + ")";
  s += ". Verdict: \\textbf{" + latex_escape(r.value("verdict", "")) + "}";
  const std::string cls = refutation_class(r);
  if (!cls.empty()) s += " (" + latex_escape(cls) + ")";
  s += ".";
  s += run_mode_sentence(r);
  return s;
}

// The short caption (list of tables): the claim ID and what is tested.
std::string caption_short(const nlohmann::ordered_json& r, const ClaimTable& t) {
  return "\\texttt{" + latex_escape(r.value("claim", "")) + "}: " +
         (t.latex_title.empty() ? latex_escape(r.value("title", "")) : t.latex_title);
}

// Provenance as a LaTeX comment line (a table pasted into a paper keeps it, the page does not show it). One line,
// so that a search for "icl-verify VERSION, commit C" finds it.
std::string comment_line(const std::string& text) { return "% " + text + "\n"; }

// The level of the intervals the rows show ("99.75\%", "at least 99.99\%"): from the `confidence` of their
// quantities, else the report's error_rates.interval. Levels are rounded down to two decimals (a 99.9955% interval is
// a 99.99% interval too); "at least" says where that, or a mix of levels, made the figure smaller than a level.
std::string interval_level(const nlohmann::ordered_json& r, const std::vector<std::size_t>& which,
                           const std::vector<TableColumn>& cols) {
  double lo = 2, hi = -1;
  for (const std::size_t i : which)
    for (const auto& col : cols) {
      const auto q = quantity(r["cases"][i], col.quantity.c_str());
      if (q.is_object() && q.contains("mean") && q.contains("confidence") && q["confidence"].is_number()) {
        lo = std::min(lo, q["confidence"].get<double>());
        hi = std::max(hi, q["confidence"].get<double>());
      }
    }
  if (hi < 0 && r.contains("error_rates") && r["error_rates"].is_object() && r["error_rates"].contains("interval") &&
      r["error_rates"]["interval"].is_string()) {
    const std::string text = r["error_rates"]["interval"].get<std::string>();
    char* end = nullptr;
    const double pct = std::strtod(text.c_str(), &end);
    if (end != text.c_str() && *end == '%' && pct > 0 && pct < 100) lo = hi = pct / 100;
  }
  if (hi < 0) return "";
  bool rounded = false;
  const std::string pct = confidence_percent(lo, &rounded);
  return fmt::format("{}{}\\%", rounded || hi > lo ? "at least " : "", pct);
}

// What each shown column holds, the columns left out as repeats, and how the cells read (only what the rows hold:
// no note on intervals or on "--" where no cell has one).
std::string columns_sentence(const nlohmann::ordered_json& r, const CaseRows& cr, const std::vector<std::size_t>& which) {
  std::string s;
  for (const auto& c : cr.cols) s += (s.empty() ? "" : "; ") + c.header + ": " + c.meaning;
  std::string out = s.empty() ? "" : fmt::format(" Columns: {}.", s);
  out += cr.repeats;
  if (cr.any_interval) {
    const std::string level = interval_level(r, which, cr.cols);
    out += fmt::format(" Entries $x \\pm h$: mean and half-width of its Student-t interval{}, rounded to the "
                       "uncertainty.",
                       level.empty() ? "" : " at level " + level);
  }
  if (cr.any_dash) out += " --: not computed for that case.";
  return out;
}

// The parts of the statement in words, each with its strength and verdict.
std::string parts_sentence(const nlohmann::ordered_json& r, const ClaimTable& t) {
  if (!r.contains("parts") || !r["parts"].is_array() || r["parts"].size() < 2) return "";
  std::string s = " Parts of the statement:";
  for (const auto& p : r["parts"]) {
    const std::string id = p.value("id", "");
    std::string text;
    if (auto it = t.part_text.find(id); it != t.part_text.end()) {
      text = it->second;
    } else {  // the plain-text statement, its first word in lower case ("The loss ..." -> "the loss ...")
      std::string statement = p.value("statement", "");
      while (!statement.empty() && (statement.back() == '.' || statement.back() == ' ')) statement.pop_back();
      if (statement.size() > 1 && std::isupper(static_cast<unsigned char>(statement[0])) &&
          std::islower(static_cast<unsigned char>(statement[1])))
        statement[0] = static_cast<char>(std::tolower(static_cast<unsigned char>(statement[0])));
      text = latex_text_value(statement);
    }
    s += fmt::format(" ({}) {} ({}): \\textbf{{{}}};", latex_escape(id), text, latex_escape(p.value("strength", "")),
                     latex_escape(p.value("verdict", "")));
  }
  s.back() = '.';
  return s;
}

// What a reduced training budget changed from the paper ("batch 200 (paper 4000), 200 steps (paper 20000)"): the
// report's paper_settings_differences up to its list of settings the paper does not state.
std::string training_sentence(const nlohmann::ordered_json& r, const ClaimTable& t) {
  // Only where the table is the training experiment's (a claim that trains a model for a finding beside its
  // statement, a theorem checked on a trained stack, say, has no training in its table).
  if (t.kind != TableKind::training || !reduced_training(r)) return "";
  std::string diff = r["training"].value("paper_settings_differences", std::string());
  if (const auto cut = diff.find("; not stated by the paper"); cut != std::string::npos) diff.resize(cut);
  return diff.empty() ? " Training at a reduced budget (settings other than the paper's)."
                      : " Training at a reduced budget: " + latex_text_value(diff) + ".";
}

}  // namespace

std::string latex_table(const nlohmann::ordered_json& r) {
  const std::string id = r.value("claim", "");
  const std::string label = label_of(id);
  const ClaimTable t = claim_table(id);
  const auto& cases = r["cases"];
  std::string s;
  s += "% Generated by icl-verify from " + id + ".json (`icl-verify report` rebuilds it); do not edit by hand.\n";
  s += "% Needs: \\usepackage{amsmath,amssymb,booktabs,siunitx,longtable} and natbib (see all.tex).\n";
  s += comment_line("Provenance: " + run_line_latex(r) + ".");
  s += "\\begin{table}[tbp]\n\\centering\n\\sisetup{group-digits=integer}\n";
  const auto sel = compact_selection(cases);
  const CaseRows cr = case_rows(r, t, sel);
  // Wider tables in a smaller size, so that every one fits the text width of a plain article.
  // A wrapped "Also" column (a 9em box) counts as three columns, a column of text as two; a Verdict column left out
  // (every case the same) still counts, so that leaving it out only makes a table narrower.
  const std::size_t width =
      cr.spec.size() + (cr.wrapped_case ? 3 : 0) + cr.text_columns + (cr.verdict_column ? 0 : 1);
  std::string body = fmt::format("{}\n\\setlength{{\\tabcolsep}}{{{}pt}}\n",
                                 width >= 9 ? "\\scriptsize" : width >= 8 ? "\\footnotesize" : "\\small",
                                 width >= 9 ? 2 : width >= 7 ? 3 : 4);
  body += "\\begin{tabular}{" + cr.spec + "}\n\\toprule\n" + cr.header + "\\midrule\n" + cr.rows +
          "\\bottomrule\n\\end{tabular}\n";
  // The table's notes, under it in small type: what the rows are, the training budget, the parts in words, what
  // each column holds and how its cells read.
  std::string notes;
  if (sel.size() < cases.size())
    notes += fmt::format(" Rows: {} of the {} cases, those not confirmed first, then evenly spaced others; every case "
                         "in Table~\\ref{{tab:{}-cases}}.",
                         sel.size(), cases.size(), label);
  notes += training_sentence(r, t);
  notes += parts_sentence(r, t);
  notes += cr.constant + columns_sentence(r, cr, sel) + proposed_sentence(r, true);
  // Caption above the table, as journals set tables; the notes below it.
  s += "\\caption[{" + caption_short(r, t) + "}]{" + caption_head(r, t) + "}\n\\label{tab:" + label + "}\n\\smallskip\n" +
       body + "\\par\\smallskip\n{\\footnotesize\\raggedright" + notes + "\\par}\n\\end{table}\n";
  return s;
}

std::string latex_cases_longtable(const nlohmann::ordered_json& r) {
  const std::string id = r.value("claim", "");
  const ClaimTable t = claim_table(id);
  std::vector<std::size_t> all(r["cases"].size());
  for (std::size_t i = 0; i < all.size(); ++i) all[i] = i;
  const CaseRows cr = case_rows(r, t, all);
  const CaseRows compact = case_rows(r, t, compact_selection(r["cases"]));
  std::string s;
  s += "% Generated by icl-verify from " + id + ".json; every case of the claim (appendix). Needs longtable.\n";
  s += comment_line("Provenance: " + run_line_latex(r) + ".");
  // Nine columns or more: a smaller size, so that the widest tables fit the text width.
  const std::size_t columns = cr.spec.size() + (cr.verdict_column ? 0 : 1);  // as in latex_table
  s += std::string("\\begingroup\n\\sisetup{group-digits=integer}\n") +
       (columns >= 9 ? "\\scriptsize" : "\\footnotesize") +
       "\n\\setlength{\\tabcolsep}{" + (columns >= 9 ? "1pt" : "3pt") + "}\n\\begin{longtable}{" + cr.spec + "}\n";
  // The same result as the main table, in full: its caption says so and stays out of the list of tables; what its
  // rows hold beyond the main table's (a "--", intervals) is said here.
  std::string extra;
  if (cr.any_interval && !compact.any_interval) {
    const std::string level = interval_level(r, all, cr.cols);
    extra += fmt::format(" Entries $x \\pm h$: mean and half-width of its Student-t interval{}.",
                         level.empty() ? "" : " at level " + level);
  }
  if (cr.any_dash && !compact.any_dash) extra += " --: not computed for that case.";
  s += "\\caption[]{Every case of Table~\\ref{tab:" + label_of(id) + "} (\\texttt{" + latex_escape(id) +
       "}); columns as there." + extra + "}\\label{tab:" + label_of(id) + "-cases}\\\\\n";
  s += "\\toprule\n" + cr.header + "\\midrule\n\\endfirsthead\n";
  s += "\\multicolumn{" + std::to_string(cr.spec.size()) + "}{l}{\\texttt{" + latex_escape(id) +
       "}, continued}\\\\\n\\toprule\n" + cr.header + "\\midrule\n\\endhead\n\\bottomrule\n\\endfoot\n";
  s += cr.rows;
  s += "\\end{longtable}\n\\endgroup\n";
  return s;
}

bool needs_cases_appendix(const nlohmann::ordered_json& r) { return r["cases"].size() > kCompactRows; }

std::string latex_all(const std::vector<nlohmann::ordered_json>& reports) {
  std::string s =
      "% Generated by icl-verify (`icl-verify report` rebuilds it): every table of this folder.\n"
      "% In a paper: \\input{all} in the body; the preamble needs exactly\n"
      "%   \\usepackage{amsmath,amssymb,booktabs,siunitx,longtable}\n"
      "%   \\usepackage[round]{natbib}\n"
      "% and the bibliography \\bibliographystyle{plainnat} \\bibliography{icl-verify} (icl-verify.bib, here).\n"
      "% preview.tex is such a document.\n";
  for (const auto& r : reports) s += "\\input{" + r.value("claim", "") + ".tex}\n";
  bool appendix = false;
  for (const auto& r : reports) appendix |= needs_cases_appendix(r);
  if (appendix) {
    s += "\\clearpage\n\\section*{Every case}\n";
    for (const auto& r : reports)
      if (needs_cases_appendix(r)) s += "\\input{" + r.value("claim", "") + ".cases.tex}\n";
  }
  return s;
}

std::string latex_preview() {
  return "% Generated by icl-verify: a plain article with every table of this folder.\n"
         "% pdflatex preview && bibtex preview && pdflatex preview && pdflatex preview\n"
         "\\documentclass{article}\n\\usepackage{amsmath,amssymb,booktabs,siunitx,longtable}\n"
         "\\usepackage[round]{natbib}\n\\begin{document}\n\\input{all}\n\\bibliographystyle{plainnat}\n"
         "\\bibliography{icl-verify}\n\\end{document}\n";
}
std::string markdown_claim(const nlohmann::ordered_json& r) {
  std::string s;
  const std::string id = r.value("claim", "");
  s += fmt::format("## `{}`: {}\n\n", id, r.value("title", ""));
  if (const PaperRef* p = paper_of(id)) s += fmt::format("Paper: {}. ", paper_citation(*p));
  s += fmt::format("Source: {}.\n\n", r.value("source", ""));
  const VerdictLead lead = verdict_lead(r);
  s += fmt::format("**Verdict: {}{}** {}\n\n", lead.label, lead.opened && !lead.rest.empty() ? ":" : ".", lead.rest);
  if (r.contains("refutation") && r["refutation"].is_object()) {
    const auto& f = r["refutation"];
    s += fmt::format("Refutation ({}): {} Counterexample: `{}`.{}\n\n", f.value("class", ""), f.value("explanation", ""),
                     f.contains("counterexample") ? f["counterexample"].dump() : std::string("{}"),
                     f.contains("corrected") ? " Corrected: " + f["corrected"].get<std::string>() : std::string());
  }
  if (r.contains("parts") && r["parts"].is_array()) {
    s += "Parts of the statement:\n\n";
    for (const auto& p : r["parts"]) {
      std::string v = p.value("verdict", "");
      if (p.contains("refutation") && p["refutation"].contains("class"))
        v += " (" + p["refutation"]["class"].get<std::string>() + ")";
      s += fmt::format("- ({}, {}) {}: **{}**. {}\n", p.value("id", ""), p.value("strength", ""),
                       p.value("statement", ""), v, p.value("evidence", ""));
    }
    s += "\n";
  }
  const int nthreads = r.value("threads", 0);
  s += fmt::format("Run: {}; {} thread{}, {:.1f} s.\n\n", run_line_text(r), nthreads, nthreads == 1 ? "" : "s",
                   r.value("elapsed_s", 0.0));
  if (r.contains("error_rates") && r["error_rates"].is_object() && !r["error_rates"].contains("false_fail_rate")) {
    // Trained-model comparisons state their error rates in their own terms (family alpha, tests): as given.
    std::string e;
    for (auto it = r["error_rates"].begin(); it != r["error_rates"].end(); ++it)
      e += (e.empty() ? "" : "; ") + it.key() + " " +
           (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    s += "Error rates: " + e + ".\n\n";
  } else if (r.contains("error_rates")) {
    const auto& e = r["error_rates"];
    s += fmt::format("Error rates: false-fail {} for the claim ({}), false-pass {} per case for a discrepancy "
                     "beyond the tolerance; tolerance {}.\n\n",
                     e.value("false_fail_rate", 0.0), e.value("split", ""), e.value("false_pass_rate_per_case", 0.0),
                     e.value("tolerance", ""));
  }
  const ClaimTable t = claim_table(id);
  const auto cols = present_columns(t, r["cases"]);
  s += "| case |";
  // A column read from alternative quantities ("a|b") is named by its (plain) LaTeX header, "Left", say.
  for (const auto& c : cols) s += " " + (c.quantity.find('|') == std::string::npos ? c.quantity : c.header) + " |";
  s += " verdict |\n|---|";
  for (std::size_t i = 0; i < cols.size(); ++i) s += "---|";
  s += "---|\n";
  // At most kCompactRows cases, chosen as for the LaTeX table (those not confirmed first); the JSON has them all.
  const auto sel = compact_selection(r["cases"]);
  for (const std::size_t i : sel) {
    const auto& c = r["cases"][i];
    s += "| " + params_label(c["params"], id) + " |";
    for (const auto& col : cols) s += " " + show(quantity(c, col.quantity.c_str()), false) + " |";
    s += " " + c.value("verdict", "") + " |\n";
  }
  if (sel.size() < r["cases"].size())
    s += fmt::format("\n{} of the {} cases: those not confirmed first, then evenly spaced others; every case is in "
                     "`{}.json` and `{}.cases.tex`.\n",
                     sel.size(), r["cases"].size(), id, id);
  s += "\nMonte Carlo entries: mean ± half-width of the interval, rounded to the uncertainty.\n";
  if (const std::string p = proposed_sentence(r, false); !p.empty()) s += "\n" + p.substr(1) + "\n";
  if (r.contains("quantity_meanings") && r["quantity_meanings"].is_object()) {
    // What each number is, for the quantities the cases have (eval reports carry these).
    std::vector<std::string> present;
    for (const auto& c : r["cases"])
      if (c.contains("quantities") && c["quantities"].is_object())
        for (auto it = c["quantities"].begin(); it != c["quantities"].end(); ++it)
          if (std::find(present.begin(), present.end(), it.key()) == present.end()) present.push_back(it.key());
    std::string what;
    for (const auto& k : present)
      if (r["quantity_meanings"].contains(k) && r["quantity_meanings"][k].is_string())
        what += fmt::format("- `{}`: {}.\n", k, r["quantity_meanings"][k].get<std::string>());
    if (!what.empty()) s += "\nWhat the numbers are:\n\n" + what;
  }
  if (r.contains("findings"))
    for (const auto& f : r["findings"]) s += "\n**Finding.** " + f.get<std::string>() + "\n";
  s += "\n";
  return s;
}

namespace {

std::string md_cell(std::string s) {
  for (std::size_t i = 0; (i = s.find('|', i)) != std::string::npos; i += 2) s.replace(i, 1, "\\|");
  for (auto& ch : s)
    if (ch == '\n') ch = ' ';
  return s;
}

}  // namespace

std::map<std::string, std::vector<std::string>> other_budget_notes(const std::string& folder,
                                                                   const std::vector<nlohmann::ordered_json>& reports) {
  std::map<std::string, std::vector<std::string>> notes;
  if (folder.empty()) return notes;
  std::error_code ec;
  const fs::path here = fs::weakly_canonical(fs::path(folder), ec);
  if (ec) return notes;
  const fs::path parent = here.parent_path();
  for (const char* name : {"latest", "deciding", "paper"}) {
    const fs::path other = parent / name;
    if (other == here || !fs::is_directory(other, ec)) continue;
    for (const auto& r : reports) {
      const std::string id = r.value("claim", "");
      const fs::path f = other / (id + ".json");
      if (id.empty() || !fs::is_regular_file(f, ec)) continue;
      try {
        const auto j = nlohmann::ordered_json::parse(read_file(f.string()));
        notes[id].push_back(fmt::format("{}/{}/: {} ({}, seed {})", parent.filename().string(), name,
                                        j.value("verdict", "?"), run_mode(j), j.value("seed", 0)));
      } catch (const std::exception&) {
      }
    }
  }
  return notes;
}

std::string markdown_summary(const std::vector<nlohmann::ordered_json>& reports,
                             const std::map<std::string, std::vector<std::string>>& elsewhere) {
  std::string s = "# icl-verify report\n\n";
  // Run provenance first: what kind of run produced this folder.
  std::vector<std::string> builds, modes;
  for (const auto& r : reports) {
    const std::string b = build_label(r);
    if (!b.empty() && std::find(builds.begin(), builds.end(), b) == builds.end()) builds.push_back(b);
    const std::string m = run_mode(r);
    if (std::find(modes.begin(), modes.end(), m) == modes.end()) modes.push_back(m);
  }
  std::string mode_text;
  for (std::size_t i = 0; i < modes.size(); ++i) mode_text += (i ? ", " : "") + modes[i];
  s += fmt::format("Run mode: **{}**{}.", mode_text,
                   modes.size() > 1 ? " (this folder mixes runs of different modes; see each claim's run line)" : "");
  for (std::size_t i = 0; i < builds.size(); ++i)
    s += fmt::format("{}{}", i == 0 ? " Produced by " : (i + 1 == builds.size() ? " and " : ", "), builds[i]);
  if (!builds.empty()) s += builds.size() > 1 ? " (several builds)." : ".";
  s += " Generated from the JSON reports in this folder (`icl-verify report` rebuilds it, with the LaTeX tables "
       "`all.tex` and the figures).\n\n";
  if (!elsewhere.empty())
    s += "Other budgets: the folders beside this one hold reports of some of these claims at other budgets (the "
         "column *elsewhere*); the README's table takes each claim from the strongest committed budget (paper, then "
         "deciding, then standard).\n\n";
  s += fmt::format("| claim | paper | verdict | class | corrected statement, verified | run |{}\n|---|---|---|---|---|---|{}\n",
                   elsewhere.empty() ? "" : " elsewhere |", elsewhere.empty() ? "" : "---|");
  for (const auto& r : reports) {
    const std::string id = r.value("claim", "");
    const PaperRef* p = paper_of(id);
    std::string corrected;
    if (r.contains("refutation") && r["refutation"].is_object() && r["refutation"].contains("corrected") &&
        r["refutation"]["corrected"].is_string())
      corrected = r["refutation"]["corrected"].get<std::string>();
    std::string other;
    if (auto it = elsewhere.find(id); it != elsewhere.end())
      for (const auto& n : it->second) other += (other.empty() ? "" : "; ") + n;
    s += fmt::format("| `{}` | {} | **{}** | {} | {} | {}, seed {}, {} prompts/case |{}\n", id,
                     p ? fmt::format("{} ({})", p->short_authors, p->year) : std::string(), r.value("verdict", ""),
                     refutation_class(r), md_cell(corrected), run_mode(r), r.value("seed", 0),
                     r.value("sample_budget_per_case", 0), elsewhere.empty() ? "" : " " + md_cell(other) + " |");
  }
  s += "\nVerdicts: **confirmed**: every part's decisions hold at the stated error rates (an exact value equal to "
       "the statement, or a Monte Carlo interval inside the stated band; a trend or a comparison by its stated "
       "rule); **refuted**: a decision excludes the statement, with a counterexample, the refutation's class "
       "(substantive, slip, missing assumption, reading) and, where one is verified, the corrected statement; "
       "**inconclusive**: neither, at this budget (an interval that straddles the band, a search still improving, "
       "runs that did not train); a larger budget or the paper's may decide it. Each claim's details say which "
       "decisions decided it.\n";
  s += "\nPapers:\n\n";
  for (const auto& p : papers()) {
    bool used = false;
    for (const auto& r : reports) used |= paper_of(r.value("claim", "")) == &p;
    if (used) s += fmt::format("- `{}`: {}.\n", p.prefix, paper_citation(p));
  }
  s += "\n## Summaries\n\n";
  for (const auto& r : reports) {
    const VerdictLead lead = verdict_lead(r);
    s += fmt::format("- `{}` (**{}**): {}\n", r.value("claim", ""), lead.label, lead.rest);
  }
  s += "\n# Details\n\n";
  for (const auto& r : reports) s += markdown_claim(r);
  return s;
}

std::vector<std::pair<std::string, std::string>> render_report_folder(const std::vector<std::string>& json_files,
                                                                     std::vector<std::string>* skipped, int* count,
                                                                     const std::string& folder) {
  std::vector<std::string> files = json_files;
  std::sort(files.begin(), files.end(), [](const std::string& a, const std::string& b) {
    return fs::path(a).filename() < fs::path(b).filename();  // by name, wherever each lies
  });
  std::vector<nlohmann::ordered_json> reports;
  std::vector<std::pair<std::string, std::string>> out;  // file name, content
  for (const auto& f : files) {
    try {
      auto j = nlohmann::ordered_json::parse(read_file(f));
      if (!j.is_object() || j.value("schema", "") != "icl-verify/report/v1" || !j.contains("claim") ||
          !j["claim"].is_string() || !j.contains("cases") || !j["cases"].is_array())
        throw std::invalid_argument("not a report");
      const std::string claim = j["claim"];
      if (claim.empty() || claim.find('/') != std::string::npos || claim.front() == '.')
        throw std::invalid_argument("bad claim id");
      std::string tex = latex_table(j);
      std::string cases_tex = needs_cases_appendix(j) ? latex_cases_longtable(j) : std::string();
      markdown_claim(j);  // renders, or throws on fields of the wrong type
      out.emplace_back(claim + ".tex", std::move(tex));
      // Figures whose data the report holds are redrawn: <claim>.<name>.svg.
      if (j.contains("figures") && j["figures"].is_object())
        for (auto it = j["figures"].begin(); it != j["figures"].end(); ++it)
          if (it.value().is_object() && it.key().find('/') == std::string::npos)
            out.emplace_back(claim + "." + it.key() + ".svg", svg_plot(plot_from_json(it.value())));
      if (!cases_tex.empty()) out.emplace_back(claim + ".cases.tex", std::move(cases_tex));
      reports.push_back(std::move(j));
    } catch (const std::exception&) {
      if (skipped) skipped->push_back(f);
    }
  }
  if (!reports.empty()) {
    out.emplace_back("summary.md", markdown_summary(reports, other_budget_notes(folder, reports)));
    out.emplace_back("all.tex", latex_all(reports));
    out.emplace_back("preview.tex", latex_preview());
    out.emplace_back("icl-verify.bib", bibtex_all());
  }
  if (count) *count = static_cast<int>(reports.size());
  return out;
}

std::vector<std::string> report_json_files(const std::string& dir) {
  std::vector<std::string> files;
  for (const auto& e : fs::directory_iterator(dir))
    if (e.path().extension() == ".json" && e.is_regular_file()) files.push_back(e.path().string());
  std::sort(files.begin(), files.end());
  return files;
}

int rebuild_reports(const std::string& dir, std::vector<std::string>* skipped, bool dry_run) {
  int count = 0;
  const auto out = render_report_folder(report_json_files(dir), skipped, &count, dir);
  if (!dry_run)
    for (const auto& [name, content] : out) write_file_atomic(dir + "/" + name, content);
  return count;
}

}  // namespace icl
