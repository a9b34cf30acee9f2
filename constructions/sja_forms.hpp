// Sun, Jadbabaie, Azizan (000) Sec. 2.2: the bilinear Transformer the paper trains, as a Parameterisation
// (lib/icl/model/parameters.hpp). In namespace icl::learn beside the library's generic forms (learn/forms.hpp);
// paper-specific, so here among the constructions.
//
//   sja_bilinear 2L layers, bilinear then attention, on sja prompts (dbar+1 rows); attention P, Q full; bilinear W0, W1
//                dense (eq. (11): every entry) or sparse (eq. (12): only W~, rows d+1..dbar-1 and columns 0..d, the
//                rest frozen at 0). Group names W0_<layer>, W1_<layer>, P_<layer>, Q_<layer>, layers counted from 0.
//                Attention full: every entry of P (the paper's (2)); label_row: only P's last row (the label row, as
//                the paper's constructions (5) have it), the rest frozen at 0: the variant that trains at the paper's
//                recipe (docs/budgets.md, "The sja model question").
#pragma once
#include "icl/model/parameters.hpp"

namespace icl::learn {

enum class BilinearForm { dense, sparse };
enum class SjaAttention { full, label_row };
Parameterisation sja_bilinear(int d, int dbar, int L, BilinearForm form, SjaAttention attention = SjaAttention::full);

}  // namespace icl::learn
