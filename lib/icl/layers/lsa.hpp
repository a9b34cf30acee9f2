// Linear self-attention (sja/acds eq. (2), zfb): Z + s P Z M (Z^T Q Z), M = diag(I_n, 0) when masked (the query
// column is neither key nor value: sja, acds), no mask (zfb); s = 1/n (n = columns - 1) unless `scale` is set.
// Parameters: P, Q (rows x rows).
//
// Evaluated as P (Z_K Z_K^T) Q Z (K the key columns): O(D^2 N). Adjoint, with R = dL/dZ_out, G = Z_K Z_K^T,
// T = P G Q: dZ = R + s T^T R + (dG + dG^T) Z_K, dT = s R Z^T, dP = dT Q^T G, dQ = G P^T dT, dG = P^T dT Q^T.
// Query path (the prediction alone): yhat = Z(D-1, N-1) + s p^T G q, p = P's last row, q = Q z_q.
#pragma once
#include "icl/layers/layer.hpp"

namespace icl::layers {

class Lsa final : public LayerBase<Lsa> {
public:
  static constexpr const char* kKind = "lsa";
  explicit Lsa(Eigen::Index rows, bool masked = true, double scale = 0.0);
  bool masked = true;
  double scale = 0.0;  // 0: 1/n

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;
  double forward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s) const override;
  void backward_query(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, double dy, Eigen::MatrixXd& R,
                      Grads& g) const override;
};

}  // namespace icl::layers
