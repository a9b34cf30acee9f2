// Starts MPI when the command was built with it (ranks_mpi.cpp); a no-op build links ranks_none.cpp.
#pragma once

namespace icl {
void start_ranks(int* argc, char*** argv);
}  // namespace icl
