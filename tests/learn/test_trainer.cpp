// learn/trainer.hpp: a short run of each model type lowers the held-out loss; the same seed gives the same
// weights bit for bit at 1, 2 and 3 threads; diverging runs end as a clean status with the last finite
// weights; L-BFGS reaches a stationary point of a fixed minibatch; the report block and the curve figure.
#include "constructions/acds_forms.hpp"
#include "constructions/sja_forms.hpp"
#include "icl/learn/forms.hpp"
#include "icl/learn/objective.hpp"
#include "icl/learn/trainer.hpp"
#include "icl/model/gaussian_model.hpp"

#include <doctest/doctest.h>

#include <cmath>
#include <limits>

namespace icl::learn {
namespace test_trainer {  // named: a unity build compiles several test files as one unit
namespace {

PromptSource acds_prompts(int d, int n) {
  return gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(d), Eigen::MatrixXd::Identity(d, d)),
                          acds_shape(d, n));
}

TrainConfig short_run(double lr, int steps, std::uint64_t batch = 256) {
  TrainConfig c;
  c.learning_rate = lr;
  c.steps = steps;
  c.batch = batch;
  c.test_batch = 2048;
  c.curve_points = 10;
  c.threads = 2;
  c.progress = false;
  c.seed = 3;
  c.purpose = 17;
  return c;
}

// Trains and checks that the held-out loss fell below `fraction` of its starting value.
TrainResult train_and_check(const char* what, const Parameterisation& p, const PromptSource& src, LossSpec loss,
                            const TrainConfig& c, double init_sd, double fraction) {
  const TrainResult r = train(p, normal_theta(p, init_sd, 5, 6), src, loss, c);
  INFO(std::string(what), ": status ", std::string(to_string(r.status)), " ", r.reason, "; test loss ",
       r.curve.test_loss.front(), " -> ", r.final_test_loss);
  REQUIRE(r.ok());
  CHECK(r.theta.allFinite());
  CHECK(r.steps_done == c.steps);
  CHECK(r.final_test_loss < fraction * r.curve.test_loss.front());
  return r;
}

TEST_CASE("learn: a short training run lowers the held-out loss for every model type") {
  // Starting losses: E[y^2] = d (acds), 1/2 E[y^2] (zfb, xlssc); the fractions leave room for noise.
  train_and_check("masked LSA stack, acds form (8)", acds_form8(2, 2), acds_prompts(2, 10), LossSpec::acds(),
                  short_run(0.05, 80), 0.1, 0.5);
  train_and_check("unmasked LSA, zfb", full_lsa(3, 1, false),
                  gaussian_prompts(GaussianIclModel::from_task(PolynomialTask::linear(2), Eigen::MatrixXd::Identity(2, 2)),
                                   zfb_shape(2, 10)),
                  LossSpec::zfb(), short_run(0.05, 80), 0.3, 0.75);
  const auto quad = gaussian_prompts(
      GaussianIclModel::from_task(PolynomialTask::quadratic(2), Eigen::MatrixXd::Identity(2, 2)), sja_shape(2, 6, 20));
  train_and_check("bilinear Transformer, dense (11)", sja_bilinear(2, 6, 1, BilinearForm::dense), quad, LossSpec::sja(),
                  short_run(0.02, 80), 0.2, 0.7);
  train_and_check("bilinear Transformer, sparse (12)", sja_bilinear(2, 6, 1, BilinearForm::sparse), quad,
                  LossSpec::sja(), short_run(0.02, 80), 0.2, 0.8);
  train_and_check("softmax attention, 2 causal layers", softmax_stack(2, 2), unstructured_prompts(2, 6), LossSpec::zfb(),
                  short_run(0.05, 80), 0.5, 0.85);
}

TEST_CASE("learn: the paired loss difference runs both networks on the same prompts (issue 43)") {
  const auto p = full_lsa(3, 1);
  const auto src = acds_prompts(2, 20);
  const Network a = p.network(normal_theta(p, 0.3, 1, 11)), b = p.network(normal_theta(p, 0.3, 2, 12));
  const Estimate self = mc_loss_difference(a, a, src, LossSpec::acds(), 5, 77, 512, 2);
  CHECK(self.mean == 0.0);
  CHECK(self.stderr_ == 0.0);
  const Estimate la = mc_loss(a, src, LossSpec::acds(), 5, 77, 512, 2), lb = mc_loss(b, src, LossSpec::acds(), 5, 77, 512, 2);
  const Estimate d = mc_loss_difference(a, b, src, LossSpec::acds(), 5, 77, 512, 2);
  CHECK(d.samples == 512);
  CHECK(d.mean == doctest::Approx(la.mean - lb.mean).epsilon(1e-9));
  // Paired: the difference's standard error is not the unpaired one (the prompts' common part cancels).
  CHECK(d.stderr_ != doctest::Approx(std::sqrt(la.stderr_ * la.stderr_ + lb.stderr_ * lb.stderr_)));
  // Another purpose draws other prompts: another difference.
  CHECK(mc_loss_difference(a, b, src, LossSpec::acds(), 5, 78, 512, 2).mean != d.mean);
  // The same numbers at 1 thread.
  CHECK(mc_loss_difference(a, b, src, LossSpec::acds(), 5, 77, 512, 1).mean == d.mean);
}

TEST_CASE("learn: tailed_loss gives mc_loss bit for bit, a capped mean below it and the tail's share") {
  const auto p = full_lsa(3, 1);
  const auto src = acds_prompts(2, 20);
  const Network a = p.network(normal_theta(p, 0.3, 1, 11));
  const Estimate plain = mc_loss(a, src, LossSpec::acds(), 5, 77, 512, 2);
  const LossDistribution dist = loss_distribution(a, src, LossSpec::acds(), 5, 77, 512, 2);
  const TailedLoss uncapped = tailed_loss(a, src, LossSpec::acds(), 5, 77, 512, 2, HUGE_VAL);
  CHECK(uncapped.full.mean == plain.mean);
  CHECK(uncapped.full.stderr_ == plain.stderr_);
  CHECK(uncapped.capped.mean == plain.mean);  // nothing above an infinite cap
  CHECK(uncapped.tail_share == dist.tail_share);
  // A cap at the median: the capped mean is below the plain one, at most the cap, and its spread smaller.
  const TailedLoss capped = tailed_loss(a, src, LossSpec::acds(), 5, 77, 512, 2, dist.median);
  CHECK(capped.full.mean == plain.mean);
  CHECK(capped.capped.mean < plain.mean);
  CHECK(capped.capped.mean <= dist.median);
  CHECK(capped.capped.stderr_ < plain.stderr_);
  CHECK(capped.cap == dist.median);
  CHECK(capped.tail_share > 0.001);  // the largest prompt carries more than an even share
  CHECK(capped.tail_share < 1.0);
  // The same numbers at 1 thread; a cap that is not positive is refused.
  const TailedLoss one = tailed_loss(a, src, LossSpec::acds(), 5, 77, 512, 1, dist.median);
  CHECK(one.capped.mean == capped.capped.mean);
  CHECK(one.tail_share == capped.tail_share);
  CHECK_THROWS_AS(tailed_loss(a, src, LossSpec::acds(), 5, 77, 512, 1, 0.0), std::invalid_argument);
}

TEST_CASE("learn: training is bitwise reproducible at 1, 2 and 3 threads") {
  for (const char* opt : {"adam", "lbfgs"}) {
    CAPTURE(opt);
    const auto p = acds_form8(2, 2);
    const auto src = acds_prompts(2, 8);
    TrainConfig c = short_run(opt[0] == 'a' ? 0.05 : 1.0, 12, 200);  // 200 prompts: 4 chunks, the last partial
    c.optimizer = opt;
    c.resample_every = 5;
    c.clip = 0.5;
    c.test_batch = 100;
    std::vector<TrainResult> runs;
    for (int threads : {1, 2, 3}) {
      c.threads = threads;
      runs.push_back(train(p, normal_theta(p, 0.1, 1, 2), src, LossSpec::acds(), c));
    }
    for (int k = 1; k < 3; ++k) {
      CHECK(runs[k].theta == runs[0].theta);
      CHECK(runs[k].curve.train_loss == runs[0].curve.train_loss);
      CHECK(runs[k].curve.test_loss == runs[0].curve.test_loss);
    }
    CHECK(runs[0].theta != normal_theta(p, 0.1, 1, 2));  // it moved
  }
}

TEST_CASE("learn: minibatches are resampled every resample_every steps, and a new seed gives new prompts") {
  const auto p = acds_form8(2, 1);
  const auto src = acds_prompts(2, 8);
  BatchObjective obj(p, src, LossSpec::acds(), 1);
  const Eigen::VectorXd th = normal_theta(p, 0.3, 1, 1);
  const double a = obj.evaluate(th, 1, block_purpose(7, 0), 64, nullptr);
  CHECK(obj.evaluate(th, 1, block_purpose(7, 0), 64, nullptr) == a);
  CHECK(obj.evaluate(th, 1, block_purpose(7, 1), 64, nullptr) != a);
  CHECK(obj.evaluate(th, 2, block_purpose(7, 0), 64, nullptr) != a);
}

TEST_CASE("learn: a diverging run ends with status diverged, a reason and finite weights") {
  const auto p = acds_form8(2, 2);
  const auto src = acds_prompts(2, 8);
  SUBCASE("exploding weights (plain SGD with a huge step)") {
    TrainConfig c = short_run(1e3, 50, 64);
    c.optimizer = "sgd";
    c.max_weight = 1e4;
    const TrainResult r = train(p, normal_theta(p, 0.5, 1, 1), src, LossSpec::acds(), c);
    CHECK(r.status == TrainStatus::diverged);
    CHECK(!r.reason.empty());
    CHECK(r.theta.allFinite());
    CHECK(r.theta.lpNorm<Eigen::Infinity>() <= c.max_weight);
    CHECK(r.steps_done < c.steps);
  }
  SUBCASE("a non-finite loss (a prompt source that yields NaN)") {
    PromptSource bad = src;
    bad.make_drawer = [inner = src.make_drawer]() -> PromptDrawer {
      auto d = inner();
      return [d](std::uint64_t s, std::uint64_t pu, std::uint64_t i, Eigen::Ref<Eigen::MatrixXd> Z) {
        const double y = d(s, pu, i, Z);
        if (i == 3) Z(0, 0) = std::numeric_limits<double>::quiet_NaN();
        return y;
      };
    };
    for (const char* opt : {"adam", "lbfgs"}) {
      TrainConfig c = short_run(0.01, 10, 64);
      c.optimizer = opt;
      c.test_batch = 0;
      const Eigen::VectorXd th0 = normal_theta(p, 0.1, 1, 1);
      const TrainResult r = train(p, th0, bad, LossSpec::acds(), c);
      CHECK(r.status == TrainStatus::diverged);
      CHECK(r.reason.find("not finite") != std::string::npos);
      CHECK(r.theta == th0);
    }
  }
}

TEST_CASE("learn: L-BFGS on one fixed minibatch reaches its stationary point") {
  // One layer of form (8): the minibatch loss is a convex quadratic in A, so L-BFGS must find its minimum.
  const auto p = acds_form8(2, 1);
  const auto src = acds_prompts(2, 10);
  TrainConfig c = short_run(1.0, 15, 512);
  c.optimizer = "lbfgs";
  c.resample_every = 1000;  // the same minibatch throughout
  const TrainResult r = train(p, normal_theta(p, 0.1, 1, 1), src, LossSpec::acds(), c);
  REQUIRE(r.ok());
  BatchObjective obj(p, src, LossSpec::acds(), 1);
  Eigen::VectorXd g;
  obj.evaluate(r.theta, c.seed, block_purpose(c.purpose, 0), c.batch, &g);
  CHECK(g.norm() < 1e-6);
}

TEST_CASE("learn: minimize_lbfgs finds the minimum of a quadratic") {
  Eigen::MatrixXd H(3, 3);
  H << 4, 1, 0, 1, 3, 0.5, 0, 0.5, 2;
  const Eigen::Vector3d b(1, -2, 0.5);
  const Objective f = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::VectorXd& g) {
    g = H * x - b;
    return 0.5 * x.dot(H * x) - b.dot(x);
  };
  const auto r = minimize_lbfgs(f, Eigen::VectorXd::Zero(3));
  CHECK(r.converged);
  CHECK((r.theta - H.ldlt().solve(b)).norm() < 1e-9);
}

