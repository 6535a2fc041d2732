// Fp6/Fp12 arithmetic and the BLS12-381 optimal ate pairing.
//
// Independent references: generic square-and-multiply powers (Frobenius = x^p, the final exponentiation
// = x^(3 (p^12 - 1) / r) with the exponent computed here by schoolbook big-integer arithmetic), a textbook
// affine Miller loop over E(Fp12), and the published value of e(G1 generator, G2 generator).
#include <gtest/gtest.h>

#include <stdexcept>
#include <utility>
#include <vector>

#include "prover/algebra/pairing.hpp"
#include "tests/test_util.hpp"

using namespace cuzk::algebra;
using cuzk::test::random_field;
using cuzk::test::seeded_rng;

namespace {

Fp2 random_fp2(std::mt19937_64& rng) {
  return {random_field<Fp>(rng), random_field<Fp>(rng)};
}
Fp6 random_fp6(std::mt19937_64& rng) {
  return {random_fp2(rng), random_fp2(rng), random_fp2(rng)};
}
Fp12 random_fp12(std::mt19937_64& rng) {
  return {random_fp6(rng), random_fp6(rng)};
}

G1Affine random_g1(std::mt19937_64& rng) {
  return (G1::generator() * random_field<Fr>(rng)).to_affine();
}
G2Affine random_g2(std::mt19937_64& rng) {
  return (G2::generator() * random_field<Fr>(rng)).to_affine();
}

Fp12 gt_pow(const Fp12& g, const Fr& k) {
  return g.pow(k.to_canonical());
}

// --- Minimal unsigned big integers (little-endian u64 limbs), only to derive exponents in the tests. ---
using Big = std::vector<u64>;

void trim(Big& a) {
  while (!a.empty() && a.back() == 0) a.pop_back();
}

template <std::size_t N>
Big big_from(const Limbs<N>& l) {
  Big a(l.begin(), l.end());
  trim(a);
  return a;
}

Big big_mul(const Big& a, const Big& b) {
  Big r(a.size() + b.size(), 0);
  for (std::size_t i = 0; i < a.size(); ++i) {
    u64 carry = 0;
    for (std::size_t j = 0; j < b.size(); ++j) {
      u128 t = static_cast<u128>(a[i]) * b[j] + r[i + j] + carry;
      r[i + j] = static_cast<u64>(t);
      carry = static_cast<u64>(t >> 64);
    }
    r[i + b.size()] = carry;
  }
  trim(r);
  return r;
}

std::size_t big_bits(const Big& a) {
  return a.empty() ? 0 : a.size() * 64 - __builtin_clzll(a.back());
}
bool big_bit(const Big& a, std::size_t i) {
  return i / 64 < a.size() && ((a[i / 64] >> (i % 64)) & 1);
}

bool big_geq(const Big& a, const Big& b) {
  if (a.size() != b.size()) return a.size() > b.size();
  for (std::size_t i = a.size(); i-- > 0;) {
    if (a[i] != b[i]) return a[i] > b[i];
  }
  return true;
}

void big_sub_in_place(Big& a, const Big& b) {  // a >= b
  u64 borrow = 0;
  for (std::size_t i = 0; i < a.size(); ++i) a[i] = limbs::sub_borrow(a[i], i < b.size() ? b[i] : 0, borrow);
  trim(a);
}

// Bit-serial long division.
Big big_divmod(const Big& a, const Big& d, Big& remainder) {
  Big q((a.size()), 0);
  Big r;
  for (std::size_t i = big_bits(a); i-- > 0;) {
    // r = 2 r + bit
    u64 carry = big_bit(a, i) ? 1 : 0;
    for (auto& limb : r) {
      u64 next = limb >> 63;
      limb = (limb << 1) | carry;
      carry = next;
    }
    if (carry) r.push_back(carry);
    if (big_geq(r, d)) {
      big_sub_in_place(r, d);
      q[i / 64] |= u64{1} << (i % 64);
    }
  }
  trim(q);
  remainder = r;
  return q;
}

template <std::size_t N>
Limbs<N> big_to_limbs(const Big& a) {
  Limbs<N> out{};
  if (a.size() > N) throw std::length_error("big integer too large for the limb array");
  for (std::size_t i = 0; i < a.size(); ++i) out[i] = a[i];
  return out;
}

// 3 (p^12 - 1) / r: the exponent our final exponentiation (like zkcrypto bls12_381's) raises to.
Limbs<72> final_exponent_times_3() {
  Big p = big_from(Fp::kModulus);
  Big p12 = {1};
  for (int i = 0; i < 12; ++i) p12 = big_mul(p12, p);
  big_sub_in_place(p12, Big{1});
  Big rem;
  Big q = big_divmod(p12, big_from(Fr::kModulus), rem);
  EXPECT_TRUE(rem.empty()) << "r divides p^12 - 1 (embedding degree 12)";
  return big_to_limbs<72>(big_mul(q, Big{3}));
}

// --- Textbook Miller loop: affine arithmetic in E(Fp12), with the vertical lines. ---
Fp12 embed(const Fp2& a) {
  return {{a, Fp2::zero(), Fp2::zero()}, Fp6::zero()};
}
Fp12 embed(const Fp& a) {
  return embed(Fp2{a, Fp::zero()});
}

struct AffineFp12 {
  Fp12 x, y;
};

Fp12 naive_miller_loop(const G1Affine& p, const G2Affine& q) {
  const Fp12 w = {Fp6::zero(), Fp6::one()};
  const Fp12 w2 = w.square(), w3 = w2 * w;
  // psi: E'(Fp2) -> E(Fp12), (x, y) -> (x / w^2, y / w^3), the untwisting map of the M-twist.
  AffineFp12 qq{embed(q.x) * w2.inverse(), embed(q.y) * w3.inverse()};
  const Fp12 px = embed(p.x), py = embed(p.y);
  const Fp12 three = embed(Fp::from_u64(3)), two = embed(Fp::from_u64(2));
  // Line through t with slope lambda, evaluated at P, divided by the vertical line at the sum point.
  auto step = [&](AffineFp12& t, const Fp12& lambda, const Fp12& other_x) {
    Fp12 line = py - t.y - lambda * (px - t.x);
    Fp12 x3 = lambda.square() - t.x - other_x;
    Fp12 y3 = lambda * (t.x - x3) - t.y;
    t = {x3, y3};
    return line * (px - x3).inverse();
  };
  constexpr u64 kAbsX = 0xd201000000010000ULL;  // |x|, x = -0xd201000000010000 (IETF draft section 4.2.1)
  AffineFp12 t = qq;
  Fp12 f = Fp12::one();
  for (int i = 62; i >= 0; --i) {
    Fp12 lambda = three * t.x.square() * (two * t.y).inverse();
    f = f.square() * step(t, lambda, t.x);
    if ((kAbsX >> i) & 1) {
      Fp12 lambda_add = (qq.y - t.y) * (qq.x - t.x).inverse();
      f = f * step(t, lambda_add, qq.x);
    }
  }
  // f_{x,Q} = 1 / (f_{|x|,Q} * v_{[|x|]Q}) for x < 0.
  return (f * (px - t.x)).inverse();
}

}  // namespace

