// Positional encoding added to the embedded prompt (Xing et al. Sec. 3 "Positional Encoding" and Sec. 5; GPT-2's
// `wpe`): out = Z + E[:, 0:N] for a prompt of N <= max_tokens tokens (rows p: the embedding dimension). Kinds:
//   none       E = 0 (identity), no parameters;
//   trainable  E a parameter "E" (p x max_tokens): GPT-2's wpe, "completely trainable PE";
//   sincos     the fixed sin-cos encoding, Xing et al. formula (2) with d replaced by p (their footnote 1:
//              "PE is added after the input prompt passes the embedding [layer] ... replace d with p"):
//                P_{2i-1,pos} = sin((pos - 1) / Lambda^{2i/p}),  P_{2i,pos} = cos((pos - 1) / Lambda^{2i/p}),
//              "where pos in {1, ..., r}, i in {1, ..., d}, and Lambda is a user-specified scalar" (rows and
//              positions 1-based). Read literally, with 0-based row k and token t (= pos - 1):
//                E(k, t) = sin(t / Lambda^{2(floor(k/2)+1)/p}) for even k, cos(...) for odd k,
//              so the first row pair already has frequency Lambda^{-2/p} (i starts at 1 in the exponent);
//              i runs to ceil(p/2) (the paper's "i in {1..d}" would give 2d rows: read as "as many pairs as
//              rows"; an odd p ends with a sin row);
//   sincos_vaswani  the GPT-style (Vaswani et al.) encoding the paper cites, which formula (2) transcribes with
//              1-based rows but without shifting i in the exponent:
//                E(k, t) = sin(t / Lambda^{2 floor(k/2)/p}) for even k, cos(...) for odd k
//              (first pair frequency 1: row 0 = sin t, row 1 = cos t). The two differ only by the factor
//              Lambda^{-2/p} on every frequency.
// The paper leaves Lambda open (its Fig. 9 varies it); the default 10000 is Vaswani et al.'s.
// Adjoint, R = dL/d(out): dZ = R, dE[:, 0:N] = R (trainable). Throws std::invalid_argument when N > max_tokens
// or the input rows differ from p.
#pragma once
#include "icl/layers/layer.hpp"

namespace icl::layers {

class PositionalEncoding final : public LayerBase<PositionalEncoding> {
public:
  static constexpr const char* kKind = "positional";
  enum class Kind { none, trainable, sincos, sincos_vaswani };
  PositionalEncoding(Eigen::Index rows, Eigen::Index max_tokens, Kind kind, double lambda = 10000.0);
  Kind encoding() const { return kind_; }
  Eigen::Index max_tokens() const { return max_tokens_; }
  double lambda() const { return lambda_; }
  // E (p x max_tokens): the parameter (trainable), the fixed table (sincos kinds) or zeros (none).
  Eigen::MatrixXd table() const;

  void forward(const Eigen::MatrixXd& Z, Eigen::MatrixXd& out, Cache& c, Scratch& s) const override;
  void backward(const Eigen::MatrixXd& Z, Cache& c, Scratch& s, Eigen::MatrixXd& R, Grads& g) const override;

private:
  void check(const Eigen::MatrixXd& Z) const;
  Eigen::Index rows_, max_tokens_;
  Kind kind_;
  double lambda_;
  Eigen::MatrixXd fixed_;  // the sin-cos table (sincos kinds); empty otherwise
};

// The sin-cos table of kind sincos (formula (2) read literally) or sincos_vaswani: rows x tokens.
Eigen::MatrixXd sincos_positional_table(Eigen::Index rows, Eigen::Index tokens, double lambda, bool vaswani = false);

}  // namespace icl::layers
