// MPI start-up for the icl-verify command (built only where Open MPI is found; see CMakeLists.txt).
// Installs the communicator of lib/icl/execute/ranks.hpp. A process started without a launcher is a
// singleton: rank 0 of 1, the same as a build without MPI, and MPI is not initialised at all.
#include "icl/cli/ranks_mpi.hpp"

#include "icl/cli/launcher.hpp"
#include "icl/execute/ranks.hpp"

// The C API only (Open MPI's deprecated C++ bindings warn under -Wextra).
#define OMPI_SKIP_MPICXX 1
#define MPICH_SKIP_MPICXX 1
#include <mpi.h>

#include <climits>
#include <cstdlib>

namespace icl {

namespace {
void or_all_mpi(std::uint64_t* words, std::size_t count) {
  while (count > 0) {
    const int n = count > static_cast<std::size_t>(INT_MAX / 2) ? INT_MAX / 2 : static_cast<int>(count);
    MPI_Allreduce(MPI_IN_PLACE, words, n, MPI_UINT64_T, MPI_BOR, MPI_COMM_WORLD);
    words += n;
    count -= static_cast<std::size_t>(n);
  }
}
void finalize() {
  int done = 0;
  MPI_Finalized(&done);
  if (!done) MPI_Finalize();
}
}  // namespace

void start_ranks(int* argc, char*** argv) {
  // Not under a launcher (launcher.hpp): a singleton, rank 0 of 1 as in a build without MPI; no MPI start-up.
  if (!started_by_mpi_launcher()) return;
  int provided = 0;
  if (MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided) != MPI_SUCCESS) return;
  std::atexit(finalize);
  RankComm& c = rank_comm();
  MPI_Comm_rank(MPI_COMM_WORLD, &c.rank);
  MPI_Comm_size(MPI_COMM_WORLD, &c.size);
  if (c.size > 1) c.or_all = or_all_mpi;
}

}  // namespace icl
