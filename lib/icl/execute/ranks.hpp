// Several processes (MPI ranks) sharing one run.
//
// The library itself never links MPI: the `icl-verify` command, when built where Open MPI is found,
// installs a communicator here at start-up (lib/icl/cli/ranks_mpi.cpp); everywhere else the run is one
// process (rank 0 of 1). Under K ranks, MonteCarlo::extend_to and the executor's losses() (executor.hpp) deal
// the fixed 256-prompt chunks out by chunk index (chunk c is computed by rank c mod K), then every rank receives
// every chunk's results bit for bit and merges them in chunk order: the totals, and so every number of a report,
// are bitwise those of one process with the same seed. All ranks run the same claim code on the same numbers;
// only rank 0 writes reports and prints.
#pragma once
#include <cstddef>
#include <cstdint>

namespace icl {

struct RankComm {
  int rank = 0;
  int size = 1;
  // Bitwise OR of `count` 64-bit words across all ranks, in place on every rank (MPI_Allreduce with
  // MPI_BOR); null when size == 1.
  void (*or_all)(std::uint64_t* words, std::size_t count) = nullptr;
};

// The process's communicator (rank 0 of 1 unless one was installed).
RankComm& rank_comm();

}  // namespace icl