TEST(Fp6, FieldLawsOnRandomValues) {
  auto rng = seeded_rng("Fp6.FieldLaws");
  const Fp6 v = {Fp2::zero(), Fp2::one(), Fp2::zero()};
  for (int i = 0; i < 50; ++i) {
    Fp6 a = random_fp6(rng), b = random_fp6(rng), c = random_fp6(rng);
    ASSERT_EQ(a + b, b + a);
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ((a * b) * c, a * (b * c));
    ASSERT_EQ(a * (b + c), a * b + a * c);
    ASSERT_EQ(a - a, Fp6::zero());
    ASSERT_EQ(a + (-a), Fp6::zero());
    ASSERT_EQ(a * Fp6::one(), a);
    ASSERT_EQ(a.square(), a * a);
    ASSERT_EQ(a.mul_by_nonresidue(), a * v);
    ASSERT_TRUE((a * a.inverse()).is_one());
    ASSERT_EQ(a.mul_by_01(b.c0, b.c1), a * (Fp6{b.c0, b.c1, Fp2::zero()}));
    ASSERT_EQ(a.mul_by_1(b.c1), a * (Fp6{Fp2::zero(), b.c1, Fp2::zero()}));
  }
  // v^3 = 1 + u.
  EXPECT_EQ(v * v * v, (Fp6{Fp2{Fp::one(), Fp::one()}, Fp2::zero(), Fp2::zero()}));
  EXPECT_TRUE(Fp6::zero().inverse().is_zero());
}

