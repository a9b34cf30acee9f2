#include "constructions/sja_cor10.hpp"

#include "icl/verdict/mutation.hpp"

#include "constructions/sja_appG.hpp"
#include "constructions/sja_bcd_reference.hpp"
#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace icl::sja {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kW0{"sja.cor10/W0", "sja.cor10", "the feature-network bilinear layers, W0", true};
const MutationSite kW1{"sja.cor10/W1", "sja.cor10", "the feature-network bilinear layers, W1", true};

Polynomial<double> abs_poly(const Polynomial<double>& p) {
  Polynomial<double> r(p.nvars());
  for (const auto& [e, c] : p.terms()) r += Polynomial<double>::monomial(e, std::abs(c));
  return r;
}
}  // namespace

BilinearLayer FeatureNetwork::layer(std::size_t l) const {
  const int w = width();
  if (A0.at(l).rows() != h || A0.at(l).cols() != w || A1.at(l).rows() != h || A1.at(l).cols() != w)
    throw std::invalid_argument("FeatureNetwork: A0, A1 must be h x (1 + d + h)");
  BilinearLayer b;
  b.W0 = Eigen::MatrixXd::Zero(w, w);
  b.W1 = Eigen::MatrixXd::Zero(w, w);
  b.W0.bottomRows(h) = A0[l];
  b.W1.bottomRows(h) = A1[l];
  b.W0 = kW0(b.W0);
  b.W1 = kW1(b.W1);
  return b;
}

Transformer cor10_stack(const FeatureNetwork& net, const std::vector<Eigen::MatrixXd>& Gammas) {
  if (Gammas.size() != net.A0.size()) throw std::invalid_argument("cor10_stack: one Gamma per network layer");
  Transformer t;
  for (std::size_t l = 0; l < Gammas.size(); ++l) {
    t.layers.emplace_back(net.layer(l));
    t.layers.emplace_back(appG_attention(Gammas[l]));
  }
  return t;
}

Cor10Setup cor10_setup(int d, int h, int L, int n, std::uint64_t seed, std::uint64_t purpose) {
  Cor10Setup s{d, h, L, n, d + h + 1, {}, {}, {}, {}, 0};
  s.net.d = d;
  s.net.h = h;
  PromptRng rng(seed, purpose ^ 0xc0f10, 0);
  const double c = 0.5 / std::sqrt(static_cast<double>(s.w));
  for (int l = 0; l < L; ++l) {
    Eigen::MatrixXd a0(h, s.w), a1(h, s.w);
    rng.fill_normal(a0);
    rng.fill_normal(a1);
    s.net.A0.push_back(c * a0);
    s.net.A1.push_back(c * a1);
  }
  auto rows = sja_feature_rows<double>(d, s.w);
  for (int l = 0; l < L; ++l) {
    apply_symbolic(s.net.layer(static_cast<std::size_t>(l)), rows);
    s.act.push_back(rows);
    std::vector<Polynomial<double>> ab;
    for (const auto& r : rows) {
      ab.push_back(abs_poly(r));
      s.degree = std::max(s.degree, r.degree());
    }
    s.act_abs.push_back(ab);
  }
  // Lambda_l from 4096 fixed inputs (any Gamma makes the identity hold; this one is a sensible scale).
  const int samples = 4096;
  std::vector<Eigen::MatrixXd> lam(static_cast<std::size_t>(L), Eigen::MatrixXd::Zero(s.w, s.w));
  Eigen::VectorXd x(d), u(s.w);
  for (int k = 0; k < samples; ++k) {
    PromptRng r2(seed, purpose ^ 0x1a3bd, static_cast<std::uint64_t>(k));
    r2.fill_normal(x);
    for (int l = 0; l < L; ++l) {
      for (int r = 0; r < s.w; ++r) u[r] = s.act[static_cast<std::size_t>(l)][static_cast<std::size_t>(r)].evaluate(x.data());
      lam[static_cast<std::size_t>(l)] += u * u.transpose() / samples;
    }
  }
  // Ridge 1e-3 tr(Lambda)/w: activations of one variable can be nearly collinear, and an ill-conditioned
  // preconditioner only measures floating-point cancellation, not the construction.
  for (const auto& m : lam) {
    const Eigen::MatrixXd reg = m + 1e-3 * m.trace() / s.w * Eigen::MatrixXd::Identity(s.w, s.w);
    s.neg_lambda_inv.push_back(-reg.inverse());
  }
  return s;
}

