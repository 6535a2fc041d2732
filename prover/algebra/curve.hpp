// Short Weierstrass curves y^2 = x^3 + b (a = 0) in affine and Jacobian coordinates, and the
// BLS12-381 groups G1 (over Fp) and G2 (over Fp2, the M-twist).
//
// Formulas: Explicit-Formulas Database, "g1p/auto/shortw/jacobian-0":
//   doubling  dbl-2009-l, addition add-2007-bl, mixed addition madd-2007-bl.
#pragma once

#include <cstddef>
#include <vector>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::algebra {

template <class Cfg>
struct Affine {
  using Config = Cfg;
  using Field = typename Cfg::Field;
  Field x{}, y{};
  bool infinity = true;

  static constexpr Affine identity() { return Affine{}; }
  static constexpr Affine from_xy(const Field& x, const Field& y) { return Affine{x, y, false}; }
  static Affine generator() { return Cfg::generator(); }

  bool is_identity() const { return infinity; }
  bool is_on_curve() const { return infinity || y.square() == x.square() * x + Cfg::b(); }
  Affine operator-() const { return infinity ? *this : Affine{x, -y, false}; }
  friend bool operator==(const Affine& a, const Affine& b) {
    if (a.infinity || b.infinity) return a.infinity == b.infinity;
    return a.x == b.x && a.y == b.y;
  }
  friend bool operator!=(const Affine& a, const Affine& b) { return !(a == b); }
};

template <class Cfg>
struct Jacobian {
  using Field = typename Cfg::Field;
  using AffinePoint = Affine<Cfg>;
  Field X{}, Y = Field::one(), Z{};  // Z = 0 is the point at infinity

  static constexpr Jacobian identity() { return Jacobian{}; }
  static Jacobian generator() { return from_affine(Cfg::generator()); }
  static Jacobian from_affine(const AffinePoint& p) {
    if (p.infinity) return identity();
    return Jacobian{p.x, p.y, Field::one()};
  }
  bool is_identity() const { return Z.is_zero(); }

  AffinePoint to_affine() const {
    if (is_identity()) return AffinePoint::identity();
    Field zinv = Z.inverse();
    Field zinv2 = zinv.square();
    return AffinePoint::from_xy(X * zinv2, Y * zinv2 * zinv);
  }

  bool is_on_curve() const {
    if (is_identity()) return true;
    Field z2 = Z.square();
    Field z6 = z2.square() * z2;
    return Y.square() == X.square() * X + Cfg::b() * z6;
  }

  friend bool operator==(const Jacobian& a, const Jacobian& b) {
    if (a.is_identity() || b.is_identity()) return a.is_identity() == b.is_identity();
    Field z1z1 = a.Z.square(), z2z2 = b.Z.square();
    return a.X * z2z2 == b.X * z1z1 && a.Y * z2z2 * b.Z == b.Y * z1z1 * a.Z;
  }
  friend bool operator!=(const Jacobian& a, const Jacobian& b) { return !(a == b); }

  Jacobian operator-() const { return Jacobian{X, -Y, Z}; }

  // dbl-2009-l
  Jacobian dbl() const {
    if (is_identity()) return *this;
    Field A = X.square();
    Field B = Y.square();
    Field C = B.square();
    Field D = ((X + B).square() - A - C).dbl();
    Field E = A.dbl() + A;
    Field F = E.square();
    Jacobian r;
    r.X = F - D.dbl();
    r.Y = E * (D - r.X) - C.dbl().dbl().dbl();
    r.Z = (Y * Z).dbl();
    return r;
  }

  // add-2007-bl
  friend Jacobian operator+(const Jacobian& p, const Jacobian& q) {
    if (p.is_identity()) return q;
    if (q.is_identity()) return p;
    Field Z1Z1 = p.Z.square();
    Field Z2Z2 = q.Z.square();
    Field U1 = p.X * Z2Z2;
    Field U2 = q.X * Z1Z1;
    Field S1 = p.Y * q.Z * Z2Z2;
    Field S2 = q.Y * p.Z * Z1Z1;
    if (U1 == U2) return S1 == S2 ? p.dbl() : identity();
    Field H = U2 - U1;
    Field I = H.dbl().square();
    Field J = H * I;
    Field rr = (S2 - S1).dbl();
    Field V = U1 * I;
    Jacobian r;
    r.X = rr.square() - J - V.dbl();
    r.Y = rr * (V - r.X) - (S1 * J).dbl();
    r.Z = ((p.Z + q.Z).square() - Z1Z1 - Z2Z2) * H;
    return r;
  }