TEST(Fp12, FieldLawsOnRandomValues) {
  auto rng = seeded_rng("Fp12.FieldLaws");
  const Fp12 w = {Fp6::zero(), Fp6::one()};
  for (int i = 0; i < 50; ++i) {
    Fp12 a = random_fp12(rng), b = random_fp12(rng), c = random_fp12(rng);
    ASSERT_EQ(a + b, b + a);
    ASSERT_EQ(a * b, b * a);
    ASSERT_EQ((a * b) * c, a * (b * c));
    ASSERT_EQ(a * (b + c), a * b + a * c);
    ASSERT_EQ(a - a, Fp12::zero());
    ASSERT_EQ(a * Fp12::one(), a);
    ASSERT_EQ(a.square(), a * a);
    ASSERT_TRUE((a * a.inverse()).is_one());
    // Sparse line multiplication against the dense product.
    Fp2 la = random_fp2(rng), lb = random_fp2(rng), lc = random_fp2(rng);
    Fp12 line = {{la, lb, Fp2::zero()}, {Fp2::zero(), lc, Fp2::zero()}};
    ASSERT_EQ(a.mul_by_line(la, lb, lc), a * line);
    ASSERT_EQ(line, embed(la) + embed(lb) * w.square() + embed(lc) * w.square() * w);
  }
  // w^2 = v and w^6 = 1 + u.
  EXPECT_EQ(w.square(), (Fp12{{Fp2::zero(), Fp2::one(), Fp2::zero()}, Fp6::zero()}));
  EXPECT_EQ(w.pow(Limbs<1>{6}), embed(Fp2{Fp::one(), Fp::one()}));
  EXPECT_TRUE(Fp12::zero().inverse().is_zero());
}

TEST(Fp12, FrobeniusIsPowerOfP) {
  auto rng = seeded_rng("Fp12.Frobenius");
  for (int i = 0; i < 3; ++i) {
    Fp12 a = random_fp12(rng);
    Fp12 ap = a.pow(Fp::kModulus);
    ASSERT_EQ(a.frobenius_map(1), ap);
    Fp12 iterated = a;
    for (unsigned n = 1; n <= 12; ++n) {
      iterated = iterated.pow(Fp::kModulus);
      ASSERT_EQ(a.frobenius_map(n), iterated) << "n = " << n;
    }
    ASSERT_EQ(a.frobenius_map(12), a);
    ASSERT_EQ(a.frobenius_map(6), a.conjugate());

    Fp6 b = random_fp6(rng);
    Fp6 b_iterated = b;
    for (unsigned n = 1; n <= 6; ++n) {
      b_iterated = b_iterated.pow(Fp::kModulus);
      ASSERT_EQ(b.frobenius_map(n), b_iterated) << "n = " << n;
    }
  }
}

TEST(Fp12, CyclotomicSquareMatchesSquare) {
  auto rng = seeded_rng("Fp12.CyclotomicSquare");
  for (int i = 0; i < 20; ++i) {
    Fp12 f = random_fp12(rng);
    // f^((p^6 - 1)(p^2 + 1)) lies in the cyclotomic subgroup.
    Fp12 t = f.conjugate() * f.inverse();
    Fp12 g = t.frobenius_map(2) * t;
    ASSERT_EQ(g.cyclotomic_square(), g.square());
    ASSERT_EQ(g * g.conjugate(), Fp12::one());
  }
}

TEST(Pairing, FinalExponentiationIsGenericPower) {
  auto rng = seeded_rng("Pairing.FinalExponentiation");
  const Limbs<72> exponent = final_exponent_times_3();
  for (int i = 0; i < 2; ++i) {
    Fp12 f = random_fp12(rng);
    ASSERT_EQ(final_exponentiation(f), f.pow(exponent));
  }
}

TEST(Pairing, MatchesTextbookMillerLoop) {
  auto rng = seeded_rng("Pairing.Textbook");
  const Limbs<72> exponent = final_exponent_times_3();
  G1Affine p = random_g1(rng);
  G2Affine q = random_g2(rng);
  Fp12 reference = naive_miller_loop(p, q).pow(exponent);
  EXPECT_EQ(pairing(p, q), reference);
  EXPECT_EQ(pairing(G1Affine::generator(), G2Affine::generator()),
            naive_miller_loop(G1Affine::generator(), G2Affine::generator()).pow(exponent));
}

