// The Monte Carlo engine.
//
// Prompts are numbered 0, 1, 2, ...; prompt i draws its randomness from PromptRng(seed, purpose, i).
// Work is cut into fixed chunks of prompts (independent of the thread count); each chunk's
// accumulator is stored in its slot and the slots are merged in chunk order. Same seed, same numbers,
// whatever the thread count. A run can be extended (sequential designs): prompts already done are
// kept, new chunks are appended.
#pragma once
#include "icl/execute/chunks.hpp"

#include <algorithm>
#include <bit>
#include <cstdint>
#include <vector>

namespace icl {

// Running mean and sum of squared deviations per component (Chan et al. merge).
struct Accumulator {
  std::vector<double> mean, m2;
  std::uint64_t count = 0;
  explicit Accumulator(int dims = 0) : mean(dims, 0.0), m2(dims, 0.0) {}
  int dims() const { return static_cast<int>(mean.size()); }
  void add(const double* v) {
    ++count;
    const double inv = 1.0 / static_cast<double>(count);
    for (std::size_t k = 0; k < mean.size(); ++k) {
      const double delta = v[k] - mean[k];
      mean[k] += delta * inv;
      m2[k] += delta * (v[k] - mean[k]);
    }
  }
  void merge(const Accumulator& o) {
    if (!o.count) return;
    if (!count) {
      *this = o;
      return;
    }
    const double n1 = static_cast<double>(count), n2 = static_cast<double>(o.count), n = n1 + n2;
    for (std::size_t k = 0; k < mean.size(); ++k) {
      const double delta = o.mean[k] - mean[k];
      mean[k] += delta * n2 / n;
      m2[k] += o.m2[k] + delta * delta * n1 * n2 / n;
    }
    count += o.count;
  }
  double variance(int k) const { return count > 1 ? m2[k] / static_cast<double>(count - 1) : 0.0; }
};

int default_thread_count();

// What a Monte Carlo run takes from its caller: the master seed, the worker threads and the prompt
// budget (a claim's run context extends it, so the sequential checks of verdict/ can take either).
struct SamplingPlan {
  std::uint64_t seed = 1;
  int threads = 1;
  std::uint64_t samples = 0;  // Monte Carlo budget per case
};

class MonteCarlo {
public:
  static constexpr std::uint64_t kChunk = 256;
  MonteCarlo(int dims, int threads) : dims_(dims), threads_(std::max(1, threads)) {}

  std::uint64_t samples() const { return chunks_.size() * kChunk; }

  // Runs prompts until at least `total` are done. make_worker() is called once per thread and
  // returns a callable worker(std::uint64_t prompt_index, double* out) writing `dims` values; it owns
  // its scratch space, so nothing is allocated per prompt.
  template <class MakeWorker>
  void extend_to(std::uint64_t total, MakeWorker&& make_worker) {
    const std::uint64_t first = chunks_.size();
    const std::uint64_t last = (total + kChunk - 1) / kChunk;
    if (last <= first) return;
    chunks_.resize(last, Accumulator(dims_));
    // The executor's chunk schedule (execute/chunks.hpp): this rank's chunks on the pool, then every rank gets all.
    const int ranks = execute::sharing_ranks();
    execute::for_rank_chunks(first, last, threads_, ranks, [&] {
      return [&, worker = make_worker(), out = std::vector<double>(dims_)](std::uint64_t c) mutable {
        Accumulator acc(dims_);
        for (std::uint64_t i = c * kChunk; i < (c + 1) * kChunk; ++i) {
          worker(i, out.data());
          acc.add(out.data());
        }
        chunks_[c] = std::move(acc);
      };
    });
    if (ranks > 1) share_chunks(first, last, ranks);
  }

  Accumulator total() const {
    Accumulator a(dims_);
    for (const auto& c : chunks_) a.merge(c);
    return a;
  }

private:
  // Every rank gets every chunk of [first, last) bit for bit: each packs the chunks it computed (count,
  // means, m2) as 64-bit words, zero elsewhere, and the words are OR-ed across ranks.
  void share_chunks(std::uint64_t first, std::uint64_t last, int ranks) {
    const std::size_t per = 1 + 2 * static_cast<std::size_t>(dims_);
    std::vector<std::uint64_t> w(per * (last - first), 0);
    const auto bits = [](double x) { return std::bit_cast<std::uint64_t>(x); };
    for (std::uint64_t c = first; c < last; ++c) {
      const Accumulator& a = chunks_[c];
      if (!a.count) continue;
      std::uint64_t* o = w.data() + per * (c - first);
      o[0] = a.count;
      for (int k = 0; k < dims_; ++k) {
        o[1 + k] = bits(a.mean[k]);
        o[1 + dims_ + k] = bits(a.m2[k]);
      }
    }
    execute::share_chunk_words(w, ranks);
    for (std::uint64_t c = first; c < last; ++c) {
      Accumulator& a = chunks_[c];
      const std::uint64_t* o = w.data() + per * (c - first);
      a.count = o[0];
      for (int k = 0; k < dims_; ++k) {
        a.mean[k] = std::bit_cast<double>(o[1 + k]);
        a.m2[k] = std::bit_cast<double>(o[1 + dims_ + k]);
      }
    }
  }

  int dims_;
  int threads_;
  std::vector<Accumulator> chunks_;
};

// Calls worker(i) for i in [0, count) on `threads` threads of the library's pool (make_worker() once per thread).
// The caller stores results by index, so the outcome does not depend on the thread count.
template <class MakeWorker>
void parallel_for_index(std::uint64_t count, int threads, MakeWorker&& make_worker) {
  execute::parallel_tasks(count, threads, std::forward<MakeWorker>(make_worker));
}

}  // namespace icl
