// The library's one thread pool (execute/thread_pool.hpp): every task runs exactly once at any thread count, as the
// pool grows between calls; a call's threads are numbered distinctly; nested calls finish with the same sums; an
// exception thrown on any thread reaches the caller.
#include "icl/execute/thread_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <numeric>
#include <mutex>
#include <set>
#include <stdexcept>
#include <thread>
#include <vector>

namespace icl::execute {
namespace test_thread_pool {  // named: a unity build compiles several test files as one unit
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

TEST_CASE("thread pool: the numbers of one call are distinct and below the count asked, the caller's 0 among them") {
  for (int round = 0; round < 20; ++round) {
    std::mutex mu;
    std::multiset<int> workers;
    std::set<std::thread::id> ids;
    std::atomic<int> done{0};
    std::atomic<std::uint64_t> next{0};
    run_on_threads(4, [&](int w) {
      {
        const std::lock_guard<std::mutex> lk(mu);
        workers.insert(w);
        ids.insert(std::this_thread::get_id());
      }
      for (std::uint64_t i; (i = next.fetch_add(1)) < 200;) ++done;
    });
    CHECK(done.load() == 200);
    CHECK(workers.count(0) == 1);  // the caller always works
    for (int w : workers) CHECK(workers.count(w) == 1);
    CHECK(*workers.rbegin() < 4);
    CHECK(ids.size() <= workers.size());  // a worker may take two of the call's numbers, one after the other
  }
}

TEST_CASE("thread pool: a call from inside a task gives the same sums as a serial loop") {
  for (int outer_threads : {1, 2, 4}) {
    std::vector<double> outer(16, 0.0);
    parallel_tasks(outer.size(), outer_threads, [&] {
      return [&](std::uint64_t i) {
        std::vector<double> inner(100, 0.0);
        parallel_tasks(inner.size(), 4, [&] {
          return [&](std::uint64_t j) { inner[j] = static_cast<double>(i * 1000 + j); };
        });
        outer[i] = std::accumulate(inner.begin(), inner.end(), 0.0);
      };
    });
    for (std::size_t i = 0; i < outer.size(); ++i) CHECK(outer[i] == 100.0 * 1000.0 * static_cast<double>(i) + 4950.0);
  }
  CHECK_FALSE(inside_pool());
}

TEST_CASE("thread pool: an exception on any thread is rethrown by the call, and the pool still works after") {
  for (std::uint64_t bad : {0u, 57u, 99u}) {
    CAPTURE(bad);
    CHECK_THROWS_WITH_AS(parallel_tasks(100, 4,
                                        [&] {
                                          return [&](std::uint64_t i) {
                                            if (i == bad) throw std::runtime_error("task failed");
                                          };
                                        }),
                         "task failed", std::runtime_error);
  }
  std::atomic<int> n{0};
  parallel_tasks(100, 3, [&] { return [&](std::uint64_t) { ++n; }; });
  CHECK(n.load() == 100);
}

}  // namespace
}  // namespace test_thread_pool
}  // namespace icl::execute
