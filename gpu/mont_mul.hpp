// Montgomery multiplication with two independent carry chains ("even/odd" accumulation, after Emmart,
// Luitjens, Weems and Woolley, "Optimizing Modular Multiplication for NVIDIA's Maxwell GPUs", ARITH 2016).
//
// Written once over an instruction policy `Ops` with the PTX integer instructions as member functions
// (mul_lo, mul_hi, add_cc, addc, mad_lo_cc, madc_lo_cc, madc_hi_cc, madc_hi, madc_lo_cc_z...): the device
// uses the real instructions (gpu/field.cuh), and tests/test_gpu_mont_emulated.cpp runs the very same
// code on the host with an emulated carry flag against the host field, so the algorithm is checked in CI
// without a GPU.
//
// Why two chains: CIOS adds a[j] * b_i into one accumulator, and every mad depends on the previous one's
// carry, so a warp waits out the full latency of each multiply-add. Here the products of the even limbs
// a[0], a[2], ... (low half at limb j, high half at j + 1) form one chain into accumulator P, and those of
// the odd limbs a[1], a[3], ... another chain into Q, which sits one limb higher; the same split is used
// for m * p. The two chains have no data dependence, so the scheduler overlaps them.
//
// Invariant before row i (i >= 1): the running CIOS value T = P + Q * 2^32 after the previous row was
// divided by 2^32 is held as P' + Q' with P' = Q (limbs 0..N-1) and P[1..N-1] at limbs 0..N-2; the row
// moves the single limb P[1] into Q[0] (one add whose carry enters the odd chain) and lets the rest of P
// shift down by two limbs into the odd chain's positions 1..N. Arrays swap roles every row, which in
// unrolled code costs nothing. Bounds: with a < p, any b < 2^(32N) and 2p < 2^(32N), the value after row
// i is T_i = (a B_i + M_i p) / 2^(32 i) < a + p < 2p (B_i, M_i < 2^(32 i): b's low limbs and the
// multipliers so far), and before the shift T_(i-1) + a b_i + m_i p < 2p (2^32 + 1) < 2^(32(N + 1)), so the
// odd chain never carries out of limb N and the even chain's carries (into limb N) fit in Q[N-1]. b, the
// operand taken limb by limb, need not be reduced.
// Requires N even and 2p < 2^(32N) (true for Fp, N = 12, and Fr, N = 8).
#pragma once

#include <cstdint>

#include "prover/algebra/host_device.hpp"

#if defined(__CUDACC__)
#define CUZK_UNROLL _Pragma("unroll")
#else
#define CUZK_UNROLL
#endif

namespace cuzk::gpu::mont {

// acc += x[j] * y 2^(32 j) over the even j (lo at limb j, hi at j + 1: one carry chain); the carry out of
// limb N - 1 is left in the carry flag for the caller to place.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void mad_even_limbs(Ops& ops, uint32_t* acc, const uint32_t* x, uint32_t y) {
  acc[0] = ops.mad_lo_cc(x[0], y, acc[0]);
  acc[1] = ops.madc_hi_cc(x[0], y, acc[1]);
  CUZK_UNROLL
  for (int j = 2; j < N; j += 2) {
    acc[j] = ops.madc_lo_cc(x[j], y, acc[j]);
    acc[j + 1] = ops.madc_hi_cc(x[j], y, acc[j + 1]);
  }
}

// P, Q += x * y in place (no shift): the odd limbs' products into the odd chain Q (which sits one limb
// higher), the even limbs' into P; P's carry out of limb N - 1 is limb N, which Q[N - 1] holds. The
// caller's bound on the running value (below 2^(32(N + 1))) rules out a carry out of Q.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void add_product_in_place(Ops& ops, uint32_t* P, uint32_t* Q, const uint32_t* x,
                                              uint32_t y) {
  Q[0] = ops.mad_lo_cc(x[1], y, Q[0]);
  Q[1] = ops.madc_hi_cc(x[1], y, Q[1]);
  CUZK_UNROLL
  for (int j = 2; j + 2 < N; j += 2) {
    Q[j] = ops.madc_lo_cc(x[j + 1], y, Q[j]);
    Q[j + 1] = ops.madc_hi_cc(x[j + 1], y, Q[j + 1]);
  }
  Q[N - 2] = ops.madc_lo_cc(x[N - 1], y, Q[N - 2]);
  Q[N - 1] = ops.madc_hi(x[N - 1], y, Q[N - 1]);
  mad_even_limbs<N>(ops, P, x, y);
  Q[N - 1] = ops.addc(Q[N - 1], 0);
}

