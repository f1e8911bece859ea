// fp16/bf16 conversions of include/openge/half.h against independent references (rounding
// bit-exact; DESIGN.md Numerics): NumPy over the exhaustive subset that
// tests/precision/rounding_reference.py documents (digests in rounding_reference.txt), the
// CPU's F16C conversion over all 2^32 fp32 patterns, and hand-computed edge cases.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#if defined(__F16C__)
#include <immintrin.h>
#endif

#include "base/parallel.h"
#include "openge/half.h"

namespace openge {
namespace {

// The input set and digest of rounding_reference.py, recomputed here.
constexpr uint64_t kCount = uint64_t{1} << 23;
constexpr uint64_t kExhaustive = uint64_t{1} << 22;
constexpr uint64_t kBlock = uint64_t{1} << 16;
constexpr uint32_t kLow[8] = {0x0000, 0x0001, 0x0800, 0x0fff, 0x1000, 0x1001, 0x1800, 0x1fff};

uint64_t splitmix64(uint64_t x) {
  uint64_t z = x + 0x9E3779B97F4A7C15ull;
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

uint32_t input_pattern(uint64_t k) {
  if (k < kExhaustive) return static_cast<uint32_t>(((k >> 13) << 23) | (((k >> 3) & 1023) << 13) | kLow[k & 7]);
  return static_cast<uint32_t>(splitmix64(k));
}

uint64_t weight(uint64_t k) { return splitmix64(k + (uint64_t{1} << 32)) | 1; }

// NaN results compare by NaN-ness and sign only (payload policy differs from NumPy's).
uint16_t canonical_fp16(uint16_t r) { return (r & 0x7c00) == 0x7c00 && (r & 0x3ff) ? (r & 0x8000) | 0x7e00 : r; }
uint16_t canonical_bf16(uint16_t r) { return (r & 0x7f80) == 0x7f80 && (r & 0x7f) ? (r & 0x8000) | 0x7fc0 : r; }

// kind -> digest per block, from the NumPy fixture.
std::map<std::string, std::vector<uint64_t>> read_reference() {
  std::map<std::string, std::vector<uint64_t>> out;
  std::ifstream in(std::string(OPENGE_SOURCE_DIR) + "/tests/precision/rounding_reference.txt");
  EXPECT_TRUE(in.good()) << "tests/precision/rounding_reference.txt is missing";
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::istringstream ls(line);
    std::string kind, hex;
    size_t block = 0;
    ls >> kind >> block >> hex;
    auto& v = out[kind];
    if (v.size() <= block) v.resize(block + 1);
    v[block] = std::stoull(hex, nullptr, 16);
  }
  return out;
}

// Digest of `convert` over one block of the rounding input set.
template <class Convert>
uint64_t rounding_digest(uint64_t block, Convert convert) {
  uint64_t sum = 0;
  for (uint64_t k = block * kBlock; k < (block + 1) * kBlock; ++k)
    sum += weight(k) * (uint64_t{convert(bits_float(input_pattern(k)))} + 1);
  return sum;
}

template <class Convert>
void expect_matches_numpy(const char* kind, Convert convert) {
  const auto reference = read_reference();
  auto it = reference.find(kind);
  ASSERT_TRUE(it != reference.end() && it->second.size() == kCount / kBlock) << kind << " digests missing";
  int bad = 0;
  for (uint64_t block = 0; block < kCount / kBlock; ++block) {
    if (rounding_digest(block, convert) == it->second[block]) continue;
    if (++bad <= 5)
      ADD_FAILURE() << kind << ": block " << block << " differs from NumPy; list NumPy's results with "
                    << "/usr/bin/python3 tests/precision/rounding_reference.py --dump " << kind << " " << block;
  }
  EXPECT_EQ(bad, 0) << kind << ": blocks that differ";
}

TEST(Numerics, Fp16RoundingMatchesNumpyExhaustive) {
  expect_matches_numpy("fp16", [](float f) { return canonical_fp16(float_to_half_bits(f)); });
}

TEST(Numerics, Bf16RoundingMatchesNumpyExhaustive) {
  expect_matches_numpy("bf16", [](float f) { return canonical_bf16(float_to_bf16_bits(f)); });
}

// Every fp16 pattern widens exactly as NumPy widens it, NaN payloads included.
TEST(Numerics, Fp16ToFp32MatchesNumpyAll65536) {
  const auto reference = read_reference();
  auto it = reference.find("fp16_to_fp32");
  ASSERT_TRUE(it != reference.end() && it->second.size() == 64);
  for (uint64_t block = 0; block < 64; ++block) {
    uint64_t sum = 0;
    for (uint64_t k = block * 1024; k < (block + 1) * 1024; ++k)
      sum += weight(k) * (uint64_t{float_bits(half_bits_to_float(static_cast<uint16_t>(k)))} + 1);
    EXPECT_EQ(sum, it->second[block]) << "fp16 patterns " << block * 1024 << ".." << block * 1024 + 1023;
  }
}

// Bf16 widening is a shift: every pattern, checked against the definition.
TEST(Numerics, Bf16ToFp32All65536) {
  for (uint32_t h = 0; h < 65536; ++h)
    ASSERT_EQ(float_bits(bf16_bits_to_float(static_cast<uint16_t>(h))), h << 16) << h;
}

// All 2^32 fp32 patterns against the CPU's IEEE conversion (VCVTPS2PH, round to nearest even).
TEST(Numerics, Fp16RoundingMatchesF16cHardwareAll2To32) {
#if defined(__F16C__)
  constexpr int64_t kChunks = int64_t{1} << 16;  // 65536 patterns each
  std::atomic<uint64_t> mismatches{0};
  std::atomic<uint64_t> first_bad{~uint64_t{0}};
  parallel_for(kChunks, 65536 * 4, [&](int64_t begin, int64_t end) {
    uint64_t local = 0;
    for (int64_t c = begin; c < end; ++c) {
      for (uint32_t i = 0; i < 65536; i += 8) {
        alignas(32) uint32_t bits[8];
        alignas(16) uint16_t hw[8];
        for (int j = 0; j < 8; ++j) bits[j] = static_cast<uint32_t>(c) << 16 | (i + j);
        const __m256 v = _mm256_load_ps(reinterpret_cast<const float*>(bits));
        _mm_store_si128(reinterpret_cast<__m128i*>(hw), _mm256_cvtps_ph(v, _MM_FROUND_TO_NEAREST_INT));
        for (int j = 0; j < 8; ++j) {
          if (canonical_fp16(float_to_half_bits(bits_float(bits[j]))) == canonical_fp16(hw[j])) continue;
          ++local;
          uint64_t seen = first_bad.load();
          while (bits[j] < seen && !first_bad.compare_exchange_weak(seen, bits[j])) {
          }
        }
      }
    }
    mismatches += local;
  });
  EXPECT_EQ(mismatches.load(), 0u) << "first differing fp32 pattern 0x" << std::hex << first_bad.load();
#else
  GTEST_SKIP() << "built without F16C: the NumPy comparison covers the documented subset only";
#endif
}

// Cases worked out by hand from IEEE 754 (value, neighbours, tie to even).
TEST(Numerics, Fp16Bf16RoundingEdgeCases) {
  struct Case {
    uint32_t in;
    uint16_t fp16;
  };
  const Case fp16_cases[] = {
      {0x477fe000, 0x7bff},  // 65504 = max fp16
      {0x477fefff, 0x7bff},  // just below 65520
      {0x477ff000, 0x7c00},  // 65520: tie between 65504 (odd mantissa) and 2^16 -> inf
      {0x33800000, 0x0001},  // 2^-24: smallest subnormal
      {0x33000000, 0x0000},  // 2^-25: tie between 0 and 2^-24 -> 0 (even)
      {0x33000001, 0x0001},  // just above 2^-25
      {0x33c00000, 0x0002},  // 1.5 * 2^-24: tie between 1 and 2 units -> 2
      {0x387fffff, 0x0400},  // just below 2^-14 rounds up into the smallest normal
      {0x3f801000, 0x3c00},  // 1 + 2^-11: tie -> 1.0 (even)
      {0x3f803000, 0x3c02},  // 1 + 3*2^-11: tie -> 1 + 2^-9 (even)
      {0x3f801001, 0x3c01},  // just above the tie
      {0x80000000, 0x8000},  // -0
      {0x00000001, 0x0000},  // fp32 subnormal -> +0
      {0x7f800000, 0x7c00},  // inf
      {0xff800000, 0xfc00},  // -inf
      {0x7fc00000, 0x7e00},  // NaN -> quiet NaN
      {0xff800001, 0xfe00},  // signalling -NaN -> quiet -NaN
  };
  for (const auto& c : fp16_cases) EXPECT_EQ(float_to_half_bits(bits_float(c.in)), c.fp16) << std::hex << "0x" << c.in;
  const Case bf16_cases[] = {
      {0x3f808000, 0x3f80},  // 1 + 2^-8: tie -> 1.0 (even)
      {0x3f818000, 0x3f82},  // tie -> even
      {0x3f808001, 0x3f81},  // above the tie
      {0x7f7f7fff, 0x7f7f},  // below max + half ulp
      {0x7f7f8000, 0x7f80},  // max + half ulp: tie with odd max -> inf
      {0x00008000, 0x0000},  // subnormal tie -> 0
      {0x00018000, 0x0002},  // subnormal tie -> even
      {0x807fffff, 0x8080},  // largest negative subnormal rounds to -2^-126
  };
  for (const auto& c : bf16_cases) EXPECT_EQ(float_to_bf16_bits(bits_float(c.in)), c.fp16) << std::hex << "0x" << c.in;
  const uint16_t nan_bf16 = float_to_bf16_bits(bits_float(0x7f800001));  // payload only in low bits
  EXPECT_EQ(nan_bf16 & 0x7f80, 0x7f80);
  EXPECT_NE(nan_bf16 & 0x7f, 0) << "a NaN must stay NaN, not become inf";
}

}  // namespace
}  // namespace openge
