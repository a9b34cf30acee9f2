// Mutation sites: the places where a claim uses a stated formula or constant, or a construction builds a
// weight matrix, named so that bench/mutate.py can perturb them one at a time and check that the claim's
// verdict changes (issue 15: "would a wrong formula or a wrong weight actually be caught?").
//
//   namespace { const icl::MutationSite kStated{"my.claim/stated", "my.claim"}; }
//   ...  const double stated = kStated(formula);        // or kStated(matrix)
//
// With no mutant selected (the normal case) a site returns its argument unchanged; the cost is one
// comparison against a value read once. A mutant is selected by the environment variable
//   ICL_MUTANT=<site id>:<kind>     kind: scale (x 1.02), shrink (x 0.98), sign (negated), transpose (matrices only)
// (scale and shrink both: a 2% error in a bound is caught in one direction only, the one that makes it false).
// It is read once per process; the provenance block of every report then names it ("mutant"), and the
// command line warns on stderr, so a mutated run can never pass for a normal one.
// `icl-verify list --mutation-sites` prints every site with the claims it affects and the kinds that apply.
#pragma once

#include <Eigen/Core>

#include <string>
#include <string_view>
#include <vector>

namespace icl {

enum class MutationKind { none, scale, sign, transpose, shrink };

struct MutationSiteInfo {
  std::string id;      // "<claim or construction>/<what>", unique
  std::string claims;  // the claims whose verdict depends on it, comma-separated
  bool matrix = false; // the site wraps a matrix (transpose applies)
  std::string note;    // what the value is
};

class MutationSite {
 public:
  // Registers the site (static storage duration: declare sites at namespace scope).
  MutationSite(std::string id, std::string claims, std::string note = "", bool matrix = false);
  double operator()(double v) const;
  Eigen::MatrixXd operator()(const Eigen::MatrixXd& m) const;
  const std::string& id() const { return id_; }

 private:
  std::string id_;
  MutationKind kind() const;  // the kind selected for this site, or none
};

// Every registered site, sorted by id.
std::vector<MutationSiteInfo> mutation_sites();
// The selected mutant as "<site>:<kind>", or "" when none. Throws std::invalid_argument (a user error: exit
// 2) when ICL_MUTANT is set but malformed or names no registered site.
std::string active_mutant();

}  // namespace icl
