#include "icl/montecarlo/montecarlo.hpp"

namespace icl {
int default_thread_count() { return execute::hardware_threads(); }
}  // namespace icl