TEST_CASE("learn: the training block, the curve JSON and the figure") {
  const auto p = acds_form8(2, 1);
  TrainConfig c = short_run(0.05, 20, 64);
  c.clip = 0.01;
  c.resample_every = 100;
  c.observe_names = {"A_0 norm"};
  c.observe = [&](int, const Eigen::VectorXd& th, std::vector<double>& v) { v[0] = p.group_matrix("A_0", th).norm(); };
  const TrainResult r = train(p, normal_theta(p, 0.1, 1, 1), acds_prompts(2, 8), LossSpec::acds(), c);
  const auto j = training_json(c, {1, 2}, false, "x.training.svg");
  for (const char* k : {"optimizer", "learning_rate", "batch", "steps", "trials", "seeds", "paper_settings", "curve_file"})
    CHECK(j.contains(k));
  CHECK(j["trials"] == 2);
  CHECK(j["gradient_clip"] == 0.01);
  const auto cj = curve_json(r);
  CHECK(cj["curve"]["step"].size() == r.curve.step.size());
  CHECK(cj["curve"]["A_0 norm"].size() == r.curve.step.size());
  CHECK(r.curve.step.front() == 0);
  CHECK(r.curve.step.back() == c.steps);
  const std::string svg = training_svg("test", {{"run", &r}});
  CHECK(svg.find("<svg") == 0);
  CHECK(svg.find("run (test)") != std::string::npos);
}

TEST_CASE("learn: bad training settings are rejected") {
  const auto p = acds_form8(2, 1);
  TrainConfig c = short_run(0.05, 10);
  c.optimizer = "rmsprop";
  CHECK_THROWS_AS(train(p, Eigen::VectorXd::Zero(p.size()), acds_prompts(2, 8), LossSpec::acds(), c), std::invalid_argument);
  c = short_run(-1, 10);
  CHECK_THROWS_AS(train(p, Eigen::VectorXd::Zero(p.size()), acds_prompts(2, 8), LossSpec::acds(), c), std::invalid_argument);
  c = short_run(0.05, 10);
  CHECK_THROWS_AS(train(p, Eigen::VectorXd::Zero(p.size() + 1), acds_prompts(2, 8), LossSpec::acds(), c), std::invalid_argument);
}

}  // namespace
}  // namespace test_trainer
}  // namespace icl::learn