// The product half of a row: the odd chain (Q) then the even chain (P) with a * b, after the shift that
// divides the previous row's value by 2^32. `first`: P and Q hold nothing yet (plain products, no carries).
template <int N, class Ops>
CUZK_HD CUZK_INLINE void product_row(Ops& ops, uint32_t* P, uint32_t* Q, const uint32_t* a, uint32_t b,
                                     bool first) {
  if (first) {
    CUZK_UNROLL
    for (int j = 0; j < N; j += 2) {
      P[j] = ops.mul_lo(a[j], b);
      P[j + 1] = ops.mul_hi(a[j], b);
      Q[j] = ops.mul_lo(a[j + 1], b);
      Q[j + 1] = ops.mul_hi(a[j + 1], b);
    }
    return;
  }
  // P holds the previous row's Q (limbs 0..N-1), Q the previous P (limb 0 is zero). Move Q[1] into
  // P[0]; its carry goes to limb 1, the first limb of the odd chain, which also shifts Q down by two.
  P[0] = ops.add_cc(P[0], Q[1]);
  CUZK_UNROLL
  for (int j = 0; j + 2 < N; j += 2) {
    Q[j] = ops.madc_lo_cc(a[j + 1], b, Q[j + 2]);
    Q[j + 1] = ops.madc_hi_cc(a[j + 1], b, Q[j + 3]);
  }
  Q[N - 2] = ops.madc_lo_cc(a[N - 1], b, 0);
  Q[N - 1] = ops.madc_hi(a[N - 1], b, 0);  // hi(x * y) + 1 < 2^32: no carry out
  mad_even_limbs<N>(ops, P, a, b);
  Q[N - 1] = ops.addc(Q[N - 1], 0);  // the even chain's carry sits at limb N, as does Q[N - 1]
}

// The reduction half of a row: + m * p with m chosen so that limb 0 becomes zero.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void reduce_row(Ops& ops, uint32_t* P, uint32_t* Q, const uint32_t* p, uint32_t inv) {
  const uint32_t m = ops.mul_lo(P[0], inv);
  add_product_in_place<N>(ops, P, Q, p, m);  // P[0] becomes 0
}

// One row of mul(): a * b_i, then the reduction by m * p.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void mul_row(Ops& ops, uint32_t* P, uint32_t* Q, const uint32_t* a, uint32_t b,
                                 const uint32_t* p, uint32_t inv, bool first) {
  product_row<N>(ops, P, Q, a, b, first);
  reduce_row<N>(ops, P, Q, p, inv);
}

// t = acc (limbs 0..N-1) + shifted[1..N-1] (limbs 0..N-2): the value held by the two chains'
// accumulators after a row (see mul_row: `shifted` is the accumulator whose limb k sits at limb k - 1).
template <int N, class Ops>
CUZK_HD CUZK_INLINE void merge_chains(Ops& ops, uint32_t* t, const uint32_t* acc, const uint32_t* shifted) {
  t[0] = ops.add_cc(acc[0], shifted[1]);
  CUZK_UNROLL
  for (int j = 1; j + 1 < N; ++j) t[j] = ops.addc_cc(acc[j], shifted[j + 1]);
  t[N - 1] = ops.addc(acc[N - 1], 0);
}

// r = t - p when t >= p, else t (t < 2p).
template <int N, class Ops>
CUZK_HD CUZK_INLINE void subtract_modulus_once(Ops& ops, uint32_t* r, const uint32_t* t, const uint32_t* p) {
  uint32_t d[N];
  d[0] = ops.sub_cc(t[0], p[0]);
  CUZK_UNROLL
  for (int j = 1; j < N; ++j) d[j] = ops.subc_cc(t[j], p[j]);
  const uint32_t borrow = ops.subc(0, 0);  // all ones when t < p
  CUZK_UNROLL
  for (int j = 0; j < N; ++j) r[j] = borrow ? t[j] : d[j];
}