// e(G1 generator, G2 generator) as published in zkcrypto bls12_381 src/pairings.rs, `Gt::generator()`
// (checked there by `test_gt_generator` against `pairing(&G1Affine::generator(), &G2Affine::generator())`).
// Limbs are little-endian Montgomery form (R = 2^384), the layout of Fp here.
TEST(Pairing, GeneratorPairingMatchesPublishedValue) {
  auto fp = [](const Limbs<6>& mont) { return Fp::from_montgomery(mont); };
  Fp12 expected = {{{fp({0x1972e433a01f85c5, 0x97d32b76fd772538, 0xc8ce546fc96bcdf9, 0xcef63e7366d40614,
                         0xa611342781843780, 0x13f3448a3fc6d825}),
                     fp({0xd26331b02e9d6995, 0x9d68a482f7797e7d, 0x9c9b29248d39ea92, 0xf4801ca2e13107aa,
                         0xa16c0732bdbcb066, 0x083ca4afba360478})},
                    {fp({0x59e261db0916b641, 0x2716b6f4b23e960d, 0xc8e55b10a0bd9c45, 0x0bdb0bd99c4deda8,
                         0x8cf89ebf57fdaac5, 0x12d6b7929e777a5e}),
                     fp({0x5fc85188b0e15f35, 0x34a06e3a8f096365, 0xdb3126a6e02ad62c, 0xfc6f5aa97d9a990b,
                         0xa12f55f5eb89c210, 0x1723703a926f8889})},
                    {fp({0x93588f2971828778, 0x43f65b8611ab7585, 0x3183aaf5ec279fdf, 0xfa73d7e18ac99df6,
                         0x64e176a6a64c99b0, 0x179fa78c58388f1f}),
                     fp({0x672a0a11ca2aef12, 0x0d11b9b52aa3f16b, 0xa44412d0699d056e, 0xc01d0177221a5ba5,
                         0x66e0cede6c735529, 0x05f5a71e9fddc339})}},
                   {{fp({0xd30a88a1b062c679, 0x5ac56a5d35fc8304, 0xd0c834a6a81f290d, 0xcd5430c2da3707c7,
                         0xf0c27ff780500af0, 0x09245da6e2d72eae}),
                     fp({0x9f2e0676791b5156, 0xe2d1c8234918fe13, 0x4c9e459f3c561bf4, 0xa3e85e53b9d3e3c1,
                         0x820a121e21a70020, 0x15af618341c59acc})},
                    {fp({0x7c95658c24993ab1, 0x73eb38721ca886b9, 0x5256d749477434bc, 0x8ba41902ea504a8b,
                         0x04a3d3f80c86ce6d, 0x18a64a87fb686eaa}),
                     fp({0xbb83e71bb920cf26, 0x2a5277ac92a73945, 0xfc0ee59f94f046a0, 0x7158cdf3786058f7,
                         0x7cc1061b82f945f6, 0x03f847aa9fdbe567})},
                    {fp({0x8078dba56134e657, 0x1cd7ec9a43998a6e, 0xb1aa599a1a993766, 0xc9a0f62f0842ee44,
                         0x8e159be3b605dffa, 0x0c86ba0d4af13fc2}),
                     fp({0xe80ff2a06a52ffb1, 0x7694ca48721a906c, 0x7583183e03b08514, 0xf567afdd40cee4e2,
                         0x9a6d96d2e526a5fc, 0x197e9f49861f2242})}}};
  EXPECT_EQ(pairing(G1Affine::generator(), G2Affine::generator()), expected);
}

TEST(Pairing, NonDegenerateAndOrderR) {
  auto rng = seeded_rng("Pairing.Order");
  Gt g = pairing(G1Affine::generator(), G2Affine::generator());
  EXPECT_FALSE(g.is_one());
  EXPECT_TRUE(g.pow(Fr::kModulus).is_one());
  Gt e = pairing(random_g1(rng), random_g2(rng));
  EXPECT_FALSE(e.is_one());
  EXPECT_TRUE(e.pow(Fr::kModulus).is_one());
  // Gt elements are unitary: the conjugate is the inverse.
  EXPECT_EQ(e * e.conjugate(), Fp12::one());
}

