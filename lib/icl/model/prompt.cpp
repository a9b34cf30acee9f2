#include "icl/model/prompt.hpp"

#include <stdexcept>

namespace icl {

PromptShape sja_shape(int d, int dbar, int n) {
  if (dbar < d + 1) throw std::invalid_argument("sja embedding needs dbar >= d + 1");
  return {Embedding::sja, d, dbar, n};
}
PromptShape acds_shape(int d, int n) { return {Embedding::acds, d, d, n}; }
PromptShape zfb_shape(int d, int n) { return {Embedding::zfb, d, d, n}; }

void embed(const PromptShape& s, const Eigen::Ref<const Eigen::MatrixXd>& X,
           const Eigen::Ref<const Eigen::RowVectorXd>& y, Eigen::Ref<Eigen::MatrixXd> Z) {
  if (Z.rows() != s.rows() || Z.cols() != s.cols() || X.rows() != s.d || X.cols() != s.cols() ||
      y.size() < s.n)
    throw std::invalid_argument("embed: shapes do not match");
  Z.setZero();
  int r = 0;
  if (s.embedding == Embedding::sja) Z.row(r++).setOnes();
  Z.middleRows(r, s.d) = X;
  Z.row(s.dbar).head(s.n) = y.head(s.n);
  Z(s.dbar, s.n) = 0.0;  // the query label is absent
}

}  // namespace icl
