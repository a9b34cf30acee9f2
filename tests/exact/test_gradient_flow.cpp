// The gradient-flow integrator (lib/icl/exact/gradient_flow.hpp): a linear ODE with a known solution, and
// the time limit, stiffness and blow-up reported as such.
#include "icl/exact/gradient_flow.hpp"
#include "tests/support/test_support.hpp"

#include <doctest/doctest.h>

#include <cmath>

namespace icl {
namespace test_gradient_flow {  // named: a unity build compiles several test files as one unit

using test::random_matrix;

TEST_CASE("gradient flow integrator reproduces the solution of a linear ODE") {
  // L = 1/2 x^T A x - b^T x: the flow x' = b - A x has x(t) = x* + V exp(-D t) V^T (x0 - x*).
  const int n = 4;
  Eigen::MatrixXd Q = random_matrix(n, n, 3).householderQr().householderQ();
  const Eigen::VectorXd D = (Eigen::VectorXd(n) << 0.5, 1.0, 2.0, 5.0).finished();
  const Eigen::MatrixXd A = Q * D.asDiagonal() * Q.transpose();
  const Eigen::VectorXd b = random_matrix(n, 1, 4), x0 = random_matrix(n, 1, 5);
  const Eigen::VectorXd xs = A.ldlt().solve(b);
  auto exact = [&](double t) {
    Eigen::VectorXd e = (-D * t).array().exp();
    return Eigen::VectorXd(xs + Q * e.asDiagonal() * Q.transpose() * (x0 - xs));
  };
  auto loss = [&](const Eigen::Ref<const Eigen::VectorXd>& x) { return 0.5 * x.dot(A * x) - b.dot(x); };
  LossFunction f = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) {
    g = A * x - b;
    return loss(x);
  };
  FlowOptions opt;
  opt.grad_tol = 1e-9;
  opt.t_max = 1e3;
  opt.trace_t_min = 0.05;
  opt.trace_per_decade = 6;
  const FlowResult r = gradient_flow(f, x0, opt, [&](const Eigen::Ref<const Eigen::VectorXd>& x) { return (x - xs).norm(); });
  CHECK(r.status == FlowStatus::converged);
  // ||grad(t)|| = ||A (x(t) - x*)|| decreases monotonically: the tolerance is first met at t*, found by
  // bisection on the exact solution; the integrator checks after every step, so t* <= t_end <= t* + max_dt.
  auto gnorm = [&](double t) { return (A * (exact(t) - xs)).norm(); };
  double lo = 0, hi = 1e3;
  for (int k = 0; k < 200; ++k) (gnorm(0.5 * (lo + hi)) < opt.grad_tol ? hi : lo) = 0.5 * (lo + hi);
  INFO("t* = " << hi << ", t_end = " << r.t_end << ", max dt = " << r.max_dt);
  CHECK(r.t_end >= hi - 1e-6);
  CHECK(r.t_end <= hi + r.max_dt + 1e-6);
  CHECK(r.trace.size() > 10);
  for (const auto& s : r.trace) {
    const Eigen::VectorXd xe = exact(s.t);
    INFO("t = " << s.t << " loss " << s.loss << " exact " << loss(xe));
    CHECK(std::abs(s.loss - loss(xe)) < 1e-8 * (1 + std::abs(loss(xe))));
    CHECK(std::abs(s.distance - (xe - xs).norm()) < 1e-7);
  }
  CHECK((r.theta - xs).norm() < 1e-8);
}

TEST_CASE("gradient flow integrator reports time limits, stiffness and blow-up as such") {
  const int n = 2;
  Eigen::MatrixXd A(n, n);
  A << 1e-3, 0, 0, 1e4;  // stiffness ratio 1e7 for an explicit method
  LossFunction stiff = [&](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) {
    g = A * x;
    return 0.5 * x.dot(A * x);
  };
  FlowOptions opt;
  opt.max_steps = 20000;
  opt.t_max = 1e9;
  const Eigen::VectorXd x0 = Eigen::VectorXd::Ones(n);
  const FlowResult r1 = gradient_flow(stiff, x0, opt);
  CHECK(r1.status == FlowStatus::step_limit);
  CHECK(r1.max_dt < 1e-2);  // the fast mode caps the step
  opt.max_steps = 2000000;
  opt.t_max = 1.0;
  const FlowResult r2 = gradient_flow(stiff, x0, opt);
  CHECK(r2.status == FlowStatus::time_limit);
  LossFunction concave = [](const Eigen::Ref<const Eigen::VectorXd>& x, Eigen::Ref<Eigen::VectorXd> g) {
    g = -x;
    return -0.5 * x.squaredNorm();
  };
  opt.t_max = 1e6;
  opt.blowup_norm = 1e6;
  const FlowResult r3 = gradient_flow(concave, x0, opt);
  CHECK(r3.status == FlowStatus::blow_up);
  CHECK(r3.t_end == doctest::Approx(std::log(1e6 / std::sqrt(2.0))).epsilon(0.05));
}

}  // namespace test_gradient_flow
}  // namespace icl
