#include "constructions/acds_appD.hpp"

#include "constructions/acds_forms.hpp"
#include "icl/exact/acds_family_loss.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/prompts.hpp"
#include "icl/model/prompt.hpp"
#include "icl/learn/optimizers.hpp"
#include "icl/montecarlo/montecarlo.hpp"

#include <fmt/format.h>

#include <cmath>
#include <set>
#include <memory>

namespace icl::acds_exp {

std::vector<double> appD_eta_grid() {
  std::vector<double> g;
  for (int k = 0; k <= 80; ++k) g.push_back(0.01 * std::pow(300.0, k / 80.0));
  return g;
}

Baselines appD_baselines(const ClaimContext& ctx, int n, int L, const std::string& tag, const learn::PromptSource& source,
                         const learn::Parameterisation& gdp) {
  const int d = 5;
  const std::vector<double> grid = appD_eta_grid();
  Baselines b;
  const ReducedFamilyLoss fam(d, n, L, false);
  Eigen::VectorXd g;
  for (double eta : grid) {
    const double l = fam(Eigen::VectorXd::Constant(L, eta), g);
    if (l < b.pre_exact) b.pre_exact = l, b.pre_eta = eta;
  }
  {
    const learn::Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& th, Eigen::VectorXd& gr) { return fam(th, gr); };
    learn::LbfgsOptions lo;
    lo.max_iterations = 300;
    b.per_step = learn::minimize_lbfgs(f, Eigen::VectorXd::Constant(L, b.pre_eta), lo).loss;
  }
  double gd_sel = INFINITY;
  for (double eta : grid) {
    const Estimate e = learn::mc_loss(gdp.network(Eigen::VectorXd::Constant(L, eta)), source, learn::LossSpec::acds(),
                                      ctx.seed, ctx.purpose(tag + "/gd-select"), 2048, ctx.threads);
    if (e.mean < gd_sel) gd_sel = e.mean, b.gd_eta = eta;
  }
  return b;
}

PairedTest appD_paired_test(const ClaimContext& ctx, int n, const std::string& tag, const learn::PromptSource& source,
                            const learn::Network (&nets)[3], double alpha) {
  const int d = 5;
  const std::uint64_t test_purpose = ctx.purpose(tag + "/test");
  MonteCarlo mc(5, ctx.threads);
  mc.extend_to(ctx.samples, [&] {
    return [&, draw = source.make_drawer(), tape = std::make_shared<learn::Tape>(),
            Z = std::make_shared<Eigen::MatrixXd>(source.rows, source.cols)](std::uint64_t i, double* out) {
      const double yq = draw(ctx.seed, test_purpose, i, *Z);
      const learn::LossSpec loss = learn::LossSpec::acds();
      for (int k = 0; k < 3; ++k) out[k] = loss(learn::forward(nets[k], *Z, *tape), yq);
      const Eigen::MatrixXd X = Z->topLeftCorner(d, n);
      const Eigen::VectorXd y = Z->row(d).head(n).transpose();
      const Eigen::VectorXd w = X.transpose().completeOrthogonalDecomposition().solve(y);
      const double e = w.dot(Z->col(n).head(d)) - yq;
      out[3] = e * e;
      out[4] = out[0] - out[1];
    };
  });
  const Accumulator acc = mc.total();
  return {make_estimate(acc, 0, 1 - alpha), make_estimate(acc, 1, 1 - alpha), make_estimate(acc, 2, 1 - alpha),
          make_estimate(acc, 3, 1 - alpha), make_estimate(acc, 4, 1 - alpha)};
}

AppDGrid appD_grid(const ClaimContext& ctx) {
  AppDGrid gr;
  std::set<int> ns, Ls;
  for (const auto& c : ctx.cases) {
    ns.insert(c.geti("n"));
    Ls.insert(c.geti("L"));
    gr.steps = c.geti("steps");
    gr.batch = c.geti("batch");
    gr.lr = c.get("lr");
  }
  for (int n : ns) gr.points.push_back({n, 3, "a"});
  for (int L : Ls) gr.points.push_back({20, L, "b"});
  return gr;
}

void appD_point(const ClaimContext& ctx, const AppDPoint& pt, const AppDGrid& gr, double alpha, RunOutcome& o,
                Baselines& b, PairedTest& m) {
  const int d = 5;
  const std::string tag = fmt::format("n={}, L={}", pt.n, pt.L);
  RunSettings s;
  s.n = pt.n;
  s.L = pt.L;
  s.steps = gr.steps;
  s.batch = static_cast<std::uint64_t>(gr.batch);
  s.learning_rate = gr.lr;
  s.lr_decay_every = gr.steps / 4;
  s.test_samples = 256;  // the paired test replaces the per-run estimate
  o = train_run(ctx, tag, 0, s, 1 - alpha);

  const GaussianIclModel model = inverse_weight_model(o.sigma);
  const learn::PromptSource source = learn::gaussian_prompts(model, acds_shape(d, pt.n));
  const learn::Parameterisation gdp = learn::acds_family(d, pt.L, Eigen::MatrixXd::Identity(d, d), false);
  const learn::Parameterisation prep = learn::acds_family(d, pt.L, o.sigma.inverse(), false);
  b = appD_baselines(ctx, pt.n, pt.L, tag, source, gdp);
  const learn::Parameterisation tp = learn::acds_form8(d, pt.L);
  const learn::Network nets[3] = {tp.network(o.result.theta), prep.network(Eigen::VectorXd::Constant(pt.L, b.pre_eta)),
                                  gdp.network(Eigen::VectorXd::Constant(pt.L, b.gd_eta))};
  m = appD_paired_test(ctx, pt.n, tag, source, nets, alpha);
}

}  // namespace icl::acds_exp
