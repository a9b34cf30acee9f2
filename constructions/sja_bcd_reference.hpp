// The reference the deep sja constructions (sja.thm7, sja.cor8, sja.cor10) are checked against:
// block-coordinate descent (9) on L(w) = (1/2n) sum_i (phi(x_i)^T w + y_i)^2 from w = 0, run in long double
// (the truth) and in double (to measure what rounding alone does), and the label row a stack should hold
// after l blocks: y_i + phi(x_i)^T w^(l) in context column i, phi(x_q)^T w^(l) in the query column.
#pragma once
#include "icl/exact/block_coordinate_descent.hpp"

#include <Eigen/Dense>

#include <cstddef>
#include <vector>

namespace icl::sja {

// Worst error of a label row z against y_i + f(x_i; w) (context) and f(x_q; w) (query), each entry relative to
// the sum of the absolute values of its terms (cancellation cannot hide an error). Phi: features x columns
// (n + 1, the query last), in long double. PhiAbs, if given, bounds |Phi| entry by entry (features whose own
// evaluation cancels) and the scale uses |w_k| PhiAbs instead of |w_k Phi|.
double label_row_error(const Eigen::Ref<const Eigen::RowVectorXd>& z, const MatrixS<long double>& Phi,
                       const Eigen::RowVectorXd& y, const VectorS<long double>& w, int n,
                       const MatrixS<long double>* PhiAbs = nullptr);

class BcdReference {
public:
  // PhiL, PhiD: the same features in long double and double (computed by the caller, each in its own precision);
  // y: the n context labels and the query's 0; steps: the blocks and their preconditioners.
  BcdReference(MatrixS<long double> PhiL, Eigen::MatrixXd PhiD, Eigen::RowVectorXd y, int n,
               const std::vector<BlockStep>& steps, MatrixS<long double> PhiAbs = {});

  const VectorS<long double>& truth(std::size_t l) const { return wL_[l]; }  // w^(l), long double
  const Eigen::VectorXd& in_double(std::size_t l) const { return wD_[l]; }   // w^(l), double
  // The label row after l blocks against the truth.
  double label_error(const Eigen::Ref<const Eigen::RowVectorXd>& z, std::size_t l) const {
    return label_row_error(z, PhiL_, y_, wL_[l], n_, PhiAbs_.size() ? &PhiAbs_ : nullptr);
  }
  // The double reference's own label row after l blocks against the truth: the rounding floor.
  double self_error(std::size_t l) const;
  // f(x_q; w^(L)) in long double, rounded: the prediction after the last block.
  double final_query() const;
  // Whether some iterate's term |w_k^(l) phi_k(x_c)| exceeds `limit` (kDoubleRangeTerm): the exact descent then
  // leaves the range a double forward pass can carry, and the prompt tests floating point, not the identity.
  bool leaves_double_range(long double limit) const;

private:
  MatrixS<long double> PhiL_, PhiAbs_;
  Eigen::MatrixXd PhiD_;
  Eigen::RowVectorXd y_;
  int n_;
  std::vector<VectorS<long double>> wL_;
  std::vector<Eigen::VectorXd> wD_;
};

}  // namespace icl::sja
