// The GLV endomorphism of BLS12-381 G1: phi(x, y) = (beta x, y) = lambda (x, y) for every point of the
// prime-order subgroup, with beta a primitive cube root of unity in Fp and lambda one in Fr
// (lambda^2 + lambda + 1 = 0 mod r). lambda = z^2 - 1 for the curve parameter z = -0xd201000000010000,
// so r = z^4 - z^2 + 1 = lambda^2 + lambda + 1 and any scalar k < r splits as k = k1 + k2 lambda with
// k1, k2 < 2^128. The MSM uses this to halve the windows of each scalar (at the price of a second table
// of bases, phi(P_i)). beta is the cube root that goes with this lambda (the other one, beta^2, gives
// lambda^2); test_curve checks phi(P) == lambda P on the host.
#pragma once

#include <cstdint>

#include "prover/algebra/field.hpp"
#include "prover/algebra/hex.hpp"
#include "prover/algebra/host_device.hpp"

namespace cuzk::algebra::glv {

// lambda = z^2 - 1 = 0xac45a4010001a40200000000ffffffff (128 bits), little-endian 64-bit limbs. (Scalars
// as well as the array: device code can read a constexpr scalar, not a host array.)
inline constexpr std::uint64_t kLambda0 = 0x00000000ffffffffull, kLambda1 = 0xac45a4010001a402ull;
inline constexpr std::uint64_t kLambda[2] = {kLambda0, kLambda1};
// floor(2^256 / lambda) (129 bits), for the Barrett division below.
inline constexpr std::uint64_t kMu0 = 0x63f6e522f6cfee30ull, kMu1 = 0x7c6becf1e01faaddull, kMu2 = 0x1ull;
// beta in Fp, canonical (not Montgomery) big-endian hex.
inline constexpr const char* kBetaHex =
    "1a0111ea397fe699ec02408663d4de85aa0d857d89759ad4897d29650fb85f9b"
    "409427eb4f49fffd8bfd00000000aaac";

// Bits the two halves need: both are below 2^128, and a signed-digit recoding of them must not carry out of
// its top window, so windows cover one bit more (as 256 bits do for scalars below r < 2^255).
inline constexpr unsigned kHalfBits = 129;

namespace detail {
CUZK_HD CUZK_INLINE void mul64(std::uint64_t a, std::uint64_t b, std::uint64_t& lo, std::uint64_t& hi) {
  const unsigned __int128 p = static_cast<unsigned __int128>(a) * b;
  lo = static_cast<std::uint64_t>(p);
  hi = static_cast<std::uint64_t>(p >> 64);
}
// r[0..n+m) = a[0..n) * b[0..m), schoolbook.
template <int N, int M>
CUZK_HD CUZK_INLINE void mul_wide(const std::uint64_t* a, const std::uint64_t* b, std::uint64_t* r) {
  for (int i = 0; i < N + M; ++i) r[i] = 0;
  for (int i = 0; i < N; ++i) {
    std::uint64_t carry = 0;
    for (int j = 0; j < M; ++j) {
      std::uint64_t lo, hi;
      mul64(a[i], b[j], lo, hi);
      const unsigned __int128 s = static_cast<unsigned __int128>(r[i + j]) + lo + carry;
      r[i + j] = static_cast<std::uint64_t>(s);
      carry = hi + static_cast<std::uint64_t>(s >> 64);
    }
    r[i + M] = carry;
  }
}
}  // namespace detail

// k = k1 + k2 lambda with 0 <= k1 < lambda, for a canonical k < r (4 little-endian limbs); k2 <= lambda + 1.
// Barrett division by lambda (Handbook of Applied Cryptography 14.42 with b = 2, a 128-bit modulus): the
// quotient estimate floor(floor(k / 2^127) mu / 2^129) is short by at most 2.
CUZK_HD inline void split_scalar(const std::uint64_t k[4], std::uint64_t k1[2], std::uint64_t k2[2]) {
  const std::uint64_t lambda[2] = {kLambda0, kLambda1}, mu[3] = {kMu0, kMu1, kMu2};
  const std::uint64_t q1[3] = {(k[1] >> 63) | (k[2] << 1), (k[2] >> 63) | (k[3] << 1), k[3] >> 63};
  std::uint64_t q2[6];
  detail::mul_wide<3, 3>(q1, mu, q2);
  // q3 = q2 >> 129 (below 2^129: k / lambda < 2^255 / 2^127).
  std::uint64_t q[3] = {(q2[2] >> 1) | (q2[3] << 63), (q2[3] >> 1) | (q2[4] << 63),
                        (q2[4] >> 1) | (q2[5] << 63)};
  // rem = k - q lambda, below 3 lambda < 2^130: three limbs of arithmetic mod 2^192 suffice.
  std::uint64_t ql[5];
  detail::mul_wide<3, 2>(q, lambda, ql);
  std::uint64_t rem[3], borrow = 0;
  for (int i = 0; i < 3; ++i) rem[i] = limbs::sub_borrow(k[i], ql[i], borrow);
  for (int fix = 0; fix < 2; ++fix) {
    const bool ge = rem[2] != 0 || rem[1] > kLambda1 || (rem[1] == kLambda1 && rem[0] >= kLambda0);
    if (!ge) break;
    borrow = 0;
    for (int i = 0; i < 3; ++i) rem[i] = limbs::sub_borrow(rem[i], i < 2 ? lambda[i] : 0, borrow);
    if (++q[0] == 0 && ++q[1] == 0) ++q[2];
  }
  k1[0] = rem[0];
  k1[1] = rem[1];
  k2[0] = q[0];
  k2[1] = q[1];
}

}  // namespace cuzk::algebra::glv
