// Counter-based random streams (Random123 Philox4x32-10).
//
// Prompt i of a run is drawn from the counters (b, i mod 2^32, i div 2^32, h) under the key (k0, k1),
// b = 0, 1, 2, ... the block, where (k0, k1, h) are 96 bits derived from (seed, purpose) by one Philox4x64-10
// block: the numbers a prompt sees depend only on (seed, purpose, i), so results are bitwise identical for
// any thread count, any scheduling, any batch size and any rank count. Block b gives two 64-bit words,
// x0 | x1 << 32 and x2 | x3 << 32 (2^33 words per prompt at most). The blocks are computed eight at a time
// in AVX2 registers where the CPU has AVX2 (chosen at run time) and by portable code elsewhere: integer
// arithmetic, the same words either way (tests/model/test_fast_paths.cpp checks both against
// r123::Philox4x32). Philox4x32-10 is the generator of cuRAND, PyTorch and TensorFlow on GPUs; it replaced
// Philox4x64-10 here (same quality class, Crush-resistant with a margin of rounds) because its 32 x 32-bit
// multiplies vectorise and 64 x 64 -> 128-bit ones do not (Philox4x64 was a third of a prompt's time).
// Gaussians use a 256-layer ziggurat (Marsaglia and
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

namespace philox4x32 {
enum class Path { automatic, portable, avx2 };
// Whether this CPU runs the AVX2 path (Path::automatic takes it where it does).
bool avx2_available();
// Philox4x32-10 of the counters (c[0] + b, c[1], c[2], c[3]), b < blocks (c[0] + b < 2^32), under the key
// (k0, k1), as words: out[2 b] = x0 | x1 << 32, out[2 b + 1] = x2 | x3 << 32, (x0, x1, x2, x3) block b's
// output. Every path gives the same words.
void words(std::uint32_t k0, std::uint32_t k1, const std::uint32_t c[4], int blocks, std::uint64_t* out,
           Path path = Path::automatic);
}  // namespace philox4x32

class PromptRng {
public:
  using Eigen_index = std::ptrdiff_t;

  // `purpose` separates independent uses of the same seed (a claim, a case within it).
  PromptRng(std::uint64_t seed, std::uint64_t purpose, std::uint64_t prompt_index) {
    const auto k = stream_key(seed, purpose);
    k0_ = k[0];
    k1_ = k[1];
    ctr_[0] = 0;
    ctr_[1] = static_cast<std::uint32_t>(prompt_index);
    ctr_[2] = static_cast<std::uint32_t>(prompt_index >> 32);
    ctr_[3] = k[2];
  }

  // The 96 bits (k0, k1, h) naming the stream of (seed, purpose): words 0 and 1 of the Philox4x64-10 block
  // of counter (0, 0, 0, 0) under the key (seed, purpose), low half and high half of the first, low half
  // of the second.
  struct StreamKey {
    std::uint32_t v[3];
    std::uint32_t operator[](int i) const { return v[i]; }
  };
  static StreamKey stream_key(std::uint64_t seed, std::uint64_t purpose) {
    r123::Philox4x64 g;
    const auto out = g(r123::Philox4x64::ctr_type{{0, 0, 0, 0}}, r123::Philox4x64::key_type{{seed, purpose}});
    return {{static_cast<std::uint32_t>(out.v[0]), static_cast<std::uint32_t>(out.v[0] >> 32),
             static_cast<std::uint32_t>(out.v[1])}};
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
      if (m.innerStride() == 1 && (m.rows() == 1 || m.cols() == 1 ||
                                   (!std::remove_reference_t<Derived>::IsRowMajor && m.outerStride() == m.rows()))) {
        // a contiguous vector, or a matrix whose columns follow each other: one run of numbers
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
      if (pos_ == end_) refill(blocks_for(n - k));
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
  static constexpr int kBlocks = 32;  // Philox blocks buffered at most (64 words)
  static constexpr int kGroup = 8;    // blocks are generated in groups of 8 (how many changes no word)

  // Blocks to generate for `words` more words: whole groups of kGroup (the AVX2 path's unit), kBlocks at most.
  static int blocks_for(Eigen_index words) {
    const Eigen_index groups = (words + 2 * kGroup - 1) / (2 * kGroup);
    return groups >= kBlocks / kGroup ? kBlocks : static_cast<int>(groups) * kGroup;
  }
  std::uint64_t word() {
    if (pos_ == end_) refill(kGroup);
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
  // The next `blocks` Philox blocks of the stream, in order: how many are generated at once changes no
  // word of the stream.
  void refill(int blocks) {
    philox4x32::words(k0_, k1_, ctr_, blocks, buf_);
    ctr_[0] += static_cast<std::uint32_t>(blocks);
    pos_ = 0;
    end_ = 2 * blocks;
  }
  std::uint32_t k0_, k1_, ctr_[4];
  std::uint64_t buf_[2 * kBlocks] = {};  // (zeroed: never read before refill, but the compiler cannot tell)
  int pos_ = 0, end_ = 0;
  const ZigguratTables* zig_ = &ziggurat();
};

// A stable 64-bit id for a string (FNV-1a), used to derive `purpose` from claim and case names.
constexpr std::uint64_t stable_hash(const char* s, std::uint64_t h = 1469598103934665603ull) {
  return *s ? stable_hash(s + 1, (h ^ static_cast<unsigned char>(*s)) * 1099511628211ull) : h;
}

}  // namespace icl
