// Optimisers on a parameter vector: Adam (Kingma & Ba, with bias correction, as torch.optim.Adam without
// weight decay), per-group gradient-norm clipping (acds Sec. 4.3: "clip the gradient of each matrix"), and
// L-BFGS (two-loop recursion, backtracking Armijo line search) for deterministic objectives: a fixed
// minibatch, or an exact population loss (exact/acds_population.hpp, exact/optimal_attention.hpp).
#pragma once
#include "icl/model/parameters.hpp"

#include <Eigen/Dense>

#include <deque>
#include <functional>
#include <string>

namespace icl::learn {

struct Adam {
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  Eigen::VectorXd m, v;
  long t = 0;
  void reset(int n) {
    m.setZero(n);
    v.setZero(n);
    t = 0;
  }
  // theta -= lr * mhat / (sqrt(vhat) + epsilon)
  void step(Eigen::Ref<Eigen::VectorXd> theta, const Eigen::Ref<const Eigen::VectorXd>& grad, double lr);
};

// Scales each group's slice of grad to Frobenius norm <= max_norm (groups of `p`); returns the largest
// group norm before clipping.
double clip_group_norms(const Parameterisation& p, Eigen::Ref<Eigen::VectorXd> grad, double max_norm);

// f(theta, grad) returns the loss and writes its gradient.
using Objective = std::function<double(const Eigen::Ref<const Eigen::VectorXd>& theta, Eigen::VectorXd& grad)>;

struct LbfgsOptions {
  int history = 10;
  int max_iterations = 1000;
  double gradient_tolerance = 1e-10;  // stop when ||g||_inf <= this
  double relative_decrease = 0.0;     // stop when the loss falls by less than this (relative) in an iteration
  double initial_step = 1.0;          // first iteration's step along -g / ||g||
  int max_line_search = 40;
};

struct LbfgsState {
  std::deque<Eigen::VectorXd> s, y;
  std::deque<double> rho;
  double loss = 0;
  Eigen::VectorXd grad;
  bool has_grad = false;
  int iterations = 0;
  void reset() {
    s.clear();
    y.clear();
    rho.clear();
    has_grad = false;
  }
};

// One L-BFGS iteration at theta (updated in place). Returns false when the line search finds no decrease
// (or the loss or gradient is not finite); `why` says which.
bool lbfgs_step(const Objective& f, Eigen::VectorXd& theta, LbfgsState& st, const LbfgsOptions& o, std::string& why);

struct MinimizeResult {
  Eigen::VectorXd theta;
  double loss = 0;
  double gradient_norm = 0;  // ||g||_inf at the end
  int iterations = 0;
  bool converged = false;    // met the gradient tolerance
  std::string status;        // why it stopped
};
MinimizeResult minimize_lbfgs(const Objective& f, Eigen::VectorXd theta0, const LbfgsOptions& o = {});

// Newton steps on f's analytic gradient (Hessian by central differences, minimum-norm steps where it is singular),
// kept while the gradient's largest entry shrinks; updates r.theta, r.loss and r.gradient_norm (||g||_inf).
// Polishes an L-BFGS result to the floor of double precision.
void newton_polish(const Objective& f, MinimizeResult& r);

}  // namespace icl::learn
