#include "constructions/acds_forms.hpp"

#include "icl/exact/acds_population.hpp"

#include <fmt/format.h>

#include <stdexcept>

namespace icl {

Eigen::MatrixXd acds_paper_sigma(const Eigen::MatrixXd& U) {
  if (U.rows() != 5 || U.cols() != 5) throw std::invalid_argument("paper_sigma: the paper's D is 5 x 5");
  Eigen::VectorXd D(5);
  D << 1, 1, 0.25, 0.0625, 1;
  const Eigen::MatrixXd S = U.transpose() * D.asDiagonal() * U;
  return 0.5 * (S + S.transpose());
}

}  // namespace icl

namespace icl::learn {

namespace {

Network acds_base(int d, int L) {
  Network n;
  n.rows = d + 1;
  for (int l = 0; l < L; ++l) {
    n.add_lsa(true);
    n.weight(l, "P")(d, d) = 1.0;  // P_i = [., 0; 0, 1]
  }
  return n;
}

}  // namespace

Parameterisation acds_form8(int d, int L, bool symmetric) {
  if (d < 1 || L < 1) throw std::invalid_argument("acds_form8: d, L >= 1");
  Parameterisation p(acds_base(d, L));
  for (int l = 0; l < L; ++l) {
    const std::vector<Target> t{{l, "Q", 0, 0, -1.0}};
    const auto name = fmt::format("A_{}", l);
    p.add(symmetric ? ParamGroup::symmetric(name, d, t) : ParamGroup::full(name, d, d, t));
  }
  return p;
}

Parameterisation acds_form8_diagonal(int d, int L) {
  if (d < 1 || L < 1) throw std::invalid_argument("acds_form8_diagonal: d, L >= 1");
  std::vector<Eigen::MatrixXd> basis;
  for (int j = 0; j < d; ++j) {
    Eigen::MatrixXd E = Eigen::MatrixXd::Zero(d, d);
    E(j, j) = 1;
    basis.push_back(E);
  }
  Parameterisation p(acds_base(d, L));
  for (int l = 0; l < L; ++l) p.add(ParamGroup::span(fmt::format("A_{}", l), basis, {{l, "Q", 0, 0, -1.0}}));
  return p;
}

Parameterisation acds_form11(int d, int L) {
  if (d < 1 || L < 1) throw std::invalid_argument("acds_form11: d, L >= 1");
  Parameterisation p(acds_base(d, L));
  for (int l = 0; l < L; ++l) {
    p.add(ParamGroup::full(fmt::format("A_{}", l), d, d, {{l, "Q", 0, 0, -1.0}}));
    p.add(ParamGroup::full(fmt::format("B_{}", l), d, d, {{l, "P", 0, 0, 1.0}}));
  }
  return p;
}

Parameterisation acds_family(int d, int L, const Eigen::MatrixXd& M, bool with_B) {
  if (M.rows() != d || M.cols() != d) throw std::invalid_argument("acds_family: M must be d x d");
  Parameterisation p(acds_base(d, L));
  for (int l = 0; l < L; ++l) {
    p.add(ParamGroup::span(fmt::format("A_{}", l), {M}, {{l, "Q", 0, 0, -1.0}}));
    if (with_B) p.add(ParamGroup::span(fmt::format("B_{}", l), {Eigen::MatrixXd::Identity(d, d)}, {{l, "P", 0, 0, 1.0}}));
  }
  return p;
}

double acds_exact_loss(const AcdsPopulation& pop, const Parameterisation& p, const Eigen::Ref<const Eigen::VectorXd>& theta,
                       Eigen::VectorXd* grad) {
  const int L = pop.layers(), d = pop.d();
  std::vector<int> ga(L, -1), gb(L, -1);
  std::vector<Eigen::MatrixXd> A(L), B(L, Eigen::MatrixXd::Zero(d, d));
  for (int l = 0; l < L; ++l) {
    ga[l] = p.find_group(fmt::format("A_{}", l));
    gb[l] = p.find_group(fmt::format("B_{}", l));
    if (ga[l] < 0) throw std::invalid_argument(fmt::format("acds_exact_loss: the form has no group A_{}", l));
    if (gb[l] >= 0 && !pop.form11()) throw std::invalid_argument("acds_exact_loss: the form trains B but the population is form (8)");
    A[l] = p.group_matrix(ga[l], theta);
    if (gb[l] >= 0) B[l] = p.group_matrix(gb[l], theta);
    if (A[l].rows() != d || A[l].cols() != d || B[l].rows() != d || B[l].cols() != d)
      throw std::invalid_argument("acds_exact_loss: the form's d differs from the population's");
  }
  if (!grad) return pop.loss(A, B);
  std::vector<Eigen::MatrixXd> gA, gB;
  const double v = pop.loss_and_gradient(A, B, gA, gB);
  grad->setZero(p.size());
  auto pull = [&](int g, const Eigen::MatrixXd& G) {
    const auto& group = p.groups()[g];
    for (int k = 0; k < group.size(); ++k) {
      double s = 0;
      for (const auto& e : group.patterns[k]) s += e.value * G(e.row, e.col);
      (*grad)[p.group_offset(g) + k] += s;
    }
  };
  for (int l = 0; l < L; ++l) {
    pull(ga[l], gA[l]);
    if (gb[l] >= 0) pull(gb[l], gB[l]);
  }
  return v;
}

}  // namespace icl::learn
