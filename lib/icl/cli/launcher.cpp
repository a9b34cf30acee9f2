#include "icl/cli/launcher.hpp"

#include <cstdlib>
#include <string>

namespace icl {

const std::vector<std::string_view>& mpi_launcher_variables() {
  static const std::vector<std::string_view> names = {
      "OMPI_COMM_WORLD_SIZE", "OMPI_COMM_WORLD_RANK", "PMIX_RANK",       "PMI_RANK",           "PMI_SIZE",
      "PMI_FD",               "MPI_LOCALRANKID",      "MPI_LOCALNRANKS", "MV2_COMM_WORLD_SIZE"};
  return names;
}

bool started_by_mpi_launcher(const std::function<const char*(const char*)>& getenv) {
  for (const auto name : mpi_launcher_variables()) {
    const std::string n(name);
    if ((getenv ? getenv(n.c_str()) : std::getenv(n.c_str())) != nullptr) return true;
  }
  return false;
}

}  // namespace icl
