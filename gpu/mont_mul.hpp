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
// unrolled code costs nothing. Bounds: with a, b < p and 2p < 2^(32N), T < 2p after every row, so the
// odd chain never carries out of limb N and the even chain's carries (into limb N) fit in Q[N-1].
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

// One row: the odd chain (Q) then the even chain (P) with a_i * b, then the reduction by m * p.
// `first`: P and Q hold nothing yet (plain products, no carries).
template <int N, class Ops>
CUZK_HD CUZK_INLINE void mul_row(Ops& ops, uint32_t* P, uint32_t* Q, const uint32_t* a, uint32_t b,
                                 const uint32_t* p, uint32_t inv, bool first) {
  if (first) {
    CUZK_UNROLL
    for (int j = 0; j < N; j += 2) {
      P[j] = ops.mul_lo(a[j], b);
      P[j + 1] = ops.mul_hi(a[j], b);
      Q[j] = ops.mul_lo(a[j + 1], b);
      Q[j + 1] = ops.mul_hi(a[j + 1], b);
    }
  } else {
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
    P[0] = ops.mad_lo_cc(a[0], b, P[0]);
    P[1] = ops.madc_hi_cc(a[0], b, P[1]);
    CUZK_UNROLL
    for (int j = 2; j < N; j += 2) {
      P[j] = ops.madc_lo_cc(a[j], b, P[j]);
      P[j + 1] = ops.madc_hi_cc(a[j], b, P[j + 1]);
    }
    Q[N - 1] = ops.addc(Q[N - 1], 0);  // the even chain's carry sits at limb N, as does Q[N - 1]
  }
  const uint32_t m = ops.mul_lo(P[0], inv);
  Q[0] = ops.mad_lo_cc(p[1], m, Q[0]);
  Q[1] = ops.madc_hi_cc(p[1], m, Q[1]);
  CUZK_UNROLL
  for (int j = 2; j + 2 < N; j += 2) {
    Q[j] = ops.madc_lo_cc(p[j + 1], m, Q[j]);
    Q[j + 1] = ops.madc_hi_cc(p[j + 1], m, Q[j + 1]);
  }
  Q[N - 2] = ops.madc_lo_cc(p[N - 1], m, Q[N - 2]);
  Q[N - 1] = ops.madc_hi(p[N - 1], m, Q[N - 1]);  // T < 2p bounds Q: no carry out of limb N
  P[0] = ops.mad_lo_cc(p[0], m, P[0]);            // P[0] becomes 0
  P[1] = ops.madc_hi_cc(p[0], m, P[1]);
  CUZK_UNROLL
  for (int j = 2; j < N; j += 2) {
    P[j] = ops.madc_lo_cc(p[j], m, P[j]);
    P[j + 1] = ops.madc_hi_cc(p[j], m, P[j + 1]);
  }
  Q[N - 1] = ops.addc(Q[N - 1], 0);
}

// r = a * b * 2^(-32N) mod p, fully reduced (a, b < p).
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
  // The last row ran with P = odd, Q = even: the value is even[0..N-1] + odd[1..N-1] (at limbs 0..N-2).
  uint32_t t[N];
  t[0] = ops.add_cc(even[0], odd[1]);
  CUZK_UNROLL
  for (int j = 1; j + 1 < N; ++j) t[j] = ops.addc_cc(even[j], odd[j + 1]);
  t[N - 1] = ops.addc(even[N - 1], 0);
  // t < 2p: subtract p once when t >= p.
  uint32_t d[N];
  d[0] = ops.sub_cc(t[0], p[0]);
  CUZK_UNROLL
  for (int j = 1; j < N; ++j) d[j] = ops.subc_cc(t[j], p[j]);
  const uint32_t borrow = ops.subc(0, 0);  // all ones when t < p
  CUZK_UNROLL
  for (int j = 0; j < N; ++j) r[j] = borrow ? t[j] : d[j];
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