// r = a * b * 2^(-32N) mod p, fully reduced, for a < p and any b < 2^(32N) (b need not be reduced: before the
// final subtraction the value is (a b + M p) / 2^(32N) < 2p, see the bounds above).
template <int N, class Ops>
CUZK_HD CUZK_INLINE void mul(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* b, const uint32_t* p,
                             uint32_t inv) {
  static_assert(N % 2 == 0 && N >= 4, "even/odd accumulation needs an even number of limbs");
  uint32_t even[N], odd[N];
  CUZK_UNROLL
  for (int i = 0; i < N; i += 2) {
    mul_row<N>(ops, even, odd, a, b[i], p, inv, i == 0);
    mul_row<N>(ops, odd, even, a, b[i + 1], p, inv, false);
  }
  // The last row ran with P = odd, Q = even.
  uint32_t t[N];
  merge_chains<N>(ops, t, even, odd);
  subtract_modulus_once<N>(ops, r, t, p);
}

// r = (a * b + c * d) * 2^(-32N) mod p, fully reduced: two products and one reduction (3N^2 products
// against 4N^2 for two mul() calls). Each row adds a * b_i and c * d_i, then m * p. Bounds: after row i
// the value is (a B_i + c D_i + M_i p) / 2^(32 i) < a + c + p < 3p (B_i, D_i, M_i < 2^(32 i)), so it fits
// the two chains as long as 3p < 2^(32N); at the end it is (a b + c d + M p) / 2^(32N) < 2p whenever
// c d < p^2 and 2p < 2^(32N), so one subtraction of p reduces it. For Fp (p < 2^381, N = 12) but not Fr
// (3r > 2^256). d may be p itself (c * (p - x) is how a caller subtracts a product).
template <int N, class Ops>
CUZK_HD CUZK_INLINE void mul_add(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* b,
                                 const uint32_t* c, const uint32_t* d, const uint32_t* p, uint32_t inv) {
  static_assert(N % 2 == 0 && N >= 4, "even/odd accumulation needs an even number of limbs");
  uint32_t even[N], odd[N];
  CUZK_UNROLL
  for (int i = 0; i < N; i += 2) {
    product_row<N>(ops, even, odd, a, b[i], i == 0);
    add_product_in_place<N>(ops, even, odd, c, d[i]);
    reduce_row<N>(ops, even, odd, p, inv);
    product_row<N>(ops, odd, even, a, b[i + 1], false);
    add_product_in_place<N>(ops, odd, even, c, d[i + 1]);
    reduce_row<N>(ops, odd, even, p, inv);
  }
  uint32_t t[N];
  merge_chains<N>(ops, t, even, odd);
  subtract_modulus_once<N>(ops, r, t, p);
}

// ---- Squaring: the product first, then a separate reduction ----
//
// The multiply-add units bound the multiplication (H200: Fp at ~96% of the IMAD rate), so the way to a
// faster squaring is fewer IMADs: a^2 needs each cross product a_i a_j (i < j) once, doubled, and the N
// squares a_i^2, N^2 + N products against mul()'s 2N^2. That form does not interleave with the
// reduction, so the reduction runs afterwards on the 2N-limb square with mul_row's two chains.
// On an H200 it squares Fp and Fr faster than mul(a, a) and makes the G1 MSM faster (see bench/RESULTS.md).
// A Karatsuba multiplication in the same product-then-reduce form (one level, three half-size products) was
// slower than mul() (the sums and the combination cost more issue slots than the IMADs it saved) and was
// dropped.

