// Philox4x32-10 blocks (Random123's round function and key schedule written out): a portable version and,
// on x86-64 CPUs with AVX2 (chosen at run time), eight blocks at a time in vector registers. Both give
// r123::Philox4x32's words bit for bit (tests/model/test_fast_paths.cpp).
#include "icl/model/rng.hpp"

#if defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#define ICL_PHILOX_AVX2 1
#include <immintrin.h>
#endif

namespace icl::philox4x32 {
namespace {

constexpr std::uint32_t M0 = 0xD2511F53u, M1 = 0xCD9E8D57u;  // Random123's PHILOX_M4x32_0, _1
constexpr std::uint32_t W0 = 0x9E3779B9u, W1 = 0xBB67AE85u;  // PHILOX_W32_0, _1 (the key's Weyl steps)

// L blocks (counters c[0] + b0 + l), interleaved so that their multiplies overlap.
template <int L>
void portable_blocks(std::uint32_t k0, std::uint32_t k1, const std::uint32_t* c, std::uint32_t b0, std::uint64_t* out) {
  std::uint32_t x0[L], x1[L], x2[L], x3[L];
  for (int l = 0; l < L; ++l) {
    x0[l] = c[0] + b0 + static_cast<std::uint32_t>(l);
    x1[l] = c[1];
    x2[l] = c[2];
    x3[l] = c[3];
  }
  for (int r = 0; r < 10; ++r) {
    for (int l = 0; l < L; ++l) {
      const std::uint64_t p0 = static_cast<std::uint64_t>(M0) * x0[l], p1 = static_cast<std::uint64_t>(M1) * x2[l];
      const std::uint32_t y0 = static_cast<std::uint32_t>(p1 >> 32) ^ x1[l] ^ k0;
      const std::uint32_t y2 = static_cast<std::uint32_t>(p0 >> 32) ^ x3[l] ^ k1;
      x1[l] = static_cast<std::uint32_t>(p1);
      x3[l] = static_cast<std::uint32_t>(p0);
      x0[l] = y0;
      x2[l] = y2;
    }
    k0 += W0;
    k1 += W1;
  }
  for (int l = 0; l < L; ++l) {
    out[2 * l] = x0[l] | static_cast<std::uint64_t>(x1[l]) << 32;
    out[2 * l + 1] = x2[l] | static_cast<std::uint64_t>(x3[l]) << 32;
  }
}

void portable_words(std::uint32_t k0, std::uint32_t k1, const std::uint32_t* c, int blocks, int from, std::uint64_t* out) {
  int b = from;
  for (; b + 4 <= blocks; b += 4) portable_blocks<4>(k0, k1, c, static_cast<std::uint32_t>(b), out + 2 * b);
  for (; b < blocks; ++b) portable_blocks<1>(k0, k1, c, static_cast<std::uint32_t>(b), out + 2 * b);
}

#ifdef ICL_PHILOX_AVX2
// Four blocks' state (lane l: block l) as words: lane l of wa = x0 | x1 << 32, of wb = x2 | x3 << 32, stored
// wa0 wb0 wa1 wb1 ... (the high halves of x0 and x2 may hold garbage: masked).
__attribute__((target("avx2"))) inline void store4(__m256i x0, __m256i x1, __m256i x2, __m256i x3, std::uint64_t* o) {
  const __m256i low = _mm256_set1_epi64x(0xFFFFFFFFll);
  const __m256i wa = _mm256_or_si256(_mm256_and_si256(x0, low), _mm256_slli_epi64(x1, 32));
  const __m256i wb = _mm256_or_si256(_mm256_and_si256(x2, low), _mm256_slli_epi64(x3, 32));
  const __m256i lo = _mm256_unpacklo_epi64(wa, wb), hi = _mm256_unpackhi_epi64(wa, wb);  // (a0 b0 | a2 b2), (a1 b1 | a3 b3)
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o), _mm256_permute2x128_si256(lo, hi, 0x20));
  _mm256_storeu_si256(reinterpret_cast<__m256i*>(o + 4), _mm256_permute2x128_si256(lo, hi, 0x31));
}

