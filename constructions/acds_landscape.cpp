#include "constructions/acds_landscape.hpp"

#include "constructions/acds_forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/montecarlo/prompt_loss.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::acds_landscape {

namespace {

double full_gradient(const AcdsPopulation& pop, const Point& x, bool form11, double* loss, Point* g = nullptr) {
  std::vector<Eigen::MatrixXd> gA, gB;
  const double v = pop.loss_and_gradient(x.A, x.B, gA, gB);
  if (loss) *loss = v;
  double s = 0;
  for (const auto& m : gA) s += m.squaredNorm();
  if (form11)
    for (const auto& m : gB) s += m.squaredNorm();
  if (g) {
    g->A = gA;
    g->B = gB;
  }
  return std::sqrt(s);
}

Eigen::MatrixXd normal_matrix(PromptRng& rng, int d) {
  Eigen::MatrixXd m(d, d);
  rng.fill_normal(m);
  return m;
}

}  // namespace

CaseSetting::CaseSetting(const Case& c, bool form11_)
    : d(c.geti("d")), L(c.geti("L")), n(c.geti("n")), cov(c.geti("cov")), form11(form11_), sigma(test_covariance(d, cov)),
      sigma_inv(sigma.inverse()), I(Eigen::MatrixXd::Identity(d, d)), pop(sigma, sigma_inv, n, L, form11),
      fam(learn::acds_family(d, L, sigma_inv, form11)), reduced(d, n, L, form11), tag(c.label()) {}

Point CaseSetting::point(const Eigen::VectorXd& t) const {
  Point x;
  for (int l = 0; l < L; ++l) {
    x.A.push_back(fam.group_matrix(fmt::format("A_{}", l), t));
    x.B.push_back(form11 ? fam.group_matrix(fmt::format("B_{}", l), t) : Eigen::MatrixXd::Zero(d, d));
  }
  return x;
}

std::string CaseSetting::coefficients_text(const Eigen::VectorXd& th) const {
  std::string ab;
  for (int l = 0; l < L; ++l) {
    ab += fmt::format("{}a_{} = {:.10g}", l ? ", " : "", l, form11 ? th[2 * l] : th[l]);
    if (form11) ab += fmt::format(", b_{} = {:.10g}", l, th[2 * l + 1]);
  }
  return ab;
}

Eigen::MatrixXd CaseSetting::coefficients(const Eigen::VectorXd& th) const {
  Eigen::MatrixXd coeffs(form11 ? 2 : 1, L);
  for (int l = 0; l < L; ++l) {
    coeffs(0, l) = form11 ? th[2 * l] : th[l];
    if (form11) coeffs(1, l) = th[2 * l + 1];
  }
  return coeffs;
}

