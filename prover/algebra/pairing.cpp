// Optimal ate pairing on BLS12-381.
//
// Miller loop: f_{|x|,Q}(P) over the bits of |x|, conjugated at the end because x < 0 (1/f and f^(p^6)
// agree after the final exponentiation, and the vertical lines lie in Fp6 and vanish there too).
// G2 sits on the M-twist E': y^2 = x^3 + 4 xi; psi(x', y') = (x' / w^2, y' / w^3) maps it into E(Fp12).
// With T' = (X : Y : Z) in homogeneous projective coordinates on E', the tangent line at psi(T') evaluated
// at P = (xP, yP), times -2 Y Z w^3 (a factor in a proper subfield, killed by the final exponentiation), is
//   (3 b' Z^2 - Y^2) + 3 X^2 xP w^2 - 2 Y Z yP w^3,
// and the chord through psi(T') and psi(Q'), Q' = (x2, y2) affine, with theta = Y - y2 Z, lambda = X - x2 Z,
// is (theta x2 - lambda y2) - theta xP w^2 + lambda yP w^3. Step formulas: Costello, Lange, Naehrig,
// "Faster pairing computations on curves with high-degree twists" (PKC 2010) and Aranha, Karabina, Longa,
// Gebotys, Lopez, "Faster explicit formulas for computing pairings over ordinary curves" (EUROCRYPT 2011).
//
// Final exponentiation to the power 3 (p^12 - 1) / r (the exponent zkcrypto bls12_381 uses, so its
// Gt values are ours too): easy part (p^6 - 1)(p^2 + 1), then the hard part
// 3 (p^4 - p^2 + 1) / r = lambda0 + lambda1 p + lambda2 p^2 + lambda3 p^3 with
//   lambda3 = (x - 1)^2, lambda2 = lambda3 x, lambda1 = lambda2 x - lambda3, lambda0 = lambda1 x + 3,
// i.e. (x - 1)^2 (x + p)(x^2 + p^2 - 1) + 3 (Hayashida, Hayasaka, Teruya, eprint 2020/875, section 4).
#include "prover/algebra/pairing.hpp"

#include <stdexcept>

