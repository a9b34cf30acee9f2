#include "constructions/sja_forms.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace icl::learn {

Parameterisation sja_bilinear(int d, int dbar, int L, BilinearForm form, SjaAttention attention) {
  if (dbar < d + 1 || L < 1) throw std::invalid_argument("sja_bilinear: dbar >= d + 1, L >= 1");
  if (form == BilinearForm::sparse && dbar < d + 2)
    throw std::invalid_argument("sja_bilinear: the sparse form (12) needs dbar >= d + 2 (a scratch row)");
  Network n;
  n.rows = dbar + 1;
  for (int l = 0; l < L; ++l) n.add_bilinear().add_lsa(true);
  Parameterisation p(n);
  Eigen::MatrixXd mask = Eigen::MatrixXd::Zero(dbar, dbar);
  if (form == BilinearForm::dense)
    mask.setOnes();
  else
    mask.block(d + 1, 0, dbar - d - 1, d + 1).setOnes();  // W~ of eq. (12)
  Eigen::MatrixXd label_row = Eigen::MatrixXd::Zero(dbar + 1, dbar + 1);
  label_row.row(dbar).setOnes();
  for (int l = 0; l < L; ++l) {
    const int b = 2 * l, a = 2 * l + 1;
    p.add(ParamGroup::masked(fmt::format("W0_{}", b), mask, {{b, "W0"}}));
    p.add(ParamGroup::masked(fmt::format("W1_{}", b), mask, {{b, "W1"}}));
    if (attention == SjaAttention::label_row)
      p.add(ParamGroup::masked(fmt::format("P_{}", a), label_row, {{a, "P"}}));
    else
      p.add(ParamGroup::full(fmt::format("P_{}", a), dbar + 1, dbar + 1, {{a, "P"}}));
    p.add(ParamGroup::full(fmt::format("Q_{}", a), dbar + 1, dbar + 1, {{a, "Q"}}));
  }
  return p;
}

}  // namespace icl::learn
