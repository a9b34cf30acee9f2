// The GPT-2-style in-context-learning model of Garg et al. (2022) as Xing et al. (2024) modify it (xlssc Sec. 3-5,
// App. C Table 3), built from the layers of lib/icl/layers/, with its training on the every-position loss and its
// loss against the number of in-context examples (the model of xlssc's Fig. 2; a mechanism of its own, any claim or
// user may train it).
//
// Model (ModelSpec; HF GPT2Model with Garg et al.'s read-in and read-out):
//   read-in     Linear(d+1 -> p)                            Garg's `_read_in` (Xing's M_in, p x (d+1))
//   positions   PositionalEncoding(p, 2D+1, none | trainable | sincos with Lambda)   GPT-2's `wpe` (Table 3 "change wpe")
//   L blocks    AttentionBlock(p, h, mask): x + MHA(LN(x));  MlpBlock(p, 4p): x + MLP(LN(x))   (GPT2Block)
//   final       LayerNorm(p) (ln_f), Linear(p -> 1) (Garg's `_read_out`)
// "Without the mask" is Table 3's "set all elements to 1 in `bias`": every token attends to every token.
// Dropout is off (Garg's config: resid, embd and attn pdrop 0).
//
// Initialisation (initialise()): HF GPT-2's _init_weights for what lives inside GPT2Model: every weight matrix and
// the trainable `wpe` ~ N(0, 0.02^2), the residual projections (attn.Wo = c_proj, mlp.W2 = c_proj) ~
// N(0, (0.02 / sqrt(2 L))^2), biases 0, LayerNorm gamma 1 and beta 0; torch.nn.Linear's default for Garg's read-in
// and read-out (which live outside GPT2Model): W and b ~ U(-1/sqrt(fan_in), 1/sqrt(fan_in)).
//
// Data (Xing Sec. 3): x ~ N(0, I_d), y = theta^T x with theta ~ N(0, I_d / d) per prompt, so E[y^2] = E|theta|^2 = 1
// and the trivial predictor 0 has loss 1 (Remark 4.1's reference "slightly below 1"). Garg et al.'s code draws
// theta ~ N(0, I_d) and divides the squared error by d when it reports it; the two scalings give the same
// normalised loss. Prompts: E_2 of icl::unstructured_prompts(d, D) (x tokens (x_i, 0), y tokens (0, y_i),
// interleaved, then (x_query, 0): 2D+1 tokens, rows d+1).
//
// Loss (prompt_loss()): the read-out's output at the x-token columns 0, 2, ..., 2D predicts y_1, ..., y_D, y_query
// (Xing Sec. 3: "the output columns for (x_i, 0)s are the predictions for these examples"); the per-prompt loss is
// the mean over these D+1 positions of the squared error, averaged over the minibatch as Garg et al.'s
// `mean_squared_error` does (Xing's sum over the same positions is D+1 times it: the same minimiser, and Adam is
// invariant to the factor). Without the mask, the output at column 2i also sees y_i (column 2i+1): Remark 4.1's
// "leakage of future information" is part of the training loss as the paper states it; the evaluation below is not
// exposed to it.
//
// Loss against the number of in-context examples (loss_by_examples()): for k = 0..D, the squared error of the
// prediction of y_{k+1} from the prompt (x_1, y_1, ..., x_k, y_k, x_{k+1}) (its first 2k+1 tokens, read at the last
// column): k = D is the query. With the mask this is the output at column 2k of one pass over the whole prompt (the
// later tokens cannot reach it); without the mask each k runs its own truncated prompt, so no prediction sees its
// own label.
//
// Training (train()): Adam (torch.optim.Adam, no weight decay) on every parameter, fresh prompts every step
// (prompt i of step t from stream (seed, block_purpose(purpose, t))), the minibatch cut into fixed chunks of 16
// prompts summed in prompt order and merged in chunk order: the same weights for any thread count. A non-finite
// loss or gradient stops the run as diverged with the last finite weights. Under `--estimate`
// (learn/training_estimate.hpp) a run trains 3 steps, times them and adds its predicted cost.
#pragma once
#include "icl/layers/layer.hpp"
#include "icl/layers/network.hpp"
#include "icl/montecarlo/statistics.hpp"

#include <Eigen/Dense>

#include <cstdint>
#include <string>
#include <vector>

