// The schedule policy of the portable arithmetic (execute/portable/schedule.hpp): every step of a prompt's loss and
// gradient is an each() over independent output entries, so that the cuda backend's block kernels (the threads of a
// block splitting each step's entries) give the bits of one thread per prompt. No GPU is needed to test that: the
// host schedules Reversed and Interleaved run each step's entries in other orders, and an entry that read what
// another entry of its step writes would give other bits under them. Here:
//   - prompt_loss and prompt_loss_grad under Reversed and Interleaved equal Serial bit for bit (losses, the
//     gradient's loss, every gradient entry), in float64 and float32, for dense LSA stacks (1-3 layers, masked or
//     not, with bilinear layers), sja's bilinear stacks (sja.fig1's 12 layers included), softmax stacks (softmax or
//     linear phi, causal or not, 1-2 layers, after an LSA layer or not) on Gaussian-task and unstructured prompts;
//     no step writes past the scratch the plan sizes;
//   - Serial's numbers are those of the code before the schedule policy (main at 1787709, one loop per step with
//     updates in place), bit for bit: a hash of every bit, recorded from that code on this file's cases;
//   - the test can fail: a step that updates in place what its other entries read (the old lsa_apply done entry by
//     entry) gives other bits under Reversed and Interleaved than under Serial.
// (Compiled with -ffp-contract=off, as the library's portable path: CMakeLists.txt.)
#include "constructions/sja_forms.hpp"
#include "icl/execute/portable_path.hpp"
#include "icl/learn/forms.hpp"
#include "icl/model/gaussian_model.hpp"
#include "icl/model/rng.hpp"
#include "icl/model/tasks.hpp"
#include "tests/support/random_stack.hpp"

#include <doctest/doctest.h>

#include <algorithm>
#include <bit>
#include <cmath>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <string>
#include <vector>