namespace cuzk::algebra {

namespace {

// |x| for the BLS12-381 parameter x = -0xd201000000010000 (draft-irtf-cfrg-pairing-friendly-curves-11
// section 4.2.1).
constexpr u64 kAbsX = 0xd201000000010000ULL;
constexpr int kAbsXBits = 64 - __builtin_clzll(kAbsX);
constexpr int kAbsXWeight = __builtin_popcountll(kAbsX);
// One doubling per bit below the top one, one addition per further set bit.
constexpr std::size_t kLineCount = (kAbsXBits - 1) + (kAbsXWeight - 1);

struct G2Projective {
  Fp2 X, Y, Z;
};

using LineCoeffs = std::array<Fp2, 3>;  // (a, b, c): the line is a + b xP w^2 + c yP w^3

// T <- 2T (scaled by 4 to avoid halvings), returning the tangent line at T.
LineCoeffs doubling_step(G2Projective& t) {
  static const Fp kTwelve = Fp::from_u64(12);  // 3 b' = 12 (1 + u)
  Fp2 xy = t.X * t.Y;
  Fp2 b = t.Y.square();
  Fp2 c = t.Z.square();
  Fp2 e = (c * kTwelve).mul_by_nonresidue();  // 3 b' Z^2
  Fp2 f = e.dbl() + e;                        // 9 b' Z^2
  Fp2 h = (t.Y + t.Z).square() - b - c;       // 2 Y Z
  Fp2 x_sq = t.X.square();
  t.X = (xy * (b - f)).dbl();                     // 4 * (XY/2)(Y^2 - 9 b' Z^2)
  t.Y = (b + f).square() - e.square() * kTwelve;  // 4 * (((Y^2 + 9 b' Z^2) / 2)^2 - 27 b'^2 Z^4)
  t.Z = (b * h).dbl().dbl();                      // 4 * 2 Y^3 Z
  return {e - b, x_sq.dbl() + x_sq, -h};
}

// T <- T + Q, returning the line through T and Q.
LineCoeffs addition_step(G2Projective& t, const G2Affine& q) {
  Fp2 theta = t.Y - q.y * t.Z;
  Fp2 lambda = t.X - q.x * t.Z;
  Fp2 c = theta.square();
  Fp2 d = lambda.square();
  Fp2 e = lambda * d;
  Fp2 f = t.Z * c;
  Fp2 g = t.X * d;
  Fp2 h = e + f - g.dbl();
  t.X = lambda * h;
  t.Y = theta * (g - h) - t.Y * e;
  t.Z = t.Z * e;
  return {theta * q.x - lambda * q.y, -theta, lambda};
}

// f^x for f in the cyclotomic subgroup (x < 0: f^|x| followed by the inverse, which is the conjugate).
Fp12 cyclotomic_pow_x(const Fp12& f) {
  Fp12 r = f;
  for (int i = kAbsXBits - 2; i >= 0; --i) {
    r = r.cyclotomic_square();
    if ((kAbsX >> i) & 1) r *= f;
  }
  return r.conjugate();
}

}  // namespace

G2Prepared G2Prepared::from(const G2Affine& q) {
  G2Prepared out;
  if (q.infinity) return out;
  out.infinity = false;
  out.coeffs.reserve(kLineCount);
  G2Projective t{q.x, q.y, Fp2::one()};
  for (int i = kAbsXBits - 2; i >= 0; --i) {
    out.coeffs.push_back(doubling_step(t));
    if ((kAbsX >> i) & 1) out.coeffs.push_back(addition_step(t, q));
  }
  return out;
}

Fp12 miller_loop(std::span<const std::pair<G1Affine, G2Prepared>> terms) {
  struct Active {
    const G1Affine* p;
    const LineCoeffs* lines;
  };
  std::vector<Active> active;
  active.reserve(terms.size());
  for (const auto& [p, q] : terms) {
    if (p.infinity || q.infinity) continue;  // e(O, Q) = e(P, O) = 1
    if (q.coeffs.size() != kLineCount) {
      throw std::invalid_argument("G2Prepared has the wrong number of line coefficients");
    }
    active.push_back({&p, q.coeffs.data()});
  }

  Fp12 f = Fp12::one();
  std::size_t line = 0;
  auto multiply_lines = [&] {
    for (const Active& a : active) {
      const LineCoeffs& l = a.lines[line];
      f = f.mul_by_line(l[0], l[1] * a.p->x, l[2] * a.p->y);
    }
    ++line;
  };
  for (int i = kAbsXBits - 2; i >= 0; --i) {
    if (i != kAbsXBits - 2) f = f.square();  // f = 1 before the first step
    multiply_lines();
    if ((kAbsX >> i) & 1) multiply_lines();
  }
  return f.conjugate();
}

Fp12 final_exponentiation(const Fp12& f) {
  // Easy part: m = f^((p^6 - 1)(p^2 + 1)), which lies in the cyclotomic subgroup.
  Fp12 t = f.conjugate() * f.inverse();
  Fp12 m = t.frobenius_map(2) * t;
  // Hard part, m^(lambda0 + lambda1 p + lambda2 p^2 + lambda3 p^3) (see the file comment).
  Fp12 a = cyclotomic_pow_x(m) * m.conjugate();                // m^(x - 1)
  Fp12 l3 = cyclotomic_pow_x(a) * a.conjugate();               // m^lambda3
  Fp12 l2 = cyclotomic_pow_x(l3);                              // m^lambda2
  Fp12 l1 = cyclotomic_pow_x(l2) * l3.conjugate();             // m^lambda1
  Fp12 l0 = cyclotomic_pow_x(l1) * m.cyclotomic_square() * m;  // m^lambda0
  return l0 * l1.frobenius_map(1) * l2.frobenius_map(2) * l3.frobenius_map(3);
}

Gt pairing(const G1Affine& p, const G2Affine& q) {
  std::pair<G1Affine, G2Affine> term{p, q};
  return multi_pairing(std::span(&term, 1));
}

Gt multi_pairing(std::span<const std::pair<G1Affine, G2Affine>> terms) {
  std::vector<std::pair<G1Affine, G2Prepared>> prepared;
  prepared.reserve(terms.size());
  for (const auto& [p, q] : terms) {
    if (p.infinity || q.infinity) continue;
    prepared.emplace_back(p, G2Prepared::from(q));
  }
  return final_exponentiation(miller_loop(prepared));
}

}  // namespace cuzk::algebra
