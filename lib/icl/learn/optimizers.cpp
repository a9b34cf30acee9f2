#include "icl/learn/optimizers.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace icl::learn {

void Adam::step(Eigen::Ref<Eigen::VectorXd> theta, const Eigen::Ref<const Eigen::VectorXd>& g, double lr) {
  if (m.size() != theta.size()) reset(static_cast<int>(theta.size()));
  ++t;
  const double b1t = 1.0 - std::pow(beta1, static_cast<double>(t));
  const double b2t = 1.0 - std::pow(beta2, static_cast<double>(t));
  for (Eigen::Index k = 0; k < theta.size(); ++k) {
    m[k] = beta1 * m[k] + (1.0 - beta1) * g[k];
    v[k] = beta2 * v[k] + (1.0 - beta2) * g[k] * g[k];
    const double mhat = m[k] / b1t, vhat = v[k] / b2t;
    theta[k] -= lr * mhat / (std::sqrt(vhat) + epsilon);
  }
}

double clip_group_norms(const Parameterisation& p, Eigen::Ref<Eigen::VectorXd> grad, double max_norm) {
  double largest = 0;
  for (std::size_t g = 0; g < p.groups().size(); ++g) {
    auto seg = grad.segment(p.group_offset(static_cast<int>(g)), p.groups()[g].size());
    // The norm of the group's matrix gradient: a symmetric pair's scalar carries both entries, so its
    // matrix-entry gradient is half the scalar's; the clip acts on the scalars (what the optimiser sees).
    const double nrm = seg.norm();
    largest = std::max(largest, nrm);
    if (max_norm > 0 && nrm > max_norm) seg *= max_norm / nrm;
  }
  return largest;
}

namespace {

bool finite(const Eigen::VectorXd& v) { return v.allFinite(); }

}  // namespace

bool lbfgs_step(const Objective& f, Eigen::VectorXd& theta, LbfgsState& st, const LbfgsOptions& o, std::string& why) {
  if (!st.has_grad) {
    st.loss = f(theta, st.grad);
    st.has_grad = true;
    if (!std::isfinite(st.loss) || !finite(st.grad)) {
      why = "loss or gradient not finite";
      return false;
    }
  }
  const Eigen::VectorXd& g = st.grad;
  // Two-loop recursion: direction = -H g.
  Eigen::VectorXd q = g;
  const std::size_t m = st.s.size();
  std::vector<double> alpha(m);
  for (std::size_t i = m; i-- > 0;) {
    alpha[i] = st.rho[i] * st.s[i].dot(q);
    q -= alpha[i] * st.y[i];
  }
  double step = 1.0;
  if (m > 0) {
    q *= st.s.back().dot(st.y.back()) / st.y.back().squaredNorm();
  } else {
    const double gn = g.norm();
    if (gn == 0) {
      why = "zero gradient";
      return false;
    }
    step = o.initial_step / gn;
  }
  for (std::size_t i = 0; i < m; ++i) {
    const double b = st.rho[i] * st.y[i].dot(q);
    q += (alpha[i] - b) * st.s[i];
  }
  Eigen::VectorXd dir = -q;
  double slope = g.dot(dir);
  if (!(slope < 0)) {  // not a descent direction: restart from steepest descent
    st.reset();
    st.has_grad = true;
    dir = -g;
    slope = -g.squaredNorm();
    step = o.initial_step / std::sqrt(-slope);
  }
  Eigen::VectorXd next(theta.size()), gnext(theta.size());
  double fnext = 0;
  bool ok = false;
  for (int k = 0; k < o.max_line_search; ++k) {
    next = theta + step * dir;
    fnext = f(next, gnext);
    if (std::isfinite(fnext) && finite(gnext) && fnext <= st.loss + 1e-4 * step * slope) {
      ok = true;
      break;
    }
    step *= 0.5;
  }
  if (!ok) {
    why = "line search found no decrease";
    return false;
  }
  Eigen::VectorXd s = next - theta, y = gnext - g;
  const double sy = s.dot(y);
  if (sy > 1e-12 * s.norm() * y.norm()) {
    st.s.push_back(std::move(s));
    st.y.push_back(std::move(y));
    st.rho.push_back(1.0 / sy);
    if (static_cast<int>(st.s.size()) > o.history) {
      st.s.pop_front();
      st.y.pop_front();
      st.rho.pop_front();
    }
  }
  theta = next;
  st.loss = fnext;
  st.grad = gnext;
  ++st.iterations;
  return true;
}

MinimizeResult minimize_lbfgs(const Objective& f, Eigen::VectorXd theta, const LbfgsOptions& o) {
  LbfgsState st;
  MinimizeResult r;
  std::string why;
  r.status = "iteration limit";
  for (int it = 0; it < o.max_iterations; ++it) {
    if (st.has_grad && st.grad.lpNorm<Eigen::Infinity>() <= o.gradient_tolerance) {
      r.converged = true;
      r.status = "gradient tolerance met";
      break;
    }
    const double before = st.has_grad ? st.loss : INFINITY;
    if (!lbfgs_step(f, theta, st, o, why)) {
      r.status = why;
      break;
    }
    if (std::isfinite(before) && o.relative_decrease > 0 &&
        before - st.loss <= o.relative_decrease * std::max(1.0, std::abs(st.loss))) {
      r.status = "relative decrease below tolerance";
      break;
    }
  }
  if (!st.has_grad) st.loss = f(theta, st.grad);
  r.theta = theta;
  r.loss = st.loss;
  r.gradient_norm = st.grad.size() ? st.grad.lpNorm<Eigen::Infinity>() : 0.0;
  if (!r.converged && r.gradient_norm <= o.gradient_tolerance) {
    r.converged = true;
    r.status = "gradient tolerance met";
  }
  r.iterations = st.iterations;
  return r;
}

void newton_polish(const Objective& f, MinimizeResult& r) {
  if (!std::isfinite(r.loss)) return;
  const int P = static_cast<int>(r.theta.size());
  Eigen::VectorXd g;
  double v = f(r.theta, g);
  for (int it = 0; it < 8 && g.lpNorm<Eigen::Infinity>() > 0; ++it) {
    Eigen::MatrixXd H(P, P);
    for (int k = 0; k < P; ++k) {
      const double h = 1e-5 * std::max(1.0, std::abs(r.theta[k]));
      Eigen::VectorXd tp = r.theta, tm = r.theta, gp, gm;
      tp[k] += h;
      tm[k] -= h;
      f(tp, gp);
      f(tm, gm);
      H.col(k) = (gp - gm) / (2 * h);
    }
    H = 0.5 * (H + H.transpose()).eval();
    // Minimum-norm step: the Hessian is singular along symmetries (joint rotations at Sigma = I) and along
    // parameters the loss ignores (B_{L-1} of form (11)).
    Eigen::CompleteOrthogonalDecomposition<Eigen::MatrixXd> cod(H);
    cod.setThreshold(1e-10);
    const Eigen::VectorXd step = cod.solve(g);
    if (!step.allFinite()) break;
    const Eigen::VectorXd t = r.theta - step;
    Eigen::VectorXd gt;
    const double vt = f(t, gt);
    if (!(gt.lpNorm<Eigen::Infinity>() < g.lpNorm<Eigen::Infinity>())) break;
    r.theta = t;
    v = vt;
    g = gt;
  }
  r.loss = v;
  r.gradient_norm = g.lpNorm<Eigen::Infinity>();
}

}  // namespace icl::learn
