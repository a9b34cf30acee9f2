#include "constructions/zfb_thm5.hpp"

#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"

#include <algorithm>
#include <cmath>

namespace icl::zfb {

std::string thm5_task_name(int t) {
  switch (t) {
    case 0: return "noiseless linear, fixed w";
    case 1: return "noisy linear (noise sd 0.5), fixed w";
    case 2: return "quadratic, fixed coefficients";
    default: return "noiseless linear, w ~ N(0, I)";
  }
}

GaussianIclModel thm5_task(int task, int d, const Eigen::MatrixXd& Lam, std::uint64_t seed, std::uint64_t purpose) {
  GaussianIclModel m = GaussianIclModel::from_task(task == 2 ? PolynomialTask::quadratic(d) : PolynomialTask::linear(d), Lam);
  if (task == 3) return m;
  m.random_w = false;
  m.fixed_w.resize(m.num_coefficients());
  PromptRng rng(seed, purpose, 0);
  rng.fill_normal(m.fixed_w);
  if (task == 1) m.noise_sd = 0.5;
  return m;
}

Thm5Setting thm5_setting(const Eigen::MatrixXd& Lam, int N) {
  Thm5Setting s;
  const int d = static_cast<int>(Lam.rows());
  s.Lam = Lam;
  s.trL = Lam.trace();
  s.Gam = (1.0 + 1.0 / N) * Lam + s.trL / N * Eigen::MatrixXd::Identity(d, d);
  s.Gam_inv = s.Gam.inverse();
  s.Gm2 = s.Gam_inv * s.Gam_inv;
  Eigen::SelfAdjointEigenSolver<Eigen::MatrixXd> es(Lam);
  s.kappa = es.eigenvalues().maxCoeff() / es.eigenvalues().minCoeff();
  return s;
}

LinearSelfAttention thm5_limit_model(const Thm5Setting& s, int M) {
  const Eigen::Index d = s.Lam.rows();
  const double c = std::pow((s.Gm2).trace(), 0.25);
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.P(d, d) = c;
  a.Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  a.Q.topLeftCorner(d, d) = s.Gam_inv / c;
  a.masked = false;
  a.scale = 1.0 / M;
  return a;
}

void thm5_scan_family(const std::function<void(const Thm5ScanPoint&)>& visit) {
  for (int d = 1; d <= 4; ++d)
    for (double kappa : {1.0, 10.0, 100.0})
      for (int shape = 0; shape < 3; ++shape)
        for (int N : {1, 2, 5, 20, 100, 10000})
          for (int M : {1, 2, 10, 100, 10000}) {
            Eigen::VectorXd lam(d);
            for (int i = 0; i < d; ++i) {
              const double t = d == 1 ? 1.0 : static_cast<double>(i) / (d - 1);
              lam[i] = shape == 0 ? std::pow(kappa, t) : (shape == 1 ? (i == 0 ? kappa : 1.0) : (i == 0 ? 1.0 : kappa));
            }
            visit(Thm5ScanPoint{d, shape, N, M, kappa, lam});
          }
}

Eigen::VectorXd thm5_encode(const Eigen::VectorXd& lam, int N, int M) {
  const Eigen::Index d = lam.size();
  Eigen::VectorXd x0 = Eigen::VectorXd::Zero(d + 2);
  x0.head(d) = lam.array().log().matrix();
  x0[d] = std::log(N);
  x0[d + 1] = std::log(M);
  return x0;
}

void thm5_decode(int d, const Eigen::VectorXd& x, Eigen::VectorXd& lam, int& N, int& M) {
  lam = x.head(d).array().exp();
  N = static_cast<int>(std::clamp(std::round(std::exp(x[d])), 1.0, 1e6));
  M = static_cast<int>(std::clamp(std::round(std::exp(x[d + 1])), 1.0, 1e6));
}

SearchProblem thm5_search_problem(int d, const std::function<double(const Eigen::VectorXd&)>& objective,
                                  const Eigen::VectorXd& x0, const std::string& start_name) {
  SearchProblem pr;
  pr.dim = d + 2;
  pr.effort_unit = "exact evaluations";
  pr.structured.emplace_back(start_name, x0);
  pr.refine = [objective](const Eigen::VectorXd& x, int effort, std::uint64_t) {
    return compass_search(objective, x, effort, 0.5);
  };
  pr.select = objective;
  pr.rescale = [d](const Eigen::VectorXd& x, double f) {
    Eigen::VectorXd y = x;
    const double mean = x.head(d).mean();
    for (int i = 0; i < d; ++i) y[i] = mean + f * (x[i] - mean);  // the spectrum's spread in log scale
    return y;
  };
  return pr;
}

}  // namespace icl::zfb
