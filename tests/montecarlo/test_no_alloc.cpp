// PromptLossWorker::loss must not allocate once warmed up (lib/icl/montecarlo/prompt_loss.hpp): the Monte Carlo hot
// loop runs it hundreds of thousands of times per case.
//
// This translation unit replaces the global operator new/delete (counting calls) and, because Eigen
// allocates its dynamic matrices with std::malloc rather than operator new, also interposes malloc,
// calloc, realloc and free (forwarding to glibc's __libc_* entry points). Both counters are only
// active inside a CountAllocations scope; they are global, so the counted code must run on this
// thread alone (it does: the worker is called directly, no Monte Carlo threads are running).
#include "constructions/sja_appC.hpp"
#include "icl/layers/network.hpp"
#include "icl/montecarlo/prompt_loss.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cmath>
#include <cstdlib>
#include <new>
#include <vector>

// Sanitizer runtimes own malloc: there, only operator new is counted.
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__)
#define ICL_COUNT_MALLOC 0
#else
#define ICL_COUNT_MALLOC 1
#endif

extern "C" {
void* __libc_malloc(std::size_t);
void* __libc_calloc(std::size_t, std::size_t);
void* __libc_realloc(void*, std::size_t);
void* __libc_memalign(std::size_t, std::size_t);
void __libc_free(void*);
}

namespace {
std::atomic<bool> g_counting{false};
std::atomic<std::size_t> g_new_calls{0}, g_malloc_calls{0};

inline void count_new() {
  if (g_counting.load(std::memory_order_relaxed)) g_new_calls.fetch_add(1, std::memory_order_relaxed);
}
inline void count_malloc() {
  if (g_counting.load(std::memory_order_relaxed)) g_malloc_calls.fetch_add(1, std::memory_order_relaxed);
}

void* checked(void* p) {
  if (!p) throw std::bad_alloc();
  return p;
}

struct CountAllocations {
  CountAllocations() {
    g_new_calls = 0;
    g_malloc_calls = 0;
    g_counting = true;
  }
  ~CountAllocations() { g_counting = false; }
  std::size_t news() const { return g_new_calls.load(); }
  std::size_t mallocs() const { return g_malloc_calls.load(); }
};
}  // namespace

#if ICL_COUNT_MALLOC
// --- malloc family (interposed for the whole test program; behaviour unchanged) ---
extern "C" void* malloc(std::size_t n) noexcept {
  count_malloc();
  return __libc_malloc(n);
}
extern "C" void* calloc(std::size_t k, std::size_t n) noexcept {
  count_malloc();
  return __libc_calloc(k, n);
}
extern "C" void* realloc(void* p, std::size_t n) noexcept {
  count_malloc();
  return __libc_realloc(p, n);
}
extern "C" void free(void* p) noexcept { __libc_free(p); }
#endif

// --- global operator new/delete (replacement functions) ---
void* operator new(std::size_t n) {
  count_new();
  return checked(__libc_malloc(n ? n : 1));
}
void* operator new[](std::size_t n) {
  count_new();
  return checked(__libc_malloc(n ? n : 1));
}
void* operator new(std::size_t n, const std::nothrow_t&) noexcept {
  count_new();
  return __libc_malloc(n ? n : 1);
}
void* operator new[](std::size_t n, const std::nothrow_t&) noexcept {
  count_new();
  return __libc_malloc(n ? n : 1);
}
void* operator new(std::size_t n, std::align_val_t a) {
  count_new();
  return checked(__libc_memalign(static_cast<std::size_t>(a), n ? n : 1));
}
void* operator new[](std::size_t n, std::align_val_t a) {
  count_new();
  return checked(__libc_memalign(static_cast<std::size_t>(a), n ? n : 1));
}
void* operator new(std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  count_new();
  return __libc_memalign(static_cast<std::size_t>(a), n ? n : 1);
}
void* operator new[](std::size_t n, std::align_val_t a, const std::nothrow_t&) noexcept {
  count_new();
  return __libc_memalign(static_cast<std::size_t>(a), n ? n : 1);
}
void operator delete(void* p) noexcept { __libc_free(p); }
void operator delete[](void* p) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t) noexcept { __libc_free(p); }
void operator delete(void* p, const std::nothrow_t&) noexcept { __libc_free(p); }
void operator delete[](void* p, const std::nothrow_t&) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete[](void* p, std::size_t, std::align_val_t) noexcept { __libc_free(p); }
void operator delete(void* p, std::align_val_t, const std::nothrow_t&) noexcept { __libc_free(p); }
void operator delete[](void* p, std::align_val_t, const std::nothrow_t&) noexcept { __libc_free(p); }

