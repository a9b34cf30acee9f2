#include "constructions/sja_appC.hpp"

#include "icl/verdict/mutation.hpp"

#include "icl/exact/sparse_attention.hpp"
#include "icl/model/prompt.hpp"
#include "icl/montecarlo/conditional_loss.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/verdict/statistics.hpp"

#include <fmt/format.h>

#include <cmath>
#include <stdexcept>

namespace icl::sja {

namespace {
// Mutation sites (lib/icl/verdict/mutation.hpp; bench/mutate.py perturbs them one at a time).
const MutationSite kW0{"sja.appC/W0", "sja.lemma12,sja.thm5,sja.thm2,sja.fig3",
                       "the kernel bilinear layer (7), W0", true};
const MutationSite kW1{"sja.appC/W1", "sja.lemma12,sja.thm5,sja.thm2,sja.fig3",
                       "the kernel bilinear layer (7), W1", true};
const MutationSite kAttnP{"sja.appC/P", "sja.lemma12,sja.thm2,sja.thm5,sja.fig3,sja.thm7,sja.prop1,sja.sec42,acds.thm1,zfb.thm5,sja.prop4,sja.remark1",
                          "P = e e^T of the sparse attention", true};
const MutationSite kGamma{"sja.appC/Gamma", "sja.thm2,sja.fig3", "Gamma = -E[xbar xbar^T]^{-1}", true};
}  // namespace

int kernel_width(int d) { return (d + 2) * (d + 1) / 2; }

std::vector<Polynomial<Rational>> kernel_features(int d) {
  using P = Polynomial<Rational>;
  std::vector<P> f{P::constant(d, Rational(1))};
  for (int j = 0; j < d; ++j) f.push_back(P::variable(d, j));
  for (int j = 0; j < d; ++j)
    for (int k = j; k < d; ++k) {
      if (j == k)
        f.push_back(P::variable(d, j) * P::variable(d, j) - P::constant(d, Rational(1)));
      else
        f.push_back(P::variable(d, j) * P::variable(d, k));
    }
  return f;
}

OrthonormalFeatures orthonormal_features(int d) {
  using P = Polynomial<Rational>;
  OrthonormalFeatures o;
  o.unnormalised.push_back(P::constant(d, Rational(1)));
  o.scale_squared.push_back(Rational(1));
  o.names.push_back("v00");
  for (int j = 0; j < d; ++j) {
    o.unnormalised.push_back(P::variable(d, j));
    o.scale_squared.push_back(Rational(1));
    o.names.push_back(fmt::format("v0{}", j + 1));
  }
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j) {
      if (i == j) {
        o.unnormalised.push_back(P::variable(d, i) * P::variable(d, i) - P::constant(d, Rational(1)));
        o.scale_squared.push_back(Rational(1, 2));
      } else {
        o.unnormalised.push_back(P::variable(d, i) * P::variable(d, j));
        o.scale_squared.push_back(Rational(1));
      }
      o.names.push_back(fmt::format("v{}{}", i + 1, j + 1));
    }
  return o;
}

void evaluate_orthonormal_features(int d, const double* x, double* out) {
  int a = 0;
  out[a++] = 1.0;
  for (int j = 0; j < d; ++j) out[a++] = x[j];
  const double r = 1.0 / std::sqrt(2.0);
  for (int i = 0; i < d; ++i)
    for (int j = i; j < d; ++j) out[a++] = i == j ? r * (x[i] * x[i] - 1.0) : x[i] * x[j];
}

OrthonormalGram orthonormal_gram(int d, const OrthonormalFeatures& f) {
  const int m = static_cast<int>(f.unnormalised.size());
  const auto one = Polynomial<Rational>::constant(d, Rational(1));
  const auto raw = moment_matrix(f.unnormalised, f.unnormalised, one);
  OrthonormalGram g;
  g.gram.resize(m, m);
  for (int a = 0; a < m; ++a)
    for (int b = 0; b < m; ++b) {
      const bool ok = a == b ? raw[a][a] * f.scale_squared[a] == Rational(1) : raw[a][b] == Rational(0);
      if (!ok && g.first_failure.empty())
        g.first_failure =
            fmt::format("<{}, {}> = {}", f.names[a], f.names[b],
                        to_double(raw[a][b]) * std::sqrt(to_double(f.scale_squared[a] * f.scale_squared[b])));
      g.identity &= ok;
      g.gram(a, b) = to_double(raw[a][b]) * std::sqrt(to_double(f.scale_squared[a]) * to_double(f.scale_squared[b]));
    }
  return g;
}

