// Counter-based random streams (Random123 Philox4x64-10).
//
// Prompt i of a run is drawn from the counter (i, stream, block) under the key (seed, purpose), so
// the numbers a prompt sees depend only on (seed, purpose, i): results are bitwise identical for any
// thread count, any scheduling and any batch size. Gaussians use a 256-layer ziggurat (Marsaglia and
// Tsang 2000) on 64-bit words of the same stream: 8 bits pick the layer, 1 bit the sign, 53 bits the
// abscissa; about 99% of draws take one word and one multiply (the rest use the wedge or tail tests,
// with further words of the same stream). Every normal is exact in law (a rejection method, no
// approximation); the stream a prompt sees is still a function of (seed, purpose, i) alone.
#pragma once
#include <Random123/philox.h>

#include <cmath>
#include <cstdint>

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
    const ZigguratTables& t = *zig_;
    for (;;) {
      if (pos_ == 4) refill();
      const std::uint64_t r = buf_[pos_++];
      const unsigned layer = static_cast<unsigned>(r & 0xff);
      const double sign = (r & 0x100) ? -1.0 : 1.0;
      const double z = static_cast<double>(r >> 11) * 0x1.0p-53 * t.x[layer];  // uniform on [0, x_layer)
      if (z < t.x[layer + 1]) return sign * z;  // inside the rectangle under the curve
      if (layer == 0) return sign * tail(t.x[1]);
      // wedge: accept z with probability (f(z) - f(x_layer)) / (f(x_layer+1) - f(x_layer))
      const double y = t.f[layer] + (uniform() - 0x1.0p-54) * (t.f[layer + 1] - t.f[layer]);
      if (y < std::exp(-0.5 * z * z)) return sign * z;
    }
  }

  template <class Derived>
  void fill_normal(Derived&& m) {
    for (Eigen_index j = 0; j < m.cols(); ++j)
      for (Eigen_index i = 0; i < m.rows(); ++i) m(i, j) = normal();
  }

  // The ziggurat: x[0] = v / f(r) (the base strip's width, v the area of every layer), x[1] = r, x[i] the
  // right edge of layer i, x[256] = 0; f[i] = exp(-x[i]^2 / 2).
  struct ZigguratTables {
    double x[257], f[257];
    ZigguratTables() {
      const double r = 3.6541528853610088, v = 4.92867323399e-3;
      auto fn = [](double a) { return std::exp(-0.5 * a * a); };
      x[0] = v / fn(r);
      x[1] = r;
      for (int i = 2; i < 256; ++i) x[i] = std::sqrt(-2.0 * std::log(v / x[i - 1] + fn(x[i - 1])));
      x[256] = 0.0;
      for (int i = 0; i < 257; ++i) f[i] = fn(x[i]);
    }
  };
  static const ZigguratTables& ziggurat() {
    static const ZigguratTables t;
    return t;
  }

private:
  using Eigen_index = std::ptrdiff_t;
  // |z| beyond r (Marsaglia 1964): a = -log(u1) / r, accept when -2 log(u2) > a^2.
  double tail(double r) {
    for (;;) {
      const double a = -std::log(uniform()) / r;
      const double b = -std::log(uniform());
      if (2.0 * b > a * a) return r + a;
    }
  }
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
  const ZigguratTables* zig_ = &ziggurat();
};

// A stable 64-bit id for a string (FNV-1a), used to derive `purpose` from claim and case names.
constexpr std::uint64_t stable_hash(const char* s, std::uint64_t h = 1469598103934665603ull) {
  return *s ? stable_hash(s + 1, (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull) : h;
}

}  // namespace icl
