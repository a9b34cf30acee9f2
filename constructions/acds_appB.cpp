#include "constructions/acds_appB.hpp"

#include "constructions/acds_forms.hpp"

#include <fmt/format.h>

#include <utility>
#include <vector>

namespace icl::acds {

StartsMinimum search_pairs(const AcdsPopulation& pop, const learn::Parameterisation& p, int starts,
                           const ClaimContext& ctx, const std::string& tag) {
  const learn::Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& t, Eigen::VectorXd& g) {
    return learn::acds_exact_loss(pop, p, t, &g);
  };
  std::vector<std::pair<std::string, Eigen::VectorXd>> s;
  for (int k = 0; k < starts; ++k)
    s.emplace_back(k == 0 ? std::string("zero") : fmt::format("random N(0, 0.5^2) #{}", k),
                   k == 0 ? Eigen::VectorXd::Zero(p.size())
                          : learn::normal_theta(p, 0.5, ctx.seed, ctx.purpose(tag + fmt::format("/{}", k))));
  return minimize_from_starts(f, std::move(s), StartsOptions{}, ctx.seed, ctx.purpose(tag + "/search"));
}

}  // namespace icl::acds
