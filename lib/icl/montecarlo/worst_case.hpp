// The worst error of each kind over prompts 0..count-1, and the prompt where it occurs: how an identity
// (a construction *is* an algorithm) is measured over many prompts (verdict/identity.hpp judges it).
//
// Deterministic whatever the thread count: prompts are cut into fixed chunks, each chunk keeps its
// maxima, and chunks are merged in order (ties go to the smaller prompt index). A NaN error counts as
// +infinity, so a blown-up forward pass can never pass for agreement.
//
// Prompts set aside. A worker may return bool instead of void: false sets the prompt aside (its errors are
// not counted, `set_aside` is). This is for prompts that test floating point rather than the identity, e.g.
// an exact reference that leaves the range a double forward pass can carry (the deep bilinear stacks of sja
// Theorem 7 and Corollaries 8 and 10: `kDoubleRangeTerm` below). The claim must report `set_aside` beside `prompts`
// and judge only what is left.
#pragma once
#include "icl/execute/thread_pool.hpp"

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

namespace icl {

// The largest |term| of an exact (long double) reference that a double forward pass is still asked to match:
// its square, which bilinear and attention layers form, must stay well inside double's 1.8e308.
constexpr long double kDoubleRangeTerm = 1e100L;
constexpr const char* kDoubleRangeWhy = "the exact reference leaves the double range (a term above 1e100)";

struct WorstCase {
  std::vector<double> worst;         // per error kind, the largest value seen
  std::vector<std::uint64_t> where;  // the prompt index where it was seen
  std::uint64_t prompts = 0;    // every prompt drawn, set aside or not
  std::uint64_t set_aside = 0;  // prompts the worker set aside (returned false)
  explicit WorstCase(int dims = 0) : worst(dims, 0.0), where(dims, 0) {}
  std::uint64_t judged() const { return prompts - set_aside; }
  void skip() {
    ++prompts;
    ++set_aside;
  }
  void add(std::uint64_t i, const double* v) {
    for (std::size_t k = 0; k < worst.size(); ++k) {
      const double e = std::isnan(v[k]) ? std::numeric_limits<double>::infinity() : v[k];
      if (e > worst[k]) {
        worst[k] = e;
        where[k] = i;
      }
    }
    ++prompts;
  }
  void merge(const WorstCase& o) {  // o covers later prompts than *this
    for (std::size_t k = 0; k < worst.size(); ++k)
      if (o.worst[k] > worst[k]) {
        worst[k] = o.worst[k];
        where[k] = o.where[k];
      }
    prompts += o.prompts;
    set_aside += o.set_aside;
  }
};

// make_worker() returns a per-thread callable worker(prompt_index, double* out) writing `dims` errors; if it
// returns bool, false sets the prompt aside (see above).
template <class MakeWorker>
WorstCase worst_over_prompts(std::uint64_t count, int dims, int threads, MakeWorker&& make_worker) {
  constexpr std::uint64_t chunk = 64;
  const std::uint64_t chunks = (count + chunk - 1) / chunk;
  std::vector<WorstCase> slots(chunks, WorstCase(dims));
  execute::parallel_tasks(chunks, threads, [&] {
    return [&, worker = make_worker(), out = std::vector<double>(static_cast<std::size_t>(dims))](std::uint64_t c) mutable {
      WorstCase w(dims);
      for (std::uint64_t i = c * chunk; i < std::min(count, (c + 1) * chunk); ++i) {
        if constexpr (std::is_same_v<decltype(worker(i, out.data())), bool>) {
          if (worker(i, out.data())) w.add(i, out.data());
          else w.skip();
        } else {
          worker(i, out.data());
          w.add(i, out.data());
        }
      }
      slots[c] = std::move(w);
    };
  });
  WorstCase total(dims);
  for (const auto& s : slots) total.merge(s);
  return total;
}

// The same for a check written as one function of the prompt, with the numbers a case shows: prompt(i) returns an
// outcome whose member `err` (a std::array<double, N>) holds its N errors and, if the outcome has a member
// `out_of_range`, true there sets the prompt aside. Returns the worst of each error over prompts 0..count-1 and the
// outcome of the prompt where error `shown` is worst (prompt 0 where none is above 0), computed again. prompt is
// called from several threads at once: it must not share mutable state.
template <class Outcome>
struct WorstPrompts {
  WorstCase worst;
  Outcome at;
};

template <class PromptFn>
auto worst_prompts(std::uint64_t count, int threads, const PromptFn& prompt, int shown) {
  using Outcome = std::invoke_result_t<const PromptFn&, std::uint64_t>;
  constexpr int dims = static_cast<int>(std::tuple_size_v<decltype(Outcome::err)>);
  WorstCase w = worst_over_prompts(count, dims, threads, [&] {
    return [&](std::uint64_t i, double* out) {
      const Outcome o = prompt(i);
      std::copy(o.err.begin(), o.err.end(), out);
      if constexpr (requires(const Outcome& x) { x.out_of_range; }) return !o.out_of_range;
      else return true;
    };
  });
  Outcome at = prompt(w.where[static_cast<std::size_t>(shown)]);
  return WorstPrompts<Outcome>{std::move(w), std::move(at)};
}

// |a - b| / scale, with scale > 0 (callers pass a magnitude that cannot cancel, e.g. a sum of
// absolute values of the terms that make up b); infinity when a is not finite.
inline double scaled_error(double a, double b, double scale) {
  if (!std::isfinite(a)) return std::numeric_limits<double>::infinity();
  return std::abs(a - b) / (scale > 0 ? scale : std::numeric_limits<double>::min());
}

}  // namespace icl