  // madd-2007-bl (q has Z = 1)
  Jacobian add_mixed(const AffinePoint& q) const {
    if (q.infinity) return *this;
    if (is_identity()) return from_affine(q);
    Field Z1Z1 = Z.square();
    Field U2 = q.x * Z1Z1;
    Field S2 = q.y * Z * Z1Z1;
    if (X == U2) return Y == S2 ? dbl() : identity();
    Field H = U2 - X;
    Field HH = H.square();
    Field I = HH.dbl().dbl();
    Field J = H * I;
    Field rr = (S2 - Y).dbl();
    Field V = X * I;
    Jacobian r;
    r.X = rr.square() - J - V.dbl();
    r.Y = rr * (V - r.X) - (Y * J).dbl();
    r.Z = (Z + H).square() - Z1Z1 - HH;
    return r;
  }

  friend Jacobian operator-(const Jacobian& p, const Jacobian& q) { return p + (-q); }
  Jacobian& operator+=(const Jacobian& o) { return *this = *this + o; }
  Jacobian& operator+=(const AffinePoint& o) { return *this = add_mixed(o); }

  // Double-and-add over the bits of an integer (not constant time: used for public data,
  // tests and setup; the prover's secret scalars go through the MSM code path).
  template <std::size_t M>
  Jacobian mul_limbs(const Limbs<M>& k) const {
    Jacobian r = identity();
    for (std::size_t i = limbs::bit_length(k); i-- > 0;) {
      r = r.dbl();
      if (limbs::bit(k, i)) r += *this;
    }
    return r;
  }
  Jacobian operator*(const Fr& k) const { return mul_limbs(k.to_canonical()); }

  // Membership in the prime-order subgroup: [r]P = O (slow but obviously correct).
  bool is_in_subgroup() const { return mul_limbs(Fr::kModulus).is_identity(); }
};

// Converts many points to affine with one field inversion.
template <class Cfg>
std::vector<Affine<Cfg>> batch_to_affine(const std::vector<Jacobian<Cfg>>& points) {
  using Field = typename Cfg::Field;
  std::vector<Field> zs(points.size()), scratch(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) zs[i] = points[i].Z;
  batch_inverse(zs.data(), zs.size(), scratch.data());
  std::vector<Affine<Cfg>> out(points.size());
  for (std::size_t i = 0; i < points.size(); ++i) {
    if (points[i].is_identity()) continue;
    Field z2 = zs[i].square();
    out[i] = Affine<Cfg>::from_xy(points[i].X * z2, points[i].Y * z2 * zs[i]);
  }
  return out;
}

struct G1Config {
  using Field = Fp;
  static Fp b() { return Fp::from_u64(4); }  // E1: y^2 = x^3 + 4
  // Generator: draft-irtf-cfrg-pairing-friendly-curves-11 section 4.2.1.
  static Affine<G1Config> generator() {
    return Affine<G1Config>::from_xy(
        Fp::from_canonical(hex_to_limbs<6>("17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac58"
                                           "6c55e83ff97a1aeffb3af00adb22c6bb")),
        Fp::from_canonical(hex_to_limbs<6>("08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3ed"
                                           "d03cc744a2888ae40caa232946c5e7e1")));
  }
};

struct G2Config {
  using Field = Fp2;
  static Fp2 b() { return {Fp::from_u64(4), Fp::from_u64(4)}; }  // E2: y^2 = x^3 + 4(1 + u)
  // Generator: draft-irtf-cfrg-pairing-friendly-curves-11 section 4.2.1.
  static Affine<G2Config> generator() {
    Fp2 x{Fp::from_canonical(hex_to_limbs<6>("024aa2b2f08f0a91260805272dc51051c6e47ad4fa403b02b4510b647ae3d177"
                                             "0bac0326a805bbefd48056c8c121bdb8")),
          Fp::from_canonical(hex_to_limbs<6>("13e02b6052719f607dacd3a088274f65596bd0d09920b61ab5da61bbdc7f5049"
                                             "334cf11213945d57e5ac7d055d042b7e"))};
    Fp2 y{Fp::from_canonical(hex_to_limbs<6>("0ce5d527727d6e118cc9cdc6da2e351aadfd9baa8cbdd3a76d429a695160d12c"
                                             "923ac9cc3baca289e193548608b82801")),
          Fp::from_canonical(hex_to_limbs<6>("0606c4a02ea734cc32acd2b02bc28b99cb3e287e85a763af267492ab572e99ab"
                                             "3f370d275cec1da1aaa9075ff05f79be"))};
    return Affine<G2Config>::from_xy(x, y);
  }
};

using G1Affine = Affine<G1Config>;
using G1 = Jacobian<G1Config>;
using G2Affine = Affine<G2Config>;
using G2 = Jacobian<G2Config>;

}  // namespace cuzk::algebra
