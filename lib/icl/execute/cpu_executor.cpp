// The cpu backend of the executor: the layers of lib/icl/layers/ through icl::forward/backward, on the library's
// thread pool, MPI ranks sharing loss chunks bit for bit. A minibatch of a label-row LSA stack (acds's forms (8) and
// (11): label_row.hpp) runs on that stack's own kernels instead, on its prompts' statistics, kept between calls while
// the same minibatch comes back; the same chunks and sums in the same order, so the same determinism.
#include "icl/execute/executor.hpp"

#include "icl/execute/chunks.hpp"
#include "icl/execute/label_row.hpp"
#include "icl/execute/planned_executor.hpp"

#include <algorithm>
#include <atomic>
#include <bit>
#include <stdexcept>

namespace icl::execute {

const char* to_string(Backend b) {
  switch (b) {
    case Backend::cpu: return "cpu";
    case Backend::cuda: return "cuda";
    case Backend::portable: return "portable";
  }
  return "?";
}

namespace {
Backend g_default = Backend::cpu;
std::atomic<std::uint64_t> g_prompts[3];  // by backend: cpu, cuda, portable
std::size_t backend_index(Backend b) { return b == Backend::cpu ? 0 : b == Backend::cuda ? 1 : 2; }
}  // namespace
std::uint64_t executor_prompts(Backend b) { return g_prompts[backend_index(b)].load(); }
void note_executor_prompts(Backend b, std::uint64_t count) { g_prompts[backend_index(b)] += count; }
Backend default_backend() { return g_default; }
void set_default_backend(Backend b) { g_default = b; }

namespace {

class CpuExecutor final : public Executor {
public:
  explicit CpuExecutor(int threads) : threads_(std::max(1, threads)) {}
  Backend backend() const override { return Backend::cpu; }
  int threads() const override { return threads_; }

  void losses(const icl::Network& net, const icl::PromptSource& source, icl::LossSpec loss, std::uint64_t seed,
              std::uint64_t purpose, std::uint64_t count, std::vector<double>& out) override {
    note_executor_prompts(Backend::cpu, count);
    out.assign(static_cast<std::size_t>(count), 0.0);
    const std::uint64_t chunks = (count + kLossChunk - 1) / kLossChunk;
    const int ranks = sharing_ranks();
    for_rank_chunks(0, chunks, threads_, ranks, [&] {
      return [&, draw = source.make_drawer(), tape = icl::Tape(),
              Z = Eigen::MatrixXd(source.rows, source.cols)](std::uint64_t c) mutable {
        for (std::uint64_t i = c * kLossChunk; i < std::min(count, (c + 1) * kLossChunk); ++i) {
          const double yq = draw(seed, purpose, i, Z);
          out[static_cast<std::size_t>(i)] = loss(icl::forward(net, Z, tape), yq);
        }
      };
    });
    if (ranks > 1) {  // every rank gets every loss bit for bit: each contributes its chunks' bits
      std::vector<std::uint64_t> w(out.size());
      for (std::size_t i = 0; i < out.size(); ++i)
        w[i] = owns_chunk(i / kLossChunk, ranks) ? std::bit_cast<std::uint64_t>(out[i]) : 0;
      share_chunk_words(w, ranks);
      for (std::size_t i = 0; i < out.size(); ++i) out[i] = std::bit_cast<double>(w[i]);
    }
  }

