// Label-row LSA stacks: the cpu executor's fast minibatch for stacks of masked linear self-attention layers whose
// attention writes the label row and, at most, the inputs through a d x d block:
//
//   P = [B, 0; 0, p],  Q = [Qa, 0; 0, 0]   (rows d + 1; B may be zero, every other entry of P's and Q's last row
//                                            and column zero)
//
// Such a layer maps every column z_j of the prompt to M z_j with M = [C, 0; r^T, 1], t = Qa^T b, r = s p t,
// C = I + s B S Qa (S = sum_{j<n} x_j x_j^T, b = sum_{j<n} y_j x_j over the key columns, s the scale), so the whole
// stack is a function of those statistics and of the query column: S' = C S C^T, b' = C (S r + b), x_q' = C x_q,
// y_q' = y_q + r . x_q, the prediction y_q after the last layer. The kernels (label_row_kernel.hpp) run that chain and
// its adjoint in O(L d^3) per prompt (O(L d^2) where B is zero), four prompts at a time in vector registers, instead
// of the layers' O(L d^2 n) passes over the columns and their adjoints; the statistics cost O(d^2 n) once per prompt,
// and the executor keeps them while the same minibatch comes back (the trainer resamples every `resample_every`
// steps). The sums run in another order than the layers' Eigen products, so losses and gradients agree with the
// general path (icl::forward / icl::backward) to rounding, not bit for bit (tests/execute/test_label_row.cpp:
// 1e-12 relative); the chunking, the prompt order within a chunk and so the executor's determinism (the same bits at
// any thread count and any number of MPI ranks) are unchanged.
//
// A stack is recognised by structure alone: every layer a masked layers::Lsa on d + 1 <= 9 rows, every entry of P
// and Q outside the blocks above zero in the base network and written by no parameter group, no group reading a
// gradient outside them. acds's forms (8) and (11) and their families (constructions/acds_forms.hpp) are such stacks;
// nothing else registered is.
#pragma once
#include "icl/execute/label_row_kernel.hpp"
#include "icl/layers/backprop.hpp"
#include "icl/model/loss.hpp"
#include "icl/model/parameters.hpp"
#include "icl/model/prompt_source.hpp"

#include <Eigen/Core>

#include <memory>
#include <utility>
#include <vector>

namespace icl::execute {

// Whether the cpu executor takes the label-row path for the stacks it recognises (default on; ICL_LABEL_ROW=0 in the
// environment starts it off). Off, every stack runs through the layers (icl::forward / icl::backward) as before:
// for benchmarks and tests that compare the two, and for re-evaluating trainings checkpointed by that path.
void set_label_row_enabled(bool on);
bool label_row_enabled();

class LabelRowStack {
public:
  // The stack of params' network on source's prompts, or null where it is not a label-row stack (above).
  static std::unique_ptr<LabelRowStack> recognise(const icl::Parameterisation& params, const icl::PromptSource& source);

  int d() const { return d_; }
  int layers() const { return L_; }
  int fields() const { return label_row::fields(d_); }
  // Doubles of one group of label_row::kLanes prompts' statistics.
  int group_size() const { return fields() * label_row::kLanes; }
  // Doubles of a gradient accumulator (accumulate()).
  int grad_size() const { return L_ * label_row::grad_per_layer(d_); }

  // The weights of net (params.network(theta) or params.apply(theta, net)), which must be the recognised stack's.
  void load(const icl::Network& net);
  // Prompt Z's statistics and target into lane `lane` of a group (groups live in label_row::Buffer: aligned).
  void statistics(const Eigen::Ref<const Eigen::MatrixXd>& Z, double target, double* group, int lane) const;

  // Per-thread scratch of evaluate().
  struct Scratch {
    label_row::Buffer tape, grad;
  };
  // The first `lanes` prompts of a group: adds each one's loss to *sum in lane order and, with acc given, its
  // gradient (grad_size() entries: per layer dL/dQa, dL/dB, dL/dp) to acc, entry by entry in lane order.
  void evaluate(const double* group, int lanes, icl::LossSpec loss, double* sum, double* acc, Scratch& s) const;
  // An accumulator's gradients into the layers' P and Q gradients (the blocks above; g zeroed before).
  void write(const double* acc, WeightGrads& g) const;

  // The kernel's instruction set: AVX2 where the CPU has it (default), or the x86-64 baseline; the same bits.
  void use_avx2(bool on);

private:
  int d_ = 0, L_ = 0, n_ = 0;
  label_row::Kernel kernel_;
  std::vector<double> Qa_, B_, sp_, s_;
  std::vector<unsigned char> has_B_, want_B_;
  std::vector<char> want_P_, want_Q_;
  std::vector<std::pair<int, int>> acc_ranges_;  // the accumulator entries some group reads, [first, last)
  label_row::KernelWeights weights() const;
};

}  // namespace icl::execute
