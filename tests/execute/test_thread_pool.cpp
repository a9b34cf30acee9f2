// The library's one thread pool (execute/thread_pool.hpp): every task runs exactly once at any thread count, a
// pool that grows between calls takes its new workers into the call that grew it, nested calls run inline, and
// an exception thrown on any thread reaches the caller.
#include "icl/execute/thread_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <numeric>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace icl::execute {
namespace {

TEST_CASE("thread pool: every task exactly once, at 1 to 8 threads, the pool growing between calls") {
  for (int threads : {1, 3, 2, 8, 5, 8, 1}) {
    CAPTURE(threads);
    const std::uint64_t tasks = 1000;
    std::vector<std::atomic<int>> hits(tasks);
    std::atomic<int> made{0};
    parallel_tasks(tasks, threads, [&] {
      ++made;
      return [&](std::uint64_t i) { ++hits[i]; };
    });
    for (std::uint64_t i = 0; i < tasks; ++i) REQUIRE(hits[i].load() == 1);
    CHECK(made.load() >= 1);
    CHECK(made.load() <= threads);
  }
}

TEST_CASE("thread pool: the threads of one call are distinct and numbered 0..threads-1") {
  for (int round = 0; round < 20; ++round) {
    std::mutex mu;
    std::set<int> workers;
    std::set<std::thread::id> ids;
    run_on_threads(4, [&](int w) {
      const std::lock_guard<std::mutex> lk(mu);
      workers.insert(w);
      ids.insert(std::this_thread::get_id());
    });
    CHECK(workers == std::set<int>{0, 1, 2, 3});
    CHECK(ids.size() == 4);
  }
}

TEST_CASE("thread pool: a call from inside a task runs inline and gives the same sums") {
  std::vector<double> outer(16, 0.0);
  parallel_tasks(outer.size(), 4, [&] {
    return [&](std::uint64_t i) {
      CHECK(inside_pool());
      std::vector<double> inner(100, 0.0);
      parallel_tasks(inner.size(), 4, [&] {
        return [&](std::uint64_t j) { inner[j] = static_cast<double>(i * 1000 + j); };
      });
      outer[i] = std::accumulate(inner.begin(), inner.end(), 0.0);
    };
  });
  for (std::size_t i = 0; i < outer.size(); ++i) CHECK(outer[i] == 100.0 * 1000.0 * static_cast<double>(i) + 4950.0);
  CHECK_FALSE(inside_pool());
}

TEST_CASE("thread pool: an exception on any thread is rethrown by the call, and the pool still works after") {
  for (int bad : {0, 1, 3}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(run_on_threads(4,
                                        [&](int w) {
                                          if (w == bad) throw std::runtime_error("task failed");
                                        }),
                         "task failed", std::runtime_error);
  }
  std::atomic<int> n{0};
  parallel_tasks(100, 3, [&] { return [&](std::uint64_t) { ++n; }; });
  CHECK(n.load() == 100);
}

}  // namespace
}  // namespace icl::execute
