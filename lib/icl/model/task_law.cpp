#include "icl/model/task_law.hpp"

#include <vector>

namespace icl {

GaussianIclModel linear_task_with_w_law(const Eigen::MatrixXd& sigma, const Eigen::MatrixXd& sigma_w, double noise,
                                        const std::string& label) {
  const int d = static_cast<int>(sigma.rows());
  const Eigen::MatrixXd C = Eigen::LLT<Eigen::MatrixXd>(sigma_w).matrixL();
  std::vector<Poly> basis;
  for (int m = 0; m < d; ++m) {
    Poly g(d);
    for (int i = 0; i < d; ++i)
      if (C(i, m) != 0) g += Poly::variable(d, i) * C(i, m);
    basis.push_back(g);
  }
  GaussianIclModel model = GaussianIclModel::from_basis(d, std::move(basis), sigma, label);
  model.noise_sd = noise;
  return model;
}

}  // namespace icl
