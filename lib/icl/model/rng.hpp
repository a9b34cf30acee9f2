// Counter-based random streams (Random123 Philox4x64-10).
//
// Prompt i of a run is drawn from the counter (i, stream, block) under the key (seed, purpose), so
// the numbers a prompt sees depend only on (seed, purpose, i): results are bitwise identical for any
// thread count, any scheduling and any batch size. Gaussians use a 256-layer ziggurat (Marsaglia and
// Tsang 2000) on 64-bit words of the same stream: 8 bits pick the layer, 1 bit the sign, 53 bits the
// abscissa; about 99% of draws take one word and one multiply (the rest use the wedge or tail tests,
// with further words of the same stream; words are generated a few Philox blocks ahead, which changes
// none of them). Every normal is exact in law (a rejection method, no
// approximation); the stream a prompt sees is still a function of (seed, purpose, i) alone.
#pragma once
#include <Random123/philox.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <type_traits>

namespace icl {

class PromptRng {
public:
  using Philox = r123::Philox4x64;
  using Eigen_index = std::ptrdiff_t;

  // `purpose` separates independent uses of the same seed (a claim, a case within it).
  PromptRng(std::uint64_t seed, std::uint64_t purpose, std::uint64_t prompt_index) {
    key_ = {{seed, purpose}};
    ctr_ = {{prompt_index, 0, 0, 0}};
  }

  double uniform() {  // (0, 1]
    const std::uint64_t r = word();
    return (static_cast<double>(r >> 11) + 1.0) * 0x1.0p-53;
  }

  double normal() { return normal_from(word()); }

  // m(i, j) = normal(), column by column (the same numbers as that loop). Contiguous columns take the
  // fast path: Philox blocks generated several at a time, the ziggurat's rectangle test inline.
  template <class Derived>
  void fill_normal(Derived&& m) {
    if constexpr (requires { m.data(); m.innerStride(); m.outerStride(); }) {
      if (m.innerStride() == 1 && (m.rows() == 1 || m.cols() == 1)) {  // a contiguous vector
        fill_normal(m.data(), m.size());
        return;
      }
      if (!std::remove_reference_t<Derived>::IsRowMajor && m.innerStride() == 1) {  // contiguous columns
        for (Eigen_index j = 0; j < m.cols(); ++j) fill_normal(m.data() + j * m.outerStride(), m.rows());
        return;
      }
    }
    for (Eigen_index j = 0; j < m.cols(); ++j)
      for (Eigen_index i = 0; i < m.rows(); ++i) m(i, j) = normal();
  }

  // out[0..n) = n successive normal() draws.
  void fill_normal(double* out, Eigen_index n) {
    const ZigguratTables& t = *zig_;
    Eigen_index k = 0;
    while (k < n) {
      if (pos_ == end_) {
        const Eigen_index blocks = (n - k + 3) / 4;
        refill(static_cast<int>(blocks < kBlocks ? blocks : kBlocks));
      }
      const int avail = end_ - pos_;
      const Eigen_index stop = k + (avail < n - k ? avail : n - k);
      for (; k < stop;) {
        const std::uint64_t r = buf_[pos_++];
        const double z = static_cast<double>(static_cast<std::int64_t>(r >> 11)) * t.sxs[r & 0x1ff];
        if (std::fabs(z) < t.x[(r & 0xff) + 1]) [[likely]] {
          out[k++] = z;
        } else {
          out[k++] = rejected(r);  // may take further words: restart the block bookkeeping
          break;
        }
      }
    }
  }

  // The ziggurat: x[0] = v / f(r) (the base strip's width, v the area of every layer), x[1] = r, x[i] the
  // right edge of layer i, x[256] = 0; f[i] = exp(-x[i]^2 / 2); xs[i] = x[i] 2^-53 (exact: a power of 2);
  // sxs[i + 256 s] = (-1)^s xs[i], indexed by the word's low 9 bits (layer and sign).
  struct ZigguratTables {
    double x[257], f[257], xs[257], sxs[512];
    ZigguratTables() {
      const double r = 3.6541528853610088, v = 4.92867323399e-3;
      auto fn = [](double a) { return std::exp(-0.5 * a * a); };
      x[0] = v / fn(r);
      x[1] = r;
      for (int i = 2; i < 256; ++i) x[i] = std::sqrt(-2.0 * std::log(v / x[i - 1] + fn(x[i - 1])));
      x[256] = 0.0;
      for (int i = 0; i < 257; ++i) f[i] = fn(x[i]);
      for (int i = 0; i < 257; ++i) xs[i] = x[i] * 0x1.0p-53;
      for (int i = 0; i < 256; ++i) sxs[i] = xs[i], sxs[i + 256] = -xs[i];
    }
  };
  static const ZigguratTables& ziggurat() {
    static const ZigguratTables t;
    return t;
  }

private:
  static constexpr int kBlocks = 16;  // Philox blocks buffered at most (64 words)

