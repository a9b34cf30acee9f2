// lib/ holds mechanisms only and names no claim (issue 29): a claim declares its paper (claims/papers.cpp), its
// parameters' value names and its table layout in its own registration (claims/<id>.cpp), so a claim ID in lib/ is
// a table entry, a special case or an example that belongs with the claims. Scanned: every source of lib/, comments
// included, for a paper's prefix of a registered claim followed by ".word" (`sja.thm2`, also an ID nobody
// registered or a misspelt one, `sja.Thm2`); a paper named in words ("acds Theorem 1") is fine.
#include "icl/claim/claim.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <regex>
#include <set>
#include <string>
#include <vector>

namespace test_lib_names_no_claim {  // named: a unity build compiles several test files as one unit

namespace {

namespace fs = std::filesystem;

// "file:line: text" for every line of a source under `root` (recursively, .hpp and .cpp) that `id` matches.
std::string lines_matching(const fs::path& root, const std::regex& id, std::size_t& files) {
  std::vector<fs::path> sources;
  for (const auto& e : fs::recursive_directory_iterator(root))
    if (e.is_regular_file() && (e.path().extension() == ".hpp" || e.path().extension() == ".cpp"))
      sources.push_back(e.path());
  std::sort(sources.begin(), sources.end());
  files = sources.size();
  std::string hits;
  for (const auto& p : sources) {
    std::ifstream in(p);
    std::string line;
    for (int n = 1; std::getline(in, line); ++n)
      if (std::regex_search(line, id))
        hits += fs::relative(p, root.parent_path()).string() + ":" + std::to_string(n) + ": " + line + "\n";
  }
  return hits;
}

}  // namespace

TEST_CASE("lib names no claim: no source of lib/ holds a claim ID") {
  std::set<std::string> prefixes;
  for (const auto& c : icl::claim_registry()) prefixes.insert(c.id.substr(0, c.id.find('.')));
  REQUIRE(prefixes.size() >= 4);  // sja, acds, zfb, xlssc
  std::string alternatives;
  for (const auto& p : prefixes) alternatives += (alternatives.empty() ? "" : "|") + p;
  const std::regex id("\\b(" + alternatives + ")\\.[A-Za-z]");

  std::size_t files = 0;
  const std::string hits = lines_matching(fs::path(ICL_SOURCE_DIR) / "lib", id, files);
  REQUIRE(files > 50);  // the folder was found and read
  CHECK_MESSAGE(hits.empty(), "lib/ names claims; declare what it says in the claim's own registration "
                              "(claims/<id>.cpp, claims/papers.cpp) or say it without the ID:\n"
                                  << hits);
}

// The data path's layers include downwards only: the command line (lib/icl/cli/) runs claims, so nothing below it
// includes it (a claim of one's own, claim/kinds/, once included cli/engine.hpp for UsageError and cli/eval.hpp for
// the exact limits; they are claim/usage_error.hpp and exact/limits.hpp now, and the run through the engine is
// cli/check.hpp).
TEST_CASE("lib layers: no folder of lib/icl/ but cli/ includes cli/") {
  const fs::path root = fs::path(ICL_SOURCE_DIR) / "lib" / "icl";
  std::string hits;
  std::size_t read = 0;
  for (const auto& dir : fs::directory_iterator(root)) {
    if (!dir.is_directory() || dir.path().filename() == "cli") continue;
    std::size_t files = 0;
    hits += lines_matching(dir.path(), std::regex("#include \"icl/cli/"), files);
    read += files;
  }
  REQUIRE(read > 50);
  CHECK_MESSAGE(hits.empty(), "a layer below the command line includes it:\n" << hits);
}

}  // namespace test_lib_names_no_claim
