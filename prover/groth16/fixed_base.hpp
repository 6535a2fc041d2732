// Fixed-base scalar multiplication with a precomputed window table (for setup, where millions of
// scalars multiply the same generator). For window width w the table holds d * 2^(w j) * P for every
// window j < ceil(255 / w) and digit d in [1, 2^w): k * P is then the sum of one table entry per
// non-zero w-bit digit of k, with no doublings. Variable time: setup data only.
#pragma once

#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "prover/algebra/curve.hpp"

namespace cuzk::groth16 {

template <class Cfg>
class FixedBaseTable {
 public:
  using Point = algebra::Jacobian<Cfg>;
  using AffinePoint = algebra::Affine<Cfg>;

  // The width minimising table cost plus per-scalar cost, (255 / w) * (2^w + count), capped at 12
  // bits (a 22 x 4095-entry table: about 10 MB in G1, 20 MB in G2).
  static unsigned best_window(std::size_t count) {
    unsigned best = 2;
    double best_cost = -1;
    for (unsigned w = 2; w <= 12; ++w) {
      double cost = double(windows_for(w)) * (double(std::size_t{1} << w) + double(count));
      if (best_cost < 0 || cost < best_cost) {
        best = w;
        best_cost = cost;
      }
    }
    return best;
  }

  FixedBaseTable(const AffinePoint& base, unsigned window_bits, int threads)
      : window_bits_(window_bits),
        windows_(windows_for(window_bits)),
        digits_((std::size_t{1} << window_bits) - 1) {
    std::vector<Point> window_bases(windows_);
    Point b = Point::from_affine(base);
    for (std::size_t j = 0; j < windows_; ++j) {
      window_bases[j] = b;
      for (unsigned i = 0; i < window_bits_; ++i) b = b.dbl();
    }
    std::vector<Point> entries(windows_ * digits_);
#pragma omp parallel for schedule(static) num_threads(threads)
    for (std::int64_t j = 0; j < static_cast<std::int64_t>(windows_); ++j) {
      Point acc = window_bases[j];
      for (std::size_t d = 0; d < digits_; ++d) {
        entries[j * digits_ + d] = acc;
        acc += window_bases[j];
      }
    }
    table_ = algebra::batch_to_affine(entries);
  }

  Point mul(const algebra::Fr& k) const {
    auto limbs = k.to_canonical();
    Point acc = Point::identity();
    for (std::size_t j = 0; j < windows_; ++j) {
      std::uint64_t digit = extract_bits(limbs, j * window_bits_, window_bits_);
      if (digit != 0) acc = acc.add_mixed(table_[j * digits_ + digit - 1]);
    }
    return acc;
  }

  unsigned window_bits() const {
    return window_bits_;
  }
  std::size_t windows() const {
    return windows_;
  }
  std::size_t digits_per_window() const {
    return digits_;
  }  // 2^w - 1
  // Entry (j, d) = d * 2^(w j) * P at index j * digits_per_window() + d - 1 (d >= 1); never infinity,
  // since d * 2^(w j) < 2^(w (j + 1)) and the prime r does not divide it.
  const std::vector<AffinePoint>& affine_entries() const {
    return table_;
  }

  // k_i * P for every scalar, in affine coordinates (zero scalars give the point at infinity).
  std::vector<AffinePoint> mul_many(std::span<const algebra::Fr> scalars, int threads) const {
    constexpr std::size_t kChunk = 1024;  // points per batch normalisation (one field inversion each)
    std::vector<AffinePoint> out(scalars.size());
    const auto chunks = static_cast<std::int64_t>((scalars.size() + kChunk - 1) / kChunk);
#pragma omp parallel for schedule(dynamic) num_threads(threads)
    for (std::int64_t c = 0; c < chunks; ++c) {
      std::size_t start = static_cast<std::size_t>(c) * kChunk;
      std::size_t end = std::min(scalars.size(), start + kChunk);
      std::vector<Point> jac(end - start);
      for (std::size_t i = start; i < end; ++i) jac[i - start] = mul(scalars[i]);
      auto aff = algebra::batch_to_affine(jac);
      std::copy(aff.begin(), aff.end(), out.begin() + static_cast<std::ptrdiff_t>(start));
    }
    return out;
  }

 private:
  static std::size_t windows_for(unsigned w) {
    return (algebra::Fr::kBits + w - 1) / w;
  }

  template <std::size_t N>
  static std::uint64_t extract_bits(const algebra::Limbs<N>& x, std::size_t pos, unsigned count) {
    std::size_t limb = pos / 64, shift = pos % 64;
    if (limb >= N) return 0;
    std::uint64_t v = x[limb] >> shift;
    if (shift + count > 64 && limb + 1 < N) v |= x[limb + 1] << (64 - shift);
    return v & ((std::uint64_t{1} << count) - 1);
  }

  unsigned window_bits_;
  std::size_t windows_;
  std::size_t digits_;
  std::vector<AffinePoint> table_;
};

// k_i * generator for many scalars at once, written straight into bellperson's uncompressed encoding,
// for the streaming test setup (pce/test_setup.hpp). The CPU encoder below and the GPU one
// (gpu/fixed_base.hpp) write the same bytes for the same scalars.
class FixedBaseEncoder {
 public:
  virtual ~FixedBaseEncoder() = default;
  virtual std::string name() const = 0;
  // k_i * generator for every scalar, written as bellperson's uncompressed encoding (G1 96 B, G2 192 B
  // each; zero -> infinity) at out + i * size.
  virtual void encode_g1(std::span<const algebra::Fr> scalars, std::uint8_t* out) = 0;
  virtual void encode_g2(std::span<const algebra::Fr> scalars, std::uint8_t* out) = 0;
};

// FixedBaseTable (12-bit windows, built on first use) and algebra::encode_g1/g2_uncompressed, in
// parallel over `threads` OpenMP threads (0: all).
std::unique_ptr<FixedBaseEncoder> make_cpu_fixed_base_encoder(unsigned threads);

}  // namespace cuzk::groth16
