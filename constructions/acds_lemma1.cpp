#include "constructions/acds_lemma1.hpp"

#include "icl/exact/block_coordinate_descent.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/worst_case.hpp"
#include "icl/verdict/mutation.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <functional>
#include <stdexcept>

namespace icl::acds {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kP{"acds.eq8/P", "acds.lemma1", "P = [0 0; 0 1] of the sparse form (8)", true};
const MutationSite kQ{"acds.eq8/Q", "acds.lemma1", "Q = -[A 0; 0 0] of the sparse form (8)", true};

const char* kFamilies[3] = {"x ~ N(0, I), |A| ~ 1/sqrt(d)", "x ~ N(0, 1e6 I), A scaled by 1e-6",
                            "x ~ N(0, 900 I), A unscaled (iterates grow)"};

// Errors of one layer's label row against -<x, w> (query) and y_i - <x_i, w> (context).
double label_row_error(const Eigen::MatrixXd& Z, const Eigen::MatrixXd& X, const Eigen::RowVectorXd& y,
                       const VectorS<long double>& w, int n) {
  const int d = static_cast<int>(X.rows());
  double worst = 0;
  for (int c = 0; c <= n; ++c) {
    long double dot = 0, scale = c < n ? std::abs(static_cast<long double>(y[c])) : 0.0L;
    for (int k = 0; k < d; ++k) {
      dot += static_cast<long double>(X(k, c)) * w[k];
      scale += std::abs(static_cast<long double>(X(k, c)) * w[k]);
    }
    const long double ref = (c < n ? static_cast<long double>(y[c]) : 0.0L) - dot;
    worst = std::max(worst, scaled_error(Z(d, c), static_cast<double>(ref), static_cast<double>(scale)));
  }
  return worst;
}
}  // namespace

LinearSelfAttention sparse_layer(const Eigen::MatrixXd& A) {
  if (A.rows() != A.cols()) throw std::invalid_argument("acds sparse layer: A must be square");
  const Eigen::Index d = A.rows();
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = 1.0;                              // P = [0 0; 0 1]
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d) = -A;                 // Q = -[A 0; 0 0]
  a.masked = true;                              // M = diag(I_n, 0)
  a.scale = 0.0;                                // 1/n, eq. (4)
  a.P = kP(a.P);
  a.Q = kQ(a.Q);
  return a;
}

Transformer sparse_stack(const std::vector<Eigen::MatrixXd>& A) {
  Transformer t;
  for (const auto& a : A) t.layers.emplace_back(sparse_layer(a));
  return t;
}

const char* lemma1_family(std::uint64_t i) { return kFamilies[i % 3]; }