Cor10Prompt cor10_check_prompt(const Cor10Setup& s, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i) {
  using E = Cor10Prompt;
  Cor10Prompt o;
  const int d = s.d, n = s.n, L = s.L, w = s.w, m = L * w;
  PromptRng rng(seed, purpose, i);
  std::vector<Eigen::MatrixXd> Gam;
  for (int l = 0; l < L; ++l) {
    Eigen::MatrixXd G(w, w);
    rng.fill_normal(G);
    const Eigen::MatrixXd& base = s.neg_lambda_inv[static_cast<std::size_t>(l)];
    Gam.push_back(i % 2 == 0 ? base : Eigen::MatrixXd(0.5 * base.norm() / w * G));
  }
  Eigen::MatrixXd X(d, n + 1);
  rng.fill_normal(X);
  // Features of every column, from the polynomials: block l = (1, x, h^(l)) at rows l*w .. l*w + w - 1.
  MatrixS<long double> Phi(m, n + 1), PhiAbs(m, n + 1);
  for (int c = 0; c <= n; ++c)
    for (int l = 0; l < L; ++l)
      for (int r = 0; r < w; ++r) {
        Eigen::VectorXd xa = X.col(c).cwiseAbs();
        Phi(l * w + r, c) = s.act[static_cast<std::size_t>(l)][static_cast<std::size_t>(r)].evaluate(X.col(c).data());
        PhiAbs(l * w + r, c) = s.act_abs[static_cast<std::size_t>(l)][static_cast<std::size_t>(r)].evaluate(xa.data());
      }
  Eigen::VectorXd wt(m);
  rng.fill_normal(wt);
  Eigen::RowVectorXd y(n + 1), noise(n + 1);
  rng.fill_normal(noise);
  y = (Phi.cast<double>().transpose() * wt).transpose() / std::sqrt(static_cast<double>(m)) + noise;
  y[n] = 0;
  const PromptShape shape = sja_shape(d, w, n);
  Eigen::MatrixXd Z(shape.rows(), shape.cols());
  embed(shape, X, y, Z);

  std::vector<BlockStep> steps;
  for (int l = 0; l < L; ++l) {
    std::vector<int> block;
    for (int r = 0; r < w; ++r) block.push_back(l * w + r);
    steps.push_back({block, -Gam[static_cast<std::size_t>(l)].transpose()});
  }
  const BcdReference ref(Phi, Phi.cast<double>(), y, n, steps, PhiAbs);
  if (ref.leaves_double_range(kDoubleRangeTerm)) {
    o.out_of_range = true;
    return o;
  }

  const Transformer model = cor10_stack(s.net, Gam);
  ForwardWorkspace ws;
  Eigen::MatrixXd prev = Z;
  std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> observe =
      [&](int k, const Eigen::Ref<const Eigen::MatrixXd>& Zk) {
        const int l = (k - 1) / 2;
        o.err[E::kTop] = std::max(o.err[E::kTop], (Zk.topRows(d + 1) - Z.topRows(d + 1)).cwiseAbs().maxCoeff());
        if (k % 2 == 1) {
          for (int c = 0; c <= n; ++c)
            for (int r = d + 1; r < w; ++r)
              o.err[E::kHidden] =
                  std::max(o.err[E::kHidden], scaled_error(Zk(r, c), static_cast<double>(Phi(l * w + r, c)),
                                                           static_cast<double>(PhiAbs(l * w + r, c))));
          o.err[E::kTop] = std::max(o.err[E::kTop], (Zk.row(w) - prev.row(w)).cwiseAbs().maxCoeff());
        } else {
          o.err[E::kTop] =
              std::max(o.err[E::kTop], (Zk.middleRows(d + 1, s.h) - prev.middleRows(d + 1, s.h)).cwiseAbs().maxCoeff());
          const Eigen::RowVectorXd z = Zk.row(w);
          o.err[E::kLabels] = std::max(o.err[E::kLabels], ref.label_error(z, static_cast<std::size_t>(l + 1)));
          o.err[E::kRefSelf] = std::max(o.err[E::kRefSelf], ref.self_error(static_cast<std::size_t>(l + 1)));
        }
        prev = Zk;
      };
  // Z is used above as the input's (1, x) rows: run on a copy.
  Eigen::MatrixXd Zrun = Z;
  model.forward(Zrun, ws, &observe);
  o.forward = prediction(Zrun);
  o.reference = ref.final_query();
  o.err[E::kQueryPlain] = scaled_error(o.forward, o.reference, std::abs(o.reference));
  return o;
}

void cor10_quantities(CaseJson& j, const Cor10Setup& s, const WorstCase& wc, const Cor10Prompt& at) {
  using E = Cor10Prompt;
  j.quantity("stated", at.reference).quantity("exact", at.forward).quantity("max_rel_error", wc.worst[E::kLabels]);
  j.quantity("max_hidden_error", wc.worst[E::kHidden]).quantity("max_carried_row_change", wc.worst[E::kTop]);
  j.quantity("max_rel_error_query", wc.worst[E::kQueryPlain]).quantity("reference_self_error", wc.worst[E::kRefSelf]);
  j.quantity("feature_degree", s.degree).quantity("prompts", static_cast<double>(wc.prompts));
  j.quantity("prompts_out_of_double_range", static_cast<double>(wc.set_aside));
}

WorstCase cor10_check_case(const ClaimContext& ctx, const Case& c, CaseJson& j) {
  const std::uint64_t purpose = ctx.purpose(c.label());
  const Cor10Setup s = cor10_setup(c.geti("d"), c.geti("h"), c.geti("L"), c.geti("n"), ctx.seed, purpose);
  const auto [wc, at] = worst_prompts(std::max<std::uint64_t>(ctx.samples, 2), ctx.threads,
                                      [&](std::uint64_t i) { return cor10_check_prompt(s, ctx.seed, purpose, i); },
                                      Cor10Prompt::kLabels);  // and the worst label prompt again
  cor10_quantities(j, s, wc, at);
  return wc;
}

}  // namespace icl::sja
