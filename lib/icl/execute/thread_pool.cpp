#include "icl/execute/thread_pool.hpp"

#include <condition_variable>
#include <exception>
#include <mutex>
#include <thread>
#include <vector>

namespace icl::execute {

namespace {

thread_local bool t_inside = false;

// Workers wait for a generation number to change; a call publishes its body and the number of workers wanted,
// runs its own share, and waits for the workers it enlisted. Calls are serialised by `call_mu` (a caller that
// cannot take it at once runs inline: see the header).
class Pool {
public:
  void run(int threads, const std::function<void(int)>& body) {
    std::unique_lock<std::mutex> call(call_mu_, std::try_to_lock);
    if (threads <= 1 || t_inside || !call.owns_lock()) {
      inline_run(body);
      return;
    }
    grow(threads - 1);
    {
      std::lock_guard<std::mutex> lk(mu_);
      body_ = &body;
      wanted_ = threads - 1;
      started_ = 0;
      running_ = 0;
      error_ = nullptr;
      ++generation_;
    }
    start_.notify_all();
    std::exception_ptr mine;
    t_inside = true;
    try {
      body(0);
    } catch (...) {
      mine = std::current_exception();
    }
    t_inside = false;
    std::exception_ptr err;
    {
      std::unique_lock<std::mutex> lk(mu_);
      done_.wait(lk, [&] { return started_ == wanted_ && running_ == 0; });
      body_ = nullptr;
      err = mine ? mine : error_;
    }
    if (err) std::rethrow_exception(err);
  }

private:
  static void inline_run(const std::function<void(int)>& body) {
    const bool was = t_inside;
    t_inside = true;
    try {
      body(0);
    } catch (...) {
      t_inside = was;
      throw;
    }
    t_inside = was;
  }

  // Called before the call's generation is published: a new worker starts from the current generation, so it
  // takes part in this call.
  void grow(int workers) {
    std::uint64_t now = 0;
    {
      std::lock_guard<std::mutex> lk(mu_);
      now = generation_;
    }
    while (static_cast<int>(threads_.size()) < workers) threads_.emplace_back([this, now] { loop(now); });
  }

  void loop(std::uint64_t seen) {
    t_inside = true;
    for (;;) {
      const std::function<void(int)>* body = nullptr;
      int slot = 0;
      {
        std::unique_lock<std::mutex> lk(mu_);
        start_.wait(lk, [&] { return generation_ != seen && started_ < wanted_; });
        seen = generation_;
        slot = ++started_;
        ++running_;
        body = body_;
      }
      try {
        (*body)(slot);
      } catch (...) {
        std::lock_guard<std::mutex> lk(mu_);
        if (!error_) error_ = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lk(mu_);
        --running_;
      }
      done_.notify_all();
    }
  }

  std::mutex call_mu_;
  std::mutex mu_;
  std::condition_variable start_, done_;
  std::vector<std::thread> threads_;
  const std::function<void(int)>* body_ = nullptr;
  std::uint64_t generation_ = 0;
  int wanted_ = 0, started_ = 0, running_ = 0;
  std::exception_ptr error_;
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