namespace icl::gpt2 {

enum class Pe { none, trainable, sincos };
const char* to_string(Pe pe);  // "no PE", "trainable PE", "sin-cos PE"

struct ModelSpec {
  int d = 5, D = 30, p = 64, heads = 8, layers = 2;
  bool mask = true;
  Pe pe = Pe::none;
  double lambda = 10000.0;  // sin-cos PE's Lambda (formula (2) with d replaced by p)
  int tokens() const { return 2 * D + 1; }
  // "2 layers, mask, trainable PE"
  std::string name() const;
};

// The stack with its constructors' weights (zero; LayerNorm gamma 1). Throws std::invalid_argument for p % h != 0.
Network build(const ModelSpec& s);
// GPT-2's initialisation (above) from the stream (seed, purpose).
void initialise(Network& net, const ModelSpec& s, std::uint64_t seed, std::uint64_t purpose);

// Every parameter of every layer flattened (layer order, parameter order, column-major).
int parameter_count(const Network& net);
Eigen::VectorXd pack(const Network& net);
void unpack(const Eigen::Ref<const Eigen::VectorXd>& theta, Network& net);
// Gradient accumulators flattened in pack()'s order (added into out, sized parameter_count()).
void add_flat(const WeightGrads& g, Eigen::Ref<Eigen::VectorXd> out);

// One prompt's forward pass with what its adjoint needs (one per thread; no allocation once sized).
struct Tape {
  std::vector<Eigen::MatrixXd> Z;  // Z[l]: input of layer l; Z[L]: the read-out row (1 x N)
  std::vector<layers::Cache> cache;
  layers::Scratch scratch;
  Eigen::MatrixXd R;  // the running adjoint
};
// The read-out row (1 x N) of prompt Z ((d+1) x N, N <= 2D+1).
const Eigen::MatrixXd& forward(const Network& net, const Eigen::MatrixXd& Z, Tape& t);
// The per-prompt training loss (above): y holds the D+1 targets y_1..y_D, y_query. With g, adds its gradient.
double prompt_loss(const Network& net, const Eigen::MatrixXd& Z, const Eigen::VectorXd& y, Tape& t, WeightGrads* g);
// Prompt i of stream (seed, purpose): E_2 into Z ((d+1) x (2D+1)) and the D+1 targets into y.
// active in 1..d-1: coordinates active..d-1 of every x set to 0 (the same draws; the curriculum of TrainSettings).
void draw_prompt(int d, int D, std::uint64_t seed, std::uint64_t purpose, std::uint64_t i, Eigen::MatrixXd& Z,
                 Eigen::VectorXd& y, int active = 0);

struct TrainSettings {
  int steps = 1000;
  std::uint64_t batch = 64;
  double learning_rate = 1e-4;
  double beta1 = 0.9, beta2 = 0.999, epsilon = 1e-8;
  int curve_points = 50;
  int warmup = 0;  // linear learning-rate warm-up: step t (from 0) uses learning_rate * min(1, (t+1)/warmup)
  // Curriculum on the dimension (Garg et al.'s `curriculum.dims`): at step t only the first
  // min(d, dims_start + floor(t / dims_interval)) coordinates of every x are kept (the others set to 0 before y is
  // computed); dims_start 0: none.
  int dims_start = 0, dims_interval = 1;
  // Curriculum on the prompt length (Garg et al.'s `curriculum.points`): at step t the prompts have
  // min(D, examples_start + floor(t / examples_interval)) examples (and the loss their positions); 0: none.
  int examples_start = 0, examples_interval = 1;
  int threads = 1;
};

struct TrainRun {
  bool ok = true;
  std::string reason;       // why it stopped early
  Eigen::VectorXd theta;    // the last finite weights
  int steps_done = 0;
  double seconds = 0;
  double first_loss = NAN;  // the minibatch loss at step 0
  double final_train_loss = NAN;  // mean minibatch loss of the last curve window
  std::vector<int> curve_step;
  std::vector<double> curve_loss;  // mean minibatch loss since the previous point
};

// Trains from initialise(seed, init_purpose) on minibatch streams (seed, block_purpose(purpose, t)).
TrainRun train(const ModelSpec& s, const TrainSettings& t, std::uint64_t seed, std::uint64_t purpose,
               std::uint64_t init_purpose);

// Loss against the number of in-context examples k = 0..D (above) on prompts 0..samples-1 of stream (seed, purpose)
// (rounded up to the Monte Carlo chunk), one Student-t estimate per k, then (index D+1) one of the mean over k of
// each prompt's D+1 squared errors (the figure's curve averaged over its x-axis).
std::vector<Estimate> loss_by_examples(const Network& net, const ModelSpec& s, std::uint64_t seed,
                                       std::uint64_t purpose, std::uint64_t samples, int threads,
                                       double confidence = 0.99);

// Paired on the prompts of loss_by_examples (the same stream (seed, purpose), prompts 0..samples-1 rounded up to the
// Monte Carlo chunk): per prompt, network a's value minus network b's, where a value is the squared error at k
// examples (k in 0..D) or, for k = D+1, the mean over k = 0..D of that prompt's squared errors; the Student-t estimate
// of the mean difference at `confidence`. a and b may be the same network (k = D against k = 0: does it learn in
// context, on the same prompts?) or two models of one trial (the same test prompts through both); their d and D must
// agree. The same numbers for any thread count.
Estimate paired_by_examples(const Network& net_a, const ModelSpec& sa, int ka, const Network& net_b,
                            const ModelSpec& sb, int kb, std::uint64_t seed, std::uint64_t purpose,
                            std::uint64_t samples, int threads, double confidence = 0.99);

}  // namespace icl::gpt2
