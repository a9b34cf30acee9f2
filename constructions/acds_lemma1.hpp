// Ahn, Cheng, Daneshmand, Sra (002), Section 4, eq. (8) and Lemma 1: an L-layer linear Transformer
// whose layers all have the sparse form
//     P_l = [0_{d x d} 0; 0 1],   Q_l = -[A_l 0; 0 0],   A_l in R^{d x d} arbitrary,
// on the acds prompt (rows x (d), y; query column (x_q, 0)), with the masked attention
// Z <- Z + (1/n) P Z M (Z^T Q Z). Lemma 1 states that the query entry of the l-th layer output is
// -<x_q, w_gd^l>, where w_gd^0 = 0 and w_gd^{l+1} = w_gd^l - A_l grad R(w_gd^l),
// R(w) = (1/2n) sum_i (w^T x_i - w_*^T x_i)^2.
//
// lemma1_prompt checks the stack on one random prompt against preconditioned gradient descent
// (lib/icl/exact/block_coordinate_descent) run in long double, after every layer and in every column, both
// as Lemma 1 states it (A_l) and as the forward pass computes it (A_l^T).
#pragma once
#include "icl/claim/case_json.hpp"
#include "icl/claim/claim.hpp"
#include "icl/layers/network.hpp"
#include "icl/montecarlo/worst_case.hpp"

#include <Eigen/Dense>
#include <array>
#include <cstdint>
#include <string>
#include <vector>

namespace icl::acds {

LinearSelfAttention sparse_layer(const Eigen::MatrixXd& A);          // eq. (8) with A_l = A
Transformer sparse_stack(const std::vector<Eigen::MatrixXd>& A);     // layers A_0, ..., A_{L-1}

// The errors lemma1_prompt measures, relative to the size of the terms that make up each entry (|y_i| +
// sum_k |x_ik w_k| for a context column, sum_k |x_qk w_k| for the query), worst over layers and columns:
enum Lemma1Error : int {
  kXRows = 0,     // change of the x rows (they must stay the inputs), relative to max |x|
  kStated,        // label row vs the recursion as stated, w^{l+1} = w^l - A_l grad R(w^l)
  kCorrected,     // label row vs the recursion with A_l^T
  kQueryPlain,    // plain relative error of the final query prediction, corrected form
  kRefSelf,       // the corrected recursion run in double, against the long double one
  kStatedQuery,   // plain relative error of the final query prediction, stated form
  kStatedClean,   // kStated on the clean family (x ~ N(0, I)), 0 on the others
  kLemma1Errors   // the number of errors
};

// One prompt's errors (indexed by Lemma1Error), the final query predictions of the forward pass, of the stated
// recursion (-<x_q, w^L> with A_l) and of the corrected one (with A_l^T), and the prompt's family.
struct Lemma1Errors {
  std::array<double, kLemma1Errors> err{};
  double forward = 0, stated = 0, corrected = 0;
  int family = 0;
};

// Prompt i of the stream (seed, purpose): the stack's L layers A_l are drawn afresh (symmetric or general), then
// w_* ~ N(0, I) and the inputs X (d x (n+1), the query's at column n), y_i = <w_*, x_i>. Three families cycle
// with i % 3: x ~ N(0, I) with |A_l| ~ 1/sqrt(d); x ~ N(0, 1e6 I) with A_l scaled by 1e-6; x ~ N(0, 900 I)
// with unscaled A_l, where the iterates grow geometrically.
Lemma1Errors lemma1_prompt(int d, int n, int L, bool symmetric, std::uint64_t seed, std::uint64_t purpose,
                           std::uint64_t i);
const char* lemma1_family(std::uint64_t i);  // the family of prompt i, in words

// A case's quantities, in this order: stated, exact (the forward pass) and corrected at the prompt `at` (the clean
// prompt where the stated form is worst), max_rel_error (kStated), max_rel_error_clean, max_rel_error_corrected,
// max_rel_error_query (kQueryPlain), reference_self_error (kRefSelf), max_x_row_change (kXRows) and prompts.
void lemma1_quantities(CaseJson& j, const WorstCase& w, const Lemma1Errors& at);

// A case of the claim (params d, n, L, sym): the worst errors over max(ctx.samples, 3) prompts of the case's stream
// (ctx.purpose(c.label())) on ctx.threads threads, with `at` the clean prompt where the stated form is worst; its
// quantities written into j (lemma1_quantities).
struct Lemma1Case {
  WorstCase w;
  Lemma1Errors at;
};
Lemma1Case lemma1_check_case(const ClaimContext& ctx, const Case& c, CaseJson& j);
// The case as a counterexample, in words: "d=2, n=1, L=1, non-symmetric A_l, prompt 30 (x ~ N(0, I)): the forward pass
// gives ..., the stated recursion -<x_q, w^L> gives ... (relative error ...), the recursion with A_l^T gives ...".
std::string lemma1_counterexample(const Case& c, const Lemma1Case& k);

}  // namespace icl::acds
