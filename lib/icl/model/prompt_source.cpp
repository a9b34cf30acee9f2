#include "icl/model/prompt_source.hpp"

#include "icl/model/softmax_attention.hpp"

#include <cmath>
#include <stdexcept>

namespace icl {

std::uint64_t block_purpose(std::uint64_t purpose, std::uint64_t block) {
  std::uint64_t z = purpose + 0x9e3779b97f4a7c15ull * (block + 1);
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

PromptSource gaussian_prompts(GaussianIclModel model, const PromptShape& shape) {
  if (shape.embedding == Embedding::unstructured)
    throw std::invalid_argument("gaussian_prompts: the unstructured layout is not a training source (unstructured_prompts)");
  auto task = std::make_shared<const GaussianIclModel>(std::move(model));
  if (shape.d != task->d) throw std::invalid_argument("gaussian_prompts: prompt and task dimensions differ");
  PromptSource s;
  s.rows = shape.rows();
  s.cols = shape.cols();
  s.gaussian_task = task;
  s.shape = shape;
  s.make_drawer = [task, shape]() -> PromptDrawer {
    auto sampler = std::make_shared<GaussianPromptSampler>(*task, shape.cols());
    return [task, shape, sampler](std::uint64_t seed, std::uint64_t purpose, std::uint64_t i,
                                  Eigen::Ref<Eigen::MatrixXd> Z) {
      PromptRng rng(seed, purpose, i);
      sampler->draw(rng);
      embed(shape, sampler->inputs(), sampler->labels(), Z);
      return sampler->labels()[shape.n];
    };
  };
  return s;
}

PromptSource unstructured_prompts(int d, int D, const Eigen::VectorXd& theta0) {
  if (d < 1 || D < 1) throw std::invalid_argument("unstructured_prompts: d, D >= 1");
  if (theta0.size() != 0 && theta0.size() != d) throw std::invalid_argument("unstructured_prompts: theta0 must have d entries");
  PromptSource s;
  s.rows = d + 1;
  s.cols = 2 * D + 1;
  s.unstructured = std::make_shared<const UnstructuredLaw>(UnstructuredLaw{d, D, theta0});
  s.make_drawer = [d, D, theta0]() -> PromptDrawer {
    auto X = std::make_shared<Eigen::MatrixXd>(d, D + 1);
    auto y = std::make_shared<Eigen::RowVectorXd>(D + 1);
    auto th = std::make_shared<Eigen::VectorXd>(d);
    return [d, D, theta0, X, y, th](std::uint64_t seed, std::uint64_t purpose, std::uint64_t i,
                                    Eigen::Ref<Eigen::MatrixXd> Z) {
      PromptRng rng(seed, purpose, i);
      if (theta0.size()) {
        *th = rng.uniform() < 0.5 ? -theta0 : theta0;
      } else {
        rng.fill_normal(*th);
        *th /= std::sqrt(static_cast<double>(d));
      }
      rng.fill_normal(*X);
      y->noalias() = th->transpose() * *X;
      embed_unstructured(*X, y->head(D), Z);
      return (*y)[D];
    };
  };
  return s;
}

}  // namespace icl