BilinearLayer appC_bilinear(int d) {
  const int dbar = kernel_width(d);
  BilinearLayer b;
  b.W0 = Eigen::MatrixXd::Zero(dbar, dbar);
  b.W1 = Eigen::MatrixXd::Zero(dbar, dbar);
  // Columns of W~ (1-based in the paper): column 1 is the row of ones, column j+1 is x_j.
  int row = d + 1;  // 0-based index of the paper's row d+2
  for (int j = 1; j <= d; ++j)
    for (int k = j; k <= d; ++k, ++row) {
      if (j == k) {
        b.W0(row, j) = 1;
        b.W0(row, 0) = -1;
        b.W1(row, j) = 1;
        b.W1(row, 0) = 1;
      } else {
        b.W0(row, j) = 1;
        b.W1(row, k) = 1;
      }
    }
  b.W0 = kW0(b.W0);
  b.W1 = kW1(b.W1);
  return b;
}

LinearSelfAttention sparse_attention(const Eigen::MatrixXd& Gamma) {
  const Eigen::Index D = Gamma.rows() + 1;
  LinearSelfAttention a;
  a.P = Eigen::MatrixXd::Zero(D, D);
  a.P(D - 1, D - 1) = 1.0;
  a.Q = Eigen::MatrixXd::Zero(D, D);
  a.Q.topLeftCorner(D - 1, D - 1) = Gamma;
  a.masked = true;
  a.P = kAttnP(a.P);
  return a;
}

Eigen::MatrixXd appC_gamma(int d) {
  const auto f = kernel_features(d);
  const Eigen::MatrixXd lambda =
      to_eigen(moment_matrix(f, f, Polynomial<Rational>::constant(d, Rational(1))));
  return kGamma(Eigen::MatrixXd(-lambda.inverse()));
}

Transformer appC_block(int d) {
  Transformer t;
  t.layers.emplace_back(appC_bilinear(d));
  t.layers.emplace_back(sparse_attention(appC_gamma(d)));
  return t;
}

AppCSetting::AppCSetting(int d_)
    : d(d_),
      dbar(kernel_width(d)),
      task(PolynomialTask::quadratic(d)),
      inputs(InputDistribution::standard(d)),
      block(appC_block(d)),
      gamma(appC_gamma(d)),
      mom(feature_moments(kernel_features(d), task)),
      model(GaussianIclModel::from_task(task, Eigen::MatrixXd::Identity(d, d))) {
  features.layers.push_back(block.layers.at(0));
  attention.layers.push_back(block.layers.at(1));
  Psi = query_moment_matrix(model, bilinear_features(block.layer_as<layers::Bilinear>(0).spec(), d, dbar));
}

double AppCSetting::exact_loss(int n) const { return sparse_lsa_loss(mom, gamma, n); }

Accumulator AppCSetting::conditional_mc(int n, std::uint64_t samples, int threads, std::uint64_t seed,
                                        std::uint64_t purpose) const {
  const PromptShape shape = sja_shape(d, dbar, n);
  MonteCarlo mc(QueryConditionalWorker::dims, threads);
  mc.extend_to(samples, [&] { return QueryConditionalWorker(features, attention, model, Psi, shape, seed, purpose); });
  return mc.total();
}

std::vector<double> fig3_protocol_r2(const AppCSetting& u, const std::vector<int>& ns,
                                     const std::vector<std::uint64_t>& purposes, const std::vector<double>& logn,
                                     int reps, int per_n, std::uint64_t seed, int threads) {
  if (purposes.size() != ns.size() || logn.size() != ns.size())
    throw std::invalid_argument("fig3_protocol_r2: one purpose and one log n per n");
  std::vector<double> r2(static_cast<std::size_t>(reps));
  parallel_for_index(static_cast<std::uint64_t>(reps), threads, [&] {
    std::vector<PromptLossWorker> workers;
    for (std::size_t m = 0; m < ns.size(); ++m)
      workers.emplace_back(u.block, u.task, u.inputs, sja_shape(u.d, u.dbar, ns[m]), seed, purposes[m]);
    return [&, workers = std::move(workers), ys = std::vector<double>(ns.size())](std::uint64_t k) mutable {
      for (std::size_t m = 0; m < ns.size(); ++m) {
        double s = 0;
        for (int i = 0; i < per_n; ++i) s += workers[m].loss(k * per_n + i);
        ys[m] = std::log(s / per_n);
      }
      r2[k] = fit_line(logn, ys).r2;
    };
  });
  return r2;
}

}  // namespace icl::sja
