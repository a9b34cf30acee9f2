// Stopping on request (thread_pool.hpp: Ctrl-C in the command line, KeyboardInterrupt in Python): once requested,
// every parallel loop stops taking tasks and throws Cancelled; cleared, loops run in full again.
#include "icl/execute/thread_pool.hpp"

#include <doctest/doctest.h>

#include <atomic>
#include <cstdint>

namespace test_cancel {  // named: a unity build compiles several test files as one unit

using namespace icl::execute;

TEST_CASE("cancel: a requested stop ends every parallel loop at its next task; cleared, loops run in full") {
  for (int threads : {1, 3}) {
    CAPTURE(threads);
    std::atomic<std::uint64_t> done{0};
    const std::uint64_t tasks = 100000;
    // The stop is requested from inside the loop (as a signal arrives while it runs): few tasks run after it.
    CHECK_THROWS_AS(parallel_tasks(tasks, threads,
                                   [&] {
                                     return [&](std::uint64_t i) {
                                       if (i == 10) request_cancel();
                                       ++done;
                                     };
                                   }),
                    Cancelled);
    CHECK(done.load() < 1000);
    CHECK(cancel_requested());
    // A loop started while the stop stands runs nothing.
    done = 0;
    CHECK_THROWS_AS(parallel_tasks(10, threads, [&] { return [&](std::uint64_t) { ++done; }; }), Cancelled);
    CHECK(done.load() == 0);
    clear_cancel();
    CHECK_FALSE(cancel_requested());
    parallel_tasks(tasks, threads, [&] { return [&](std::uint64_t) { ++done; }; });
    CHECK(done.load() == tasks);
  }
}

}  // namespace test_cancel
