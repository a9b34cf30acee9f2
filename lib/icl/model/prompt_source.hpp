// Prompt distributions for training: a factory of per-thread drawers. A drawer writes prompt `index` of the
// stream (seed, purpose) into Z and returns its target y_q; it must depend on nothing else (no state carried
// between prompts), which is what makes training bitwise reproducible for any thread count.
//
// Streams: the trainer (learn/trainer.hpp) draws prompt i of minibatch block b (a block is `resample_every`
// steps) from PromptRng(seed, block_purpose(purpose, b), i); test prompts from a separate purpose.
#pragma once
#include "icl/model/gaussian_model.hpp"
#include "icl/model/prompt.hpp"
#include "icl/model/rng.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <functional>
#include <memory>

namespace icl {

using PromptDrawer = std::function<double(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index,
                                          Eigen::Ref<Eigen::MatrixXd> Z)>;

// The law of unstructured_prompts(d, D, theta0), for the backends that draw the prompts themselves.
struct UnstructuredLaw {
  int d = 0, D = 0;
  Eigen::VectorXd theta0;  // empty: theta ~ N(0, I_d / d)
};

struct PromptSource {
  int rows = 0, cols = 0;
  std::function<PromptDrawer()> make_drawer;  // called once per thread
  // What the drawers draw, where a backend other than the CPU's needs it (the portable and cuda backends draw the
  // prompts themselves, execute/portable/): gaussian_task and shape set by gaussian_prompts(), unstructured by
  // unstructured_prompts(); null for other sources.
  std::shared_ptr<const GaussianIclModel> gaussian_task;
  PromptShape shape;
  std::shared_ptr<const UnstructuredLaw> unstructured;
};

// The purpose of minibatch block b of a run with purpose p (SplitMix64 of the pair).
std::uint64_t block_purpose(std::uint64_t purpose, std::uint64_t block);

// A GaussianIclModel embedded with `shape` (sja, acds or zfb): the same prompts, for the same (seed,
// purpose, index), as ModelPromptWorker (montecarlo/prompt_loss.hpp).
PromptSource gaussian_prompts(GaussianIclModel task, const PromptShape& shape);

// Unstructured prompts E_2 (xlssc, model/softmax_attention.hpp) with D examples: x ~ N(0, I_d) and
// y = theta^T x, theta ~ N(0, I_d / d) per prompt ("gaussian"), or theta = s theta0 with a fair sign s
// (`theta0` given: xlssc Sec. 4.2's symmetric task).
PromptSource unstructured_prompts(int d, int D, const Eigen::VectorXd& theta0 = Eigen::VectorXd());

}  // namespace icl
