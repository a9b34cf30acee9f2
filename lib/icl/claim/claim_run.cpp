#include "icl/claim/claim_run.hpp"

#include "icl/verdict/quantities.hpp"

#include <algorithm>
#include <utility>
#include <vector>

namespace icl {

ClaimRun::ClaimRun(const ClaimContext& ctx, std::size_t total)
    : ctx_(ctx), total_(total ? total : ctx.cases.size()) {}

double ClaimRun::split_alpha(std::size_t families) {
  families_ = std::max<std::size_t>(families, 1);
  return ctx_.alpha / static_cast<double>(families_);
}

void ClaimRun::note_looks(std::size_t looks) { looks_ = std::max(looks_, looks); }

void ClaimRun::error_rates(const Tolerance& tol) {
  res_.extra["error_rates"] = error_rates_json(ctx_.alpha, families_, looks_, tol);
}

void ClaimRun::error_rates(nlohmann::ordered_json block) { res_.extra["error_rates"] = std::move(block); }

void ClaimRun::judge_cases(const std::function<std::string(const Case&)>& skip,
                           const std::function<void(const Case&, double alpha_case)>& judge) {
  std::vector<std::string> why;  // each case's skip reason, asked once
  for (const auto& c : ctx_.cases) why.push_back(skip(c));
  judged_ = static_cast<std::size_t>(std::count(why.begin(), why.end(), std::string()));
  const double alpha_case = split_alpha(judged_);
  for (std::size_t i = 0; i < ctx_.cases.size(); ++i) {
    const Case& c = ctx_.cases[i];
    if (!why[i].empty()) {
      skipped_.push_back(c.label() + ": " + why[i]);
      step();
      continue;
    }
    judge(c, alpha_case);
  }
}

void ClaimRun::error_rates_over_judged(const Tolerance& tol) {
  error_rates(error_rates_json(ctx_.alpha, judged_, looks_, tol));
  if (!skipped_.empty()) res_.extra["skipped"] = skipped_;
}

void ClaimRun::add_case(CaseJson& j) { add_case(j.take()); }

void ClaimRun::add_case(nlohmann::ordered_json j) {
  res_.cases.push_back(std::move(j));
  step();
}

void ClaimRun::add_uncounted_case(CaseJson& j) { res_.cases.push_back(j.take()); }

void ClaimRun::step() {
  ++done_;
  if (ctx_.progress) ctx_.progress(done_, std::max(total_, done_));
}

void ClaimRun::finding(std::string sentence) { findings_.push_back(std::move(sentence)); }

Verdict ClaimRun::verdict() const { return claim_verdict(ctx_, res_); }

ClaimResult ClaimRun::finish(const std::function<std::string(Verdict)>& summary) {
  res_.summary = summary(verdict());
  if (!findings_.empty()) res_.extra["findings"] = std::move(findings_);
  findings_ = nlohmann::ordered_json::array();
  return std::move(res_);
}

}  // namespace icl
