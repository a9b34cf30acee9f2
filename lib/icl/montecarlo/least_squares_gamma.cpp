#include "icl/montecarlo/least_squares_gamma.hpp"

#include "icl/execute/thread_pool.hpp"

#include "icl/exact/optimal_attention.hpp"
#include "icl/montecarlo/prompt_loss.hpp"

#include <fmt/format.h>

#include <map>
#include <mutex>
#include <cmath>
#include <stdexcept>

namespace icl {

namespace {

// Draws prompts, runs the feature layers, and writes f = vec(F) (row-major) and sign * y_q for each.
class GammaRegressionWorker {
public:
  GammaRegressionWorker(const Transformer& features, const GaussianIclModel& model, const PromptShape& shape,
                        std::uint64_t seed, std::uint64_t purpose, double sign)
      : features_(&features), draw_(features, model, shape, seed, purpose, sign), shape_(shape), sign_(sign),
        p_(shape.dbar) {}
  void operator()(std::uint64_t i, double* f, double& y) {
    draw_.draw(i);
    Eigen::MatrixXd& Z = draw_.prompt();
    embed(shape_, draw_.inputs(), draw_.labels(), Z);
    features_->forward(Z, draw_.workspace());
    const int n = shape_.n;
    // F = (1/n) sum_i y_i u_i u_q^T = (1/n) (U y) u_q^T
    const Eigen::VectorXd Uy = Z.topLeftCorner(p_, n) * Z.row(shape_.dbar).head(n).transpose() / n;
    for (int j = 0; j < p_; ++j)
      for (int k = 0; k < p_; ++k) f[j * p_ + k] = Uy[j] * Z(k, n);
    y = sign_ * draw_.labels()[n];
  }
  // Conditional form: writes (U y) / n into uy (p) and the drawn task coefficients w into w (m).
  void context(std::uint64_t i, double* uy, double* w) {
    draw_.draw(i);
    Eigen::MatrixXd& Z = draw_.prompt();
    embed(shape_, draw_.inputs(), draw_.labels(), Z);
    features_->forward(Z, draw_.workspace());
    const int n = shape_.n;
    Eigen::Map<Eigen::VectorXd>(uy, p_).noalias() = Z.topLeftCorner(p_, n) * Z.row(shape_.dbar).head(n).transpose() / n;
    const Eigen::VectorXd& c = draw_.coefficients();
    for (Eigen::Index k = 0; k < c.size(); ++k) w[k] = c[k];
  }

private:
  const Transformer* features_;
  ModelPromptWorker draw_;
  PromptShape shape_;
  double sign_;
  int p_;
};

// One batch of the conditional form: chunk c sums (U y)(U y)^T and (U y) w^T over its prompts; chunk sums are
// added in chunk order (same numbers whatever the threads); then Gamma = -S_UU^+ (sign S_Uw C^T) Sigma_u^+.
Eigen::MatrixXd conditional_batch(const Transformer& features, const GaussianIclModel& model, const PromptShape& shape,
                                  std::uint64_t seed, std::uint64_t purpose, double sign, const Eigen::MatrixXd& Psi,
                                  int threads, std::uint64_t chunks, std::uint64_t chunk) {
  const int p = shape.dbar, m = model.num_coefficients();
  Eigen::MatrixXd SUU = Eigen::MatrixXd::Zero(p, p), SUw = Eigen::MatrixXd::Zero(p, m);
  std::map<std::uint64_t, std::pair<Eigen::MatrixXd, Eigen::MatrixXd>> pending;
  std::uint64_t merged = 0;
  std::mutex merge_mutex;
  execute::parallel_tasks(chunks, threads, [&] {
    return [&, worker = GammaRegressionWorker(features, model, shape, seed, purpose, sign),
            U = Eigen::MatrixXd(p, static_cast<Eigen::Index>(chunk)),
            W = Eigen::MatrixXd(m, static_cast<Eigen::Index>(chunk))](std::uint64_t c) mutable {
      for (std::uint64_t i = 0; i < chunk; ++i)
        worker.context(c * chunk + i, U.col(static_cast<Eigen::Index>(i)).data(), W.col(static_cast<Eigen::Index>(i)).data());
      Eigen::MatrixXd uu = U * U.transpose();
      Eigen::MatrixXd uw = U * W.transpose();
      const std::lock_guard<std::mutex> lock(merge_mutex);
      pending.emplace(c, std::make_pair(std::move(uu), std::move(uw)));
      for (auto it = pending.begin(); it != pending.end() && it->first == merged; it = pending.erase(it), ++merged) {
        SUU += it->second.first;
        SUw += it->second.second;
      }
    };
  });
  const Eigen::MatrixXd Sigma_u = Psi.topLeftCorner(p, p), C = Psi.topRightCorner(p, m);
  return -psd_pinv(SUU, 1e-10) * (sign * SUw * C.transpose()) * psd_pinv(Sigma_u, 1e-10);
}

}  // namespace

// Prompts are cut into fixed chunks; chunk c of batch k sums f f^T and f y over its prompts with one
// matrix product; chunk sums are added in chunk order. Same seed, same numbers, whatever the threads.
GammaLeastSquares mc_least_squares_gamma(const Transformer& feature_layers, const GaussianIclModel& model,
                                         const PromptShape& shape, std::uint64_t seed, std::uint64_t purpose,
                                         int threads, std::uint64_t samples, int batches, double sign,
                                         const Eigen::MatrixXd* query_moments) {
  constexpr std::uint64_t kChunk = 1024;
  const int p = shape.dbar, P2 = p * p;
  const int m = model.num_coefficients();
  if (query_moments && (query_moments->rows() != p + m || query_moments->cols() != p + m))
    throw std::invalid_argument("mc_least_squares_gamma: query moments have the wrong size");
  if (query_moments && !model.random_w)
    throw std::invalid_argument("mc_least_squares_gamma: the conditional form needs w drawn per prompt");
  const std::uint64_t chunks_per_batch = std::max<std::uint64_t>(1, (samples / batches + kChunk - 1) / kChunk);
  GammaLeastSquares est;
  est.batches = batches;
  est.samples = chunks_per_batch * kChunk * batches;
  std::vector<Eigen::MatrixXd> g;
  for (int k = 0; k < batches; ++k) {
    const std::uint64_t pk = purpose ^ (0x9E3779B97F4A7C15ull * static_cast<std::uint64_t>(k + 1));
    // Chunk sums are added to (A, r) in chunk order as soon as every earlier chunk is in: the same sums as adding
    // them all at the end, while only the chunks finished out of order are held (memory does not grow with samples).
    if (query_moments) {
      g.push_back(conditional_batch(feature_layers, model, shape, seed, pk, sign, *query_moments, threads,
                                    chunks_per_batch, kChunk));
      continue;
    }
    Eigen::MatrixXd A = Eigen::MatrixXd::Zero(P2, P2);
    Eigen::VectorXd r = Eigen::VectorXd::Zero(P2);
    std::map<std::uint64_t, std::pair<Eigen::MatrixXd, Eigen::VectorXd>> pending;
    std::uint64_t merged = 0;
    std::mutex merge_mutex;
    using RowMajor = Eigen::Matrix<double, Eigen::Dynamic, Eigen::Dynamic, Eigen::RowMajor>;
    execute::parallel_tasks(chunks_per_batch, threads, [&] {
      return [&, worker = GammaRegressionWorker(feature_layers, model, shape, seed, pk, sign),
              F = RowMajor(kChunk, P2), y = Eigen::VectorXd(kChunk)](std::uint64_t c) mutable {
        for (std::uint64_t i = 0; i < kChunk; ++i) worker(c * kChunk + i, F.row(static_cast<Eigen::Index>(i)).data(), y[i]);
        Eigen::MatrixXd Eff = F.transpose() * F;
        Eigen::VectorXd Efy = F.transpose() * y;
        const std::lock_guard<std::mutex> lock(merge_mutex);
        pending.emplace(c, std::make_pair(std::move(Eff), std::move(Efy)));
        for (auto it = pending.begin(); it != pending.end() && it->first == merged; it = pending.erase(it), ++merged) {
          A += it->second.first;
          r += it->second.second;
        }
      };
    });
    const Eigen::VectorXd v = -psd_pinv(A, 1e-10) * r;
    Eigen::MatrixXd G(p, p);
    for (int j = 0; j < p; ++j)
      for (int l = 0; l < p; ++l) G(j, l) = v[j * p + l];
    g.push_back(G);
  }
  est.batch_gammas = g;
  est.gamma = Eigen::MatrixXd::Zero(p, p);
  for (const auto& G : g) est.gamma += G / batches;
  est.stderr_ = Eigen::MatrixXd::Zero(p, p);
  for (const auto& G : g) est.stderr_ += (G - est.gamma).cwiseAbs2() / (batches - 1.0);
  est.stderr_ = (est.stderr_ / batches).cwiseSqrt();
  return est;
}

Estimate lsq_distance(const GammaLeastSquares& est, const Eigen::MatrixXd& target, double confidence) {
  const int K = static_cast<int>(est.batch_gammas.size());
  if (K < 3) throw std::invalid_argument("lsq_distance: needs at least 3 batches");
  std::vector<Eigen::MatrixXd> D;
  for (const auto& G : est.batch_gammas) D.push_back(G - target);
  auto ustat = [&](int skip) {
    Eigen::MatrixXd sum = Eigen::MatrixXd::Zero(target.rows(), target.cols());
    double sq = 0;
    int m = 0;
    for (int k = 0; k < K; ++k) {
      if (k == skip) continue;
      sum += D[k];
      sq += D[k].squaredNorm();
      ++m;
    }
    return (sum.squaredNorm() - sq) / (m * (m - 1.0));
  };
  const double U = ustat(-1);
  std::vector<double> jk(K);
  double mean = 0;
  for (int k = 0; k < K; ++k) mean += (jk[k] = ustat(k)) / K;
  double var = 0;
  for (int k = 0; k < K; ++k) var += (jk[k] - mean) * (jk[k] - mean);
  const double se = std::sqrt(var * (K - 1.0) / K);
  const double t = student_t_quantile(0.5 + confidence / 2, K - 1.0);
  Estimate e;
  e.samples = est.samples;
  e.confidence = confidence;
  e.mean = std::sqrt(std::max(U, 0.0));
  e.ci_low = std::sqrt(std::max(U - t * se, 0.0));
  e.ci_high = std::sqrt(std::max(U + t * se, 0.0));
  e.stderr_ = e.mean > 0 ? se / (2 * e.mean) : std::sqrt(se);  // delta method
  e.sd = e.stderr_ * std::sqrt(static_cast<double>(K));
  return e;
}

}  // namespace icl
