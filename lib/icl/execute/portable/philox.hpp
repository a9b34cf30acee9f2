// The random stream of one prompt, as model/rng.hpp's PromptRng draws it, in portable code (portable/hd.hpp):
// Philox4x32-10 blocks (Random123's, as PromptRng's) of the counters (b, i mod 2^32, i div 2^32, h) under the key
// (k0, k1), block b giving the words x0 | x1 << 32 and x2 | x3 << 32, and the 256-layer ziggurat normal on those
// words (the rectangle test, the wedge and the tail, consuming further words exactly as PromptRng does). The stream key (k0, k1, h) of
// (seed, purpose) comes from PromptRng::stream_key on the host (one Philox4x64 block per run, not per prompt);
// the ziggurat's tables are PromptRng::ziggurat()'s values, copied (to device memory for the kernels).
// tests/execute/test_portable.cpp checks words, normals and prompts bit for bit against PromptRng.
#pragma once
#include "icl/execute/portable/hd.hpp"

#include <Random123/philox.h>  // CUDA-ready: its generators are __host__ __device__ under nvcc

#include <cstdint>

namespace icl::portable {

// The ziggurat's tables (PromptRng::ZigguratTables' layout: x, f, xs, sxs), read through a pointer so that the
// kernels can keep one copy in device memory.
struct ZigguratView {
  const double* x;    // 257
  const double* f;    // 257
  const double* xs;   // 257
  const double* sxs;  // 512
};

struct StreamKey {
  std::uint32_t k0, k1, h;
};

// Prompt i's stream: words in order, one Philox block computed when its first word is needed (PromptRng computes
// blocks several at a time; that changes no word).
class PromptStream {
public:
  ICL_HD PromptStream(StreamKey key, std::uint64_t prompt_index, ZigguratView zig)
      : k0_(key.k0), k1_(key.k1), zig_(zig) {
    ctr_[0] = 0;
    ctr_[1] = static_cast<std::uint32_t>(prompt_index);
    ctr_[2] = static_cast<std::uint32_t>(prompt_index >> 32);
    ctr_[3] = key.h;
  }

  ICL_HD std::uint64_t word() {
    if (half_ == 0) {
      const r123::Philox4x32::ctr_type x = r123::Philox4x32()(
          r123::Philox4x32::ctr_type{{ctr_[0], ctr_[1], ctr_[2], ctr_[3]}}, r123::Philox4x32::key_type{{k0_, k1_}});
      ++ctr_[0];
      next_ = static_cast<std::uint64_t>(x.v[2]) | static_cast<std::uint64_t>(x.v[3]) << 32;
      half_ = 1;
      return static_cast<std::uint64_t>(x.v[0]) | static_cast<std::uint64_t>(x.v[1]) << 32;
    }
    half_ = 0;
    return next_;
  }

  ICL_HD double uniform() {  // (0, 1], as PromptRng::uniform
    const std::uint64_t r = word();
    return (static_cast<double>(r >> 11) + 1.0) * 0x1.0p-53;
  }

  // PromptRng::normal_from / rejected / tail, operation for operation.
  ICL_HD double normal() {
    std::uint64_t r = word();
    const double z0 = static_cast<double>(static_cast<std::int64_t>(r >> 11)) * zig_.sxs[r & 0x1ff];
    if (fabs_(z0) < zig_.x[(r & 0xff) + 1]) return z0;
    for (;;) {
      const unsigned layer = static_cast<unsigned>(r & 0xff);
      const double sign = (r & 0x100) ? -1.0 : 1.0;
      const double z = static_cast<double>(static_cast<std::int64_t>(r >> 11)) * zig_.xs[layer];
      if (z < zig_.x[layer + 1]) return sign * z;
      if (layer == 0) return sign * tail(zig_.x[1]);
      const double y = zig_.f[layer] + (uniform() - 0x1.0p-54) * (zig_.f[layer + 1] - zig_.f[layer]);
      if (y < icl_exp(-0.5 * z * z)) return sign * z;
      r = word();
    }
  }

private:
  ICL_HD static double fabs_(double v) { return v < 0 ? -v : v; }  // |v| (exact; -0.0 and NaN cannot reach it)
  ICL_HD double tail(double r) {
    for (;;) {
      const double a = -icl_log(uniform()) / r;
      const double b = -icl_log(uniform());
      if (2.0 * b > a * a) return r + a;
    }
  }

  std::uint32_t k0_, k1_, ctr_[4];
  ZigguratView zig_;
  std::uint64_t next_ = 0;
  int half_ = 0;
};

}  // namespace icl::portable
