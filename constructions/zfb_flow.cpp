#include "constructions/zfb_flow.hpp"

#include "icl/claim/kinds/flow_limit.hpp"

#include <algorithm>
#include <cmath>

namespace icl::zfb {

nlohmann::ordered_json ReducedFormWatch::to_json() const {
  nlohmann::ordered_json j;
  j["max_off_reduced_entry"] = max_off_reduced;
  j["max_balance_drift"] = max_balance_drift;
  j["max_W11_asymmetry"] = max_asymmetry;
  return j;
}

double balance(const LsaWeights& w) {
  const int d = w.d();
  return w.pv.row(d).squaredNorm() - w.kq.leftCols(d).squaredNorm();
}

double relative_distance(const LsaWeights& a, const LsaWeights& b) {
  return flow_limit::relative_distance(a.theta(), b.theta());
}

namespace {
void watch(ReducedFormWatch& r, const LsaWeights& w, double balance0) {
  const int d = w.d();
  LsaWeights off = w;
  off.pv(d, d) = 0;
  off.kq.topLeftCorner(d, d).setZero();
  r.max_off_reduced = std::max(r.max_off_reduced, off.theta().cwiseAbs().maxCoeff());
  r.max_balance_drift = std::max(r.max_balance_drift, std::abs(balance(w) - balance0));
  const Eigen::MatrixXd w11 = w.kq.topLeftCorner(d, d);
  r.max_asymmetry = std::max(r.max_asymmetry, (w11 - w11.transpose()).norm());
}
}  // namespace

ZfbFlow zfb_gradient_flow(const PopulationLoss& pl, const LsaWeights& init, const LsaWeights& target,
                          const FlowOptions& opt) {
  ZfbFlow z;
  const int d = pl.d();
  const double b0 = balance(init);
  const Eigen::VectorXd tt = target.theta();
  const double tn = tt.norm();
  LossFunction f = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) {
    return pl.loss_and_gradient(x, g);
  };
  DistanceFunction dist = [&](const Eigen::Ref<const Eigen::VectorXd>& x) {
    watch(z.reduced, LsaWeights::from_theta(d, x), b0);  // called at the trace times
    return (x - tt).norm() / tn;
  };
  z.flow = gradient_flow(f, init.theta(), opt, dist);
  z.end = LsaWeights::from_theta(d, z.flow.theta);
  watch(z.reduced, z.end, b0);
  return z;
}

std::pair<double, double> curvature_range(const PopulationLoss& pl, const LsaWeights& w) {
  const Eigen::VectorXd theta = w.theta();
  const Eigen::Index n = theta.size();
  Eigen::MatrixXd H(n, n);
  Eigen::VectorXd gp(n), gm(n);
  const double h = 1e-6;
  for (Eigen::Index k = 0; k < n; ++k) {
    Eigen::VectorXd tp = theta, tm = theta;
    tp[k] += h;
    tm[k] -= h;
    pl.loss_and_gradient(tp, gp);
    pl.loss_and_gradient(tm, gm);
    H.col(k) = (gp - gm) / (2 * h);
  }
  const Eigen::VectorXd ev = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(0.5 * (H + H.transpose())).eigenvalues();
  const double top = ev.maxCoeff();
  double low = top;
  for (Eigen::Index k = 0; k < n; ++k)
    if (ev[k] > 1e-7 * top) low = std::min(low, ev[k]);
  return {low, top};
}

LsaWeights reduced_form_limit(const PopulationLoss& pl, const LsaWeights& init) {
  const int d = pl.d();
  const Eigen::MatrixXd B = pl.reduced_minimiser();
  const double C = balance(init), nb = B.norm();
  const double u = std::sqrt((C + std::sqrt(C * C + 4 * nb * nb)) / 2);
  LsaWeights w = LsaWeights::zero(d);
  w.pv(d, d) = u;
  w.kq.topLeftCorner(d, d) = B / u;
  return w;
}

}  // namespace icl::zfb
