#include "icl/exact/gradient_flow.hpp"

#include <boost/numeric/odeint.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace icl {

namespace odeint = boost::numeric::odeint;

const char* to_string(FlowStatus s) {
  switch (s) {
    case FlowStatus::converged: return "converged";
    case FlowStatus::time_limit: return "time_limit";
    case FlowStatus::step_limit: return "step_limit";
    case FlowStatus::blow_up: return "blow_up";
    case FlowStatus::non_finite: return "non_finite";
    default: return "step_failure";
  }
}

std::string FlowResult::describe() const {
  switch (status) {
    case FlowStatus::converged:
      return fmt::format("converged: ||grad L|| = {:.3g} at t = {:.4g} after {} steps (dt in [{:.3g}, {:.3g}])",
                         grad_norm, t_end, steps, min_dt, max_dt);
    case FlowStatus::time_limit:
      return fmt::format("NOT converged by the time limit t = {:.4g}: ||grad L|| = {:.3g} ({} steps)", t_end, grad_norm,
                         steps);
    case FlowStatus::step_limit:
      return fmt::format("NOT converged: step budget of {} steps spent at t = {:.4g} (||grad L|| = {:.3g}, accepted dt "
                         "in [{:.3g}, {:.3g}]: the flow is stiff for an explicit method)",
                         steps, t_end, grad_norm, min_dt, max_dt);
    case FlowStatus::blow_up:
      return fmt::format("BLOW-UP: ||theta|| = {:.3g} at t = {:.4g}", theta.norm(), t_end);
    case FlowStatus::non_finite: return fmt::format("NON-FINITE state at t = {:.4g}", t_end);
    default: return fmt::format("step-size control failed at t = {:.4g}", t_end);
  }
}

nlohmann::ordered_json FlowResult::to_json(bool with_trace) const {
  nlohmann::ordered_json j;
  j["status"] = to_string(status);
  j["description"] = describe();
  j["t_end"] = t_end;
  j["loss"] = loss;
  j["grad_norm"] = grad_norm;
  j["steps"] = steps;
  j["gradient_evaluations"] = evaluations;
  j["min_dt"] = min_dt;
  j["max_dt"] = max_dt;
  if (with_trace) {
    nlohmann::ordered_json t = nlohmann::ordered_json::object();
    std::vector<double> ts, ls, gs, ds;
    for (const auto& s : trace) {
      ts.push_back(s.t);
      ls.push_back(s.loss);
      gs.push_back(s.grad_norm);
      ds.push_back(s.distance);
    }
    t["t"] = ts;
    t["loss"] = ls;
    t["grad_norm"] = gs;
    t["distance"] = ds;
    j["trace"] = t;
  }
  return j;
}

FlowResult gradient_flow(const LossFunction& f, const Eigen::VectorXd& theta0, const FlowOptions& opt,
                         const DistanceFunction& distance) {
  using State = std::vector<double>;
  const std::size_t n = static_cast<std::size_t>(theta0.size());
  FlowResult r;
  Eigen::VectorXd gbuf(theta0.size());
  // The last right-hand side Dormand-Prince evaluates in an accepted step is at the new state (FSAL):
  // remember where it was evaluated, so the convergence test needs no extra gradient.
  const State* last_x = nullptr;
  double last_gnorm = INFINITY;
  auto rhs = [&](const State& x, State& dxdt, double) {
    ++r.evaluations;
    Eigen::Map<const Eigen::VectorXd> xm(x.data(), static_cast<Eigen::Index>(n));
    f(xm, gbuf);
    for (std::size_t k = 0; k < n; ++k) dxdt[k] = -gbuf[static_cast<Eigen::Index>(k)];
    last_x = &x;
    last_gnorm = gbuf.norm();
  };
  auto sample = [&](double t, const State& x) {
    Eigen::Map<const Eigen::VectorXd> xm(x.data(), static_cast<Eigen::Index>(n));
    FlowSample s;
    s.t = t;
    s.loss = f(xm, gbuf);
    s.grad_norm = gbuf.norm();
    s.distance = distance ? distance(xm) : 0.0;
    return s;
  };

  auto stepper = odeint::make_dense_output(opt.abs_tol, opt.rel_tol, odeint::runge_kutta_dopri5<State>());
  State x(theta0.data(), theta0.data() + n), xi(n);
  stepper.initialize(x, 0.0, opt.dt0);
  double next_trace = opt.trace_t_min;
  const double trace_factor = std::pow(10.0, 1.0 / std::max(1, opt.trace_per_decade));
  r.trace.push_back(sample(0.0, x));
  r.min_dt = INFINITY;
  r.max_dt = 0;
  bool done = r.trace.back().grad_norm < opt.grad_tol;
  if (done) r.status = FlowStatus::converged;
  while (!done) {
    if (r.steps >= opt.max_steps) {
      r.status = FlowStatus::step_limit;
      break;
    }
    std::pair<double, double> span;
    last_x = nullptr;
    try {
      span = stepper.do_step(rhs);
    } catch (const std::exception&) {  // odeint's failed_step_checker: too many rejected steps in a row
      r.status = FlowStatus::step_failure;
      break;
    }
    ++r.steps;
    const double h = span.second - span.first;
    r.min_dt = std::min(r.min_dt, h);
    r.max_dt = std::max(r.max_dt, h);
    const State& cur = stepper.current_state();
    bool finite = true;
    double norm2 = 0;
    for (double v : cur) {
      finite &= std::isfinite(v);
      norm2 += v * v;
    }
    if (!finite) {
      r.status = FlowStatus::non_finite;
      break;
    }
    double gnorm = last_x == &cur ? last_gnorm : NAN;
    if (std::isnan(gnorm)) {
      Eigen::Map<const Eigen::VectorXd> xm(cur.data(), static_cast<Eigen::Index>(n));
      f(xm, gbuf);
      ++r.evaluations;
      gnorm = gbuf.norm();
    }
    while (next_trace <= span.second && next_trace <= opt.t_max) {
      stepper.calc_state(next_trace, xi);
      r.trace.push_back(sample(next_trace, xi));
      next_trace *= trace_factor;
    }
    if (std::sqrt(norm2) > opt.blowup_norm) {
      r.status = FlowStatus::blow_up;
      break;
    }
    if (gnorm < opt.grad_tol) {
      r.status = FlowStatus::converged;
      break;
    }
    if (span.second >= opt.t_max) {
      r.status = FlowStatus::time_limit;
      break;
    }
  }
  const State& fin = stepper.current_state();
  r.t_end = stepper.current_time();
  r.theta = Eigen::Map<const Eigen::VectorXd>(fin.data(), static_cast<Eigen::Index>(n));
  const FlowSample last = sample(r.t_end, fin);
  r.loss = last.loss;
  r.grad_norm = last.grad_norm;
  if (r.trace.back().t != r.t_end) r.trace.push_back(last);
  if (r.steps == 0) r.min_dt = 0;
  return r;
}

}  // namespace icl
