// The Monte Carlo engine.
//
// Prompts are numbered 0, 1, 2, ...; prompt i draws its randomness from PromptRng(seed, purpose, i).
// Work is cut into fixed chunks of prompts (independent of the thread count); each chunk's
// accumulator is stored in its slot and the slots are merged in chunk order. Same seed, same numbers,
// whatever the thread count. A run can be extended (sequential designs): prompts already done are
// kept, new chunks are appended.
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
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
    std::atomic<std::uint64_t> next{first};
    auto body = [&] {
      auto worker = make_worker();
      std::vector<double> out(dims_);
      for (std::uint64_t c; (c = next.fetch_add(1)) < last;) {
        Accumulator acc(dims_);
        for (std::uint64_t i = c * kChunk; i < (c + 1) * kChunk; ++i) {
          worker(i, out.data());
          acc.add(out.data());
        }
        chunks_[c] = std::move(acc);
      }
    };
    const int t = static_cast<int>(std::min<std::uint64_t>(threads_, last - first));
    std::vector<std::thread> pool;
    for (int k = 1; k < t; ++k) pool.emplace_back(body);
    body();
    for (auto& th : pool) th.join();
  }

  Accumulator total() const {
    Accumulator a(dims_);
    for (const auto& c : chunks_) a.merge(c);
    return a;
  }

private:
  int dims_;
  int threads_;
  std::vector<Accumulator> chunks_;
};

// Calls worker(i) for i in [0, count) on `threads` threads (make_worker() once per thread). The
// caller stores results by index, so the outcome does not depend on the thread count.
template <class MakeWorker>
void parallel_for_index(std::uint64_t count, int threads, MakeWorker&& make_worker) {
  std::atomic<std::uint64_t> next{0};
  auto body = [&] {
    auto worker = make_worker();
    for (std::uint64_t i; (i = next.fetch_add(1)) < count;) worker(i);
  };
  const int t = static_cast<int>(std::min<std::uint64_t>(std::max(1, threads), std::max<std::uint64_t>(count, 1)));
  std::vector<std::thread> pool;
  for (int k = 1; k < t; ++k) pool.emplace_back(body);
  body();
  for (auto& th : pool) th.join();
}

}  // namespace icl
