// EvaluationDomain and compute_h against naive O(n^2) evaluation, published constants (blstrs
// ROOT_OF_UNITY, docs/circuit.md §10) and polynomial identities checked by schoolbook arithmetic.
#include <gtest/gtest.h>

#include <random>
#include <vector>

#include "prover/algebra/hex.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/errors.hpp"
#include "tests/test_util.hpp"

using cuzk::algebra::Fr;
using cuzk::algebra::hex_to_limbs;
using cuzk::groth16::EvaluationDomain;

namespace {

std::vector<Fr> random_vector(std::mt19937_64& rng, std::size_t n) {
  std::vector<Fr> v(n);
  for (auto& x : v) x = cuzk::test::random_field<Fr>(rng);
  return v;
}

// Horner evaluation of the polynomial with coefficients `coeffs` at x.
Fr evaluate(const std::vector<Fr>& coeffs, const Fr& x) {
  Fr acc = Fr::zero();
  for (std::size_t i = coeffs.size(); i-- > 0;) acc = acc * x + coeffs[i];
  return acc;
}

// out[i] = sum_j coeffs[j] * (shift * root^i)^j.
std::vector<Fr> naive_evaluations(const std::vector<Fr>& coeffs, const Fr& root, const Fr& shift) {
  std::vector<Fr> out(coeffs.size());
  Fr point = shift;
  for (auto& o : out) {
    o = evaluate(coeffs, point);
    point *= root;
  }
  return out;
}

// Coefficients of the polynomial taking values `evals` on <root> (inverse DFT by definition).
std::vector<Fr> naive_interpolation(const std::vector<Fr>& evals, const Fr& root) {
  const std::size_t n = evals.size();
  std::vector<Fr> coeffs = naive_evaluations(evals, root.inverse(), Fr::one());
  const Fr n_inv = Fr::from_u64(n).inverse();
  for (auto& c : coeffs) c *= n_inv;
  return coeffs;
}

std::vector<Fr> poly_mul(const std::vector<Fr>& a, const std::vector<Fr>& b) {
  std::vector<Fr> r(a.size() + b.size() - 1, Fr::zero());
  for (std::size_t i = 0; i < a.size(); ++i)
    for (std::size_t j = 0; j < b.size(); ++j) r[i + j] += a[i] * b[j];
  return r;
}

}  // namespace

TEST(EvaluationDomain, SizesAndLimits) {
  EXPECT_EQ(EvaluationDomain(1).size(), 1u);
  EXPECT_EQ(EvaluationDomain(1).log_size(), 0u);
  EXPECT_EQ(EvaluationDomain(2).size(), 2u);
  EXPECT_EQ(EvaluationDomain(5).size(), 8u);
  EXPECT_EQ(EvaluationDomain(5).log_size(), 3u);
  EXPECT_EQ(EvaluationDomain(1024).size(), 1024u);
  EXPECT_EQ(EvaluationDomain(1025).size(), 2048u);
  EXPECT_EQ(EvaluationDomain(std::size_t{1} << 31).log_size(), 31u);
  try {
    EvaluationDomain too_large((std::size_t{1} << 31) + 1);
    FAIL() << "a domain of 2^32 must be refused";
  } catch (const cuzk::groth16::Groth16Error& e) {
    EXPECT_EQ(e.kind(), cuzk::groth16::Groth16ErrorKind::kDomainTooLarge);
  }
}

TEST(EvaluationDomain, RootsOfUnityMatchBlstrs) {
  // blstrs v0.7.1 ROOT_OF_UNITY (canonical value, docs/circuit.md §10), of order exactly 2^32; the domain of
  // size 2^exp uses it squared (32 - exp) times.
  const Fr root =
      Fr::from_canonical(hex_to_limbs<4>("16a2a19edfe81f20d09b681922c813b4b63683508c2280b93829971f439f0d2b"));
  EXPECT_EQ(EvaluationDomain(std::size_t{1} << 31).omega(), root.square());
  Fr expected = root;
  for (int i = 0; i < 32 - 10; ++i) expected = expected.square();
  EXPECT_EQ(EvaluationDomain(1024).omega(), expected);
  for (std::size_t n : {2, 8, 1024, 1 << 20}) {
    const EvaluationDomain d(n);
    EXPECT_EQ(d.omega().pow(static_cast<cuzk::algebra::u64>(n)), Fr::one()) << n;
    EXPECT_EQ(d.omega().pow(static_cast<cuzk::algebra::u64>(n / 2)), -Fr::one()) << n;
  }
  EXPECT_EQ(Fr::generator(), Fr::from_u64(7));
}

TEST(EvaluationDomain, FftMatchesNaiveDft) {
  auto rng = cuzk::test::seeded_rng("EvaluationDomain.FftMatchesNaiveDft");
  for (std::size_t n : {1, 2, 4, 8, 64, 256}) {
    const EvaluationDomain d(n);
    auto coeffs = random_vector(rng, n);
    auto values = coeffs;
    d.fft(values);
    EXPECT_EQ(values, naive_evaluations(coeffs, d.omega(), Fr::one())) << n;
    auto coset = coeffs;
    d.coset_fft(coset);
    EXPECT_EQ(coset, naive_evaluations(coeffs, d.omega(), Fr::generator())) << n;
  }
}

