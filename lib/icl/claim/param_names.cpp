#include "icl/claim/param_names.hpp"

#include <map>

namespace icl {

namespace {

using Names = std::vector<std::pair<double, std::string>>;

Names seq(std::initializer_list<const char*> names, double first = 0) {
  Names r;
  double v = first;
  for (const char* n : names) r.emplace_back(v++, n);
  return r;
}

// The codes as each claim's ParamSpec help and source define them (claims/<id>.cpp).
const std::map<std::pair<std::string, std::string>, Names>& table() {
  static const Names test_cov = seq({"isotropic", "diagonal", "rotated", "rot-k100"});  // test_covariance()
  static const std::map<std::pair<std::string, std::string>, Names> t = {
      {{"acds.thm1", "cov"}, test_cov},
      {{"eval", "cov"}, test_cov},
      {{"acds.thm3", "cov"}, test_cov},
      {{"acds.thm4", "cov"}, test_cov},
      {{"sja.prop1", "cov"}, test_cov},
      {{"zfb.thm5", "cov"}, test_cov},
      {{"acds.lemma1", "sym"}, seq({"general", "symmetric"})},
      {{"sja.prop1", "model"},
       seq({"optimal", "gd1", "gd2", "gd3", "gd4", "random1", "random2", "random3", "random4"})},
      {{"sja.cor9", "basis"}, seq({"lemma3", "gram-schmidt"})},
      {{"sja.lemma12", "setting"},
       seq({"quad-fixed-w", "quad-avg-w", "quad-avg-w-random-gamma", "lin-avg-w", "lin-fixed-w", "quad-raw"}, 1)},
      {{"sja.sec42", "stack"}, seq({"sparse", "dense", "sparse-row-writing"})},
      {{"sja.fig3", "test"}, seq({"slope", "r2"}, 1)},
      {{"xlssc.onelayer", "act"}, seq({"linear", "softmax"})},
      {{"zfb.shift", "scenario"}, seq({"scale-half", "scale-two", "exp-fixed-query", "exp-drawn-query"})},
      {{"zfb.thm4", "cov"}, seq({"isotropic", "diag-k10", "rot-k10", "rot-k30", "rot-k100"})},
      {{"zfb.thm4", "theta"}, seq({"gauss-a", "gauss-b", "rank-one"})},
      {{"zfb.thm5", "task"}, seq({"noiseless", "noisy", "quadratic", "random-w"})},
      {{"zfb.thm8", "dist"}, seq({"exp", "gamma", "uniform", "lognormal", "mixed", "mixed-scaled"})},
      {{"zfb.thm8", "theta"}, seq({"gauss-a", "gauss-b", "rank-one", "gauss-c", "gauss-d"})},
  };
  return t;
}

}  // namespace

const std::vector<std::pair<double, std::string>>& param_value_names(const std::string& claim, const std::string& param) {
  static const Names none;
  const auto& t = table();
  const auto it = t.find({claim, param});
  return it == t.end() ? none : it->second;
}

std::string param_value_name(const std::string& claim, const std::string& param, double value) {
  for (const auto& [v, n] : param_value_names(claim, param))
    if (v == value) return n;
  return "";
}

std::optional<double> param_value_from_name(const std::string& claim, const std::string& param, const std::string& name) {
  for (const auto& [v, n] : param_value_names(claim, param))
    if (n == name) return v;
  return std::nullopt;
}

}  // namespace icl
