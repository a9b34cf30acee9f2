// A claim of one's own (claim/kinds/formula.hpp), run as `icl-verify run ID --out OUT` would run a claim of the
// catalogue: the Python module's `check` and C++ callers.
#pragma once
#include "icl/claim/kinds/formula.hpp"

#include <nlohmann/json.hpp>

#include <cstdint>
#include <string>

namespace icl {

// Registers the claim for the time of the run, runs it through the engine (writing OUT/ID.json, ID.tex, summary.md,
// ...) and returns its report. Throws UsageError for bad input (nothing written); an exception from `stated`,
// `model` or `between_cases` propagates unchanged. `command` is what the report's provenance names as the
// invocation (e.g. the Python call). `quiet`: nothing on stdout (RunOptions::quiet).
nlohmann::ordered_json check_formula_claim(const FormulaClaim& f, const std::string& out, std::uint64_t seed = 1,
                                           int threads = 0, double alpha = 0.01, const std::string& command = "",
                                           bool quiet = false);

}  // namespace icl
