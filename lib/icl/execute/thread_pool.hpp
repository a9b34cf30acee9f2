// The library's one thread pool. Every parallel loop of icl-verify (Monte Carlo chunks, worst cases over prompts,
// minibatch chunks of the trainer, independent trials, least-squares chunks) runs on it through parallel_tasks().
//
// Determinism does not come from the pool: callers cut their work into fixed tasks (independent of the thread
// count), store each task's result by its index and merge in index order, so any thread may run any task.
// The pool only saves thread start-up (its workers persist for the process) and bounds the threads in use:
//   - a call asks for `threads` threads: the calling thread plus up to threads - 1 of the pool's workers (the pool
//     grows to the largest number ever asked for); the caller always works, so a call never waits for a worker;
//   - a call made from inside a task (nested parallelism, e.g. a training run inside a parallel loop over trials)
//     gets the workers that are idle at that moment (none while the outer call keeps them all busy; all of them
//     once the outer call's other tasks are done): no deadlock, no oversubscription, the same numbers;
//   - an exception thrown on any thread is rethrown by the call once every thread of it has returned (the caller's
//     own first; tasks already taken still finish).
#pragma once
#include <algorithm>
#include <atomic>
#include <cstdint>
#include <functional>
#include <stdexcept>
#include <type_traits>

namespace icl::execute {

// Stopping on request (Ctrl-C: the command line's SIGINT handler; KeyboardInterrupt in the Python module): once
// request_cancel() is called, every parallel loop (parallel_tasks, so every Monte Carlo, search and training loop of
// the library) stops taking tasks and its call throws Cancelled. A run stopped so has no result: whoever requested
// the stop discards what the run returns or throws (code that catches exceptions broadly cannot turn a stopped run
// into a report). Setting the flag is async-signal-safe (a lock-free atomic store).
struct Cancelled : std::runtime_error {
  Cancelled() : std::runtime_error("stopped on request (Ctrl-C)") {}
};
std::atomic<bool>& cancel_flag();
inline bool cancel_requested() { return cancel_flag().load(std::memory_order_relaxed); }
inline void request_cancel() { cancel_flag().store(true); }
inline void clear_cancel() { cancel_flag().store(false); }

// Runs body(worker) on up to `threads` threads at once (worker 0 is the calling thread, the others numbered
// 1..threads-1, each number used at most once per call; fewer when the pool's workers are busy) and returns when
// every one has returned. Each body takes tasks from a shared counter (see parallel_tasks), so the caller alone
// finishes whatever no worker took.
void run_on_threads(int threads, const std::function<void(int worker)>& body);

// True on a pool worker, and on a calling thread while its own call (with threads > 1) is running.
bool inside_pool();

// The number of threads the machine offers (at least 1).
int hardware_threads();

// Calls worker(task) for task in [0, tasks) on min(threads, tasks) threads; make_worker() is called once per
// participating thread (it owns that thread's scratch, so nothing is allocated per task) and returns the callable;
// make_worker(worker) instead, if it takes the thread's number (run_on_threads: distinct within the call, below
// `threads`), for callers that keep per-thread state of their own. Which thread runs which task is not fixed:
// store results by task index.
template <class MakeWorker>
void parallel_tasks(std::uint64_t tasks, int threads, MakeWorker&& make_worker) {
  if (tasks == 0) return;
  std::atomic<std::uint64_t> next{0};
  const int t = static_cast<int>(std::min<std::uint64_t>(static_cast<std::uint64_t>(std::max(1, threads)), tasks));
  run_on_threads(t, [&](int w) {
    auto worker = [&] {
      if constexpr (std::is_invocable_v<MakeWorker&, int>) return make_worker(w);
      else return make_worker();
    }();
    for (std::uint64_t i; (i = next.fetch_add(1)) < tasks;) {
      if (cancel_requested()) throw Cancelled();
      worker(i);
    }
  });
}

}  // namespace icl::execute
