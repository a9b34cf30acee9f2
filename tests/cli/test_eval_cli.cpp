// `icl-verify eval` (lib/icl/cli/eval.cpp) through the real binary: weight files written here, byte by byte.
// Valid weights (.npy, .npz, .safetensors) give eval.json/.md/.tex with the exact loss, Monte Carlo, the optimum
// and a verdict on the weights (excess over the optimum within --tolerance); every bad file or option exits 2
// with one line on stderr and writes nothing.
#include "icl/model/gaussian_model.hpp"
#include "tests/support/npy_files.hpp"

#include <doctest/doctest.h>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <sys/wait.h>
#include <vector>

#ifndef ICL_VERIFY_BINARY
#error "ICL_VERIFY_BINARY must name the icl-verify binary"
#endif

namespace test_eval_cli {  // named: a unity build compiles several test files as one unit

namespace {

namespace fs = std::filesystem;
using json = nlohmann::ordered_json;
using icl::test::npy_bytes;
using icl::test::npy_f8;
using icl::test::write_bytes;

struct Result {
  int status = -1;
  std::string out, err;
};

Result eval_cli(const std::string& args, const fs::path& cwd, const fs::path& capture) {
  const fs::path out = capture / "stdout.txt", err = capture / "stderr.txt";
  const std::string cmd = "cd '" + cwd.string() + "' && '" + std::string(ICL_VERIFY_BINARY) + "' eval " + args +
                          " > '" + out.string() + "' 2> '" + err.string() + "'";
  const int raw = std::system(cmd.c_str());
  Result r;
  r.status = (raw != -1 && WIFEXITED(raw)) ? WEXITSTATUS(raw) : -1;
  r.out = icl::test::read_bytes(out);
  r.err = icl::test::read_bytes(err);
  return r;
}

// allparam (1, 1, 2, d, d) with P = p I and Q = q I + skew (an antisymmetric part, so that the transpose matters).
std::vector<double> allparam(int d, double p, double q, double skew) {
  std::vector<double> v;
  for (int k = 0; k < 2; ++k)
    for (int i = 0; i < d; ++i)
      for (int j = 0; j < d; ++j)
        v.push_back(k == 0 ? (i == j ? p : 0.0) : (i == j ? q : 0.0) + (i < j ? skew : (i > j ? -skew : 0.0)));
  return v;
}

}  // namespace

TEST_CASE("eval: allparam and named weights, exact beside Monte Carlo and the acds optimum") {
  icl::test::ScratchDir dir;
  const fs::path capture = dir.path / "capture", work = dir.path / "work";
  fs::create_directories(capture);
  fs::create_directories(work);
  const int d = 2, n = 10;
  // The acds Theorem 1 optimum at Sigma = I: Q0 = -n/(n+d+1) I (P's block is irrelevant for one layer).
  const double g = -static_cast<double>(n) / (n + d + 1);
  write_bytes(work / "opt.npy", npy_f8({1, 1, 2, d, d}, allparam(d, 0.7, g, 0.0)));
  Result r = eval_cli("--weights opt.npy --task linear --set n=10 --samples 200000 --threads 2 --out rep", work, capture);
  INFO(r.err);
  REQUIRE(r.status == 0);
  for (const char* f : {"eval.json", "eval.md", "eval.tex"}) CHECK(fs::exists(work / "rep" / f));
  const json j = json::parse(icl::test::read_bytes(work / "rep" / "eval.json"));
  CHECK(j["schema"] == "icl-verify/report/v1");
  CHECK(j["claim"] == "eval");
  CHECK(j["weights"]["layout"] == "allparam");
  REQUIRE(j["cases"].size() == 1);
  const json& q = j["cases"][0]["quantities"];
  // The optimum's loss, derived by hand: one GD step of size eta = n/(n+d+1) at Sigma = I has loss
  // d (d+1) / (n+d+1) (examples/own_claim derives the loss of any step).
  const double by_hand = d * (d + 1.0) / (n + d + 1.0);
  CHECK(q["exact"]["value"].get<double>() == doctest::Approx(by_hand).epsilon(1e-12));
  CHECK(q["optimum"]["value"].get<double>() == doctest::Approx(by_hand).epsilon(1e-12));
  CHECK(q["distance_to_optimum"]["value"].get<double>() < 1e-10);
  CHECK(std::abs(q["mc"]["mean"].get<double>() - by_hand) < 5 * q["mc"]["stderr"].get<double>());
  CHECK(j["cases"][0]["verdict"] == "confirmed");

  // A perturbed, non-symmetric Q as allparam equals the transposed Q as named full matrices (acds code
  // semantics, attention_weights.hpp); two covariances and two context lengths give four cases.
  write_bytes(work / "skew.npy", npy_f8({1, 1, 2, d, d}, allparam(d, 0.7, g, 0.3)));
  std::vector<double> P(9, 0.0), Q(9, 0.0);
  P[8] = 1;
  Q[0] = g, Q[1] = -0.3, Q[3] = 0.3, Q[4] = g;  // Qf^T: entry (0, 1) = -skew, (1, 0) = +skew
  icl::test::write_zip(work / "skew.npz", {{"P1.npy", npy_f8({3, 3}, P)}, {"Q1.npy", npy_f8({3, 3}, Q)}}, true);
  const std::string grid = " --task linear --set n=5,20 --set cov=0,2 --samples 2000 --threads 1";
  REQUIRE(eval_cli("--weights skew.npy --out a" + grid, work, capture).status == 0);
  REQUIRE(eval_cli("--weights skew.npz --out b" + grid, work, capture).status == 0);
  const json a = json::parse(icl::test::read_bytes(work / "a" / "eval.json"));
  const json b = json::parse(icl::test::read_bytes(work / "b" / "eval.json"));
  REQUIRE(a["cases"].size() == 4);
  REQUIRE(b["cases"].size() == 4);
  for (std::size_t i = 0; i < 4; ++i) {
    const double ea = a["cases"][i]["quantities"]["exact"]["value"], eb = b["cases"][i]["quantities"]["exact"]["value"];
    CHECK(ea == doctest::Approx(eb).epsilon(1e-12));
    CHECK(a["cases"][i]["quantities"]["excess"]["value"].get<double>() > 0);
    CHECK(a["cases"][i]["quantities"]["mc"]["mean"] == b["cases"][i]["quantities"]["mc"]["mean"]);
  }

  // Any covariance from a file: the same numbers as the built-in covariance it copies.
  const Eigen::MatrixXd S = icl::test_covariance(d, 1);
  write_bytes(work / "sigma.npy", npy_f8({d, d}, {S(0, 0), S(0, 1), S(1, 0), S(1, 1)}));
  REQUIRE(eval_cli("--weights skew.npy --sigma sigma.npy --set n=5 --samples 2000 --out s", work, capture).status == 0);
  REQUIRE(eval_cli("--weights skew.npy --set cov=1 --set n=5 --samples 2000 --out t", work, capture).status == 0);
  const json s = json::parse(icl::test::read_bytes(work / "s" / "eval.json"));
  const json t = json::parse(icl::test::read_bytes(work / "t" / "eval.json"));
  CHECK(s["cases"][0]["quantities"]["exact"]["value"].get<double>() ==
        doctest::Approx(t["cases"][0]["quantities"]["exact"]["value"].get<double>()).epsilon(1e-13));
  CHECK(s["cases"][0]["covariance"] == "given (--sigma)");

  // The verdict is on the weights: the skewed Q is beyond 1% of the optimum (refuted, the first such case as the
  // counterexample) and within a tolerance larger than its relative excess (confirmed).
  CHECK(a["verdict"] == "refuted");
  CHECK(a["refutation"]["counterexample"] == a["cases"][0]["params"]);
  double worst = 0;
  for (const auto& k : a["cases"]) {
    CHECK(k["verdict"] == "refuted");
    CHECK(k["basis"] == json::array({"excess_vs_tolerance"}));
    CHECK(k["decisions"]["excess_vs_tolerance"]["verdict"] == "refuted");
    const double rel = k["quantities"]["relative_excess"]["value"];
    CHECK(rel == doctest::Approx(k["quantities"]["excess"]["value"].get<double>() /
                                 k["quantities"]["optimum"]["value"].get<double>()));
    CHECK(rel > 0.01);
    worst = std::max(worst, rel);
  }
  const std::string loose = fmt::format(" --tolerance {:.6g}", 1.01 * worst);
  REQUIRE(eval_cli("--weights skew.npy --out a2" + grid + loose, work, capture).status == 0);
  const json a2 = json::parse(icl::test::read_bytes(work / "a2" / "eval.json"));
  CHECK(a2["verdict"] == "confirmed");
  CHECK(a2["weights"]["tolerance"].get<double>() == doctest::Approx(1.01 * worst).epsilon(1e-5));
  // The tables show the optimum, the excess and the distance; no text says that two numbers "agree".
  const std::string md = icl::test::read_bytes(work / "a" / "eval.md");
  for (const char* col : {"optimum", "relative_excess", "distance_to_optimum"}) CHECK(md.find(col) != std::string::npos);
  const std::string tex = icl::test::read_bytes(work / "a" / "eval.tex");
  for (const char* col : {"Optimum", "Excess", "Distance"}) CHECK(tex.find(col) != std::string::npos);
  for (const std::string& text : {icl::test::read_bytes(work / "a" / "eval.json"), md, tex}) {
    std::string low = text;
    std::transform(low.begin(), low.end(), low.begin(), [](unsigned char ch) { return std::tolower(ch); });
    CHECK(low.find("agree") == std::string::npos);
  }

  // The same weights as .safetensors (F32 allparam under a state_dict prefix; F64 named matrices): the same numbers.
  write_bytes(work / "skew.safetensors",
              icl::test::safetensors_file({{"module.allparam", {1, 1, 2, d, d}, allparam(d, 0.7, g, 0.3), false}}));
  write_bytes(work / "named.safetensors", icl::test::safetensors_file({{"P1", {3, 3}, P}, {"Q1", {3, 3}, Q}}));
  REQUIRE(eval_cli("--weights skew.safetensors --out e" + grid, work, capture).status == 0);
  REQUIRE(eval_cli("--weights named.safetensors --out f" + grid, work, capture).status == 0);
  const json e = json::parse(icl::test::read_bytes(work / "e" / "eval.json"));
  const json f = json::parse(icl::test::read_bytes(work / "f" / "eval.json"));
  CHECK(e["weights"]["layout"] == "allparam");
  CHECK(f["weights"]["layout"] == "named");
  for (std::size_t i = 0; i < 4; ++i) {
    CHECK(e["cases"][i]["quantities"]["exact"] == a["cases"][i]["quantities"]["exact"]);
    CHECK(f["cases"][i]["quantities"]["exact"]["value"].get<double>() ==
          doctest::Approx(a["cases"][i]["quantities"]["exact"]["value"].get<double>()).epsilon(1e-12));
  }

  // Several layers: Monte Carlo only, with the single-layer optimum for reference.
  std::vector<double> two = allparam(d, 0.2, g / 2, 0.0), second = allparam(d, 0.2, g / 2, 0.1);
  two.insert(two.end(), second.begin(), second.end());
  write_bytes(work / "two.npy", npy_f8({2, 1, 2, d, d}, two));
  r = eval_cli("--weights two.npy --set n=10 --samples 5000 --out c", work, capture);
  REQUIRE(r.status == 0);
  const json c = json::parse(icl::test::read_bytes(work / "c" / "eval.json"));
  CHECK(c["verdict"] == "inconclusive");
  CHECK(!c["cases"][0]["quantities"].contains("exact"));
  CHECK(c["cases"][0]["quantities"]["one_layer_optimum"]["value"].get<double>() == doctest::Approx(by_hand).epsilon(1e-12));
}

TEST_CASE("eval: bad weight files and options exit 2 with one line and write nothing") {
  icl::test::ScratchDir dir;
  const fs::path capture = dir.path / "capture", work = dir.path / "work";
  fs::create_directories(capture);
  fs::create_directories(work);
  const int d = 2;
  const std::string good = npy_f8({1, 1, 2, d, d}, allparam(d, 1, -0.5, 0));
  std::vector<double> with_nan = allparam(d, 1, -0.5, 0), with_inf = with_nan;
  with_nan[5] = std::nan("");
  with_inf[0] = HUGE_VAL;
  write_bytes(work / "good.npy", good);
  write_bytes(work / "trunc.npy", good.substr(0, good.size() - 3));
  write_bytes(work / "int.npy", npy_bytes("{'descr': '<i8', 'fortran_order': False, 'shape': (1, 1, 2, 2, 2), }", std::string(64, '\0')));
  write_bytes(work / "shape.npy", npy_f8({1, 2, 2, 2}, std::vector<double>(8, 0.0)));
  write_bytes(work / "nan.npy", npy_f8({1, 1, 2, d, d}, with_nan));
  write_bytes(work / "inf.npy", npy_f8({1, 1, 2, d, d}, with_inf));
  write_bytes(work / "sigma_bad.npy", npy_f8({2, 2}, {1, 2, 2, 1}));  // symmetric, not positive definite
  write_bytes(work / "sigma_ok.npy", npy_f8({2, 2}, {2, 0.5, 0.5, 1}));
  write_bytes(work / "sigma_shape.npy", npy_f8({3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1}));
  const std::string eye3 = npy_f8({3, 3}, {1, 0, 0, 0, 1, 0, 0, 0, 1});
  icl::test::write_zip(work / "missing.npz", {{"P1.npy", eye3}}, false);
  icl::test::write_zip(work / "extra.npz", {{"P1.npy", eye3}, {"Q1.npy", eye3}, {"bias.npy", eye3}}, false);
  write_bytes(work / "broken.npz", icl::test::read_bytes(work / "missing.npz").substr(0, 40));
  write_bytes(work / "ro_file", "x");
  const std::string st_good = icl::test::safetensors_file({{"allparam", {1, 1, 2, d, d}, allparam(d, 1, -0.5, 0)}});
  write_bytes(work / "trailing.safetensors", st_good + "junk");
  write_bytes(work / "trunc.safetensors", st_good.substr(0, st_good.size() - 8));
  write_bytes(work / "json.safetensors", icl::test::safetensors_bytes("{\"allparam\": {\"dtype\": ", ""));
  write_bytes(work / "extra.safetensors", icl::test::safetensors_file({{"allparam", {1, 1, 2, d, d}, allparam(d, 1, -0.5, 0)},
                                                                       {"bias", {2}, {0.0, 0.0}}}));
  write_bytes(work / "size.safetensors",
              icl::test::safetensors_bytes(R"({"P1":{"dtype":"F64","shape":[3,3],"data_offsets":[0,64]}})", std::string(64, '\0')));

  const std::vector<std::pair<std::string, std::string>> bad = {
      {"", "--weights"},
      {"--weights nothere.npy", "cannot open"},
      {"--weights trunc.npy", "truncated .npy data"},
      {"--weights int.npy", "dtype '<i8'"},
      {"--weights shape.npy", "is not (L, H, 2, d, d)"},
      {"--weights nan.npy", "non-finite entry (nan)"},
      {"--weights inf.npy", "non-finite entry (inf)"},
      {"--weights missing.npz", "missing array Q1"},
      {"--weights extra.npz", "unexpected array 'bias'"},
      {"--weights broken.npz", "not a readable .npz"},
      {"--weights good.npy --set d=3", "--set d=3: the weights have d = 2"},
      {"--weights good.npy --set n=0", "parameter n must be in"},
      {"--weights good.npy --set cov=7", "parameter cov must be in"},
      {"--weights good.npy --set noise=-1", "parameter noise must be in"},
      {"--weights good.npy --set k=3", "eval has no parameter 'k'"},
      {"--weights good.npy --task cubic", "unknown task 'cubic'"},
      {"--weights good.npy --sigma sigma_bad.npy", "not positive definite"},
      {"--weights good.npy --sigma sigma_shape.npy", "the covariance is 3x3"},
      {"--weights good.npy --sigma good.npy", "is not (d, d)"},
      {"--weights good.npy --sigma sigma_ok.npy --set cov=1", "--set cov: not with --sigma"},
      {"--weights good.npy --samples 0", "--samples '0': expected a whole number"},
      {"--weights good.npy --seed -1", "--seed '-1': expected a whole number"},
      {"--weights good.npy --threads 0", "--threads '0': expected a whole number in [1, 1024]"},
      {"--weights good.npy --threads 1.5e0", "--threads '1.5e0': expected a whole number"},
      {"--weights good.npy --out ro_file/sub", "is not a folder"},
      {"--weights weights.pt", "expected a .npy"},
      {"--weights weights.pt", "a PyTorch pickle is not read"},
      {"--weights trailing.safetensors", "4 bytes after the last tensor's data"},
      {"--weights trunc.safetensors", "run past the end of the data"},
      {"--weights json.safetensors", "malformed .safetensors header"},
      {"--weights extra.safetensors", "unexpected array 'bias' beside 'allparam'"},
      {"--weights size.safetensors", "needs 72 bytes"},
      {"--weights good.npy --tolerance -1", "--tolerance must be a number >= 0"},
  };
  for (const auto& [args, expect] : bad) {
    INFO("args: " << args);
    const auto before = std::distance(fs::directory_iterator(work), fs::directory_iterator());
    const Result r = eval_cli(args.find("--out") == std::string::npos ? args + " --out out" : args, work, capture);
    CHECK(r.status == 2);
    INFO("stderr: " << r.err);
    CHECK(r.err.find(expect) != std::string::npos);
    CHECK(std::count(r.err.begin(), r.err.end(), '\n') == 1);
    CHECK(!fs::exists(work / "out"));
    CHECK(std::distance(fs::directory_iterator(work), fs::directory_iterator()) == before);
  }
}

}  // namespace test_eval_cli