// S sets of four blocks, one block per 64-bit lane, the 32-bit state words in the lanes' low halves
// (_mm256_mul_epu32 reads only those; the high halves may hold garbage until store4 masks it). The sets
// are independent chains: enough of them hide the multiplies' latency.
template <int S>
__attribute__((target("avx2"))) inline void avx2_sets(const __m256i* rk0, const __m256i* rk1, const __m256i c1,
                                                      const __m256i c2, const __m256i c3, std::uint32_t base,
                                                      std::uint64_t* out) {
  const __m256i m0 = _mm256_set1_epi64x(M0), m1 = _mm256_set1_epi64x(M1);
  __m256i x0[S], x1[S], x2[S], x3[S];
  for (int s = 0; s < S; ++s) {
    const std::uint32_t b = base + 4u * static_cast<std::uint32_t>(s);
    x0[s] = _mm256_setr_epi64x(b, b + 1u, b + 2u, b + 3u);
    x1[s] = c1;
    x2[s] = c2;
    x3[s] = c3;
  }
#pragma GCC unroll 10
  for (int r = 0; r < 10; ++r) {
#pragma GCC unroll 4
    for (int s = 0; s < S; ++s) {
      const __m256i p0 = _mm256_mul_epu32(x0[s], m0), p1 = _mm256_mul_epu32(x2[s], m1);
      x0[s] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p1, 32), x1[s]), rk0[r]);
      x2[s] = _mm256_xor_si256(_mm256_xor_si256(_mm256_srli_epi64(p0, 32), x3[s]), rk1[r]);
      x1[s] = p1;
      x3[s] = p0;
    }
  }
  for (int s = 0; s < S; ++s) store4(x0[s], x1[s], x2[s], x3[s], out + 8 * s);
}

__attribute__((target("avx2"))) int avx2_words(std::uint32_t k0, std::uint32_t k1, const std::uint32_t* c, int blocks,
                                               std::uint64_t* out) {
  __m256i rk0[10], rk1[10];
  for (int r = 0; r < 10; ++r) {
    rk0[r] = _mm256_set1_epi64x(static_cast<std::uint32_t>(k0 + static_cast<std::uint32_t>(r) * W0));
    rk1[r] = _mm256_set1_epi64x(static_cast<std::uint32_t>(k1 + static_cast<std::uint32_t>(r) * W1));
  }
  const __m256i c1 = _mm256_set1_epi64x(c[1]), c2 = _mm256_set1_epi64x(c[2]), c3 = _mm256_set1_epi64x(c[3]);
  int b = 0;
  for (; b + 8 <= blocks; b += 8)
    avx2_sets<2>(rk0, rk1, c1, c2, c3, c[0] + static_cast<std::uint32_t>(b), out + 2 * b);
  for (; b + 4 <= blocks; b += 4) avx2_sets<1>(rk0, rk1, c1, c2, c3, c[0] + static_cast<std::uint32_t>(b), out + 2 * b);
  return b;  // blocks done
}

bool cpu_has_avx2() {
  __builtin_cpu_init();
  return __builtin_cpu_supports("avx2");
}
#endif

}  // namespace

bool avx2_available() {
#ifdef ICL_PHILOX_AVX2
  static const bool has = cpu_has_avx2();
  return has;
#else
  return false;
#endif
}

// Path::avx2 where the CPU lacks AVX2 runs the portable code (the same words).
void words(std::uint32_t k0, std::uint32_t k1, const std::uint32_t c[4], int blocks, std::uint64_t* out, Path path) {
  int done = 0;
#ifdef ICL_PHILOX_AVX2
  if (path != Path::portable && avx2_available()) done = avx2_words(k0, k1, c, blocks, out);
#else
  (void)path;
#endif
  portable_words(k0, k1, c, blocks, done, out);
}

}  // namespace icl::philox4x32
