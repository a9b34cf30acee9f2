// The per-prompt loss of a prediction: factor * (yhat + sign * y_q)^2. The sign is the prompt layout's convention
// for where the prediction sits (a construction that writes -y into the label row has sign +1); the factor is 1 or
// the 1/2 of a paper that halves the squared error.
#pragma once

namespace icl {

struct LossSpec {
  double sign = +1.0;   // error = yhat + sign * y_q
  double factor = 1.0;  // loss = factor * error^2
  static LossSpec sja() { return {+1.0, 1.0}; }
  static LossSpec acds() { return {+1.0, 1.0}; }
  static LossSpec zfb() { return {-1.0, 0.5}; }
  double operator()(double yhat, double yq) const {
    const double e = yhat + sign * yq;
    return factor * e * e;
  }
  double derivative(double yhat, double yq) const { return 2.0 * factor * (yhat + sign * yq); }
};

}  // namespace icl
