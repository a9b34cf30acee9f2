// The chunk schedule: how a run's prompts are dealt out, the same for every user of the executor (the Monte Carlo
// engine of montecarlo/ and the backends' losses()). Work is cut into fixed chunks of prompts, independent of
// threads and ranks; under K MPI ranks chunk c is computed by rank c mod K (ranks.hpp), and within a rank by any
// thread of the library's pool (thread_pool.hpp). Each chunk's result is stored by its index; share_chunk_words()
// then gives every rank every chunk's result bit for bit, and callers merge in chunk order. So the numbers are those
// of one thread of one process, whatever the threads and ranks.
#pragma once
#include "icl/execute/ranks.hpp"
#include "icl/execute/thread_pool.hpp"

#include <cstdint>
#include <type_traits>
#include <vector>

namespace icl::execute {

// The ranks that share a run started here: all of the communicator's at the top level; 1 inside a task of the
// pool (a run nested in a parallel loop computes every chunk itself, so MPI is only ever called from the main
// thread, and ranks running their loops' tasks in different orders never meet in a collective).
inline int sharing_ranks() { return inside_pool() ? 1 : rank_comm().size; }

// True when this process computes chunk c of a run shared by `ranks` ranks.
inline bool owns_chunk(std::uint64_t c, int ranks) {
  return ranks == 1 || c % static_cast<std::uint64_t>(ranks) == static_cast<std::uint64_t>(rank_comm().rank);
}

// Calls worker(c) for this rank's chunks c in [first, last) of a run shared by `ranks` ranks (sharing_ranks()) on
// `threads` threads; make_worker() (or make_worker(thread number), as parallel_tasks) is called once per
// participating thread and returns the callable (it owns the thread's scratch).
template <class MakeWorker>
void for_rank_chunks(std::uint64_t first, std::uint64_t last, int threads, int ranks, MakeWorker&& make_worker) {
  if (last <= first) return;
  const auto K = static_cast<std::uint64_t>(ranks), me = ranks == 1 ? 0 : static_cast<std::uint64_t>(rank_comm().rank);
  const std::uint64_t c0 = first + (me + K - first % K) % K;  // this rank's first chunk
  if (c0 >= last) return;
  const std::uint64_t mine = (last - c0 + K - 1) / K;
  if constexpr (std::is_invocable_v<MakeWorker&, int>) {
    parallel_tasks(mine, threads, [&](int w) {
      return [c0, K, worker = make_worker(w)](std::uint64_t k) mutable { worker(c0 + k * K); };
    });
  } else {
    parallel_tasks(mine, threads, [&] {
      return [c0, K, worker = make_worker()](std::uint64_t k) mutable { worker(c0 + k * K); };
    });
  }
}

// Every rank's words OR-ed into every rank's (each rank fills the words of its own chunks and leaves the others 0);
// nothing to do for a run that one rank computed alone.
inline void share_chunk_words(std::vector<std::uint64_t>& words, int ranks) {
  if (ranks > 1) rank_comm().or_all(words.data(), words.size());
}

}  // namespace icl::execute
