#include "icl/montecarlo/montecarlo.hpp"

namespace icl {
int default_thread_count() {
  const unsigned n = std::thread::hardware_concurrency();
  return n ? static_cast<int>(n) : 1;
}
}  // namespace icl