// r = t * 2^(-32N) mod p, fully reduced, for t < p^2 (2N limbs). Montgomery reduction of the low half
// alone, s = (t_lo + M p) / 2^(32N) <= p with M = -t_lo p^-1 mod 2^(32N), by mul_row's reduction rows
// (even and odd limbs of p in two chains), then r = s + t_hi, below 2p since t_hi < p^2 / 2^(32N) < p.
// Each row moves one limb between the chains' accumulators, as in mul_row; here, with no product to add,
// its carry rides into the odd chain through the carry flag (mul_lo in between does not touch it).
template <int N, class Ops>
CUZK_HD CUZK_INLINE void reduce(Ops& ops, uint32_t* r, const uint32_t* t, const uint32_t* p, uint32_t inv) {
  uint32_t P[N], Q[N];
  CUZK_UNROLL
  for (int j = 0; j < N; ++j) P[j] = t[j];
  // Row 0: Q (at limbs 1..N) receives the odd limbs' products plainly.
  uint32_t m = ops.mul_lo(P[0], inv);
  CUZK_UNROLL
  for (int j = 0; j < N; j += 2) {
    Q[j] = ops.mul_lo(p[j + 1], m);
    Q[j + 1] = ops.mul_hi(p[j + 1], m);
  }
  mad_even_limbs<N>(ops, P, p, m);  // P[0] becomes 0
  Q[N - 1] = ops.addc(Q[N - 1], 0);
  // Rows 1..N-1, the arrays swapping roles each row: after a row the value divided by 2^32 is
  // Q (limbs 0..N-1) + P[1..N-1] (limbs 0..N-2).
  uint32_t* cur = Q;   // limbs 0..N-1
  uint32_t* prev = P;  // prev[k] at limb k - 1 (prev[0] is zero)
  CUZK_UNROLL
  for (int i = 1; i < N; ++i) {
    cur[0] = ops.add_cc(cur[0], prev[1]);  // limb 0 complete; its carry goes to limb 1
    m = ops.mul_lo(cur[0], inv);
    // prev becomes the odd chain's accumulator at limbs 1..N: its limbs 2.. move down by two.
    prev[0] = ops.madc_lo_cc(p[1], m, prev[2]);
    prev[1] = ops.madc_hi_cc(p[1], m, prev[3]);
    CUZK_UNROLL
    for (int j = 2; j + 2 < N; j += 2) {
      prev[j] = ops.madc_lo_cc(p[j + 1], m, prev[j + 2]);
      prev[j + 1] = ops.madc_hi_cc(p[j + 1], m, j + 3 < N ? prev[j + 3] : 0);
    }
    prev[N - 2] = ops.madc_lo_cc(p[N - 1], m, 0);
    prev[N - 1] = ops.madc_hi(p[N - 1], m, 0);
    mad_even_limbs<N>(ops, cur, p, m);  // cur[0] becomes 0
    prev[N - 1] = ops.addc(prev[N - 1], 0);
    uint32_t* swap = cur;
    cur = prev;
    prev = swap;
  }
  // s = cur + prev (shifted), then + t_hi.
  uint32_t s[N];
  merge_chains<N>(ops, s, cur, prev);
  s[0] = ops.add_cc(s[0], t[N]);
  CUZK_UNROLL
  for (int j = 1; j + 1 < N; ++j) s[j] = ops.addc_cc(s[j], t[N + j]);
  s[N - 1] = ops.addc(s[N - 1], t[2 * N - 1]);
  subtract_modulus_once<N>(ops, r, s, p);
}

// One chain of a squaring's cross products: acc += a[i] * a[j] 2^(32(i + j)) for j = j0, j0 + 2, ... < N
// (lo at limb i + j, hi at i + j + 1: contiguous), its carry added into the next limb. That limb holds at
// most an earlier row's carry (rows alternate which chain reaches the top), so the sum cannot overflow.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void cross_chain(Ops& ops, uint32_t* acc, const uint32_t* a, int i, int j0) {
  int last = j0;
  acc[i + j0] = ops.mad_lo_cc(a[i], a[j0], acc[i + j0]);
  CUZK_UNROLL
  for (int j = j0; j < N; j += 2) {
    if (j > j0) acc[i + j] = ops.madc_lo_cc(a[i], a[j], acc[i + j]);
    if (i + j + 2 < 2 * N) {
      acc[i + j + 1] = ops.madc_hi_cc(a[i], a[j], acc[i + j + 1]);
    } else {
      acc[i + j + 1] = ops.madc_hi(a[i], a[j], acc[i + j + 1]);  // the top limb: nothing to carry into
    }
    last = j;
  }
  if (i + last + 2 < 2 * N) acc[i + last + 2] = ops.addc(acc[i + last + 2], 0);
}

