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
#include <vector>

namespace icl::execute {

// True when this process computes chunk c.
inline bool owns_chunk(std::uint64_t c) {
  const RankComm& comm = rank_comm();
  return c % static_cast<std::uint64_t>(comm.size) == static_cast<std::uint64_t>(comm.rank);
}

// Calls worker(c) for this rank's chunks c in [first, last) on `threads` threads; make_worker() is called once per
// participating thread and returns the callable (it owns the thread's scratch).
template <class MakeWorker>
void for_rank_chunks(std::uint64_t first, std::uint64_t last, int threads, MakeWorker&& make_worker) {
  if (last <= first) return;
  const RankComm& comm = rank_comm();
  const auto ranks = static_cast<std::uint64_t>(comm.size), me = static_cast<std::uint64_t>(comm.rank);
  const std::uint64_t c0 = first + (me + ranks - first % ranks) % ranks;  // this rank's first chunk
  if (c0 >= last) return;
  const std::uint64_t mine = (last - c0 + ranks - 1) / ranks;
  parallel_tasks(mine, threads, [&] {
    return [c0, ranks, worker = make_worker()](std::uint64_t k) mutable { worker(c0 + k * ranks); };
  });
}

// Every rank's words OR-ed into every rank's (each rank fills the words of its own chunks and leaves the others 0).
inline void share_chunk_words(std::vector<std::uint64_t>& words) {
  const RankComm& comm = rank_comm();
  if (comm.size > 1) comm.or_all(words.data(), words.size());
}

}  // namespace icl::execute
