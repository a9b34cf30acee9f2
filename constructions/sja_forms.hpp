// Sun, Jadbabaie, Azizan (000) Sec. 2.2: the bilinear Transformer the paper trains, as a Parameterisation
// (lib/icl/learn/parameters.hpp). In namespace icl::learn beside the library's generic forms (learn/forms.hpp);
// paper-specific, so here among the constructions.
//
//   sja_bilinear 2L layers, bilinear then attention, on sja prompts (dbar+1 rows); attention P, Q full; bilinear W0, W1
//                dense (eq. (11): every entry) or sparse (eq. (12): only W~, rows d+1..dbar-1 and columns 0..d, the
//                rest frozen at 0). Group names W0_<layer>, W1_<layer>, P_<layer>, Q_<layer>, layers counted from 0.
#pragma once
#include "icl/learn/parameters.hpp"

namespace icl::learn {

enum class BilinearForm { dense, sparse };
Parameterisation sja_bilinear(int d, int dbar, int L, BilinearForm form);

}  // namespace icl::learn
