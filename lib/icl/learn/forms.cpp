#include "icl/learn/forms.hpp"

#include <fmt/format.h>

namespace icl::learn {

Parameterisation full_lsa(int rows, int L, bool masked) {
  Network n;
  n.rows = rows;
  for (int l = 0; l < L; ++l) n.add_lsa(masked);
  Parameterisation p(n);
  for (int l = 0; l < L; ++l) {
    p.add(ParamGroup::full(fmt::format("P_{}", l), rows, rows, {{l, "P"}}));
    p.add(ParamGroup::full(fmt::format("Q_{}", l), rows, rows, {{l, "Q"}}));
  }
  return p;
}

Parameterisation softmax_stack(int d, int L, SoftmaxAttention::Activation act, bool causal) {
  Network n;
  n.rows = d + 1;
  for (int l = 0; l < L; ++l) n.add_softmax(act, causal);
  Parameterisation p(n);
  for (int l = 0; l < L; ++l) {
    p.add(ParamGroup::full(fmt::format("V_{}", l), d + 1, d + 1, {{l, "V"}}));
    p.add(ParamGroup::full(fmt::format("K_{}", l), d + 1, d + 1, {{l, "K"}}));
  }
  return p;
}

}  // namespace icl::learn