stationary::Gradients exact_gradients(const CaseSetting& cs, const stationary::Settings& s, const Eigen::VectorXd& th,
                                      std::uint64_t seed, std::uint64_t purpose) {
  const int d = cs.d, L = cs.L;
  const bool form11 = cs.form11;
  stationary::Gradients gr;
  // The full gradient over every entry of every trainable matrix at the point found.
  const Point star = cs.point(th);
  Point g_star;
  gr.G_star = full_gradient(cs.pop, star, form11, &gr.loss_engine, &g_star);
  // The family derivative from the engine's full gradient: d f / d a_l = <grad_{A_l} f, Sigma^-1>, etc.
  gr.g_family_engine.resize(cs.fam.size());
  for (int l = 0; l < L; ++l) {
    gr.g_family_engine[form11 ? 2 * l : l] = g_star.A[l].cwiseProduct(cs.sigma_inv).sum();
    if (form11) gr.g_family_engine[2 * l + 1] = g_star.B[l].trace();
  }

  // The scale: the exact full gradient at the zero network (A_i = 0, B_i = 0), where the loss is E[y^2] = d
  // and, to first order, grad_{A_i} f = -2 E[S] Sigma_w Sigma = -2 Sigma: a scale that follows Sigma (a random
  // point does not: at kappa = 100 its gradient swings over ten orders of magnitude with the draw).
  auto scale_of = [](const Eigen::MatrixXd& m) { return std::max(m.norm(), 1e-3); };
  Point zero;
  for (int l = 0; l < L; ++l) {
    zero.A.push_back(Eigen::MatrixXd::Zero(d, d));
    zero.B.push_back(Eigen::MatrixXd::Zero(d, d));
  }
  gr.G_ref = full_gradient(cs.pop, zero, form11, nullptr);
  gr.relative = gr.G_star / gr.G_ref;

  // Controls. Off the family: every matrix moved by `perturbation` of its norm in a random direction (the check must
  // see the gradient there). On the family but off the stationary point: a_l -> 1.1 a_l (and b_l), where the full
  // gradient must be nonzero and, by the symmetry, c_l Sigma (A) and d_l I (B).
  Point off = star;
  {
    PromptRng rng(seed, purpose, 0);
    for (int l = 0; l < L; ++l) {
      const Eigen::MatrixXd R = normal_matrix(rng, d);
      off.A[l] += s.perturbation * scale_of(star.A[l]) / R.norm() * R;
      if (form11) {
        const Eigen::MatrixXd Rb = normal_matrix(rng, d);
        off.B[l] += s.perturbation * scale_of(star.B[l]) / Rb.norm() * Rb;
      }
    }
  }
  const double G_off = full_gradient(cs.pop, off, form11, nullptr);
  gr.off_relative = G_off / gr.G_ref;
  if (s.on_family_control) {
    Point g_on;
    const double G_on = full_gradient(cs.pop, cs.point(1.1 * th), form11, nullptr, &g_on);
    gr.on_relative = G_on / gr.G_ref;
    // Residual of each gradient block outside span{Sigma} (A) / span{I} (B), relative to the block.
    double res2 = 0, tot2 = 0;
    auto project = [&](const Eigen::MatrixXd& G, const Eigen::MatrixXd& dir) {
      const double c = G.cwiseProduct(dir).sum() / dir.squaredNorm();
      res2 += (G - c * dir).squaredNorm();
      tot2 += G.squaredNorm();
    };
    for (int l = 0; l < L; ++l) {
      project(g_on.A[l], cs.sigma);
      if (form11 && l + 1 < L) project(g_on.B[l], cs.I);
    }
    gr.direction_residual = std::sqrt(res2 / tot2);
  }
  return gr;
}

EqualityOutcome mc_loss_check(const ClaimContext& ctx, const CaseSetting& cs, double mc_tolerance, const Eigen::VectorXd& th,
                              double loss_engine, double alpha_case) {
  const GaussianIclModel model = inverse_weight_model(cs.sigma);
  const Transformer net = cs.fam.network(th);
  const PromptShape shape = acds_shape(cs.d, cs.n);
  const std::uint64_t purpose = ctx.purpose(cs.tag + "/mc");
  const Tolerance tol{mc_tolerance, 0.0};
  const Transformer no_features;
  std::vector<Poly> u;
  for (int k = 0; k < cs.d; ++k) u.push_back(Poly::variable(cs.d, k));
  const Eigen::MatrixXd Psi = query_moment_matrix(model, u);
  auto make_worker = [&] { return QueryConditionalWorker(no_features, net, model, Psi, shape, ctx.seed, purpose); };
  return sequential_equality(ctx, alpha_case, loss_engine, loss_engine, tol, Tolerance{1e-9, 1e-12},
                             QueryConditionalWorker::dims, 1, std::min<std::uint64_t>(ctx.samples, 32768), make_worker,
                             std::min<std::uint64_t>(ctx.samples, 32768),
                             /*until_exact_decided=*/true, /*max_samples=*/4 * ctx.samples);
}

}  // namespace icl::acds_landscape
