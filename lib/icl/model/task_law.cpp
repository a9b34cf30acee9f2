#include "icl/model/task_law.hpp"

#include "icl/model/tasks.hpp"

#include <stdexcept>
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

Eigen::MatrixXd inverse_law(const Eigen::MatrixXd& sigma) {
  const Eigen::MatrixXd inv = sigma.inverse();
  return 0.5 * (inv + inv.transpose());
}

GaussianIclModel task_law_model(const std::string& task, const Eigen::MatrixXd& sigma, const Eigen::MatrixXd* sigma_w,
                                double noise) {
  if (sigma_w) {
    if (task != "linear") throw std::invalid_argument("w_cov is for the linear task (task='linear')");
    return linear_task_with_w_law(sigma, *sigma_w, noise);
  }
  GaussianIclModel model = GaussianIclModel::from_task(named_task(task, static_cast<int>(sigma.rows())), sigma);
  model.noise_sd = noise;
  return model;
}

}  // namespace icl
