// The prompt source of a plan in portable code: a Gaussian task's prompts (portable/gaussian_prompt.hpp,
// icl::gaussian_prompts) or unstructured prompts (portable/unstructured_prompt.hpp, icl::unstructured_prompts).
#pragma once
#include "icl/execute/portable/gaussian_prompt.hpp"
#include "icl/execute/portable/unstructured_prompt.hpp"

namespace icl::portable {

enum PromptKind : int { kGaussianPrompt = 0, kUnstructuredPrompt = 1 };

struct PromptDesc {
  int kind = kGaussianPrompt;
  int rows = 0, cols = 0;  // Z
  int extra = 0;           // doubles the draw needs besides Z: w (M) for a Gaussian task, theta (d) unstructured
  GaussianPromptDesc gaussian;
  UnstructuredPromptDesc unstructured;
};

// Prompt i of the stream `rng` into Z (rows x cols), with `extra` doubles of scratch; returns y_q.
ICL_HD inline double draw_prompt(const PromptDesc& pd, PromptStream& rng, Strided extra, Strided Z) {
  return pd.kind == kUnstructuredPrompt ? draw_unstructured_prompt(pd.unstructured, rng, extra, Z)
                                        : draw_gaussian_prompt(pd.gaussian, rng, extra, Z);
}

}  // namespace icl::portable
