// The generic trainable forms, as Parameterisations (model/parameters.hpp). Group names are "<matrix>_<layer>" with
// the layer counted from 0 (P_0, Q_1, V_2, ...). The papers' own forms are constructions: constructions/acds_forms.hpp
// (acds (8), (11) and their families, with their exact population loss) and constructions/sja_forms.hpp (sja's
// bilinear Transformer, dense (11) or sparse (12)).
//
//   full_lsa      every entry of every P_i and Q_i of L LSA layers on `rows` rows (sja's linear Transformer, zfb's
//                 layer, acds Theorem 1).
//   softmax_stack L softmax (or linear-phi) attention layers on unstructured prompts (d+1 rows), V and K full.
#pragma once
#include "icl/model/parameters.hpp"

namespace icl::learn {

Parameterisation full_lsa(int rows, int L, bool masked = true);
Parameterisation softmax_stack(int d, int L, SoftmaxAttention::Activation act = SoftmaxAttention::Activation::softmax,
                               bool causal = true);

}  // namespace icl::learn