namespace {

// Runs `prompts` losses after a warm-up and returns (operator new calls, malloc calls) during them.
std::pair<std::size_t, std::size_t> allocations_during_losses(icl::PromptLossWorker& w, int prompts, double* sum) {
  *sum += w.loss(0) + w.loss(1);  // warm-up
  std::pair<std::size_t, std::size_t> r;
  double s = 0;
  {
    CountAllocations count;
    for (int i = 2; i < 2 + prompts; ++i) s += w.loss(static_cast<std::uint64_t>(i));
    r = {count.news(), count.mallocs()};
  }
  *sum += s;
  return r;
}

}  // namespace

TEST_CASE("allocation counters see operator new and Eigen's malloc (the check can fail)") {
  std::size_t news = 0, mallocs = 0;
  {
    CountAllocations count;
    int* p = new int(3);
    asm volatile("" : : "r"(p) : "memory");  // the allocations escape: the optimiser may not elide them
    delete p;
    std::vector<double> v(10, 1.0);
    asm volatile("" : : "r"(v.data()) : "memory");
    Eigen::MatrixXd m = Eigen::MatrixXd::Constant(20, 20, v[3]);
    m(1, 1) += static_cast<double>(v.size());
    news = count.news();
    mallocs = count.mallocs();
    CHECK(m(1, 1) == 11.0);
  }
  CHECK(news >= 2);     // new int, the vector's buffer
  if (ICL_COUNT_MALLOC) CHECK(mallocs >= 1);  // Eigen's matrix storage
  // A worker that reallocates per prompt would be caught: resizing an Eigen matrix allocates.
  Eigen::MatrixXd grow(2, 2);
  {
    CountAllocations count;
    grow.resize(30, 30);
    mallocs = count.mallocs();
  }
  if (ICL_COUNT_MALLOC) CHECK(mallocs >= 1);
}

TEST_CASE("PromptLossWorker::loss allocates nothing after warm-up (sja.thm2 block)") {
  for (const auto& dn : {std::pair{1, 25}, std::pair{2, 100}, std::pair{3, 400}, std::pair{5, 1600}}) {
    const int d = dn.first, n = dn.second;
    CAPTURE(d);
    CAPTURE(n);
    const icl::Transformer block = icl::sja::appC_block(d);
    const auto task = icl::PolynomialTask::quadratic(d);
    const auto inputs = icl::InputDistribution::standard(d);
    const auto shape = icl::sja_shape(d, icl::sja::kernel_width(d), n);
    icl::PromptLossWorker w(block, task, inputs, shape, 1, 42);
    double sum = 0;
    const auto [news, mallocs] = allocations_during_losses(w, n >= 1600 ? 20 : 200, &sum);
    CHECK(news == 0);
    CHECK(mallocs == 0);
    CHECK(std::isfinite(sum));
    CHECK(sum > 0);
  }
}

TEST_CASE("PromptLossWorker::loss allocates nothing: correlated inputs, fixed w, zfb sign, unmasked") {
  const int d = 3, n = 50;
  Eigen::MatrixXd sigma(d, d);
  sigma << 2.0, 0.3, 0.1,  //
      0.3, 1.0, -0.2,      //
      0.1, -0.2, 0.5;
  const auto inputs = icl::InputDistribution::with_covariance(sigma);
  REQUIRE(!inputs.isotropic);
  const auto task = icl::PolynomialTask::linear(d);
  const auto shape = icl::zfb_shape(d, n);
  icl::Transformer model;
  Eigen::MatrixXd P = Eigen::MatrixXd::Zero(d + 1, d + 1), Q = Eigen::MatrixXd::Zero(d + 1, d + 1);
  P(d, d) = 1;
  Q.topLeftCorner(d, d) = sigma.inverse();
  model.layers.emplace_back(icl::LinearSelfAttention{P, Q, false, 0.0});
  model.layers.emplace_back(icl::LinearSelfAttention{P, Q, true, 0.5});
  Eigen::VectorXd w(d);
  w << 1.0, -2.0, 0.5;
  icl::PromptLossWorker worker(model, task, inputs, shape, 3, 4, &w, -1.0);
  double sum = 0;
  const auto [news, mallocs] = allocations_during_losses(worker, 200, &sum);
  CHECK(news == 0);
  CHECK(mallocs == 0);
  CHECK(std::isfinite(sum));
}
