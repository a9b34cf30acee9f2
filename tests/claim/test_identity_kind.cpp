// The catalogue identity kind (lib/icl/claim/kinds/identity.hpp judge_identities) on its own, with no claim: named
// identities over a WorstCase made by hand are each judged and written as decisions, in order, and the case's verdict
// is the worst of theirs (refuted over inconclusive over confirmed), its reason their words and the tail, its basis the
// decisions that reached it; prompts set aside are counted in the words, and none judged leaves the case inconclusive.
#include "icl/claim/case_json.hpp"
#include "icl/claim/kinds/identity.hpp"

#include <doctest/doctest.h>

#include <string>

namespace test_identity_kind {  // named: a unity build compiles several test files as one unit

using namespace icl;

namespace {

WorstCase worst_of(std::uint64_t prompts, std::uint64_t set_aside) {
  WorstCase w(2);
  w.prompts = prompts;
  w.set_aside = set_aside;
  return w;
}

nlohmann::ordered_json judged(const WorstCase& w, double a, double b, Verdict& v) {
  CaseJson j(nlohmann::ordered_json{{"d", 1}});
  j.quantity("max_rel_error", a);
  v = judge_identities(j, w, {{"labels", a, "label rows"}, {"rows", b, "other rows"}}, IdentityTolerance{},
                       ". Tail.");
  return j.take();
}

}  // namespace

TEST_CASE("judge_identities: the worst of the identities decides, every decision written in order") {
  const WorstCase w = worst_of(10, 0);
  Verdict v{};
  auto j = judged(w, 1e-12, 1e-13, v);
  CHECK(v == Verdict::confirmed);
  CHECK(j["verdict"] == "confirmed");
  CHECK(j["basis"] == nlohmann::ordered_json::array({"labels", "rows"}));
  std::string reason = j["evidence"];
  CHECK(reason.find("label rows: worst relative error 1e-12 <= 1e-09; other rows: worst relative error") == 0);
  CHECK(reason.substr(reason.size() - 7) == ". Tail.");
  auto it = j["decisions"].begin();
  CHECK(it.key() == "labels");
  CHECK((++it).key() == "rows");

  j = judged(w, 1e-12, 1e-7, v);  // between the levels: inconclusive
  CHECK(v == Verdict::inconclusive);
  j = judged(w, 1e-3, 1e-7, v);  // one refuted, one inconclusive: refuted, on the refuted one alone
  CHECK(v == Verdict::refuted);
  CHECK(j["basis"] == nlohmann::ordered_json::array({"labels"}));
  j = judged(w, 1e-7, 1e-3, v);  // the order does not matter to the verdict
  CHECK(v == Verdict::refuted);
  CHECK(j["basis"] == nlohmann::ordered_json::array({"rows"}));
}

TEST_CASE("judge_identities: prompts set aside are said; none judged is inconclusive") {
  Verdict v{};
  auto j = judged(worst_of(10, 3), 1e-12, 1e-12, v);
  CHECK(v == Verdict::confirmed);
  CHECK(std::string(j["evidence"]).find("label rows (7 of 10 prompts; 3 set aside: the exact reference leaves the double "
                                      "range") == 0);
  j = judged(worst_of(4, 4), 0, 0, v);
  CHECK(v == Verdict::inconclusive);
  CHECK(std::string(j["evidence"]).find("every one of 4 prompts was set aside") != std::string::npos);
}

}  // namespace test_identity_kind
