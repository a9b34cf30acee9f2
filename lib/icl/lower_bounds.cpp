#include "icl/lower_bounds.hpp"

#include <algorithm>

namespace icl {

double projection_infimum(const Eigen::MatrixXd& C, int rank) {
  const Eigen::Index m = C.rows();
  if (rank >= m) return 0.0;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(0.5 * (C + C.transpose()));
  const Eigen::VectorXd ev = es.eigenvalues();  // ascending
  return ev.head(m - std::max(rank, 0)).sum();
}

namespace {
Eigen::MatrixXd cross_moments(const GaussianIclModel& model, const std::vector<Poly>& a, const std::vector<Poly>& b) {
  std::vector<FlatPoly> fa, fb;
  for (const auto& p : a) fa.emplace_back(model.compose(p));
  for (const auto& p : b) fb.emplace_back(model.compose(p));
  Eigen::MatrixXd M(fa.size(), fb.size());
  for (std::size_t i = 0; i < fa.size(); ++i)
    for (std::size_t j = 0; j < fb.size(); ++j) M(i, j) = expect_product(fa[i], fb[j]);
  return M;
}
}  // namespace

Eigen::MatrixXd projection_matrix_B(const GaussianIclModel& model, const std::vector<Poly>& v) {
  return cross_moments(model, v, model.basis);
}

Eigen::MatrixXd coefficient_covariance(const GaussianIclModel& model, const std::vector<Poly>& v) {
  const Eigen::MatrixXd B = projection_matrix_B(model, v);
  return B * B.transpose();
}

Eigen::MatrixXd feature_projection(const GaussianIclModel& model, const std::vector<Poly>& v,
                                   const std::vector<Poly>& features) {
  return cross_moments(model, v, features);
}

int numerical_rank(const Eigen::MatrixXd& U, double rel_tol) {
  if (U.size() == 0) return 0;
  Eigen::JacobiSVD<Eigen::MatrixXd> svd(U);
  const Eigen::VectorXd s = svd.singularValues();
  if (s.size() == 0 || s[0] == 0) return 0;
  int r = 0;
  for (Eigen::Index i = 0; i < s.size(); ++i)
    if (s[i] > rel_tol * s[0]) ++r;
  return r;
}

double projected_residual(const Eigen::MatrixXd& C, const Eigen::MatrixXd& U) {
  const Eigen::Index m = C.rows();
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(m, m);
  const int r = numerical_rank(U);
  if (r > 0) {
    Eigen::JacobiSVD<Eigen::MatrixXd> svd(U, Eigen::ComputeThinU);
    const Eigen::MatrixXd Q = svd.matrixU().leftCols(r);
    P = Q * Q.transpose();
  }
  return ((Eigen::MatrixXd::Identity(m, m) - P) * C).trace();
}

}  // namespace icl

#include "constructions/sja_appC.hpp"
#include "icl/conditional_loss.hpp"
#include "icl/montecarlo.hpp"
#include "icl/optimal_attention.hpp"

namespace icl {

BlockEvaluation evaluate_block(const ClaimContext& ctx, double alpha, const GaussianIclModel& model,
                               const std::vector<Poly>& v, const Eigen::MatrixXd& C, const BilinearLayer& layer, int d,
                               int n, double stated, const std::string& tag, const Tolerance& bound_tol) {
  BlockEvaluation e;
  e.dbar = static_cast<int>(layer.W0.rows());
  const auto feats = bilinear_features(layer, d, e.dbar);
  const Eigen::MatrixXd U = feature_projection(model, v, feats);
  e.projected_dim = numerical_rank(U);
  e.limit = projected_residual(C, U);
  const FeatureMoments fm = model_feature_moments(model, feats);
  e.gamma = optimal_sparse_gamma(fm, n);
  e.exact_loss = sparse_lsa_loss(fm, e.gamma, n);

  Transformer features, attention;
  features.layers.emplace_back(layer);
  attention.layers.emplace_back(sja::sparse_attention(e.gamma));
  const Eigen::MatrixXd Psi = query_moment_matrix(model, feats);
  const PromptShape shape = sja_shape(d, e.dbar, n);
  const std::uint64_t purpose = ctx.purpose(tag);
  const Tolerance eq_tol{0.03, 0.0};
  const auto looks = sequential_looks(2048, ctx.samples);
  e.looks_planned = looks.size();
  const double alpha_look = alpha / 2.0 / static_cast<double>(looks.size());
  MonteCarlo mc(QueryConditionalWorker::dims, ctx.threads);
  for (std::uint64_t N : looks) {
    mc.extend_to(N, [&] { return QueryConditionalWorker(features, attention, model, Psi, shape, ctx.seed, purpose); });
    ++e.looks_used;
    const Accumulator tot = mc.total();
    e.mc = make_estimate(tot, 1, 1 - alpha_look);
    e.mc_plain = make_estimate(tot, 0, 1 - alpha_look);
    e.linearity_rms = std::sqrt(tot.mean[2]);
    e.mc_vs_stated = judge_mc_lower_bound(e.mc, stated, bound_tol, alpha_look);
    e.mc_vs_exact = judge_mc_equal(e.mc, e.exact_loss, eq_tol, alpha_look);
    if (e.mc_vs_stated.verdict != Verdict::inconclusive && e.mc_vs_exact.verdict == Verdict::confirmed &&
        mc.samples() >= 8192)
      break;
  }
  return e;
}

nlohmann::ordered_json layer_json(const BilinearLayer& layer) {
  nlohmann::ordered_json j;
  j["W0"] = quantity_matrix(layer.W0)["matrix"];
  j["W1"] = quantity_matrix(layer.W1)["matrix"];
  return j;
}

}  // namespace icl
