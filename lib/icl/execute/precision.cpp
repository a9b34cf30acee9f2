#include "icl/execute/precision.hpp"

#include <stdexcept>
#include <string>

namespace icl::execute {

const char* to_string(Precision p) { return p == Precision::f32 ? "float32" : "float64"; }

Precision precision_from_name(std::string_view name) {
  if (name == "float64") return Precision::f64;
  if (name == "float32") return Precision::f32;
  throw std::invalid_argument("precision '" + std::string(name.substr(0, 40)) + "' is not float64 or float32");
}

namespace {
Precision g_default = Precision::f64;
}
Precision default_precision() { return g_default; }
void set_default_precision(Precision p) { g_default = p; }

}  // namespace icl::execute