// t[0..2N-1] = a^2: the N(N - 1)/2 cross products once (in two accumulators, whose carry chains have no
// data dependence, as in mul_row), doubled by a shift, plus the N squares of the limbs: N^2 + N products
// against mul()'s 2N^2.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void product_square(Ops& ops, uint32_t* t, const uint32_t* a) {
  uint32_t A[2 * N], B[2 * N];
  CUZK_UNROLL
  for (int j = 0; j < 2 * N; ++j) A[j] = B[j] = 0;
  CUZK_UNROLL
  for (int i = 0; i + 1 < N; ++i) {
    cross_chain<N>(ops, A, a, i, i + 1);
    if (i + 2 < N) cross_chain<N>(ops, B, a, i, i + 2);
  }
  uint32_t c[2 * N];  // the cross sum, < 2^(64N - 1)
  c[0] = ops.add_cc(A[0], B[0]);
  CUZK_UNROLL
  for (int j = 1; j + 1 < 2 * N; ++j) c[j] = ops.addc_cc(A[j], B[j]);
  c[2 * N - 1] = ops.addc(A[2 * N - 1], B[2 * N - 1]);
  // t = 2c + sum a_i^2 2^(64 i): the squares fill every limb pair, so one add chain.
  t[0] = ops.add_cc(c[0] << 1, ops.mul_lo(a[0], a[0]));
  CUZK_UNROLL
  for (int j = 1; j < 2 * N; ++j) {
    const uint32_t doubled = (c[j] << 1) | (c[j - 1] >> 31);
    const uint32_t square = j % 2 == 0 ? ops.mul_lo(a[j / 2], a[j / 2]) : ops.mul_hi(a[j / 2], a[j / 2]);
    t[j] = j + 1 < 2 * N ? ops.addc_cc(doubled, square) : ops.addc(doubled, square);
  }
}

// r = a^2 * 2^(-32N) mod p (a < p): product_square, then reduce.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void sqr(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* p, uint32_t inv) {
  uint32_t t[2 * N];
  product_square<N>(ops, t, a);
  reduce<N>(ops, r, t, p, inv);
}

// Textbook CIOS with one carry chain per row (the first version of the device multiplication), kept as
// the baseline of the field benchmark in gpu/bench_gpu.cu.
template <int N, class Ops>
CUZK_HD CUZK_INLINE void mul_cios(Ops& ops, uint32_t* r, const uint32_t* a, const uint32_t* b,
                                  const uint32_t* p, uint32_t inv) {
  uint32_t t[N + 2];
  CUZK_UNROLL
  for (int j = 0; j < N + 2; ++j) t[j] = 0;
  CUZK_UNROLL
  for (int i = 0; i < N; ++i) {
    t[0] = ops.mad_lo_cc(a[0], b[i], t[0]);
    CUZK_UNROLL
    for (int j = 1; j < N; ++j) t[j] = ops.madc_lo_cc(a[j], b[i], t[j]);
    t[N] = ops.addc_cc(t[N], 0);
    t[N + 1] = ops.addc(t[N + 1], 0);
    t[1] = ops.mad_hi_cc(a[0], b[i], t[1]);
    CUZK_UNROLL
    for (int j = 1; j < N; ++j) t[j + 1] = ops.madc_hi_cc(a[j], b[i], t[j + 1]);
    t[N + 1] = ops.addc(t[N + 1], 0);
    const uint32_t m = ops.mul_lo(t[0], inv);
    t[0] = ops.mad_lo_cc(m, p[0], t[0]);
    CUZK_UNROLL
    for (int j = 1; j < N; ++j) t[j] = ops.madc_lo_cc(m, p[j], t[j]);
    t[N] = ops.addc_cc(t[N], 0);
    t[N + 1] = ops.addc(t[N + 1], 0);
    t[1] = ops.mad_hi_cc(m, p[0], t[1]);
    CUZK_UNROLL
    for (int j = 1; j < N; ++j) t[j + 1] = ops.madc_hi_cc(m, p[j], t[j + 1]);
    t[N + 1] = ops.addc(t[N + 1], 0);
    CUZK_UNROLL
    for (int j = 0; j < N + 1; ++j) t[j] = t[j + 1];
    t[N + 1] = 0;
  }
  uint32_t d[N];
  d[0] = ops.sub_cc(t[0], p[0]);
  CUZK_UNROLL
  for (int j = 1; j < N; ++j) d[j] = ops.subc_cc(t[j], p[j]);
  const uint32_t borrow = ops.subc(t[N], 0);
  CUZK_UNROLL
  for (int j = 0; j < N; ++j) r[j] = borrow ? t[j] : d[j];
}

}  // namespace cuzk::gpu::mont
