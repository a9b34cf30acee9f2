// Build without MPI: one process, rank 0 of 1.
#include "icl/cli/ranks_mpi.hpp"

namespace icl {
void start_ranks(int*, char***) {}
}  // namespace icl