TEST(EvaluationDomain, LargeFftMatchesPointEvaluations) {
  // Sizes past the cache block (2^12) and the parallel threshold: sampled outputs against Horner.
  auto rng = cuzk::test::seeded_rng("EvaluationDomain.LargeFftMatchesPointEvaluations");
  for (std::size_t n : {1 << 12, 1 << 13, 1 << 15}) {
    const EvaluationDomain d(n);
    auto coeffs = random_vector(rng, n);
    auto values = coeffs;
    d.fft(values);
    auto coset = coeffs;
    d.coset_fft(coset);
    for (std::size_t i : {std::size_t{0}, std::size_t{1}, n / 2 - 1, n / 2, n - 1, rng() % n, rng() % n}) {
      const Fr x = d.omega().pow(static_cast<cuzk::algebra::u64>(i));
      ASSERT_EQ(values[i], evaluate(coeffs, x)) << "n = " << n << ", i = " << i;
      ASSERT_EQ(coset[i], evaluate(coeffs, Fr::generator() * x)) << "n = " << n << ", i = " << i;
    }
  }
}

TEST(EvaluationDomain, InversesRoundTrip) {
  auto rng = cuzk::test::seeded_rng("EvaluationDomain.InversesRoundTrip");
  for (std::size_t n : {1, 2, 16, 1 << 12, 1 << 14}) {
    const EvaluationDomain d(n);
    const auto original = random_vector(rng, n);
    auto v = original;
    d.fft(v);
    d.ifft(v);
    EXPECT_EQ(v, original) << n;
    d.ifft(v);
    d.fft(v);
    EXPECT_EQ(v, original) << n;
    d.coset_fft(v);
    d.icoset_fft(v);
    EXPECT_EQ(v, original) << n;
  }
  // ifft against the definition of the inverse DFT.
  const EvaluationDomain d(32);
  const auto evals = random_vector(rng, 32);
  auto coeffs = evals;
  d.ifft(coeffs);
  EXPECT_EQ(coeffs, naive_interpolation(evals, d.omega()));
}

TEST(EvaluationDomain, DivideByZOnCoset) {
  auto rng = cuzk::test::seeded_rng("EvaluationDomain.DivideByZOnCoset");
  const EvaluationDomain d(64);
  const auto original = random_vector(rng, 64);
  auto v = original;
  d.divide_by_z_on_coset(v);
  // Z(g w^i) = (g w^i)^64 - 1 = g^64 - 1 for every i.
  const Fr z = Fr::from_u64(7).pow(64) - Fr::one();
  for (std::size_t i = 0; i < v.size(); ++i) EXPECT_EQ(v[i] * z, original[i]) << i;
  const Fr point = Fr::generator() * d.omega().pow(5);
  EXPECT_EQ(point.pow(64) - Fr::one(), z);
}

TEST(EvaluationDomain, WrongLengthThrows) {
  const EvaluationDomain d(8);
  std::vector<Fr> v(7);
  EXPECT_THROW(d.fft(v), cuzk::groth16::Groth16Error);
  EXPECT_THROW(cuzk::groth16::compute_h(std::vector<Fr>(3), std::vector<Fr>(3), std::vector<Fr>(2)),
               cuzk::groth16::Groth16Error);
}

// For evaluations with a * b = c pointwise on the domain, H(X) = (A B - C) / (X^m - 1) exactly.
TEST(ComputeH, ExactQuotientBySchoolbookDivision) {
  auto rng = cuzk::test::seeded_rng("ComputeH.ExactQuotientBySchoolbookDivision");
  for (std::size_t n : {1, 2, 3, 5, 8, 16, 27}) {
    const EvaluationDomain d(n);
    const std::size_t m = d.size();
    auto a = random_vector(rng, n), b = random_vector(rng, n);
    std::vector<Fr> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    const auto h = cuzk::groth16::compute_h(a, b, c);
    ASSERT_EQ(h.size(), m - 1) << n;

    // Independent coefficients: pad with zeros and interpolate naively.
    for (auto* v : {&a, &b, &c}) v->resize(m, Fr::zero());
    const auto A = naive_interpolation(a, d.omega()), B = naive_interpolation(b, d.omega()),
               C = naive_interpolation(c, d.omega());
    auto num = poly_mul(A, B);  // degree <= 2m - 2
    for (std::size_t i = 0; i < m; ++i) num[i] -= C[i];
    // Divide by X^m - 1: q[i - m] += num[i], num[i - m] += num[i], from the top.
    std::vector<Fr> q(m - 1, Fr::zero());
    for (std::size_t i = num.size(); i-- > m;) {
      q[i - m] += num[i];
      num[i - m] += num[i];
      num[i] = Fr::zero();
    }
    for (std::size_t i = 0; i < m; ++i) ASSERT_TRUE(num[i].is_zero()) << "remainder, n = " << n;
    EXPECT_EQ(h, q) << n;
  }
}

TEST(ComputeH, IdentityAtARandomPoint) {
  auto rng = cuzk::test::seeded_rng("ComputeH.IdentityAtARandomPoint");
  for (std::size_t n : {1000, 1024, 5000}) {
    const EvaluationDomain d(n);
    const std::size_t m = d.size();
    auto a = random_vector(rng, n), b = random_vector(rng, n);
    std::vector<Fr> c(n);
    for (std::size_t i = 0; i < n; ++i) c[i] = a[i] * b[i];
    const auto h = cuzk::groth16::compute_h(a, b, c);
    ASSERT_EQ(h.size(), m - 1);
    for (auto* v : {&a, &b, &c}) {
      v->resize(m, Fr::zero());
      d.ifft(*v);  // coefficients (ifft is checked against the definition above)
    }
    const Fr tau = cuzk::test::random_field<Fr>(rng);
    const Fr z = tau.pow(static_cast<cuzk::algebra::u64>(m)) - Fr::one();
    EXPECT_EQ(evaluate(h, tau) * z, evaluate(a, tau) * evaluate(b, tau) - evaluate(c, tau)) << n;
  }
}
