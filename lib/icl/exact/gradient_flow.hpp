// Gradient flow d theta / dt = -grad L(theta), integrated with Boost.Odeint's adaptive Dormand-Prince
// 5(4) stepper with dense output, until ||grad L|| < grad_tol or t = t_max.
//
// What the integrator saw is reported, not hidden: `converged` only when the gradient tolerance was
// reached; `time_limit` when t_max came first; `step_limit` when the step budget ran out (with the
// smallest and largest accepted steps, the usual sign of stiffness for an explicit method);
// `blow_up` when ||theta|| exceeded blowup_norm; `non_finite` when a NaN/Inf appeared; `step_failure`
// when the step-size control gave up. The trace holds the loss, gradient norm and (if a distance is
// given) the distance to a target at log-spaced times, read from the dense output.
#pragma once
#include <Eigen/Dense>
#include <nlohmann/json.hpp>

#include <functional>
#include <string>
#include <vector>

namespace icl {

enum class FlowStatus { converged, time_limit, step_limit, blow_up, non_finite, step_failure };
const char* to_string(FlowStatus s);

struct FlowOptions {
  double t_max = 1e6;
  double grad_tol = 1e-10;
  double abs_tol = 1e-14;   // odeint error tolerances per step (tight: an explicit method on a stiff flow
                            // leaves noise of this order in the fast modes, a floor for ||grad L||)
  double rel_tol = 1e-12;
  double dt0 = 1e-3;
  std::size_t max_steps = 2000000;
  double blowup_norm = 1e8;
  double trace_t_min = 1e-2;  // first trace time; then trace_per_decade points per decade up to t_max
  int trace_per_decade = 4;
};

struct FlowSample {
  double t = 0, loss = 0, grad_norm = 0, distance = 0;
};

struct FlowResult {
  FlowStatus status = FlowStatus::time_limit;
  double t_end = 0;
  Eigen::VectorXd theta;
  double loss = 0, grad_norm = 0;
  std::size_t steps = 0, evaluations = 0;
  double min_dt = 0, max_dt = 0;  // accepted step sizes
  std::vector<FlowSample> trace;  // trace times passed, then the final state
  std::string describe() const;
  nlohmann::ordered_json to_json(bool with_trace = true) const;
};

// value_and_gradient(theta, grad) returns L(theta) and writes grad L(theta).
using LossFunction = std::function<double(const Eigen::Ref<const Eigen::VectorXd>&, Eigen::Ref<Eigen::VectorXd>)>;
// distance(theta) for the trace (optional).
using DistanceFunction = std::function<double(const Eigen::Ref<const Eigen::VectorXd>&)>;

FlowResult gradient_flow(const LossFunction& f, const Eigen::VectorXd& theta0, const FlowOptions& opt,
                         const DistanceFunction& distance = {});

}  // namespace icl