  double minibatch(const icl::Parameterisation& params, const Eigen::Ref<const Eigen::VectorXd>& theta,
                   const icl::PromptSource& source, icl::LossSpec loss, std::uint64_t seed, std::uint64_t purpose,
                   std::uint64_t count, Eigen::VectorXd* grad) override {
    if (count == 0) throw std::invalid_argument("Executor::minibatch: empty batch");
    note_executor_prompts(Backend::cpu, count);
    if (source.rows != params.base().rows)
      throw std::invalid_argument("Executor::minibatch: the prompts' rows differ from the network's");
    prepare(params, source);
    params.apply(theta, net_);
    const std::uint64_t chunks = (count + kBatchChunk - 1) / kBatchChunk;
    // A label-row stack (label_row.hpp) runs on its prompts' statistics, kept while the same minibatch comes back.
    const bool fast = label_row_ && label_row_enabled();
    StatsSlot* kept = nullptr;
    if (fast) {
      label_row_->load(net_);
      kept = stats_slot(seed, purpose, count, chunks);
    }
    chunk_loss_.assign(chunks, 0.0);
    if (grad) {
      if (chunk_grad_.size() < chunks) chunk_grad_.resize(chunks);
      for (std::uint64_t c = 0; c < chunks; ++c) chunk_grad_[c].setZero(params.size());
    }
    // Under K ranks (at the top level) each rank computes its chunks c = r mod K (chunks.hpp), then every rank gets
    // every chunk's loss and gradient bit for bit and adds them in chunk order: the same sums as one process.
    const int ranks = sharing_ranks();
    last_ranks_ = ranks;
    for_rank_chunks(0, chunks, threads_, ranks, [&](int w) {  // per-thread drawers and accumulators kept between calls
      return [&, &k = workers_[static_cast<std::size_t>(w)]](std::uint64_t c) {
        if (fast) {
          label_row_chunk(k, kept, params, loss, seed, purpose, count, c, grad != nullptr);
          return;
        }
        if (grad) k.grads.zero();
        double sum = 0;
        const std::uint64_t end = std::min(count, (c + 1) * kBatchChunk);
        for (std::uint64_t i = c * kBatchChunk; i < end; ++i) {
          const double yq = k.draw(seed, purpose, i, k.Z);
          const double yhat = icl::forward(net_, k.Z, k.tape);
          sum += loss(yhat, yq);
          if (grad) icl::backward(net_, k.tape, loss.derivative(yhat, yq), k.grads);
        }
        chunk_loss_[c] = sum;
        if (grad) params.pullback(k.grads, chunk_grad_[c]);
      };
    });
    if (ranks > 1) share_minibatch(chunks, grad ? params.size() : 0, ranks);
    double total = 0;
    for (std::uint64_t c = 0; c < chunks; ++c) total += chunk_loss_[c];
    if (grad) {
      grad->setZero(params.size());
      for (std::uint64_t c = 0; c < chunks; ++c) *grad += chunk_grad_[c];
    }
    return total;
  }

  int last_ranks() const override { return last_ranks_; }

private:
  // Every chunk's loss and gradient (P entries) on every rank, bit for bit: each rank packs its own chunks' words,
  // zero elsewhere, and the words are OR-ed across the ranks.
  void share_minibatch(std::uint64_t chunks, int P, int ranks) {
    const std::size_t per = 1 + static_cast<std::size_t>(P);
    std::vector<std::uint64_t> w(per * chunks, 0);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      if (!owns_chunk(c, ranks)) continue;
      std::uint64_t* o = w.data() + per * c;
      o[0] = std::bit_cast<std::uint64_t>(chunk_loss_[c]);
      for (int p = 0; p < P; ++p) o[1 + p] = std::bit_cast<std::uint64_t>(chunk_grad_[c][p]);
    }
    share_chunk_words(w, ranks);
    for (std::uint64_t c = 0; c < chunks; ++c) {
      const std::uint64_t* o = w.data() + per * c;
      chunk_loss_[c] = std::bit_cast<double>(o[0]);
      for (int p = 0; p < P; ++p) chunk_grad_[c][p] = std::bit_cast<double>(o[1 + p]);
    }
  }

  struct Worker {
    icl::PromptDrawer draw;
    icl::Tape tape;
    icl::WeightGrads grads;
    Eigen::MatrixXd Z;
    LabelRowStack::Scratch lr_scratch;
    label_row::Buffer groups;    // a chunk's statistics where they are not kept
    std::vector<double> acc;     // a chunk's label-row gradient
  };

  // The statistics of a minibatch's prompts (label_row.hpp), for the chunks this process computed: a pure function
  // of (seed, purpose, prompt index), so keeping them changes no number. Two slots (the trainer's minibatch and a
  // test batch between its steps), the least recently used replaced; none above kMaxKeptBytes.
  static constexpr std::size_t kMaxKeptBytes = std::size_t{512} << 20;
  static constexpr std::uint64_t kGroupsPerChunk = kBatchChunk / label_row::kLanes;
  static_assert(kBatchChunk % label_row::kLanes == 0);
  struct StatsSlot {
    bool used = false;
    std::uint64_t seed = 0, purpose = 0, count = 0, last_use = 0;
    label_row::Buffer stats;    // chunk c's groups from c * kGroupsPerChunk * group_size()
    std::vector<char> filled;   // per chunk
  };
  StatsSlot* stats_slot(std::uint64_t seed, std::uint64_t purpose, std::uint64_t count, std::uint64_t chunks) {
    const auto doubles = static_cast<std::size_t>(chunks * kGroupsPerChunk) * static_cast<std::size_t>(label_row_->group_size());
    if (doubles * sizeof(double) > kMaxKeptBytes) return nullptr;
    ++uses_;
    StatsSlot* pick = &slots_[0];
    for (auto& s : slots_) {
      if (s.used && s.seed == seed && s.purpose == purpose && s.count == count) {
        s.last_use = uses_;
        return &s;
      }
      if (!s.used || (pick->used && s.last_use < pick->last_use)) pick = &s;
    }
    pick->used = true;
    pick->seed = seed;
    pick->purpose = purpose;
    pick->count = count;
    pick->last_use = uses_;
    pick->stats.resize(doubles);
    pick->filled.assign(static_cast<std::size_t>(chunks), 0);
    return pick;
  }

