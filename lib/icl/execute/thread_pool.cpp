#include "icl/execute/thread_pool.hpp"

#include <condition_variable>
#include <deque>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace icl::execute {

std::atomic<bool>& cancel_flag() {
  static std::atomic<bool> flag{false};
  static_assert(std::atomic<bool>::is_always_lock_free, "the SIGINT handler sets it");
  return flag;
}

namespace {

thread_local bool t_inside = false;

// A call of run_on_threads: its body, how many of its helper jobs are running, the first exception.
struct Batch {
  const std::function<void(int)>* body = nullptr;
  int running = 0;
  std::exception_ptr error;
};

struct Job {
  Batch* batch;
  int slot;
};

// A call puts threads - 1 helper jobs on a queue that idle workers take, runs its own share (slot 0), then takes
// back the helper jobs no worker has started (the bodies share a task counter, so the caller's share has done
// their tasks) and waits for the started ones. A call from inside a task therefore gets the workers that are idle
// (none when the outer call keeps them all busy) and never waits for a job that has not started: no deadlock.
class Pool {
public:
  void run(int threads, const std::function<void(int)>& body) {
    if (threads <= 1) {
      body(0);
      return;
    }
    Batch batch;
    batch.body = &body;
    {
      std::lock_guard<std::mutex> lk(mu_);
      grow(threads - 1);
      for (int slot = 1; slot < threads; ++slot) queue_.push_back({&batch, slot});
    }
    work_.notify_all();
    std::exception_ptr mine;
    const bool was = t_inside;
    t_inside = true;
    try {
      body(0);
    } catch (...) {
      mine = std::current_exception();
    }
    t_inside = was;
    {
      std::unique_lock<std::mutex> lk(mu_);
      for (auto it = queue_.begin(); it != queue_.end();) it = it->batch == &batch ? queue_.erase(it) : it + 1;
      done_.wait(lk, [&] { return batch.running == 0; });
    }
    if (mine) std::rethrow_exception(mine);
    if (batch.error) std::rethrow_exception(batch.error);
  }

private:
  // Under mu_: at least `workers` worker threads (the pool grows to the most threads any call asked for).
  void grow(int workers) {
    while (static_cast<int>(threads_.size()) < workers) threads_.emplace_back([this] { loop(); });
  }

  void loop() {
    t_inside = true;
    std::unique_lock<std::mutex> lk(mu_);
    for (;;) {
      work_.wait(lk, [&] { return !queue_.empty(); });
      const Job job = queue_.front();
      queue_.pop_front();
      ++job.batch->running;
      lk.unlock();
      std::exception_ptr err;
      try {
        (*job.batch->body)(job.slot);
      } catch (...) {
        err = std::current_exception();
      }
      lk.lock();
      if (err && !job.batch->error) job.batch->error = err;
      --job.batch->running;
      done_.notify_all();
    }
  }

  std::mutex mu_;
  std::condition_variable work_, done_;
  std::deque<Job> queue_;
  std::vector<std::thread> threads_;
};

// Never destroyed: its workers wait for work until the process ends (no join at exit, no order-of-destruction
// question with other statics).
Pool& pool() {
  static Pool* p = new Pool;
  return *p;
}

}  // namespace

void run_on_threads(int threads, const std::function<void(int)>& body) { pool().run(threads, body); }

bool inside_pool() { return t_inside; }

int hardware_threads() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}

}  // namespace icl::execute
