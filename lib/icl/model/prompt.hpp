// Prompt embeddings (docs/claims.md, "Conventions").
//
// sja / acds: Z in R^{(dbar+1) x (n+1)}, columns (x_i, y_i) and the query column (x_q, 0). sja adds a
//   first row of ones and zero rows up to width dbar (so rows: 1, x (d), zeros (dbar-1-d), y);
//   acds has rows x (d), y (dbar = d).
// zfb: E in R^{(d+1) x (N+1)}, rows x and y, query label 0, attention unmasked.
// unstructured (xlssc's E_2): Z in R^{(d+1) x (2n+1)}, tokens (x_1, 0), (0, y_1), ..., (x_n, 0), (0, y_n), (x_q, 0):
//   x_i and y_i in separate columns; the prediction is still the last row of the last column.
#pragma once
#include <Eigen/Dense>

namespace icl {

enum class Embedding { sja, acds, zfb, unstructured };

struct PromptShape {
  Embedding embedding = Embedding::sja;
  int d = 1;     // input dimension
  int dbar = 1;  // embedding width without the label row
  int n = 1;     // context examples (the query is column n)
  int rows() const { return dbar + 1; }
  int cols() const { return embedding == Embedding::unstructured ? 2 * n + 1 : n + 1; }
  int examples() const { return n + 1; }  // the inputs drawn per prompt (the query's last)
  // Bytes a workspace of this shape needs per worker thread (Z plus a few scratch copies).
  double workspace_bytes() const { return 8.0 * (6.0 * rows() * cols() + 4.0 * rows() * rows()); }
};

PromptShape sja_shape(int d, int dbar, int n);
PromptShape acds_shape(int d, int n);
PromptShape zfb_shape(int d, int n);
PromptShape unstructured_shape(int d, int n);

// Writes the prompt into Z (resized by the caller to shape.rows() x shape.cols()).
// X: d x (n+1) inputs, the last column the query; y: the n context labels (query label is 0).
void embed(const PromptShape& shape, const Eigen::Ref<const Eigen::MatrixXd>& X,
           const Eigen::Ref<const Eigen::RowVectorXd>& y, Eigen::Ref<Eigen::MatrixXd> Z);

// Where each paper reads its prediction: the label row of the query column.
inline double prediction(const Eigen::Ref<const Eigen::MatrixXd>& Z) { return Z(Z.rows() - 1, Z.cols() - 1); }

}  // namespace icl