namespace icl::execute {
namespace test_portable_schedule {  // named: a unity build compiles several test files as one unit
namespace {

using Act = layers::SoftmaxAttention::Activation;

// Beyond the scratch a plan asks for: a pattern no step may overwrite.
constexpr std::size_t kGuard = 64;
constexpr std::uint64_t kGuardBits = 0x7ff4dead0000beefull;  // a signalling NaN

template <typename T>
std::vector<T> guarded(long long n) {
  std::vector<T> v(static_cast<std::size_t>(n) + kGuard, T(0));
  for (std::size_t k = static_cast<std::size_t>(n); k < v.size(); ++k) {
    if constexpr (sizeof(T) == 8)
      v[k] = std::bit_cast<T>(kGuardBits);
    else
      v[k] = std::bit_cast<T>(static_cast<std::uint32_t>(kGuardBits));
  }
  return v;
}

template <typename T>
bool guard_intact(const std::vector<T>& v) {
  for (std::size_t k = v.size() - kGuard; k < v.size(); ++k) {
    if constexpr (sizeof(T) == 8) {
      if (std::bit_cast<std::uint64_t>(v[k]) != kGuardBits) return false;
    } else if (std::bit_cast<std::uint32_t>(v[k]) != static_cast<std::uint32_t>(kGuardBits)) {
      return false;
    }
  }
  return true;
}

template <typename T>
std::uint64_t bits(T x) {
  if constexpr (sizeof(T) == 8)
    return std::bit_cast<std::uint64_t>(x);
  else
    return std::bit_cast<std::uint32_t>(x);
}

// Every number of `prompts` prompts (stream (5, 9)) in the schedule X and the plan's precision: per prompt its loss
// (prompt_loss), the loss prompt_loss_grad returns, then every entry of its gradient.
template <class X>
std::vector<std::uint64_t> run(const portable::Plan& plan, int prompts, bool& scratch_ok) {
  const portable::StreamKey key = portable_stream_key(5, 9);
  auto d = guarded<double>(plan.scratch_per_prompt()), dg = guarded<double>(plan.grad_scratch_per_prompt());
  auto f = guarded<float>(plan.scratch32_per_prompt()), fg = guarded<float>(plan.grad_scratch32_per_prompt());
  std::vector<std::uint64_t> out;
  for (int i = 0; i < prompts; ++i) {
    const auto n = static_cast<std::uint64_t>(i);
    if (plan.precision == portable::Precision::f64) {
      out.push_back(
          bits(portable::prompt_loss<X>(plan.prompt, plan.net, plan.ziggurat(), key, n, d.data(), nullptr, 1)));
      std::vector<double> g(static_cast<std::size_t>(plan.grad_size()), 0.0);
      out.push_back(bits(portable::prompt_loss_grad<X>(plan.prompt, plan.net, plan.ziggurat(), key, n, dg.data(),
                                                       nullptr, 1, {g.data(), 1})));
      for (double x : g) out.push_back(bits(x));
    } else {
      out.push_back(
          bits(portable::prompt_loss<X>(plan.prompt, plan.net32, plan.ziggurat(), key, n, d.data(), f.data(), 1)));
      std::vector<float> g(static_cast<std::size_t>(plan.grad_size()), 0.0f);
      out.push_back(bits(portable::prompt_loss_grad<X>(plan.prompt, plan.net32, plan.ziggurat(), key, n, dg.data(),
                                                       fg.data(), 1, portable::StridedT<float>{g.data(), 1})));
      for (float x : g) out.push_back(bits(x));
    }
  }
  scratch_ok = scratch_ok && guard_intact(d) && guard_intact(dg) && guard_intact(f) && guard_intact(fg);
  return out;
}

// FNV-1a over the numbers' bits, in order (the recorded hashes below).
std::uint64_t fnv(const std::vector<std::uint64_t>& v) {
  std::uint64_t h = 1469598103934665603ull;
  for (std::uint64_t x : v) {
    h ^= x;
    h *= 1099511628211ull;
  }
  return h;
}

struct Case {
  std::string name;
  icl::Network net;
  icl::PromptSource source;
  int prompts;
};

icl::PromptSource sja_source() {
  return icl::gaussian_prompts(
      GaussianIclModel::from_task(PolynomialTask::linear(3), Eigen::MatrixXd::Identity(3, 3)), sja_shape(3, 5, 20));
}

icl::PromptSource acds_source() {
  return icl::gaussian_prompts(
      GaussianIclModel::from_task(PolynomialTask::linear(4), Eigen::MatrixXd::Identity(4, 4)), acds_shape(4, 30));
}

icl::Network sja_bilinear_net(int d, int dbar, int blocks, std::uint64_t seed) {
  const icl::Parameterisation p = learn::sja_bilinear(d, dbar, blocks, learn::BilinearForm::dense);
  Eigen::VectorXd theta(p.size());
  PromptRng rng(seed, 7, 3);
  for (Eigen::Index k = 0; k < theta.size(); ++k) theta[k] = 0.3 / std::sqrt(dbar + 1.0) * rng.normal();
  return p.network(theta);
}

std::vector<Case> lsa_cases() {
  std::vector<Case> v;
  const icl::PromptSource sja = sja_source(), acds = acds_source();
  for (int layers : {1, 2, 3})
    for (bool masked : {true, false})
      for (bool bilinear : {false, true})
        for (const auto* src : {&sja, &acds}) {
          const std::string name = std::string(src == &sja ? "sja" : "acds") + " lsa layers " +
                                   std::to_string(layers) + (masked ? " masked" : " unmasked") +
                                   (bilinear ? " bilinear" : "");
          v.push_back({name,
                       test::random_lsa_stack(src->rows, layers, masked, masked ? 0.0 : 0.05, 31 + layers,
                                              0.5 / std::sqrt(src->rows), bilinear),
                       *src, 6});
        }
  // sja's bilinear stacks: 2 blocks of bilinear + LSA, and sja.fig1's model (6 blocks, d = 4, dbar = 12, n = 200).
  v.push_back({"sja bilinear d 3 dbar 5, 2 blocks", sja_bilinear_net(3, 5, 2, 31), sja, 6});
  v.push_back({"sja.fig1 12-layer bilinear",
               sja_bilinear_net(4, 12, 6, 32),
               icl::gaussian_prompts(
                   GaussianIclModel::from_task(PolynomialTask::quadratic(4), Eigen::MatrixXd::Identity(4, 4)),
                   sja_shape(4, 12, 200)),
               2});
  return v;
}

std::vector<Case> softmax_cases() {
  std::vector<Case> v;
  Eigen::VectorXd t5(5);
  t5 << 0.5, -1.0, 0.25, 0.0, 2.0;
  const icl::PromptSource un = icl::unstructured_prompts(5, 10, t5), un_gauss = icl::unstructured_prompts(3, 7),
                            sja = sja_source();
  for (Act act : {Act::softmax, Act::linear})
    for (bool causal : {false, true})
      for (int layers : {1, 2})
        for (bool lsa : {false, true})
          for (const auto* src : {&un, &un_gauss, &sja}) {
            const char* source = src == &un ? "unstructured" : src == &un_gauss ? "unstructured Gaussian theta" : "sja";
            const std::string name = std::string(source) +
                                     (act == Act::softmax ? " softmax" : " linear phi") +
                                     (causal ? " causal" : "") + " layers " + std::to_string(layers) +
                                     (lsa ? " after LSA" : "");
            v.push_back({name, test::random_softmax_stack(src->rows, layers, act, causal, 11 + layers, 0.4, lsa), *src,
                         4});
          }
  return v;
}

// FNV-1a of Serial's numbers per case, float64 then float32, in the order of lsa_cases() then softmax_cases(),
// recorded from the portable code before the schedule policy (main at 1787709) through the same loops.
const std::uint64_t kRecorded[] = {
    0x804a693a72bca8e7ull, 0x41748a8c8038594dull,  // sja lsa layers 1 masked
    0x377935fd79e972e9ull, 0xa8d270a52985188dull,  // acds lsa layers 1 masked
    0x2c61bbb961346b94ull, 0xb9175a8e733a8f15ull,  // sja lsa layers 1 masked bilinear
    0x143528ac4ddac39dull, 0x73e7912269effd65ull,  // acds lsa layers 1 masked bilinear
    0xa2ca22fd4e783eafull, 0x21d57925e51e4887ull,  // sja lsa layers 1 unmasked
    0x65dd1b658ab73866ull, 0x2943e76e51c67de3ull,  // acds lsa layers 1 unmasked
    0x494f97b1d8c0c0cfull, 0x321d2e09b5cf15caull,  // sja lsa layers 1 unmasked bilinear
    0x360c316da28b0d32ull, 0x60a474a330a32d3aull,  // acds lsa layers 1 unmasked bilinear
    0xd67d72bc2a38db34ull, 0xa750caa48a3a9d41ull,  // sja lsa layers 2 masked
    0xc11249b4ae423e4cull, 0x11ee9a5cda94fa66ull,  // acds lsa layers 2 masked
    0x986a3f8d9f9edda9ull, 0xcc0c304f442ce26eull,  // sja lsa layers 2 masked bilinear
    0x04dd35bfb03ad1ffull, 0x6e6bf47afb3a29faull,  // acds lsa layers 2 masked bilinear
    0x6165627c57ccb736ull, 0xd2ae9270d34599c6ull,  // sja lsa layers 2 unmasked
    0x09b57411ebb0aff1ull, 0x83313935e917f42full,  // acds lsa layers 2 unmasked
    0x2b0e912486c533faull, 0xbc5ebc154fb97a67ull,  // sja lsa layers 2 unmasked bilinear
    0x686708a02453f373ull, 0xd1cc89cd2c21a054ull,  // acds lsa layers 2 unmasked bilinear
    0xf25e43c21df1f570ull, 0xe8ac1e577bb5bbbdull,  // sja lsa layers 3 masked
    0x9df40c941644053cull, 0x740e7b5fa3ae76dbull,  // acds lsa layers 3 masked
    0xe9d07263e8a056bbull, 0x8efc9a265871bd1eull,  // sja lsa layers 3 masked bilinear
    0xb3dd783195c7af9dull, 0x8f582a85daebfcc4ull,  // acds lsa layers 3 masked bilinear
    0x83a8221ad0a9d3bcull, 0x71a15a675fbf1fd6ull,  // sja lsa layers 3 unmasked
    0xdb736cada4cbae86ull, 0x0135d909e3a9b40aull,  // acds lsa layers 3 unmasked
    0x04615112b9dc0d83ull, 0xb8976c0ad67f5aa8ull,  // sja lsa layers 3 unmasked bilinear
    0xc2753d6e7172b285ull, 0x3412ab82452b3a10ull,  // acds lsa layers 3 unmasked bilinear
    0x7c7cb7e9e9c6fc4dull, 0x49cc24a7fb558cdfull,  // sja bilinear d 3 dbar 5, 2 blocks
    0x453ca0d794a9744dull, 0x2007d69ff5352aabull,  // sja.fig1 12-layer bilinear
    0xd44c6a7326aa6c4aull, 0x46914025fb85af3aull,  // unstructured softmax layers 1
    0x269dc63e993f0548ull, 0x38682d8f7a226559ull,  // unstructured Gaussian theta softmax layers 1
    0xd0e26d42bfff740aull, 0xde2b0b6a9a7a9584ull,  // sja softmax layers 1
    0xb1da919de9726816ull, 0x87e3720325f6b7bbull,  // unstructured softmax layers 1 after LSA
    0xead9b010940a2d93ull, 0x71b587f84a3c7031ull,  // unstructured Gaussian theta softmax layers 1 after LSA
    0x24d24e4331092867ull, 0x8e7771e3c337a106ull,  // sja softmax layers 1 after LSA
    0x03c230704129e036ull, 0x7c74ab9efa0bdadbull,  // unstructured softmax layers 2
    0xdac384283a41c4caull, 0xe938345f44f69f65ull,  // unstructured Gaussian theta softmax layers 2
    0x911a46a52d1b0e43ull, 0x0f65a3d6273821c8ull,  // sja softmax layers 2
    0x42908646aaf0a5ccull, 0x8ec3413c1305277eull,  // unstructured softmax layers 2 after LSA
    0x3af3f2c71549ecacull, 0x6048fa91a1fe4dacull,  // unstructured Gaussian theta softmax layers 2 after LSA
    0x6f4478b2657a6488ull, 0x3d8165263c30c88full,  // sja softmax layers 2 after LSA
    0xd44c6a7326aa6c4aull, 0x46914025fb85af3aull,  // unstructured softmax causal layers 1
    0x269dc63e993f0548ull, 0x38682d8f7a226559ull,  // unstructured Gaussian theta softmax causal layers 1
    0xd0e26d42bfff740aull, 0xde2b0b6a9a7a9584ull,  // sja softmax causal layers 1
    0xb1da919de9726816ull, 0x87e3720325f6b7bbull,  // unstructured softmax causal layers 1 after LSA
    0xead9b010940a2d93ull, 0x71b587f84a3c7031ull,  // unstructured Gaussian theta softmax causal layers 1 after LSA
    0x24d24e4331092867ull, 0x8e7771e3c337a106ull,  // sja softmax causal layers 1 after LSA
    0xe0a123b03d311257ull, 0x9b05990325022fcfull,  // unstructured softmax causal layers 2
    0x93b5cb8df4087422ull, 0xb76d8bf46872053full,  // unstructured Gaussian theta softmax causal layers 2
    0xc1b587897d866ef8ull, 0x00582e93a3056f19ull,  // sja softmax causal layers 2
    0x293e57664a5c66afull, 0x71e9f2c6ad28c961ull,  // unstructured softmax causal layers 2 after LSA
    0x081c2da563ae17f1ull, 0x84f221ef73838e57ull,  // unstructured Gaussian theta softmax causal layers 2 after LSA
    0xd483dfeeffb4ff32ull, 0xcf387e2a8484d609ull,  // sja softmax causal layers 2 after LSA
    0x83e9deb94fcb171bull, 0x4bac576e4fe66acbull,  // unstructured linear phi layers 1
    0x9e36a27291bbb8dfull, 0x2c43b3d2ae693316ull,  // unstructured Gaussian theta linear phi layers 1
    0xdce431e3556ecb2full, 0x8528a082a4dde536ull,  // sja linear phi layers 1
    0x7c9ab8b29ba11465ull, 0x02c0d31f3a945bb5ull,  // unstructured linear phi layers 1 after LSA
    0x84c5de552d5eb184ull, 0x634cf8da481bf0ccull,  // unstructured Gaussian theta linear phi layers 1 after LSA
    0xa409f1d723ecf011ull, 0xeaba65a1b06b7873ull,  // sja linear phi layers 1 after LSA
    0x75879c71d35ecccaull, 0x15239e629171b201ull,  // unstructured linear phi layers 2
    0x8efef5e7322811c8ull, 0x7b0ea8f25a64f109ull,  // unstructured Gaussian theta linear phi layers 2
    0xbb8cbe5bf47a2bc4ull, 0x52644d64b82b4e92ull,  // sja linear phi layers 2
    0x5c564e377f165757ull, 0x88df4bf8e050733aull,  // unstructured linear phi layers 2 after LSA
    0xcb107be5811d5ca4ull, 0xdf259e33349800d5ull,  // unstructured Gaussian theta linear phi layers 2 after LSA
    0xfa7e18ba1169cba7ull, 0x25af76caa959a235ull,  // sja linear phi layers 2 after LSA
    0x83e9deb94fcb171bull, 0x4bac576e4fe66acbull,  // unstructured linear phi causal layers 1
    0x9e36a27291bbb8dfull, 0x2c43b3d2ae693316ull,  // unstructured Gaussian theta linear phi causal layers 1
    0xdce431e3556ecb2full, 0x8528a082a4dde536ull,  // sja linear phi causal layers 1
    0x7c9ab8b29ba11465ull, 0x02c0d31f3a945bb5ull,  // unstructured linear phi causal layers 1 after LSA
    0x84c5de552d5eb184ull, 0x634cf8da481bf0ccull,  // unstructured Gaussian theta linear phi causal layers 1 after LSA
    0xa409f1d723ecf011ull, 0xeaba65a1b06b7873ull,  // sja linear phi causal layers 1 after LSA
    0xf0441aadff5c33ddull, 0x0a4d03759c7c84d1ull,  // unstructured linear phi causal layers 2
    0x01bf480724b4182bull, 0x433268e6df9f6325ull,  // unstructured Gaussian theta linear phi causal layers 2
    0x7409f828272dd951ull, 0xcb2f437661628ff5ull,  // sja linear phi causal layers 2
    0x38d28001e50e850cull, 0xf86406553e1e1327ull,  // unstructured linear phi causal layers 2 after LSA
    0xb734180134dd9b92ull, 0x096f558567cb5fc7ull,  // unstructured Gaussian theta linear phi causal layers 2 after LSA
    0xf01937a0608cf6a7ull, 0x062b27f95ae78fa3ull,  // sja linear phi causal layers 2 after LSA
};

void check_cases(const std::vector<Case>& cases, std::size_t first_recorded, int& compared, int& numbers) {
  for (std::size_t c = 0; c < cases.size(); ++c)
    for (const auto precision : {portable::Precision::f64, portable::Precision::f32}) {
      const Case& k = cases[c];
      const bool f32 = precision == portable::Precision::f32;
      CAPTURE(k.name);
      CAPTURE(f32);
      const auto plan = plan_portable(k.net, k.source, icl::LossSpec::sja(), "test", precision);
      bool scratch_ok = true;
      const auto serial = run<portable::Serial>(*plan, k.prompts, scratch_ok);
      const auto reversed = run<portable::Reversed>(*plan, k.prompts, scratch_ok);
      const auto interleaved = run<portable::Interleaved>(*plan, k.prompts, scratch_ok);
      CHECK(scratch_ok);
      REQUIRE(serial.size() == reversed.size());
      REQUIRE(serial.size() == interleaved.size());
      CHECK(std::memcmp(serial.data(), reversed.data(), serial.size() * sizeof(std::uint64_t)) == 0);
      CHECK(std::memcmp(serial.data(), interleaved.data(), serial.size() * sizeof(std::uint64_t)) == 0);
      // The gradient's loss is the loss's (the same steps), and the gradient is not all zero.
      const std::size_t per = serial.size() / static_cast<std::size_t>(k.prompts);
      bool nonzero = false;
      for (int i = 0; i < k.prompts; ++i) {
        CHECK(serial[i * per] == serial[i * per + 1]);
        for (std::size_t e = i * per + 2; e < (i + 1) * per; ++e) nonzero = nonzero || (serial[e] << 1) != 0;
      }
      CHECK(nonzero);
      const std::size_t r = 2 * (first_recorded + c) + (f32 ? 1 : 0);
      REQUIRE(r < std::size(kRecorded));
      CHECK(fnv(serial) == kRecorded[r]);
      ++compared;
      numbers += static_cast<int>(serial.size());
    }
}

TEST_CASE("portable schedule: LSA and bilinear stacks: Serial, Reversed, Interleaved and main give the same bits") {
  int compared = 0, numbers = 0;
  const auto cases = lsa_cases();
  check_cases(cases, 0, compared, numbers);
  MESSAGE(compared << " LSA and bilinear runs (float64 and float32), " << numbers
                   << " numbers, each equal bit for bit under the three schedules and to main's");
  CHECK(compared == 2 * (2 * 3 * 2 * 2 + 2));
}

TEST_CASE("portable schedule: softmax stacks: Serial, Reversed, Interleaved and main give the same bits") {
  int compared = 0, numbers = 0;
  const auto cases = softmax_cases();
  check_cases(cases, lsa_cases().size(), compared, numbers);
  MESSAGE(compared << " softmax runs (float64 and float32), " << numbers
                   << " numbers, each equal bit for bit under the three schedules and to main's");
  CHECK(compared == 2 * 2 * 2 * 2 * 2 * 3);
}

TEST_CASE("portable schedule: Reversed and Interleaved visit every entry once, in another order") {
  for (long long n : {0LL, 1LL, 2LL, 3LL, 7LL, 169LL}) {
    CAPTURE(n);
    std::vector<long long> s, r, i;
    portable::Serial::each(n, [&](long long e) { s.push_back(e); });
    portable::Reversed::each(n, [&](long long e) { r.push_back(e); });
    portable::Interleaved::each(n, [&](long long e) { i.push_back(e); });
    CHECK(static_cast<long long>(s.size()) == n);
    auto rs = r, is = i;
    std::sort(rs.begin(), rs.end());
    std::sort(is.begin(), is.end());
    CHECK(rs == s);
    CHECK(is == s);
    if (n >= 2) CHECK(r != s);
    if (n >= 4) CHECK(i != s);  // (0, 3, 1, 2)
  }
}

// z_j <- z_j + s M z_j entry by entry in place (the step before the schedule policy, one entry per (j, a)): entry
// (j, a) reads the column's other entries, which other entries of the same step write. A race.
template <class X>
void racy_apply(const std::vector<double>& M, double s, std::vector<double>& Z, int D, int N) {
  X::each(static_cast<long long>(D) * N, [&](long long e) {
    const long long a = e % D, zj = e - a;
    double v = 0;
    for (int c = 0; c < D; ++c) v += M[static_cast<std::size_t>(c * D + a)] * Z[static_cast<std::size_t>(zj + c)];
    Z[static_cast<std::size_t>(e)] = Z[static_cast<std::size_t>(e)] + s * v;
  });
}

// The same step as portable::lsa_apply does it: the products into a buffer, then the additions.
template <class X>
void buffered_apply(std::vector<double> M, double s, std::vector<double>& Z, int D, int N) {
  std::vector<double> U(Z.size());
  portable::lsa_apply<X>(portable::Strided{M.data(), 1}, s, portable::Strided{Z.data(), 1}, D, N,
                         portable::Strided{U.data(), 1});
}

TEST_CASE("portable schedule: the check can fail: a racy step (in place, read by its own entries) differs under Reversed") {
  const int D = 5, N = 7;
  PromptRng rng(4, 2, 0);
  std::vector<double> M(D * D), Z0(D * N);
  for (double& x : M) x = rng.normal();
  for (double& x : Z0) x = rng.normal();
  const auto same = [](const std::vector<double>& a, const std::vector<double>& b) {
    return std::memcmp(a.data(), b.data(), a.size() * sizeof(double)) == 0;
  };
  auto zs = Z0, zr = Z0, zi = Z0;
  racy_apply<portable::Serial>(M, 0.3, zs, D, N);
  racy_apply<portable::Reversed>(M, 0.3, zr, D, N);
  racy_apply<portable::Interleaved>(M, 0.3, zi, D, N);
  CHECK_FALSE(same(zs, zr));
  CHECK_FALSE(same(zs, zi));
  auto bs = Z0, br = Z0, bi = Z0;
  buffered_apply<portable::Serial>(M, 0.3, bs, D, N);
  buffered_apply<portable::Reversed>(M, 0.3, br, D, N);
  buffered_apply<portable::Interleaved>(M, 0.3, bi, D, N);
  CHECK(same(bs, br));
  CHECK(same(bs, bi));
  CHECK_FALSE(same(bs, Z0));
}

}  // namespace
}  // namespace test_portable_schedule
}  // namespace icl::execute
