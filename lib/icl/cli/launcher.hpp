// Whether an MPI launcher started this process, from the environment it leaves: MPI is initialised only then
// (ranks_mpi.cpp), so that a plain `icl-verify list` or `run` pays no MPI start-up.
#pragma once
#include <functional>
#include <string_view>
#include <vector>

namespace icl {

// The variables a launcher sets in each process it starts: Open MPI's mpirun/prterun (OMPI_COMM_WORLD_SIZE,
// OMPI_COMM_WORLD_RANK), PMIx (PMIX_RANK: Open MPI 5, Slurm's srun --mpi=pmix), PMI-1/PMI-2 (PMI_RANK, PMI_SIZE,
// PMI_FD: MPICH's and Intel MPI's Hydra, Slurm's srun --mpi=pmi2), Hydra's MPI_LOCALRANKID and MPI_LOCALNRANKS,
// and MVAPICH's mpirun_rsh (MV2_COMM_WORLD_SIZE). Slurm's own SLURM_* variables are not among them: a job step
// without an MPI plugin starts plain processes.
const std::vector<std::string_view>& mpi_launcher_variables();

// True when `getenv` (the process's environment by default) has any of mpi_launcher_variables().
bool started_by_mpi_launcher(const std::function<const char*(const char*)>& getenv = {});

}  // namespace icl
