// Exact moments of polynomial features under a GaussianIclModel, and the features a bilinear layer
// computes, as polynomials in x.
#pragma once
#include "icl/exact/sparse_attention.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/layers/network.hpp"

#include <vector>

namespace icl {

// The sparse single-layer moments (lib/icl/exact/sparse_attention.hpp) of features u(x) (polynomials in the d
// input variables) under any GaussianIclModel: Lambda = E[u u^T], S = E_w[xi xi^T] with
// xi(w) = E_x[u y | w], K4 = E[y^2 u u^T], Ey2. Double precision throughout.
FeatureMoments model_feature_moments(const GaussianIclModel& m, const std::vector<Poly>& u);

// The features computed by one sja bilinear layer on the sja embedding (rows 1, x, zeros up to dbar):
// row r of the output, as a polynomial in x: base_r + (W0 base)_r (W1 base)_r.
std::vector<Poly> bilinear_features(const BilinearLayer& layer, int d, int dbar);
// The sja embedding rows themselves (1, x_1..x_d, zeros): the features when there is no FF layer.
std::vector<Poly> sja_embedding_features(int d, int dbar);
// The identity features x_1..x_d (acds / zfb embeddings).
std::vector<Poly> identity_features(int d);

}  // namespace icl
