#include "icl/execute/ranks.hpp"

namespace icl {
RankComm& rank_comm() {
  static RankComm c;
  return c;
}
}  // namespace icl