  std::uint64_t word() {
    if (pos_ == end_) refill(1);
    return buf_[pos_++];
  }
  // One normal from the word r and, when r is not accepted at once, the words after it. sign * z, z =
  // (r >> 11) 2^-53 x_layer, is formed as (r >> 11) sxs[r & 0x1ff] = (r >> 11) (sign 2^-53 x_layer): the
  // same double (scaling by 2^-53 is exact, and so is a sign: rounding is symmetric), and |sign z| < x_{layer+1}
  // is the rectangle test z < x_{layer+1}.
  double normal_from(std::uint64_t r) {
    const ZigguratTables& t = *zig_;
    const double z = static_cast<double>(static_cast<std::int64_t>(r >> 11)) * t.sxs[r & 0x1ff];
    if (std::fabs(z) < t.x[(r & 0xff) + 1]) [[likely]] return z;
    return rejected(r);
  }
  // The ziggurat past the rectangle test: base strip's tail, or the wedge test and, on rejection, a new word.
  double rejected(std::uint64_t r) {
    const ZigguratTables& t = *zig_;
    for (;;) {
      const unsigned layer = static_cast<unsigned>(r & 0xff);
      const double sign = (r & 0x100) ? -1.0 : 1.0;
      const double z = static_cast<double>(static_cast<std::int64_t>(r >> 11)) * t.xs[layer];  // uniform on [0, x_layer)
      if (z < t.x[layer + 1]) return sign * z;  // inside the rectangle under the curve
      if (layer == 0) return sign * tail(t.x[1]);
      // wedge: accept z with probability (f(z) - f(x_layer)) / (f(x_layer+1) - f(x_layer))
      const double y = t.f[layer] + (uniform() - 0x1.0p-54) * (t.f[layer + 1] - t.f[layer]);
      if (y < std::exp(-0.5 * z * z)) return sign * z;
      r = word();
    }
  }
  // |z| beyond r (Marsaglia 1964): a = -log(u1) / r, accept when -2 log(u2) > a^2.
  double tail(double r) {
    for (;;) {
      const double a = -std::log(uniform()) / r;
      const double b = -std::log(uniform());
      if (2.0 * b > a * a) return r + a;
    }
  }
  // The next `blocks` Philox blocks of the stream (counters (i, 0, 0, c), c = c0, c0 + 1, ...), in order:
  // how many are generated at once changes no word of the stream.
  void refill(int blocks) {
    const std::uint64_t k0 = key_.v[0], k1 = key_.v[1];  // locals: the stores into buf_ cannot alias them
    std::uint64_t c[4] = {ctr_.v[0], ctr_.v[1], ctr_.v[2], ctr_.v[3]};
    int b = 0;
    for (; b + 4 <= blocks; b += 4, c[3] += 4) philox_blocks<4>(k0, k1, c, buf_ + 4 * b);
    for (; b < blocks; ++b, ++c[3]) philox_blocks<1>(k0, k1, c, buf_ + 4 * b);
    ctr_.v[3] = c[3];
    pos_ = 0;
    end_ = 4 * blocks;
  }
  // Philox4x64-10 of the L counters (c0, c1, c2, c3 + l), l < L, into out[4 l .. 4 l + 3]: Random123's
  // round function and key schedule written out (fully unrolled, the L blocks interleaved so that their
  // multiplies overlap, the state in registers), bit for bit r123::Philox4x64 (tests/model/test_fast_paths.cpp
  // checks it against that class).
  template <int L>
  static void philox_blocks(std::uint64_t k0, std::uint64_t k1, const std::uint64_t* c, std::uint64_t* out) {
    __extension__ typedef unsigned __int128 u128;
    constexpr std::uint64_t M0 = 0xD2E7470EE14C6C93ull, M1 = 0xCA5A826395121157ull;
    constexpr std::uint64_t W0 = 0x9E3779B97F4A7C15ull, W1 = 0xBB67AE8584CAA73Bull;
    std::uint64_t x0[L], x1[L], x2[L], x3[L];
    for (int l = 0; l < L; ++l) {
      x0[l] = c[0];
      x1[l] = c[1];
      x2[l] = c[2];
      x3[l] = c[3] + static_cast<std::uint64_t>(l);
    }
#pragma GCC unroll 10
    for (int r = 0; r < 10; ++r) {
#pragma GCC unroll 4
      for (int l = 0; l < L; ++l) {
        const u128 p0 = static_cast<u128>(M0) * x0[l], p1 = static_cast<u128>(M1) * x2[l];
        const std::uint64_t y0 = static_cast<std::uint64_t>(p1 >> 64) ^ x1[l] ^ k0;
        const std::uint64_t y2 = static_cast<std::uint64_t>(p0 >> 64) ^ x3[l] ^ k1;
        x1[l] = static_cast<std::uint64_t>(p1);
        x3[l] = static_cast<std::uint64_t>(p0);
        x0[l] = y0;
        x2[l] = y2;
      }
      k0 += W0;
      k1 += W1;
    }
    for (int l = 0; l < L; ++l) {
      out[4 * l] = x0[l];
      out[4 * l + 1] = x1[l];
      out[4 * l + 2] = x2[l];
      out[4 * l + 3] = x3[l];
    }
  }
  Philox::key_type key_;
  Philox::ctr_type ctr_;
  std::uint64_t buf_[4 * kBlocks] = {};  // (zeroed: never read before refill, but the compiler cannot tell)
  int pos_ = 0, end_ = 0;
  const ZigguratTables* zig_ = &ziggurat();
};

// A stable 64-bit id for a string (FNV-1a), used to derive `purpose` from claim and case names.
constexpr std::uint64_t stable_hash(const char* s, std::uint64_t h = 1469598103934665603ull) {
  return *s ? stable_hash(s + 1, (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull) : h;
}

}  // namespace icl