TEST(Pairing, Bilinearity) {
  auto rng = seeded_rng("Pairing.Bilinearity");
  for (int i = 0; i < 2; ++i) {
    G1 p = G1::generator() * random_field<Fr>(rng);
    G2 q = G2::generator() * random_field<Fr>(rng);
    Fr a = random_field<Fr>(rng), b = random_field<Fr>(rng);
    Gt base = pairing(p.to_affine(), q.to_affine());
    Gt expected = gt_pow(base, a * b);
    EXPECT_EQ(pairing((p * a).to_affine(), (q * b).to_affine()), expected);
    EXPECT_EQ(pairing((p * (a * b)).to_affine(), q.to_affine()), expected);
    EXPECT_EQ(pairing(p.to_affine(), (q * (a * b)).to_affine()), expected);
    // Additivity in each argument.
    G1 p2 = G1::generator() * random_field<Fr>(rng);
    EXPECT_EQ(pairing((p + p2).to_affine(), q.to_affine()), base * pairing(p2.to_affine(), q.to_affine()));
  }
}

TEST(Pairing, InverseAndInfinity) {
  auto rng = seeded_rng("Pairing.Inverse");
  G1Affine p = random_g1(rng);
  G2Affine q = random_g2(rng);
  EXPECT_EQ(pairing(p, q) * pairing(-p, q), Fp12::one());
  EXPECT_EQ(pairing(p, q) * pairing(p, -q), Fp12::one());
  std::vector<std::pair<G1Affine, G2Affine>> cancel = {{p, q}, {-p, q}};
  EXPECT_TRUE(multi_pairing(cancel).is_one());

  EXPECT_TRUE(pairing(G1Affine::identity(), q).is_one());
  EXPECT_TRUE(pairing(p, G2Affine::identity()).is_one());
  EXPECT_TRUE(pairing(G1Affine::identity(), G2Affine::identity()).is_one());
  EXPECT_TRUE(multi_pairing({}).is_one());
  std::vector<std::pair<G1Affine, G2Affine>> with_infinity = {
      {G1Affine::identity(), q}, {p, q}, {p, G2Affine::identity()}};
  EXPECT_EQ(multi_pairing(with_infinity), pairing(p, q));
  G2Prepared infinity = G2Prepared::from(G2Affine::identity());
  EXPECT_TRUE(infinity.infinity);
  std::vector<std::pair<G1Affine, G2Prepared>> prepared_infinity = {{p, infinity}};
  EXPECT_TRUE(final_exponentiation(miller_loop(prepared_infinity)).is_one());
}

TEST(Pairing, MultiPairingIsProductOfPairings) {
  auto rng = seeded_rng("Pairing.Multi");
  std::vector<std::pair<G1Affine, G2Affine>> terms;
  Gt product = Fp12::one();
  for (int i = 0; i < 4; ++i) {
    terms.emplace_back(random_g1(rng), random_g2(rng));
    product *= pairing(terms.back().first, terms.back().second);
  }
  EXPECT_EQ(multi_pairing(terms), product);

  // Prepared G2 points reused across Miller loops (the verifier's fixed vk points).
  std::vector<std::pair<G1Affine, G2Prepared>> prepared;
  for (const auto& [p, q] : terms) prepared.emplace_back(p, G2Prepared::from(q));
  EXPECT_EQ(final_exponentiation(miller_loop(prepared)), product);
  EXPECT_EQ(final_exponentiation(miller_loop(std::span(prepared).subspan(0, 1))),
            pairing(terms[0].first, terms[0].second));

  // A Groth16-style check: e(aP, Q) * e(-P, aQ) = 1.
  Fr a = random_field<Fr>(rng);
  G1 p = G1::generator() * random_field<Fr>(rng);
  G2 q = G2::generator() * random_field<Fr>(rng);
  std::vector<std::pair<G1Affine, G2Affine>> balanced = {{(p * a).to_affine(), q.to_affine()},
                                                         {(-p).to_affine(), (q * a).to_affine()}};
  EXPECT_TRUE(multi_pairing(balanced).is_one());
}
