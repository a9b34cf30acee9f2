// check_formula_claim (check.hpp): a claim of one's own, registered for one run of the engine.
#include "icl/cli/check.hpp"

#include "icl/cli/engine.hpp"
#include "icl/report/provenance.hpp"
#include "icl/report/report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <utility>

namespace icl {
namespace {

// Registered for the time of one run, so that run_command finds it; removed again however the run ends.
struct ScopedRegistration {
  std::string id;
  explicit ScopedRegistration(Claim c) : id(c.id) { RegisterClaim{std::move(c)}; }
  ~ScopedRegistration() {
    auto& r = claim_registry();
    r.erase(std::remove_if(r.begin(), r.end(), [&](const Claim& c) { return c.id == id; }), r.end());
  }
  ScopedRegistration(const ScopedRegistration&) = delete;
  ScopedRegistration& operator=(const ScopedRegistration&) = delete;
};

}  // namespace

nlohmann::ordered_json check_formula_claim(const FormulaClaim& f, const std::string& out, std::uint64_t seed, int threads,
                                           double alpha, const std::string& command, bool quiet) {
  Claim c = formula_claim(f);
  if (find_claim(f.id)) throw UsageError(fmt::format("claim id '{}' is taken by a claim of the library", f.id));
  if (out.empty()) throw UsageError(f.id + ": an output folder is required");
  if (threads < 0) throw UsageError("threads must be >= 1");
  ScopedRegistration reg(std::move(c));
  RunOptions o;
  o.claims = {f.id};
  o.seed = seed;
  o.threads = threads;
  o.alpha = alpha;
  o.out = out;
  o.command = printable_line(command, 2000);
  o.quiet = quiet;
  run_command(o);
  return nlohmann::ordered_json::parse(read_file(out + "/" + f.id + ".json"));
}

}  // namespace icl
