// The Monte Carlo engine (lib/icl/montecarlo/montecarlo.hpp) and the prompt streams (lib/icl/model/rng.hpp):
// bitwise-identical results for any thread count, Accumulator merges equal to sequential adds, and
// reproducible, correctly distributed random numbers.
#include "constructions/sja_appC.hpp"
#include "icl/model/rng.hpp"
#include "icl/montecarlo/montecarlo.hpp"
#include "icl/montecarlo/prompt_loss.hpp"
#include "icl/montecarlo/worst_case.hpp"
#include "icl/verdict/identity.hpp"

#include <doctest/doctest.h>

#include <array>
#include <cmath>
#include <iterator>
#include <vector>

namespace test_montecarlo {  // named: a unity build compiles several test files as one unit

namespace {

struct Thm2Setup {
  int d = 2, n = 20;
  icl::Transformer block = icl::sja::appC_block(2);
  icl::PolynomialTask task = icl::PolynomialTask::quadratic(2);
  icl::InputDistribution inputs = icl::InputDistribution::standard(2);
  icl::PromptShape shape = icl::sja_shape(2, icl::sja::kernel_width(2), 20);
  std::uint64_t purpose = icl::stable_hash("test_montecarlo/thm2");
  auto make_worker(std::uint64_t seed) const {
    return [this, seed] { return icl::PromptLossWorker(block, task, inputs, shape, seed, purpose); };
  }
};

icl::Accumulator run_mc(const Thm2Setup& s, int threads, std::uint64_t total, std::uint64_t seed = 1) {
  icl::MonteCarlo mc(1, threads);
  mc.extend_to(total, s.make_worker(seed));
  return mc.total();
}

}  // namespace

TEST_CASE("Monte Carlo of the sja.thm2 loss is bitwise identical at 1, 2 and 3 threads") {
  const Thm2Setup s;
  const std::uint64_t total = 10 * icl::MonteCarlo::kChunk + 17;  // not a multiple of the chunk
  const icl::Accumulator a1 = run_mc(s, 1, total), a2 = run_mc(s, 2, total), a3 = run_mc(s, 3, total);
  REQUIRE(a1.count == 11 * icl::MonteCarlo::kChunk);  // rounded up to whole chunks
  CHECK(a2.count == a1.count);
  CHECK(a3.count == a1.count);
  CHECK(a1.mean[0] == a2.mean[0]);
  CHECK(a1.mean[0] == a3.mean[0]);
  CHECK(a1.m2[0] == a2.m2[0]);
  CHECK(a1.m2[0] == a3.m2[0]);
  // The estimate is a real loss (positive, finite) and a different seed gives different numbers.
  CHECK(a1.mean[0] > 0);
  CHECK(std::isfinite(a1.m2[0]));
  const icl::Accumulator b = run_mc(s, 2, total, 2);
  CHECK(b.mean[0] != a1.mean[0]);

  // Extending a run in stages gives the same numbers as one run to the same total.
  icl::MonteCarlo staged(1, 3);
  staged.extend_to(3 * icl::MonteCarlo::kChunk, s.make_worker(1));
  CHECK(staged.samples() == 3 * icl::MonteCarlo::kChunk);
  staged.extend_to(2 * icl::MonteCarlo::kChunk, s.make_worker(1));  // already there: no-op
  CHECK(staged.samples() == 3 * icl::MonteCarlo::kChunk);
  staged.extend_to(total, s.make_worker(1));
  const icl::Accumulator st = staged.total();
  CHECK(st.count == a1.count);
  CHECK(st.mean[0] == a1.mean[0]);
  CHECK(st.m2[0] == a1.m2[0]);
}

TEST_CASE("PromptLossWorker: prompt i's loss depends on (seed, purpose, i) only") {
  const Thm2Setup s;
  auto w1 = s.make_worker(5)();
  auto w2 = s.make_worker(5)();
  const double a = w1.loss(41), b = w1.loss(7);
  CHECK(w2.loss(7) == b);  // order of evaluation does not matter
  CHECK(w2.loss(41) == a);
  CHECK(w1.loss(41) == a);
  CHECK(a != b);
  double out = -1;
  w2(41, &out);
  CHECK(out == a);
}

TEST_CASE("Accumulator: merging chunks equals adding sequentially") {
  icl::PromptRng rng(3, icl::stable_hash("test_montecarlo/acc"), 0);
  const int dims = 3, N = 1000;
  std::vector<double> data(N * dims);
  for (int i = 0; i < N; ++i) {
    data[i * dims + 0] = rng.normal();
    data[i * dims + 1] = 1e3 + 5.0 * rng.normal();  // large offset: tests the stable update
    data[i * dims + 2] = rng.uniform() * rng.uniform();
  }
  icl::Accumulator seq(dims);
  for (int i = 0; i < N; ++i) seq.add(&data[i * dims]);
  REQUIRE(seq.count == static_cast<std::uint64_t>(N));

  // Two-pass reference values.
  for (int k = 0; k < dims; ++k) {
    double m = 0;
    for (int i = 0; i < N; ++i) m += data[i * dims + k];
    m /= N;
    double v = 0;
    for (int i = 0; i < N; ++i) v += (data[i * dims + k] - m) * (data[i * dims + k] - m);
    v /= (N - 1);
    CAPTURE(k);
    CHECK(seq.mean[k] == doctest::Approx(m).epsilon(1e-12));
    CHECK(seq.variance(k) == doctest::Approx(v).epsilon(1e-12));
  }

  // Uneven split points, including an empty part on either side of a merge.
  for (const std::vector<int>& cuts : {std::vector<int>{0, 1, 17, 500, 999, 1000}, std::vector<int>{0, 0, 1000},
                                       std::vector<int>{0, 1000, 1000}, std::vector<int>{0, 333, 666, 1000}}) {
    icl::Accumulator merged(dims);
    for (std::size_t p = 0; p + 1 < cuts.size(); ++p) {
      icl::Accumulator part(dims);
      for (int i = cuts[p]; i < cuts[p + 1]; ++i) part.add(&data[i * dims]);
      merged.merge(part);
    }
    CHECK(merged.count == seq.count);
    for (int k = 0; k < dims; ++k) {
      CAPTURE(k);
      CHECK(merged.mean[k] == doctest::Approx(seq.mean[k]).epsilon(1e-12));
      CHECK(merged.variance(k) == doctest::Approx(seq.variance(k)).epsilon(1e-12));
    }
  }
  icl::Accumulator empty(dims);
  CHECK(empty.variance(0) == 0.0);
  icl::Accumulator one(dims);
  one.add(&data[0]);
  CHECK(one.variance(0) == 0.0);
  CHECK(one.mean[0] == data[0]);
}

TEST_CASE("PromptRng: reproducible streams, separated by seed, purpose and prompt") {
  auto draw = [](std::uint64_t seed, std::uint64_t purpose, std::uint64_t i) {
    icl::PromptRng r(seed, purpose, i);
    std::vector<double> v;
    for (int k = 0; k < 11; ++k) v.push_back(r.normal());
    for (int k = 0; k < 5; ++k) v.push_back(r.uniform());
    return v;
  };
  const auto base = draw(1, 2, 3);
  CHECK(draw(1, 2, 3) == base);
  CHECK(draw(2, 2, 3) != base);
  CHECK(draw(1, 3, 3) != base);
  CHECK(draw(1, 2, 4) != base);
  for (double v : base) CHECK(std::isfinite(v));

  // fill_normal writes the same sequence as normal(), column-major.
  icl::PromptRng r1(9, 9, 9), r2(9, 9, 9);
  Eigen::MatrixXd m(3, 4);
  r1.fill_normal(m);
  for (int j = 0; j < 4; ++j)
    for (int i = 0; i < 3; ++i) CHECK(m(i, j) == r2.normal());

  static_assert(icl::stable_hash("a") != icl::stable_hash("b"));
  CHECK(icl::stable_hash("sja.thm2/d=1, n=25") == icl::stable_hash("sja.thm2/d=1, n=25"));
  CHECK(icl::stable_hash("") == 1469598103934665603ull);  // FNV-1a offset basis
}

TEST_CASE("PromptRng: uniform in (0, 1], normal has mean 0, variance 1, kurtosis 3") {
  const int N = 200000;
  double s1 = 0, s2 = 0, s4 = 0, u1 = 0, umin = 1, umax = 0;
  for (int i = 0; i < N / 100; ++i) {
    icl::PromptRng r(11, 0, static_cast<std::uint64_t>(i));
    for (int k = 0; k < 100; ++k) {
      const double z = r.normal();
      s1 += z;
      s2 += z * z;
      s4 += z * z * z * z;
      const double u = r.uniform();
      u1 += u;
      umin = std::min(umin, u);
      umax = std::max(umax, u);
    }
  }
  const double mean = s1 / N, var = s2 / N - mean * mean, m4 = s4 / N, umean = u1 / N;
  // Five standard errors: sd(mean) = 1/sqrt(N), sd(E z^2) = sqrt(2/N), sd(E z^4) = sqrt(96/N),
  // sd(uniform mean) = sqrt(1/(12 N)).
  CHECK(std::abs(mean) < 5 / std::sqrt(N));
  CHECK(std::abs(var - 1) < 5 * std::sqrt(2.0 / N));
  CHECK(std::abs(m4 - 3) < 5 * std::sqrt(96.0 / N));
  CHECK(std::abs(umean - 0.5) < 5 * std::sqrt(1.0 / (12.0 * N)));
  CHECK(umin > 0);
  CHECK(umax <= 1);
}

TEST_CASE("PromptRng: the ziggurat normal has the normal law (CDF at fixed points, both tails)") {
  // The layer tables: the top layer has the common area v, the base strip's tail starts at r.
  const auto& t = icl::PromptRng::ziggurat();
  CHECK(t.x[1] == 3.6541528853610088);
  CHECK(t.x[255] > 0.0);
  CHECK(t.x[255] * (1.0 - t.f[255]) == doctest::Approx(4.92867323399e-3).epsilon(1e-6));
  for (int i = 1; i < 256; ++i) CHECK(t.x[i + 1] < t.x[i]);
  // Frequencies of z <= c against Phi(c), five binomial standard errors, including |z| > r (the tail path)
  // and points inside the wedges.
  const int N = 400000;
  const double cuts[] = {-3.9, -3.0, -2.0, -1.0, -0.3, 0.0, 0.5, 1.5, 2.5, 3.7};
  std::vector<int> below(std::size(cuts), 0);
  int tail = 0;
  for (int i = 0; i < N / 100; ++i) {
    icl::PromptRng r(12, 5, static_cast<std::uint64_t>(i));
    for (int k = 0; k < 100; ++k) {
      const double z = r.normal();
      for (std::size_t c = 0; c < std::size(cuts); ++c) below[c] += z <= cuts[c];
      tail += std::abs(z) > t.x[1];
    }
  }
  const auto Phi = [](double c) { return 0.5 * std::erfc(-c / std::sqrt(2.0)); };
  for (std::size_t c = 0; c < std::size(cuts); ++c) {
    CAPTURE(cuts[c]);
    const double p = Phi(cuts[c]), se = std::sqrt(p * (1 - p) / N);
    CHECK(std::abs(below[c] / double(N) - p) < 5 * se + 1e-12);
  }
  const double pt = 2 * Phi(-t.x[1]);
  CHECK(tail > 0);
  CHECK(std::abs(tail / double(N) - pt) < 5 * std::sqrt(pt * (1 - pt) / N));
}

TEST_CASE("worst_over_prompts: a worker returning false sets a prompt aside, counted the same at any thread count") {
  // Prompts i % 7 == 3 are set aside and carry a huge error that must not count; the others' error is i.
  for (int threads : {1, 2, 3}) {
    auto make = [] {
      return [](std::uint64_t i, double* out) {
        out[0] = i % 7 == 3 ? 1e300 : static_cast<double>(i);
        return i % 7 != 3;
      };
    };
    const icl::WorstCase w = icl::worst_over_prompts(1000, 1, threads, make);
    CHECK(w.prompts == 1000);
    CHECK(w.set_aside == 143);  // 3, 10, ..., 997
    CHECK(w.judged() == 857);
    CHECK(w.worst[0] == 999.0);
    CHECK(w.where[0] == 999);
  }
  // A void worker still counts everything, and a NaN error still reads as +infinity.
  auto plain = [] { return [](std::uint64_t i, double* out) { out[0] = i == 5 ? std::nan("") : 0.0; }; };
  const icl::WorstCase p = icl::worst_over_prompts(10, 1, 2, plain);
  CHECK(p.set_aside == 0);
  CHECK(std::isinf(p.worst[0]));
  // judge_identity_over: inconclusive when every prompt was set aside, and it names the count otherwise.
  icl::WorstCase all(1);
  all.skip();
  all.skip();
  CHECK(icl::judge_identity_over(all, 0.0, icl::IdentityTolerance{}, "x", "why").verdict == icl::Verdict::inconclusive);
  icl::WorstCase some(1);
  const double e = 1e-12;
  some.add(0, &e);
  some.skip();
  const icl::Decision dd = icl::judge_identity_over(some, some.worst[0], icl::IdentityTolerance{}, "x", "why");
  CHECK(dd.verdict == icl::Verdict::confirmed);
  CHECK(dd.why.find("1 set aside") != std::string::npos);
}

// Outcomes of a check written as one function of the prompt (worst_prompts): two errors, a value to show.
struct TwoErrors {
  std::array<double, 2> err{};
  double shown = 0;
};
struct TwoErrorsInRange {
  std::array<double, 2> err{};
  bool out_of_range = false;
};

TEST_CASE("worst_prompts: each error's worst and where, the outcome at the shown one's worst, any thread count") {
  // Error 0 peaks at prompt 37 (a tie at 61 goes to the smaller index), error 1 at prompt 90; prompt 500 is NaN.
  auto prompt = [](std::uint64_t i) {
    TwoErrors o;
    o.err[0] = i == 37 || i == 61 ? 5.0 : static_cast<double>(i % 10) / 10;
    o.err[1] = i == 500 ? std::nan("") : (i == 90 ? 7.0 : 0.0);
    o.shown = 1000.0 + static_cast<double>(i);
    return o;
  };
  for (int threads : {1, 2, 3}) {
    CAPTURE(threads);
    const auto [w, at] = icl::worst_prompts(400, threads, prompt, 0);
    CHECK(w.worst.size() == 2);
    CHECK(w.prompts == 400);
    CHECK(w.set_aside == 0);
    CHECK(w.worst[0] == 5.0);
    CHECK(w.where[0] == 37);
    CHECK(w.worst[1] == 7.0);
    CHECK(w.where[1] == 90);
    CHECK(at.shown == 1037.0);  // prompt 37 run again
    CHECK(icl::worst_prompts(400, threads, prompt, 1).at.shown == 1090.0);
  }
  const auto nan = icl::worst_prompts(501, 2, prompt, 1);
  CHECK(std::isinf(nan.worst.worst[1]));
  CHECK(nan.at.shown == 1500.0);
  // Where no error is above 0, the shown outcome is prompt 0's.
  auto zero = [](std::uint64_t i) { return TwoErrors{{0.0, 0.0}, static_cast<double>(i) + 1}; };
  CHECK(icl::worst_prompts(100, 2, zero, 1).at.shown == 1.0);
  // An outcome with `out_of_range` sets its prompt aside: its huge error does not count.
  auto ranged = [](std::uint64_t i) {
    TwoErrorsInRange o;
    o.out_of_range = i % 5 == 0;
    o.err[0] = o.out_of_range ? 1e300 : static_cast<double>(i);
    o.err[1] = 1.0;
    return o;
  };
  const auto r = icl::worst_prompts(100, 3, ranged, 0);
  CHECK(r.worst.prompts == 100);
  CHECK(r.worst.set_aside == 20);
  CHECK(r.worst.judged() == 80);
  CHECK(r.worst.worst[0] == 99.0);
  CHECK(r.worst.where[0] == 99);
  CHECK(r.at.err[0] == 99.0);
}

}  // namespace test_montecarlo
