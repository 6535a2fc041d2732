// Device point arithmetic on y^2 = x^3 + b (a = 0) for G1 (over Fp) and G2 (over Fp2).
//
// Affine points are (x, y) in Montgomery form, 2 field elements, with (0, 0) standing for the point at
// infinity ((0, 0) is on neither curve since b != 0). Accumulators are XYZZ ("extended Jacobian"):
// x = X / ZZ, y = Y / ZZZ with ZZ^3 = ZZZ^2, ZZ = 0 for infinity. Formulas: Explicit-Formulas
// Database, g1p/auto/shortw/xyzz: madd-2008-s (mixed add, 8M + 2S), add-2008-s (12M + 2S),
// dbl-2008-s-1 and mdbl-2008-s-1 (a = 0). Exceptional cases (P == Q, P == -Q, infinity) are handled.
// Y3 = A B - C D in every formula is F::mul_sub: over Fp, two products with one Montgomery reduction.
#pragma once

#include "gpu/field.cuh"

namespace cuzk::gpu {

template <class F>
struct DevAffine {
  F x, y;
  __device__ __forceinline__ bool is_infinity() const { return x.is_zero() && y.is_zero(); }
  __device__ __forceinline__ DevAffine negated() const { return {x, -y}; }
};

template <class F>
struct Xyzz {
  F X, Y, ZZ, ZZZ;

  __device__ __forceinline__ static Xyzz infinity() { return {F::zero(), F::zero(), F::zero(), F::zero()}; }
  __device__ __forceinline__ bool is_infinity() const { return ZZ.is_zero(); }
  __device__ __forceinline__ static Xyzz from_affine(const DevAffine<F>& p) {
    if (p.is_infinity()) return infinity();
    return {p.x, p.y, F::one(), F::one()};
  }

  // dbl-2008-s-1 with a = 0. Not inlined: rare in the hot loops, and it keeps compile times down.
  __device__ __noinline__ Xyzz dbl() const {
    F U = Y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = X * V;
    F X2 = X.sqr();
    F M = X2.dbl() + X2;
    Xyzz r;
    r.X = M.sqr() - S.dbl();
    r.Y = F::mul_sub(M, S - r.X, W, Y);
    r.ZZ = V * ZZ;
    r.ZZZ = W * ZZZ;
    return r;
  }

  // mdbl-2008-s-1: doubling of an affine point (not infinity). Rare: not inlined.
  __device__ __noinline__ static Xyzz dbl_affine(const DevAffine<F>& p) {
    F U = p.y.dbl();
    F V = U.sqr();
    F W = U * V;
    F S = p.x * V;
    F X2 = p.x.sqr();
    F M = X2.dbl() + X2;
    Xyzz r;
    r.X = M.sqr() - S.dbl();
    r.Y = F::mul_sub(M, S - r.X, W, p.y);
    r.ZZ = V;
    r.ZZZ = W;
    return r;
  }

  // this += q, q affine (infinity allowed).
  __device__ __forceinline__ void add_affine(const DevAffine<F>& q) {
    if (q.is_infinity()) return;
    if (is_infinity()) {
      *this = {q.x, q.y, F::one(), F::one()};
      return;
    }
    F U2 = q.x * ZZ;
    F S2 = q.y * ZZZ;
    F P = U2 - X;
    F R = S2 - Y;
    if (P.is_zero()) {
      if (R.is_zero()) {
        *this = dbl_affine(q);
      } else {
        *this = infinity();
      }
      return;
    }
    // Ordered so that PP dies early: fewer live registers in the MSM's hot loop.
    F PP = P.sqr();
    ZZ = ZZ * PP;
    F PPP = P * PP;
    ZZZ = ZZZ * PPP;
    F Q = X * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    Y = F::mul_sub(R, Q - X3, Y, PPP);
    X = X3;
  }

  // this += q (both XYZZ). Used outside the hot loop (bucket fix-up and reduction): not inlined.
  __device__ __noinline__ void add(const Xyzz& q) {
    if (q.is_infinity()) return;
    if (is_infinity()) {
      *this = q;
      return;
    }
    F U1 = X * q.ZZ;
    F U2 = q.X * ZZ;
    F S1 = Y * q.ZZZ;
    F S2 = q.Y * ZZZ;
    F P = U2 - U1;
    F R = S2 - S1;
    if (P.is_zero()) {
      if (R.is_zero()) {
        *this = dbl();
      } else {
        *this = infinity();
      }
      return;
    }
    F PP = P.sqr();
    F PPP = P * PP;
    F Q = U1 * PP;
    F X3 = R.sqr() - PPP - Q.dbl();
    Y = F::mul_sub(R, Q - X3, S1, PPP);
    X = X3;
    ZZ = ZZ * q.ZZ * PP;
    ZZZ = ZZZ * q.ZZZ * PPP;
  }
};

}  // namespace cuzk::gpu
