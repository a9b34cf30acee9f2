// Linear-attention weights trained elsewhere (`icl-verify eval`, the Python module), checked and turned into
// layers of the acds/sja convention:
//   Z <- Z + (1/n) sum_h P_h Z M (Z^T Q_h Z),  M = diag(I_n, 0) (the query is not a key),
// P_h, Q_h full (d+1) x (d+1); the prediction is -Z[d, n] and the loss E[(Z[d, n] + y_q)^2].
//
// Two layouts of the arrays (docs/reports.md, "Trained weights"):
// - `allparam` (.npy, shape (L, H, 2, d, d)), the parameters of the acds authors' code (chengxiang/
//   LinearTransformer, linear_transformer.py): P = W[l,h,0], Q = W[l,h,1], embedded as Pf = [[P,0],[0,1]],
//   Qf = [[Q,0],[0,0]]. That code computes head h's output for token j as (1/n) sum_i (z_j^T Qf z_i) Pf z_i
//   (Attn = einsum('BNi,ij,BMj->BNM', Z, Qf, Z) on row tokens), i.e. (1/n) Pf Z M Z^T Qf^T z_j: in the
//   convention above P_h = Pf and Q_h = Qf^T. The transpose matters whenever a trained Q is not symmetric.
// - named full matrices (P1, Q1, P2, Q2, ...: one head per layer, already in the convention above).
//
// Files and mappings of names to arrays (a PyTorch state_dict, an .npz archive, a .safetensors file) map to
// them by key (lsa_stack_from_arrays): a single array named `allparam`, or ending in `.allparam` (as
// `model.state_dict()` of the acds authors' Transformer_F names it, with any prefix a wrapper adds, e.g.
// `module.allparam`), is the allparam layout; otherwise the keys must be exactly P1, Q1, P2, Q2, ... Anything
// beside them (a bias, an optimiser's state) is refused by name, so no array is silently ignored.
//
// Any other naming (`attn.P`, `layers.0.attention.q`, ...) is read through a name map given with the weights
// (Python `names={"P1": "attn.P", "Q1": "attn.Q"}`, `icl-verify eval --name P1=attn.P`): each entry names the array
// that is one of the canonical ones above (`allparam`, or P1, Q1, P2, ...). Then exactly the named arrays are read
// (every name must be there, no array named twice); the others are left out and listed in LsaStack::unused, which
// the report names, so that nothing is left out silently.
#pragma once
#include "icl/io/npy.hpp"
#include "icl/layers/network.hpp"

#include <string>
#include <utility>
#include <vector>

namespace icl {

struct LsaStack {
  int d = 0;
  std::vector<std::vector<LinearSelfAttention>> layers;  // layers[l][h]
  std::string layout;                                    // "allparam" or "named"
  std::vector<std::pair<std::string, std::string>> names;  // the name map used: (canonical, the array's own name)
  std::vector<std::string> unused;                       // arrays left out under a name map (none without one)
  int num_layers() const { return static_cast<int>(layers.size()); }
  int num_heads() const;  // the most heads of any layer
  // One layer per entry: a LinearSelfAttention for one head, LinearAttentionHeads for several.
  Transformer transformer() const;
};

// Both throw ArrayFileError (one line: the file, what is wrong) for a wrong shape, a missing or unexpected
// array, or a NaN/inf entry.
LsaStack lsa_stack_from_allparam(const NpyArray& a, const std::string& name);
LsaStack lsa_stack_from_named(const std::vector<std::pair<std::string, NpyArray>>& arrays, const std::string& name);
// A mapping of names to arrays, by the key mapping above; with a name map (canonical name -> the array's own name),
// through it (above). A name map that is malformed (a canonical name that is none, an array named twice or missing)
// throws ArrayFileError naming the entry.
using NameMap = std::vector<std::pair<std::string, std::string>>;
LsaStack lsa_stack_from_arrays(const std::vector<std::pair<std::string, NpyArray>>& arrays, const std::string& name,
                               const NameMap& names = {});
// By extension: .npy (allparam; a name map is refused: the file holds one array), .npz or .safetensors (by key,
// lsa_stack_from_arrays).
LsaStack read_lsa_stack(const std::string& path, const NameMap& names = {});

}  // namespace icl