  // Chunk c of a minibatch of a label-row stack: its prompts' statistics (drawn, or kept from an earlier call), then
  // the kernel four prompts at a time; the loss and the gradient summed in prompt order, as the layers' path sums.
  void label_row_chunk(Worker& k, StatsSlot* kept, const icl::Parameterisation& params, icl::LossSpec loss,
                       std::uint64_t seed, std::uint64_t purpose, std::uint64_t count, std::uint64_t c, bool grad) {
    const LabelRowStack& lr = *label_row_;
    const auto G = static_cast<std::size_t>(lr.group_size());
    const std::uint64_t i0 = c * kBatchChunk, i1 = std::min(count, i0 + kBatchChunk);
    double* groups;
    if (kept) {
      groups = kept->stats.data() + static_cast<std::size_t>(c * kGroupsPerChunk) * G;
    } else {
      k.groups.resize(static_cast<std::size_t>(kGroupsPerChunk) * G);
      groups = k.groups.data();
    }
    if (!kept || !kept->filled[static_cast<std::size_t>(c)]) {
      std::fill(groups, groups + static_cast<std::size_t>(kGroupsPerChunk) * G, 0.0);  // unused lanes: zeros
      for (std::uint64_t i = i0; i < i1; ++i) {
        const double yq = k.draw(seed, purpose, i, k.Z);
        lr.statistics(k.Z, yq, groups + static_cast<std::size_t>((i - i0) / label_row::kLanes) * G,
                      static_cast<int>((i - i0) % label_row::kLanes));
      }
      if (kept) kept->filled[static_cast<std::size_t>(c)] = 1;
    }
    if (grad) k.acc.assign(static_cast<std::size_t>(lr.grad_size()), 0.0);
    double sum = 0;
    for (std::uint64_t i = i0; i < i1; i += label_row::kLanes)
      lr.evaluate(groups + static_cast<std::size_t>((i - i0) / label_row::kLanes) * G,
                  static_cast<int>(std::min<std::uint64_t>(label_row::kLanes, i1 - i)), loss, &sum,
                  grad ? k.acc.data() : nullptr, k.lr_scratch);
    chunk_loss_[c] = sum;
    if (grad) {
      k.grads.zero();
      lr.write(k.acc.data(), k.grads);
      params.pullback(k.grads, chunk_grad_[c]);
    }
  }

  // Per-thread drawers and accumulators, made again only when the parameterisation or the source changes.
  void prepare(const icl::Parameterisation& params, const icl::PromptSource& source) {
    if (prepared_params_ == &params && prepared_source_ == &source && !workers_.empty()) return;
    workers_.clear();
    workers_.resize(static_cast<std::size_t>(threads_));
    for (auto& k : workers_) {
      k.draw = source.make_drawer();
      k.grads = params.make_grads();
      k.Z.resize(source.rows, source.cols);
    }
    net_ = params.base();
    label_row_ = LabelRowStack::recognise(params, source);
    for (auto& s : slots_) s = StatsSlot{};
    prepared_params_ = &params;
    prepared_source_ = &source;
  }

  int threads_;
  int last_ranks_ = 1;
  std::vector<Worker> workers_;
  icl::Network net_;
  std::unique_ptr<LabelRowStack> label_row_;  // null unless params' stack is a label-row stack
  StatsSlot slots_[2];
  std::uint64_t uses_ = 0;
  const icl::Parameterisation* prepared_params_ = nullptr;
  const icl::PromptSource* prepared_source_ = nullptr;
  std::vector<double> chunk_loss_;
  std::vector<Eigen::VectorXd> chunk_grad_;
};

}  // namespace

std::unique_ptr<Executor> make_cpu_executor(int threads) { return std::make_unique<CpuExecutor>(threads); }

}  // namespace icl::execute
