// Helper of the claim kinds' tests (tests/claim/test_*_kind.cpp): a claim registered for the time of one test (its
// run's ClaimRun::finish derives the verdict from the registered claim's parts).
#pragma once
#include "icl/claim/claim.hpp"

#include <algorithm>
#include <string>
#include <utility>
#include <vector>

namespace icl::test {

// Registers a claim `id` with one part "a" (a theorem), or with the parts given; removes it again at the end of the
// scope.
struct ScopedClaim {
  std::string id;
  explicit ScopedClaim(std::string id_, std::vector<PartSpec> parts = {PartSpec{"a", "the test", Strength::theorem}})
      : id(std::move(id_)) {
    Claim c;
    c.id = id;
    c.title = "a test of a claim kind";
    c.parts = std::move(parts);
    RegisterClaim{std::move(c)};
  }
  ~ScopedClaim() {
    auto& r = claim_registry();
    r.erase(std::remove_if(r.begin(), r.end(), [&](const Claim& c) { return c.id == id; }), r.end());
  }
  ScopedClaim(const ScopedClaim&) = delete;
  ScopedClaim& operator=(const ScopedClaim&) = delete;
};

}  // namespace icl::test
