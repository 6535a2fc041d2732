// Radix-2 NTT over Fr and the Groth16 H polynomial, as bellperson's EvaluationDomain (docs/circuit.md §10).
//
// The transform is the iterative decimation-in-time Cooley-Tukey FFT: bit-reversal permutation, then
// log2(m) butterfly stages. Stages whose butterflies stay inside a block of kBlock elements run block
// by block (the block stays in cache for all of them); the remaining stages run over the whole array.
// Both kinds are split over OpenMP threads. Twiddles are powers of omega, tabulated once per transform.
#include "prover/groth16/domain.hpp"

#include <omp.h>

#include <algorithm>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "prover/algebra/bits.hpp"
#include "prover/groth16/errors.hpp"

namespace cuzk::groth16 {
namespace {

// Arrays shorter than this are transformed by one thread (OpenMP start-up would dominate).
constexpr std::size_t kParallelThreshold = std::size_t{1} << 12;
// Elements per cache block: 2^12 Fr = 128 KiB (plus as much again of local twiddles), sized for L2.
constexpr unsigned kLogBlock = 12;

// bits-bit reversal of i (bits <= 32).
inline std::uint32_t reverse_bits(std::uint32_t i, unsigned bits) {
  i = ((i >> 1) & 0x55555555u) | ((i & 0x55555555u) << 1);
  i = ((i >> 2) & 0x33333333u) | ((i & 0x33333333u) << 2);
  i = ((i >> 4) & 0x0f0f0f0fu) | ((i & 0x0f0f0f0fu) << 4);
  i = ((i >> 8) & 0x00ff00ffu) | ((i & 0x00ff00ffu) << 8);
  i = (i >> 16) | (i << 16);
  return bits == 0 ? 0 : i >> (32 - bits);
}

// values[i] *= base^i, in parallel chunks that each start from base^(chunk start).
void distribute_powers(std::span<Fr> values, const Fr& base) {
  const std::size_t n = values.size();
  const int chunks = n >= kParallelThreshold ? std::max(1, omp_get_max_threads()) : 1;
#pragma omp parallel for schedule(static) num_threads(chunks) if (chunks > 1)
  for (int t = 0; t < chunks; ++t) {
    const std::size_t lo = n * static_cast<std::size_t>(t) / static_cast<std::size_t>(chunks);
    const std::size_t hi = n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(chunks);
    Fr power = base.pow(static_cast<algebra::u64>(lo));
    for (std::size_t i = lo; i < hi; ++i) {
      values[i] *= power;
      power *= base;
    }
  }
}

void scale(std::span<Fr> values, const Fr& factor) {
  const std::ptrdiff_t n = static_cast<std::ptrdiff_t>(values.size());
#pragma omp parallel for schedule(static) if (values.size() >= kParallelThreshold)
  for (std::ptrdiff_t i = 0; i < n; ++i) values[i] *= factor;
}

inline void butterfly(Fr& u, Fr& v, const Fr& w) {
  Fr t = v * w;
  v = u - t;
  u += t;
}

// In-place DFT with root `omega` of order values.size() = 2^log_n: natural order in and out.
void radix2_dft(std::span<Fr> values, const Fr& omega, unsigned log_n) {
  const std::size_t n = values.size();
  if (n <= 1) return;
  const bool parallel = n >= kParallelThreshold;
  const std::ptrdiff_t sn = static_cast<std::ptrdiff_t>(n);

#pragma omp parallel for schedule(static) if (parallel)
  for (std::ptrdiff_t i = 0; i < sn; ++i) {
    const std::size_t j = reverse_bits(static_cast<std::uint32_t>(i), log_n);
    if (static_cast<std::size_t>(i) < j) std::swap(values[i], values[j]);
  }

  // twiddles[k] = omega^k, k < n / 2.
  std::vector<Fr> twiddles(n / 2);
  {
    const int chunks = parallel ? std::max(1, omp_get_max_threads()) : 1;
    const std::size_t half_n = n / 2;
#pragma omp parallel for schedule(static) num_threads(chunks) if (chunks > 1)
    for (int t = 0; t < chunks; ++t) {
      const std::size_t lo = half_n * static_cast<std::size_t>(t) / static_cast<std::size_t>(chunks);
      const std::size_t hi = half_n * static_cast<std::size_t>(t + 1) / static_cast<std::size_t>(chunks);
      Fr power = omega.pow(static_cast<algebra::u64>(lo));
      for (std::size_t k = lo; k < hi; ++k) {
        twiddles[k] = power;
        power *= omega;
      }
    }
  }

  // Stages with 2 * half <= block: one block at a time. local[half + j] = (omega^(n / 2half))^j.
  const unsigned log_block = std::min(log_n, kLogBlock);
  const std::size_t block = std::size_t{1} << log_block;
  std::vector<Fr> local(block);
  for (std::size_t half = 1; half < block; half *= 2) {
    const std::size_t stride = n / (2 * half);
    for (std::size_t j = 0; j < half; ++j) local[half + j] = twiddles[j * stride];
  }
  const std::ptrdiff_t blocks = static_cast<std::ptrdiff_t>(n / block);
#pragma omp parallel for schedule(static) if (parallel)
  for (std::ptrdiff_t b = 0; b < blocks; ++b) {
    Fr* base = values.data() + static_cast<std::size_t>(b) * block;
    for (std::size_t half = 1; half < block; half *= 2) {
      const Fr* w = local.data() + half;
      for (std::size_t start = 0; start < block; start += 2 * half) {
        for (std::size_t j = 0; j < half; ++j) butterfly(base[start + j], base[start + j + half], w[j]);
      }
    }
  }

  // The remaining stages, each over all n / 2 butterflies.
  for (std::size_t half = block; half < n; half *= 2) {
    const std::size_t stride = n / (2 * half);
    const std::ptrdiff_t butterflies = static_cast<std::ptrdiff_t>(n / 2);
#pragma omp parallel for schedule(static) if (parallel)
    for (std::ptrdiff_t k = 0; k < butterflies; ++k) {
      const std::size_t j = static_cast<std::size_t>(k) & (half - 1);
      const std::size_t start = (static_cast<std::size_t>(k) - j) * 2;
      butterfly(values[start + j], values[start + j + half], twiddles[j * stride]);
    }
  }
}

void check_size(std::span<Fr> values, std::size_t size) {
  if (values.size() != size) {
    throw Groth16Error(Groth16ErrorKind::kMalformedInput, "evaluation domain of size " +
                                                              std::to_string(size) + " given " +
                                                              std::to_string(values.size()) + " values");
  }
}

}  // namespace

EvaluationDomain::EvaluationDomain(std::size_t n) {
  // bellperson: m = next power of two >= n, exp = log2(m) must be < 32 (Fr::S = 32).
  const unsigned exp = algebra::log2_ceil(n);
  if (exp >= Fr::kTwoAdicity) {
    throw Groth16Error(Groth16ErrorKind::kDomainTooLarge,
                       "polynomial degree too large: " + std::to_string(n) + " needs a domain of 2^32 or more");
  }
  size_ = std::size_t{1} << exp;
  log_size_ = exp;
  // omega = ROOT_OF_UNITY^(2^(32 - exp)) with ROOT_OF_UNITY = g^t, t = (r - 1) / 2^32, g = 7.
  omega_ = Fr::generator().pow(Fr::kTrace);
  for (unsigned i = exp; i < Fr::kTwoAdicity; ++i) omega_ = omega_.square();
  omega_inv_ = omega_.inverse();
  size_inv_ = Fr::from_u64(size_).inverse();
  gen_ = Fr::generator();
  gen_inv_ = gen_.inverse();
}

void EvaluationDomain::fft(std::span<Fr> values) const {
  check_size(values, size_);
  radix2_dft(values, omega_, log_size_);
}

void EvaluationDomain::ifft(std::span<Fr> values) const {
  check_size(values, size_);
  radix2_dft(values, omega_inv_, log_size_);
  scale(values, size_inv_);
}

void EvaluationDomain::coset_fft(std::span<Fr> values) const {
  check_size(values, size_);
  distribute_powers(values, gen_);
  radix2_dft(values, omega_, log_size_);
}

void EvaluationDomain::icoset_fft(std::span<Fr> values) const {
  ifft(values);
  distribute_powers(values, gen_inv_);
}

void EvaluationDomain::divide_by_z_on_coset(std::span<Fr> values) const {
  check_size(values, size_);
  // Z(X) = X^m - 1 is the constant g^m - 1 on the coset g * <omega>.
  const Fr z_inv = (gen_.pow(static_cast<algebra::u64>(size_)) - Fr::one()).inverse();
  scale(values, z_inv);
}

std::vector<Fr> compute_h(std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c) {
  if (a.size() != b.size() || a.size() != c.size()) {
    throw Groth16Error(Groth16ErrorKind::kMalformedInput,
                       "compute_h: a, b, c have " + std::to_string(a.size()) + ", " +
                           std::to_string(b.size()) + ", " + std::to_string(c.size()) + " entries");
  }
  const EvaluationDomain domain(a.size());
  const std::size_t m = domain.size();
  for (auto* v : {&a, &b, &c}) {
    v->resize(m, Fr::zero());
    domain.ifft(*v);
    domain.coset_fft(*v);
  }
  const std::ptrdiff_t sm = static_cast<std::ptrdiff_t>(m);
#pragma omp parallel for schedule(static) if (m >= kParallelThreshold)
  for (std::ptrdiff_t i = 0; i < sm; ++i) {
    a[i] *= b[i];
    a[i] -= c[i];
  }
  std::vector<Fr>().swap(b);
  std::vector<Fr>().swap(c);
  domain.divide_by_z_on_coset(a);
  domain.icoset_fft(a);
  a.resize(m - 1);
  return a;
}

}  // namespace cuzk::groth16
