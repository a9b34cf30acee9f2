#include "constructions/zfb.hpp"

#include "icl/verdict/mutation.hpp"

#include "icl/model/rng.hpp"

#include <cmath>
#include <stdexcept>

namespace icl::zfb {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kGamma{"zfb.Gamma", "zfb.thm4,zfb.shift", "Gamma = (1 + 1/N) Lambda + tr(Lambda)/N I", true};
const MutationSite kSigma{"zfb.thm4/sigma_bound", "zfb.thm4,zfb.shift", "the initialisation bound sigma^2 ||Gamma||_op sqrt(d) < 2"};
const MutationSite kThm4Pv{"zfb.thm4/W_PV", "zfb.thm4,zfb.shift", "W^PV_* = tr(Gamma^-2)^{1/4}"};
const MutationSite kThm4Kq{"zfb.thm4/W_KQ", "zfb.thm4,zfb.shift", "W^KQ_* = tr(Gamma^-2)^{-1/4} Gamma^-1", true};
const MutationSite kThm8Pv{"zfb.thm8/W_PV", "zfb.thm8,zfb.shift", "the limit (22), W^PV"};
const MutationSite kThm8Kq{"zfb.thm8/W_KQ", "zfb.thm8,zfb.shift", "the limit (22), W^KQ", true};
}  // namespace

Eigen::MatrixXd zfb_gamma(const Eigen::MatrixXd& lambda, int N) {
  const int d = static_cast<int>(lambda.rows());
  return kGamma(Eigen::MatrixXd((1.0 + 1.0 / N) * lambda + lambda.trace() / N * Eigen::MatrixXd::Identity(d, d)));
}

LsaWeights assumption3_init(double sigma, const Eigen::MatrixXd& theta) {
  const int d = static_cast<int>(theta.rows());
  const Eigen::MatrixXd tt = theta * theta.transpose();
  if (tt.norm() == 0) throw std::invalid_argument("Assumption 3: Theta Theta^T must be nonzero");
  LsaWeights w = LsaWeights::zero(d);
  w.pv(d, d) = sigma;
  w.kq.topLeftCorner(d, d) = sigma * tt / tt.norm();
  return w;
}

Eigen::MatrixXd assumption3_theta(int kind, int d, std::uint64_t seed) {
  PromptRng rng(seed, stable_hash("theta"), static_cast<std::uint64_t>(100 * d + kind));
  Eigen::MatrixXd t = Eigen::MatrixXd::Zero(d, d);
  if (kind == 2) {
    Eigen::VectorXd v(d);
    rng.fill_normal(v);
    t.col(0) = v;
  } else {
    rng.fill_normal(t);
  }
  return t;
}

double thm4_sigma_bound(const Eigen::MatrixXd& lambda, int N) {
  const Eigen::MatrixXd g = zfb_gamma(lambda, N);
  const double op = Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd>(g).eigenvalues().maxCoeff();
  return kSigma(std::sqrt(2.0 / (op * std::sqrt(static_cast<double>(lambda.rows())))));
}

LsaWeights thm4_limit(const Eigen::MatrixXd& lambda, int N) {
  const int d = static_cast<int>(lambda.rows());
  const Eigen::MatrixXd gi = zfb_gamma(lambda, N).inverse();
  const double s = std::pow((gi * gi).trace(), 0.25);
  LsaWeights w = LsaWeights::zero(d);
  w.pv(d, d) = kThm4Pv(s);
  w.kq.topLeftCorner(d, d) = kThm4Kq(Eigen::MatrixXd(gi / s));
  return w;
}

LsaWeights thm8_limit(const Eigen::MatrixXd& e_gamma_lambda2, const Eigen::MatrixXd& e_lambda2) {
  const int d = static_cast<int>(e_lambda2.rows());
  const Eigen::MatrixXd a = e_gamma_lambda2.inverse() * e_lambda2;
  const double s = std::sqrt(a.norm());
  LsaWeights w = LsaWeights::zero(d);
  w.pv(d, d) = kThm8Pv(s);
  w.kq.topLeftCorner(d, d) = kThm8Kq(Eigen::MatrixXd(a / s));
  return w;
}

Eigen::MatrixXd reduced_product(const LsaWeights& w) {
  const int d = w.d();
  return w.pv(d, d) * w.kq.topLeftCorner(d, d);
}

}  // namespace icl::zfb
