// Counter-based random streams (Random123 Philox4x64-10).
//
// Prompt i of a run is drawn from the counter (i, stream, block) under the key (seed, purpose), so
// the numbers a prompt sees depend only on (seed, purpose, i): results are bitwise identical for any
// thread count, any scheduling and any batch size. Gaussians use Box-Muller on pairs of 53-bit
// uniforms in (0, 1].
#pragma once
#include <Random123/philox.h>

#include <cmath>
#include <cstdint>
#include <numbers>

namespace icl {

class PromptRng {
public:
  using Philox = r123::Philox4x64;

  // `purpose` separates independent uses of the same seed (a claim, a case within it).
  PromptRng(std::uint64_t seed, std::uint64_t purpose, std::uint64_t prompt_index) {
    key_ = {{seed, purpose}};
    ctr_ = {{prompt_index, 0, 0, 0}};
  }

  double uniform() {  // (0, 1]
    if (pos_ == 4) refill();
    const std::uint64_t r = buf_[pos_++];
    return (static_cast<double>(r >> 11) + 1.0) * 0x1.0p-53;
  }

  double normal() {
    if (has_spare_) {
      has_spare_ = false;
      return spare_;
    }
    const double u1 = uniform();
    const double u2 = uniform();
    const double r = std::sqrt(-2.0 * std::log(u1));
    const double t = 2.0 * std::numbers::pi * u2;
    spare_ = r * std::sin(t);
    has_spare_ = true;
    return r * std::cos(t);
  }

  template <class Derived>
  void fill_normal(Derived&& m) {
    for (Eigen_index j = 0; j < m.cols(); ++j)
      for (Eigen_index i = 0; i < m.rows(); ++i) m(i, j) = normal();
  }

private:
  using Eigen_index = std::ptrdiff_t;
  void refill() {
    Philox gen;
    auto out = gen(ctr_, key_);
    for (int k = 0; k < 4; ++k) buf_[k] = out.v[k];
    ++ctr_.v[3];
    pos_ = 0;
  }
  Philox::key_type key_;
  Philox::ctr_type ctr_;
  std::uint64_t buf_[4] = {0, 0, 0, 0};
  int pos_ = 4;
  bool has_spare_ = false;
  double spare_ = 0.0;
};

// A stable 64-bit id for a string (FNV-1a), used to derive `purpose` from claim and case names.
constexpr std::uint64_t stable_hash(const char* s, std::uint64_t h = 1469598103934665603ull) {
  return *s ? stable_hash(s + 1, (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull) : h;
}

}  // namespace icl