Lemma1Errors lemma1_prompt(int d, int n, int L, bool symmetric, std::uint64_t seed, std::uint64_t purpose,
                           std::uint64_t i) {
  Lemma1Errors o;
  o.family = static_cast<int>(i % 3);
  const double xscale = o.family == 0 ? 1.0 : o.family == 1 ? 1e3 : 30.0;
  const double ascale = (o.family == 1 ? 1e-6 : 1.0) * 0.5 / std::sqrt(static_cast<double>(d));
  PromptRng rng(seed, purpose, i);
  std::vector<Eigen::MatrixXd> A(static_cast<std::size_t>(L)), At;
  for (auto& a : A) {
    Eigen::MatrixXd g(d, d);
    rng.fill_normal(g);
    a = ascale * (symmetric ? Eigen::MatrixXd(0.5 * (g + g.transpose())) : g);
    At.push_back(a.transpose());
  }
  Eigen::VectorXd wstar(d);
  rng.fill_normal(wstar);
  Eigen::MatrixXd X(d, n + 1);
  rng.fill_normal(X);
  X *= xscale;
  Eigen::RowVectorXd y = wstar.transpose() * X;  // y_i = <w_*, x_i>; the query label is not used
  const PromptShape shape = acds_shape(d, n);
  Eigen::MatrixXd Z(shape.rows(), shape.cols());
  embed(shape, X, y, Z);

  // Reference: preconditioned GD on R(w) = (1/2n) sum (w^T x_i - y_i)^2, stated (A_l) and corrected (A_l^T).
  const MatrixS<long double> PhiL = X.leftCols(n).cast<long double>();
  const VectorS<long double> tL = y.head(n).transpose().cast<long double>();
  const auto ws = preconditioned_gradient_descent<long double>(PhiL, tL, A);
  const auto wc = preconditioned_gradient_descent<long double>(PhiL, tL, At);
  const auto wd = preconditioned_gradient_descent<double>(X.leftCols(n), y.head(n).transpose(), At);

  const Transformer model = sparse_stack(A);
  ForwardWorkspace ws_;
  int layer = 0;
  std::function<void(int, const Eigen::Ref<const Eigen::MatrixXd>&)> observe =
      [&](int k, const Eigen::Ref<const Eigen::MatrixXd>& Zk) {
        layer = k;
        const Eigen::MatrixXd Zl = Zk;
        o.err[kXRows] = std::max(o.err[kXRows], (Zl.topRows(d) - X).cwiseAbs().maxCoeff() / X.cwiseAbs().maxCoeff());
        o.err[kStated] = std::max(o.err[kStated], label_row_error(Zl, X, y, ws[k], n));
        o.err[kCorrected] = std::max(o.err[kCorrected], label_row_error(Zl, X, y, wc[k], n));
        // The double reference measured the same way, against the long double one.
        Eigen::MatrixXd Zref = Zl;
        Zref.row(d) = y;
        Zref(d, n) = 0;
        Zref.row(d) -= (X.transpose() * wd[k]).transpose();
        o.err[kRefSelf] = std::max(o.err[kRefSelf], label_row_error(Zref, X, y, wc[k], n));
      };
  model.forward(Z, ws_, &observe);
  if (layer != L) throw std::logic_error("acds.lemma1: forward pass saw the wrong number of layers");
  const Eigen::VectorXd xq = X.col(n);
  o.forward = prediction(Z);
  o.stated = static_cast<double>(-(xq.cast<long double>().dot(ws[L])));
  o.corrected = static_cast<double>(-(xq.cast<long double>().dot(wc[L])));
  o.err[kQueryPlain] = scaled_error(o.forward, o.corrected, std::abs(o.corrected));
  o.err[kStatedQuery] = scaled_error(o.forward, o.stated, std::abs(o.stated));
  o.err[kStatedClean] = o.family == 0 ? o.err[kStated] : 0.0;  // the clean family: x ~ N(0, I), |A| ~ 1/sqrt(d)
  return o;
}

void lemma1_quantities(CaseJson& j, const WorstCase& w, const Lemma1Errors& at) {
  j.quantity("stated", at.stated).quantity("exact", at.forward).quantity("corrected", at.corrected);
  j.quantity("max_rel_error", w.worst[kStated]).quantity("max_rel_error_clean", w.worst[kStatedClean]);
  j.quantity("max_rel_error_corrected", w.worst[kCorrected]).quantity("max_rel_error_query", w.worst[kQueryPlain]);
  j.quantity("reference_self_error", w.worst[kRefSelf]).quantity("max_x_row_change", w.worst[kXRows]);
  j.quantity("prompts", static_cast<double>(w.prompts));
}

Lemma1Case lemma1_check_case(const ClaimContext& ctx, const Case& c, CaseJson& j) {
  const int d = c.geti("d"), n = c.geti("n"), L = c.geti("L");
  const bool sym = c.geti("sym") != 0;
  const std::uint64_t purpose = ctx.purpose(c.label());
  auto prompt = [&](std::uint64_t i) { return lemma1_prompt(d, n, L, sym, ctx.seed, purpose, i); };
  const auto [w, at] = worst_prompts(std::max<std::uint64_t>(ctx.samples, 3), ctx.threads, prompt, kStatedClean);
  lemma1_quantities(j, w, at);
  return {w, at};
}

std::string lemma1_counterexample(const Case& c, const Lemma1Case& k) {
  return fmt::format("d={}, n={}, L={}, non-symmetric A_l, prompt {} (x ~ N(0, I)): the forward pass gives {:.6g}, the "
                     "stated recursion -<x_q, w^L> gives {:.6g} (relative error {:.2g}), the recursion with A_l^T gives "
                     "{:.6g}", c.geti("d"), c.geti("n"), c.geti("L"), k.w.where[kStatedClean], k.at.forward, k.at.stated,
                     k.w.worst[kStatedClean], k.at.corrected);
}

}  // namespace icl::acds
