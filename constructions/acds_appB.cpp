#include "constructions/acds_appB.hpp"

#include "constructions/acds_forms.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <utility>
#include <vector>

namespace icl::acds {

StartsMinimum search_pairs(const AcdsPopulation& pop, const icl::Parameterisation& p, int starts,
                           const ClaimContext& ctx, const std::string& tag) {
  const learn::Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& t, Eigen::VectorXd& g) {
    return learn::acds_exact_loss(pop, p, t, &g);
  };
  std::vector<std::pair<std::string, Eigen::VectorXd>> s;
  for (int k = 0; k < starts; ++k)
    s.emplace_back(k == 0 ? std::string("zero") : fmt::format("random N(0, 0.5^2) #{}", k),
                   k == 0 ? Eigen::VectorXd::Zero(p.size())
                          : icl::normal_theta(p, 0.5, ctx.seed, ctx.purpose(tag + fmt::format("/{}", k))));
  return minimize_from_starts(f, std::move(s), StartsOptions{}, ctx.seed, ctx.purpose(tag + "/search"));
}

family_argmin::Searches search_symmetric_and_diagonal(const ClaimContext& ctx, int d, int n, int starts,
                                                      const std::string& label) {
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  const AcdsPopulation pop(I, I, n, 2, false);
  const icl::Parameterisation sym = learn::acds_form8(d, 2, true), diag = learn::acds_form8_diagonal(d, 2);
  family_argmin::Searches f;
  f.general = search_pairs(pop, sym, starts, ctx, label + "/symmetric");
  f.restricted = search_pairs(pop, diag, starts, ctx, label + "/diagonal");
  f.model = GaussianIclModel::from_task(PolynomialTask::linear(d), I);
  f.shape = acds_shape(d, n);
  f.restricted_network = [diag](const Eigen::VectorXd& theta) { return diag.network(theta); };
  return f;
}

PairShape pair_shape(const Eigen::MatrixXd& A1, const Eigen::MatrixXd& A2) {
  const int d = static_cast<int>(A1.rows());
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  PairShape p;
  p.A1 = A1;
  p.A2 = A2;
  p.commutator = (A1 * A2 - A2 * A1).norm() / (A1.norm() * A2.norm());
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(A1);
  const Eigen::MatrixXd R2 = es.eigenvectors().transpose() * A2 * es.eigenvectors();
  p.offdiagonal = (R2 - Eigen::MatrixXd(R2.diagonal().asDiagonal())).norm() / R2.norm();
  auto scalar_res = [&](const Eigen::MatrixXd& A) { return (A - A.trace() / d * I).norm() / A.norm(); };
  p.scalar_residual = std::max(scalar_res(A1), scalar_res(A2));
  return p;
}

PairShape best_pairs(int d, const family_argmin::Searches& f, bool searched) {
  const Eigen::MatrixXd I = Eigen::MatrixXd::Identity(d, d);
  const icl::Parameterisation sym = learn::acds_form8(d, 2, true), diag = learn::acds_form8_diagonal(d, 2);
  auto best = [&](const icl::Parameterisation& p, const StartsMinimum& s, const std::string& A) {
    return searched ? p.group_matrix(A, s.best.theta) : Eigen::MatrixXd(I * NAN);
  };
  PairShape p = pair_shape(best(sym, f.general, "A_0"), best(sym, f.general, "A_1"));
  p.diagonal_A1 = best(diag, f.restricted, "A_0");
  p.diagonal_A2 = best(diag, f.restricted, "A_1");
  return p;
}

family_argmin::Look pair_look(const PairShape& p) {
  family_argmin::Look l;
  l.sentence = fmt::format("Best symmetric pair: commutator {:.1e}, off-diagonal mass in A_1's eigenbasis {:.1e}, "
                           "distance from multiples of I {:.1e}", p.commutator, p.offdiagonal, p.scalar_residual);
  l.quantities = [p](CaseJson& j) {
    j.quantity("commutator", p.commutator).quantity("offdiagonal_in_eigenbasis", p.offdiagonal);
    j.quantity("scalar_residual", p.scalar_residual).quantity("best_A1", p.A1).quantity("best_A2", p.A2);
    j.quantity("diagonal_A1", p.diagonal_A1).quantity("diagonal_A2", p.diagonal_A2);
  };
  l.tallied = p.scalar_residual;
  return l;
}

}  // namespace icl::acds
