// The scalar type of the executor's arithmetic: float64 (every backend; the default) or float32 (the portable path
// and the cuda backend: execute/portable/plan.hpp says what runs in float). A process default like the backend
// (`--precision` on the command line), read when an executor plans a network. Plain C++ without Eigen, so that the
// cuda backend's .cu file can include it.
#pragma once
#include <string_view>

namespace icl::execute {

enum class Precision { f64, f32 };
const char* to_string(Precision p);  // "float64", "float32"
// "float64" / "float32"; anything else throws std::invalid_argument naming the two.
Precision precision_from_name(std::string_view name);

Precision default_precision();
void set_default_precision(Precision p);

}  // namespace icl::execute
