// Groth16 end to end: setup -> prove -> verify on the demo circuit and on random circuits, the
// bellperson parameter format (byte-identical round trips, truncation and garbage), deterministic
// proofs with injected randomness, batch verification, and a check of the proof against the scalar
// field with known toxic waste (independent of the group-side code).
#include <gtest/gtest.h>
#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "io/io_error.hpp"
#include "io/temp_dir.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/fixed_base.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/setup.hpp"
#include "prover/groth16/verifier.hpp"
#include "tests/test_util.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::groth16;
using algebra::Fr;
using algebra::G1;
using algebra::G1Affine;
using algebra::G2;
using algebra::G2Affine;
using algebra::PointCheck;
using test::random_field;
using test::random_nonzero_field;

Fr rand_fr(std::mt19937_64& rng) {
  return random_field<Fr>(rng);
}

Fr rand_nonzero(std::mt19937_64& rng) {
  return random_nonzero_field<Fr>(rng);
}

ToxicWaste rand_waste(std::mt19937_64& rng) {
  return {rand_nonzero(rng), rand_nonzero(rng), rand_nonzero(rng), rand_nonzero(rng), rand_nonzero(rng)};
}

void write_raw(const std::string& path, std::span<const std::uint8_t> bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

struct Instance {
  r1cs::R1cs cs;
  std::vector<Fr> inputs, aux;
  std::span<const Fr> public_inputs() const { return std::span<const Fr>(inputs).subspan(1); }
};

// A random satisfied R1CS: each constraint k multiplies random combinations of earlier variables and
// defines a new aux out_k through its C row (with an extra random C term at times). Some public
// inputs are used by no constraint of the circuit (only by bellperson's input constraints).
Instance random_instance(std::mt19937_64& rng, std::size_t num_public, std::size_t num_constraints) {
  Instance in;
  in.cs.num_inputs = 1 + num_public;
  in.inputs.push_back(Fr::one());
  for (std::size_t i = 0; i < num_public; ++i) in.inputs.push_back(rand_fr(rng));
  // Two free aux variables to start with, used by the first constraints.
  in.aux = {rand_fr(rng), rand_fr(rng)};
  auto value = [&](std::uint32_t v) {
    return v < in.cs.num_inputs ? in.inputs[v] : in.aux[v - in.cs.num_inputs];
  };
  auto pick_terms = [&](std::size_t max_terms, std::size_t num_vars) {
    std::vector<std::uint32_t> vars;
    std::size_t n = 1 + rng() % max_terms;
    while (vars.size() < n) {
      // Public inputs from index 2 on are never picked: those stay out of every circuit row.
      std::uint32_t v = static_cast<std::uint32_t>(rng() % num_vars);
      if (v >= 2 && v < in.cs.num_inputs) continue;
      if (std::find(vars.begin(), vars.end(), v) == vars.end()) vars.push_back(v);
    }
    return vars;
  };
  auto push = [](r1cs::SparseMatrix& m, const std::vector<std::pair<std::uint32_t, Fr>>& terms) {
    for (const auto& [v, c] : terms) {
      m.columns.push_back(v);
      m.values.push_back(c);
    }
    m.row_offsets.push_back(m.columns.size());
  };
  for (std::size_t k = 0; k < num_constraints; ++k) {
    const std::size_t num_vars = in.cs.num_inputs + in.aux.size();
    std::vector<std::pair<std::uint32_t, Fr>> a_terms, b_terms, c_terms;
    Fr a_val = Fr::zero(), b_val = Fr::zero(), c_rest = Fr::zero();
    for (auto v : pick_terms(3, num_vars)) {
      Fr c = rand_nonzero(rng);
      a_terms.push_back({v, c});
      a_val += c * value(v);
    }
    for (auto v : pick_terms(2, num_vars)) {
      Fr c = rand_nonzero(rng);
      b_terms.push_back({v, c});
      b_val += c * value(v);
    }
    if (rng() % 3 == 0) {
      std::uint32_t v = pick_terms(1, num_vars)[0];
      Fr c = rand_nonzero(rng);
      c_terms.push_back({v, c});
      c_rest += c * value(v);
    }
    const Fr out_coeff = rand_nonzero(rng);
    const auto out = static_cast<std::uint32_t>(num_vars);
    in.aux.push_back((a_val * b_val - c_rest) * out_coeff.inverse());
    c_terms.push_back({out, out_coeff});
    push(in.cs.a, a_terms);
    push(in.cs.b, b_terms);
    push(in.cs.c, c_terms);
  }
  in.cs.num_aux = in.aux.size();
  // The two starting aux variables must be used by some constraint (bellperson rejects unused aux).
  for (std::uint32_t v : {in.cs.num_inputs, in.cs.num_inputs + 1}) {
    bool used = false;
    for (const auto* m : {&in.cs.a, &in.cs.b, &in.cs.c})
      used = used || std::find(m->columns.begin(), m->columns.end(), v) != m->columns.end();
    if (!used) {  // one more constraint v * ONE = v
      in.cs.a.columns.push_back(v), in.cs.a.values.push_back(Fr::one()),
          in.cs.a.row_offsets.push_back(in.cs.a.nnz());
      in.cs.b.columns.push_back(0), in.cs.b.values.push_back(Fr::one()),
          in.cs.b.row_offsets.push_back(in.cs.b.nnz());
      in.cs.c.columns.push_back(v), in.cs.c.values.push_back(Fr::one()),
          in.cs.c.row_offsets.push_back(in.cs.c.nnz());
    }
  }
  return in;
}

Instance demo_instance() {
  DemoCircuit d = make_demo_circuit();
  return {std::move(d.cs), std::move(d.inputs), std::move(d.aux)};
}

// setup -> prove -> verify, and every tampering rejected.
void check_round_trip(const Instance& in, std::mt19937_64& rng) {
  ProverInput witness = witness_from_r1cs(in.cs, in.inputs, in.aux);
  ASSERT_FALSE(first_unsatisfied(witness).has_value());
  const Parameters params = generate_parameters(in.cs, rand_waste(rng), 2);
  const Densities dens = r1cs::compute_densities(in.cs);
  EXPECT_EQ(params.vk.ic.size(), in.cs.num_inputs);
  EXPECT_EQ(params.l.size(), in.cs.num_aux);
  EXPECT_EQ(params.a.size(), in.cs.num_inputs + dens.a_aux.popcount());
  EXPECT_EQ(params.b_g1.size(), dens.b_input.popcount() + dens.b_aux.popcount());
  EXPECT_EQ(params.b_g2.size(), params.b_g1.size());
  EXPECT_EQ(params.domain_size(), EvaluationDomain(in.cs.num_constraints() + in.cs.num_inputs).size());

  const Proof proof = prove(params, witness, rand_fr(rng), rand_fr(rng), 2);
  const PreparedVerifyingKey pvk = prepare_verifying_key(params.vk);
  EXPECT_TRUE(verify(pvk, proof, in.public_inputs()));

  std::vector<Fr> bad_inputs(in.public_inputs().begin(), in.public_inputs().end());
  for (std::size_t i = 0; i < bad_inputs.size(); ++i) {
    auto tampered = bad_inputs;
    tampered[i] += Fr::one();
    EXPECT_FALSE(verify(pvk, proof, tampered)) << "public input " << i << " changed";
  }
  const G1Affine other_g1 = (G1::generator() * rand_nonzero(rng)).to_affine();
  const G2Affine other_g2 = (G2::generator() * rand_nonzero(rng)).to_affine();
  Proof bad = proof;
  bad.a = other_g1;
  EXPECT_FALSE(verify(pvk, bad, in.public_inputs()));
  bad = proof;
  bad.b = other_g2;
  EXPECT_FALSE(verify(pvk, bad, in.public_inputs()));
  bad = proof;
  bad.c = other_g1;
  EXPECT_FALSE(verify(pvk, bad, in.public_inputs()));
  bad = proof;
  std::swap(bad.a, bad.c);
  EXPECT_FALSE(verify(pvk, bad, in.public_inputs()));
}

TEST(Groth16, DemoCircuitShape) {
  DemoCircuit d = make_demo_circuit();
  EXPECT_EQ(d.cs.num_inputs, 4u);
  EXPECT_EQ(d.cs.num_constraints(), 303u);  // 3 secrets x (2 x 50 rounds + 1)
  EXPECT_EQ(d.cs.num_aux, 303u);            // 3 x (1 + 2 x 50)
  // y = f^50(x) recomputed here with f(x) = x^3 + x + 5.
  for (std::uint64_t k = 0; k < 3; ++k) {
    Fr x = Fr::from_u64(3 + 2 * k);
    for (int i = 0; i < 50; ++i) x = x * x * x + x + Fr::from_u64(5);
    EXPECT_EQ(d.public_inputs()[k], x);
  }
  EXPECT_FALSE(r1cs::first_unsatisfied(d.cs, d.inputs, d.aux).has_value());
  // ONE and the odd y_k have B density, the even y_k do not.
  Densities dens = r1cs::compute_densities(d.cs);
  EXPECT_TRUE(dens.b_input.test(0));
  EXPECT_FALSE(dens.b_input.test(1));
  EXPECT_TRUE(dens.b_input.test(2));
  EXPECT_FALSE(dens.b_input.test(3));
}

TEST(Groth16, DemoCircuitRoundTrip) {
  auto rng = test::seeded_rng("DemoCircuitRoundTrip");
  check_round_trip(demo_instance(), rng);
}

TEST(Groth16, RandomCircuitsRoundTrip) {
  auto rng = test::seeded_rng("RandomCircuitsRoundTrip");
  check_round_trip(random_instance(rng, 1, 40), rng);
  check_round_trip(random_instance(rng, 5, 70), rng);
  // 61 + 4 = 65 constraints with inputs: a domain of 128 with 63 padding rows.
  check_round_trip(random_instance(rng, 3, 61), rng);
}

TEST(Groth16, ProofIsDeterministicForFixedRandomness) {
  auto rng = test::seeded_rng("ProofIsDeterministicForFixedRandomness");
  Instance in = random_instance(rng, 2, 30);
  const Parameters params = generate_parameters(in.cs, rand_waste(rng), 2);
  const ProverInput witness = witness_from_r1cs(in.cs, in.inputs, in.aux);
  const Fr r = rand_fr(rng), s = rand_fr(rng);
  const Proof p1 = prove(params, witness, r, s, 1);
  const Proof p2 = prove(params, ProverInput(witness), r, s, 2);  // the consuming overload, 2 threads
  EXPECT_EQ(p1.to_bytes(), p2.to_bytes());
  const Proof p3 = prove(params, witness, r + Fr::one(), s, 2);
  EXPECT_NE(p1.to_bytes(), p3.to_bytes());
  const PreparedVerifyingKey pvk = prepare_verifying_key(params.vk);
  EXPECT_TRUE(verify(pvk, p3, in.public_inputs()));
  // Without randomisation (r = s = 0, bellperson's create_proof_batch without zk) it still verifies.
  EXPECT_TRUE(verify(pvk, prove(params, witness, Fr::zero(), Fr::zero(), 2), in.public_inputs()));
}

// With tau, alpha, ... known, every group element is a known multiple of the generator: compare
// against u_i(tau), v_i(tau), w_i(tau) from an inverse FFT of the powers of tau (bellperson's way,
// independent of setup's closed form) and the proof against the scalar-field Groth16 equations.
TEST(Groth16, KnownToxicWaste) {
  auto rng = test::seeded_rng("KnownToxicWaste");
  Instance in = random_instance(rng, 3, 50);
  const ToxicWaste tw = rand_waste(rng);
  const Parameters params = generate_parameters(in.cs, tw, 2);
  const std::size_t ni = in.cs.num_inputs, nv = in.cs.num_variables(), nc = in.cs.num_constraints();

  const G1 g1 = G1::generator();
  const G2 g2 = G2::generator();
  EXPECT_EQ(params.vk.alpha_g1, (g1 * tw.alpha).to_affine());
  EXPECT_EQ(params.vk.beta_g1, (g1 * tw.beta).to_affine());
  EXPECT_EQ(params.vk.beta_g2, (g2 * tw.beta).to_affine());
  EXPECT_EQ(params.vk.gamma_g2, (g2 * tw.gamma).to_affine());
  EXPECT_EQ(params.vk.delta_g1, (g1 * tw.delta).to_affine());
  EXPECT_EQ(params.vk.delta_g2, (g2 * tw.delta).to_affine());

  // Lagrange basis at tau: ifft of (1, tau, tau^2, ...).
  EvaluationDomain domain(nc + ni);
  const std::size_t m = domain.size();
  std::vector<Fr> lag(m);
  Fr p = Fr::one();
  for (auto& x : lag) x = p, p *= tw.tau;
  domain.ifft(lag);
  // Spot-check one basis value against the product formula prod_{j != k} (tau - w^j) / (w^k - w^j).
  {
    const std::size_t k = 5;
    Fr num = Fr::one(), den = Fr::one(), wk = domain.omega().pow(k), wj = Fr::one();
    for (std::size_t j = 0; j < m; ++j, wj *= domain.omega())
      if (j != k) num *= tw.tau - wj, den *= wk - wj;
    EXPECT_EQ(lag[k], num * den.inverse());
  }
  std::vector<Fr> u(nv), v(nv), w(nv);
  auto walk = [&](const r1cs::SparseMatrix& mat, std::vector<Fr>& out) {
    for (std::size_t k = 0; k < nc; ++k)
      for (auto t = mat.row_offsets[k]; t < mat.row_offsets[k + 1]; ++t)
        out[mat.columns[t]] += mat.values[t] * lag[k];
  };
  walk(in.cs.a, u);
  walk(in.cs.b, v);
  walk(in.cs.c, w);
  for (std::size_t i = 0; i < ni; ++i) u[i] += lag[nc + i];

  const Fr z_tau = tw.tau.pow(static_cast<algebra::u64>(m)) - Fr::one();
  for (std::size_t j : {std::size_t{0}, std::size_t{1}, m - 2})
    EXPECT_EQ(params.h[j],
              (g1 * (tw.tau.pow(static_cast<algebra::u64>(j)) * z_tau * tw.delta.inverse())).to_affine());
  for (std::size_t i = 0; i < ni; ++i)
    EXPECT_EQ(params.vk.ic[i],
              (g1 * ((tw.beta * u[i] + tw.alpha * v[i] + w[i]) * tw.gamma.inverse())).to_affine());
  EXPECT_EQ(
      params.l.back(),
      (g1 * ((tw.beta * u[nv - 1] + tw.alpha * v[nv - 1] + w[nv - 1]) * tw.delta.inverse())).to_affine());
  EXPECT_EQ(params.a[0], (g1 * u[0]).to_affine());

  const Fr r = rand_fr(rng), s = rand_fr(rng);
  const Proof proof = prove(params, witness_from_r1cs(in.cs, in.inputs, in.aux), r, s, 2);
  std::vector<Fr> z(in.inputs);
  z.insert(z.end(), in.aux.begin(), in.aux.end());
  Fr a_s = tw.alpha + r * tw.delta, b_s = tw.beta + s * tw.delta, pub = Fr::zero();
  for (std::size_t i = 0; i < nv; ++i) {
    a_s += z[i] * u[i];
    b_s += z[i] * v[i];
    if (i < ni) pub += z[i] * (tw.beta * u[i] + tw.alpha * v[i] + w[i]);
  }
  // Groth16: A B = alpha beta + pub + C delta  =>  C = (A B - alpha beta - pub) / delta.
  const Fr c_s = (a_s * b_s - tw.alpha * tw.beta - pub) * tw.delta.inverse();
  EXPECT_EQ(proof.a, (g1 * a_s).to_affine());
  EXPECT_EQ(proof.b, (g2 * b_s).to_affine());
  EXPECT_EQ(proof.c, (g1 * c_s).to_affine());
}

TEST(Groth16, ParametersAndVkRoundTripByteIdentical) {
  auto rng = test::seeded_rng("ParametersAndVkRoundTripByteIdentical");
  Instance in = random_instance(rng, 2, 20);
  const Parameters params = generate_parameters(in.cs, rand_waste(rng), 2);
  const std::vector<std::uint8_t> bytes = params.to_bytes(2);
  ASSERT_EQ(bytes.size(), params.serialized_size());

  // Streaming writer gives the same bytes.
  std::ostringstream stream;
  params.write(stream, 2);
  const std::string streamed = stream.str();
  EXPECT_EQ(std::vector<std::uint8_t>(streamed.begin(), streamed.end()), bytes);

  const Parameters back = Parameters::from_bytes(bytes, PointCheck::kFull, "<test>", 2);
  EXPECT_EQ(back, params);
  EXPECT_EQ(back.to_bytes(), bytes);
  const Parameters back_unchecked = Parameters::from_bytes(bytes, PointCheck::kUnchecked);
  EXPECT_EQ(back_unchecked, params);

  // The .vk is the prefix of the .params image (docs/formats.md, "Groth16 parameters").
  const std::vector<std::uint8_t> vk_bytes = params.vk.to_bytes();
  ASSERT_EQ(vk_bytes.size(), 864 + 4 + 96 * params.vk.ic.size());
  EXPECT_TRUE(std::equal(vk_bytes.begin(), vk_bytes.end(), bytes.begin()));
  EXPECT_EQ(VerifyingKey::from_bytes(vk_bytes).to_bytes(), vk_bytes);

  io::TempDir dir("cuzk_g16_");
  params.write_file(dir.file("p.params"));
  params.vk.write_file(dir.file("p.vk"));
  EXPECT_EQ(Parameters::read(dir.file("p.params"), PointCheck::kUnchecked).to_bytes(), bytes);
  EXPECT_EQ(VerifyingKey::read(dir.file("p.vk")), params.vk);

  const ParametersInfo info = read_parameters_info(dir.file("p.params"));
  EXPECT_EQ(info.file_size, bytes.size());
  EXPECT_EQ(info.num_inputs(), params.vk.ic.size());
  EXPECT_EQ(info.num_aux(), params.l.size());
  EXPECT_EQ(info.domain_size(), params.domain_size());
  EXPECT_EQ(info.vk_bytes(), vk_bytes.size());
  EXPECT_EQ(info.vector("a").count, params.a.size());
  EXPECT_EQ(info.vector("b_g2").count, params.b_g2.size());
  EXPECT_EQ(info.vector("b_g2").point_bytes, 192u);
  EXPECT_EQ(info.vector("h").length_offset, vk_bytes.size());
}

// Expects a parameter fault (Groth16Error kParameters, as every fault of a parameter file is) at `offset`
// whose message contains `needle`.
template <class F>
void expect_parameter_fault(F&& f, std::uint64_t offset, const std::string& needle) {
  try {
    f();
    ADD_FAILURE() << "no parameter fault (expected one at offset " << offset << ")";
  } catch (const Groth16Error& e) {
    EXPECT_EQ(e.kind(), Groth16ErrorKind::kParameters) << e.what();
    EXPECT_NE(std::string(e.what()).find(needle), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("offset " + std::to_string(offset)), std::string::npos) << e.what();
  }
}

TEST(Groth16, MalformedParameterFiles) {
  auto rng = test::seeded_rng("MalformedParameterFiles");
  Instance in = random_instance(rng, 1, 10);
  const Parameters params = generate_parameters(in.cs, rand_waste(rng), 2);
  const std::vector<std::uint8_t> bytes = params.to_bytes();
  const std::uint64_t h_len_at = params.vk.serialized_size();
  const std::uint64_t l_len_at = h_len_at + 4 + 96 * params.h.size();
  io::TempDir dir("cuzk_g16_");
  const std::string path = dir.file("bad.params");

  // Truncated in the middle of l: the error names the file, the vector and the offset of l's points.
  std::vector<std::uint8_t> cut(bytes.begin(),
                                bytes.begin() + static_cast<std::ptrdiff_t>(l_len_at + 4 + 100));
  write_raw(path, cut);
  expect_parameter_fault([&] { (void)Parameters::read(path, PointCheck::kUnchecked); }, l_len_at + 4,
                         "vector l");
  expect_parameter_fault([&] { (void)read_parameters_info(path); }, l_len_at + 4, "vector l");
  try {
    (void)Parameters::read(path, PointCheck::kUnchecked);
  } catch (const Groth16Error& e) {
    EXPECT_EQ(std::string(e.what()).rfind(path, 0), 0u) << "the message begins with the file: " << e.what();
  }

  // Truncated inside the vk and inside a length field.
  write_raw(path, std::span(bytes).first(500));
  // 500 bytes end inside gamma_g2 (bytes 384..575: alpha_g1 96, beta_g1 96, beta_g2 192 come first).
  expect_parameter_fault([&] { (void)Parameters::read(path, PointCheck::kUnchecked); }, 384, "vk.gamma_g2");
  write_raw(path, std::span(bytes).first(h_len_at + 2));
  expect_parameter_fault([&] { (void)Parameters::read(path, PointCheck::kUnchecked); }, h_len_at,
                         "length of vector h");

  // A garbage length (2^32 - 1 points) is caught by the size check before anything is allocated.
  std::vector<std::uint8_t> garbage = bytes;
  std::fill_n(garbage.begin() + static_cast<std::ptrdiff_t>(l_len_at), 4, 0xff);
  write_raw(path, garbage);
  expect_parameter_fault([&] { (void)Parameters::read(path, PointCheck::kUnchecked); }, l_len_at + 4,
                         "vector l");
  expect_parameter_fault([&] { (void)read_parameters_info(path); }, l_len_at + 4, "vector l");

  // One trailing byte.
  std::vector<std::uint8_t> longer = bytes;
  longer.push_back(0);
  write_raw(path, longer);
  expect_parameter_fault([&] { (void)Parameters::read(path, PointCheck::kUnchecked); }, bytes.size(),
                         "trailing");
  expect_parameter_fault([&] { (void)read_parameters_info(path); }, bytes.size(), "trailing");

  // A point at infinity in a vector (bellperson read rejects it whatever the check).
  const std::uint64_t l1_at = l_len_at + 4 + 96;  // l[1]
  std::vector<std::uint8_t> inf = bytes;
  std::fill_n(inf.begin() + static_cast<std::ptrdiff_t>(l1_at), 96, 0);
  inf[l1_at] = 0x40;
  write_raw(path, inf);
  expect_parameter_fault([&] { (void)Parameters::read(path, PointCheck::kUnchecked); }, l1_at, "point 1");

  // A point off the curve in h: kUnchecked accepts it (as rust-fil-proofs' unchecked read), kFull not.
  const std::uint64_t h2_at = h_len_at + 4 + 2 * 96;
  std::vector<std::uint8_t> off_curve = bytes;
  off_curve[h2_at + 95] ^= 1;  // last byte of y
  write_raw(path, off_curve);
  EXPECT_NO_THROW((void)Parameters::read(path, PointCheck::kUnchecked));
  expect_parameter_fault([&] { (void)Parameters::read(path, PointCheck::kNoSubgroup); }, h2_at,
                         "vector h (point 2)");

  // The vk is always fully checked: the same flip in vk.alpha_g1 fails even for an unchecked read.
  std::vector<std::uint8_t> bad_vk = bytes;
  bad_vk[95] ^= 1;
  expect_parameter_fault([&] { (void)Parameters::from_bytes(bad_vk, PointCheck::kUnchecked, "mem"); }, 0,
                         "vk.alpha_g1");

  // Missing file.
  EXPECT_THROW((void)Parameters::read(dir.file("missing.params"), PointCheck::kUnchecked), Groth16Error);
  EXPECT_THROW((void)VerifyingKey::read(dir.file("missing.vk")), Groth16Error);
}

// No element of a verifying key may be the identity, in any reader of one: with gamma at infinity `cuzk
// verify` accepted a forged proof, and bellperson's read accepts the six fixed elements there.
TEST(Groth16, VerifyingKeyPointsAtInfinityAreRefusedByEveryReader) {
  auto rng = test::seeded_rng("VerifyingKeyPointsAtInfinityAreRefusedByEveryReader");
  Instance in = random_instance(rng, 1, 10);
  const Parameters params = generate_parameters(in.cs, rand_waste(rng), 2);
  const std::vector<std::uint8_t> params_bytes = params.to_bytes();
  const std::vector<std::uint8_t> vk_bytes = params.vk.to_bytes();
  io::TempDir dir("cuzk_g16_");
  const std::string vk_path = dir.file("bad.vk");
  const std::string params_path = dir.file("bad.params");

  struct Element {
    const char* name;
    std::uint64_t offset, size;
  };
  // bellperson's layout (parameters.hpp); ic[1] follows the length field at 864 and ic[0].
  const Element elements[] = {{"vk.alpha_g1", 0, 96},
                              {"vk.beta_g1", 96, 96},
                              {"vk.beta_g2", 192, 192},
                              {"vk.gamma_g2", 384, 192},
                              {"vk.delta_g1", 576, 96},
                              {"vk.delta_g2", 672, 192},
                              {"vector ic (point 1)", 868 + 96, 96}};
  for (const Element& e : elements) {
    SCOPED_TRACE(e.name);
    auto at_infinity = [&](std::vector<std::uint8_t> bytes) {
      std::fill_n(bytes.begin() + static_cast<std::ptrdiff_t>(e.offset), e.size, 0);
      bytes[e.offset] = 0x40;  // uncompressed infinity: the flag, then zeros
      return bytes;
    };
    write_raw(vk_path, at_infinity(vk_bytes));
    write_raw(params_path, at_infinity(params_bytes));
    expect_parameter_fault([&] { (void)VerifyingKey::read(vk_path); }, e.offset, e.name);
    expect_parameter_fault([&] { (void)Parameters::read(params_path, PointCheck::kUnchecked); }, e.offset,
                           e.name);
    expect_parameter_fault([&] { (void)read_parameter_header(params_path); }, e.offset, e.name);
    try {
      (void)read_parameter_header(params_path);
    } catch (const Groth16Error& err) {
      EXPECT_EQ(std::string(err.what()).rfind(params_path, 0), 0u) << err.what();
      EXPECT_NE(std::string(err.what()).find("infinity"), std::string::npos) << err.what();
    }
  }
}

TEST(Groth16, BatchVerify) {
  auto rng = test::seeded_rng("BatchVerify");
  // Several witnesses of one circuit shape: the demo circuit with different secrets.
  std::vector<DemoCircuit> circuits;
  for (int j = 0; j < 4; ++j) {
    const std::vector<Fr> secrets{rand_fr(rng), rand_fr(rng)};
    circuits.push_back(make_demo_circuit(secrets, 8));
  }
  const Parameters params = generate_parameters(circuits[0].cs, rand_waste(rng), 2);
  const PreparedVerifyingKey pvk = prepare_verifying_key(params.vk);
  std::vector<Proof> proofs;
  std::vector<std::vector<Fr>> inputs;
  for (const auto& d : circuits) {
    ASSERT_EQ(d.cs, circuits[0].cs);
    proofs.push_back(prove(params, witness_from_r1cs(d.cs, d.inputs, d.aux), rand_fr(rng), rand_fr(rng), 2));
    inputs.emplace_back(d.public_inputs().begin(), d.public_inputs().end());
    EXPECT_TRUE(verify(pvk, proofs.back(), inputs.back()));
  }
  EXPECT_TRUE(verify_batch(pvk, proofs, inputs));
  EXPECT_TRUE(verify_batch(pvk, std::span(proofs).first(1), std::span(inputs).first(1)));

  auto bad_inputs = inputs;
  std::swap(bad_inputs[1], bad_inputs[2]);  // each input list belongs to another proof
  EXPECT_FALSE(verify_batch(pvk, proofs, bad_inputs));
  auto bad_proofs = proofs;
  bad_proofs[3].c = bad_proofs[2].c;
  EXPECT_FALSE(verify_batch(pvk, bad_proofs, inputs));

  EXPECT_THROW(verify_batch(pvk, proofs, std::span(inputs).first(3)), Groth16Error);
}

TEST(Groth16, ErrorsForMismatchedInputs) {
  auto rng = test::seeded_rng("ErrorsForMismatchedInputs");
  Instance in = random_instance(rng, 2, 20);
  const Parameters params = generate_parameters(in.cs, rand_waste(rng), 2);
  const PreparedVerifyingKey pvk = prepare_verifying_key(params.vk);
  const ProverInput witness = witness_from_r1cs(in.cs, in.inputs, in.aux);
  const Proof proof = prove(params, witness, rand_fr(rng), rand_fr(rng), 2);

  // Public input count must be ic.size() - 1.
  std::vector<Fr> too_many(in.public_inputs().begin(), in.public_inputs().end());
  too_many.push_back(Fr::one());
  try {
    (void)verify(pvk, proof, too_many);
    ADD_FAILURE() << "no Groth16Error";
  } catch (const Groth16Error& e) {
    EXPECT_EQ(e.kind(), Groth16ErrorKind::kMalformedInput);
  }

  // Parameters of another circuit.
  Instance other = random_instance(rng, 2, 25);
  try {
    (void)prove(generate_parameters(other.cs, rand_waste(rng), 2), witness, Fr::one(), Fr::one(), 2);
    ADD_FAILURE() << "no Groth16Error";
  } catch (const Groth16Error& e) {
    EXPECT_EQ(e.kind(), Groth16ErrorKind::kParameters);
  }

  // The witness alone (no a, b, c) for an engine that holds no constraints: the CPU's.
  ProverInput only_witness = witness;
  only_witness.a.clear();
  only_witness.b.clear();
  only_witness.c.clear();
  auto cpu = make_cpu_engine(params, 2);
  EXPECT_EQ(cpu->held_constraints(), 0u);
  try {
    (void)prove_with(*cpu, header_of(params), only_witness, Fr::one(), Fr::one());
    ADD_FAILURE() << "no Groth16Error";
  } catch (const Groth16Error& e) {
    EXPECT_EQ(e.kind(), Groth16ErrorKind::kMalformedInput);
  }

  // A witness of the wrong size.
  std::vector<Fr> short_aux(in.aux.begin(), in.aux.end() - 1);
  EXPECT_THROW(witness_from_r1cs(in.cs, in.inputs, short_aux), Groth16Error);
  ProverInput not_one = witness;
  not_one.inputs[0] = Fr::from_u64(2);
  EXPECT_THROW(prove(params, not_one, Fr::one(), Fr::one()), Groth16Error);

  // An unsatisfied witness is detected by first_unsatisfied, and its proof does not verify.
  ProverInput broken = witness;
  broken.c[3] += Fr::one();
  EXPECT_EQ(first_unsatisfied(broken), std::optional<std::size_t>(3));
  EXPECT_FALSE(verify(pvk, prove(params, broken, rand_fr(rng), rand_fr(rng), 2), in.public_inputs()));
}

TEST(Groth16, SetupRejectsUnconstrainedAux) {
  auto rng = test::seeded_rng("SetupRejectsUnconstrainedAux");
  Instance in = random_instance(rng, 1, 10);
  in.cs.num_aux += 1;  // one more aux variable that no constraint mentions
  try {
    (void)generate_parameters(in.cs, rand_waste(rng), 2);
    ADD_FAILURE() << "no Groth16Error";
  } catch (const Groth16Error& e) {
    EXPECT_EQ(e.kind(), Groth16ErrorKind::kUnconstrainedVariable);
    EXPECT_NE(std::string(e.what()).find("aux variable " + std::to_string(in.cs.num_aux - 1)),
              std::string::npos)
        << e.what();
  }
  // An aux variable used only in C rows is constrained (its L element is w_i(tau) / delta).
  Instance ok = random_instance(rng, 1, 10);
  EXPECT_NO_THROW((void)generate_parameters(ok.cs, rand_waste(rng), 2));

  // A malformed R1CS (a column beyond the variables) is rejected before any work.
  ok.cs.a.columns[0] = static_cast<std::uint32_t>(ok.cs.num_variables());
  try {
    (void)generate_parameters(ok.cs, rand_waste(rng), 2);
    ADD_FAILURE() << "no Groth16Error";
  } catch (const Groth16Error& e) {
    EXPECT_EQ(e.kind(), Groth16ErrorKind::kMalformedInput);
  }
}

TEST(Groth16, FixedBaseTableMatchesDoubleAndAdd) {
  auto rng = test::seeded_rng("FixedBaseTableMatchesDoubleAndAdd");
  std::vector<Fr> scalars{Fr::zero(), Fr::one(), -Fr::one(), Fr::from_u64(1u << 20)};
  for (int i = 0; i < 20; ++i) scalars.push_back(rand_fr(rng));
  const G1Affine base1 = (G1::generator() * rand_nonzero(rng)).to_affine();
  const G2Affine base2 = (G2::generator() * rand_nonzero(rng)).to_affine();
  for (unsigned w : {3u, 7u, 8u}) {
    FixedBaseTable<algebra::G1Config> t1(base1, w, 2);
    FixedBaseTable<algebra::G2Config> t2(base2, w, 2);
    const auto r1 = t1.mul_many(scalars, 2);
    const auto r2 = t2.mul_many(scalars, 2);
    for (std::size_t i = 0; i < scalars.size(); ++i) {
      EXPECT_EQ(r1[i], (G1::from_affine(base1).mul_limbs(scalars[i].to_canonical())).to_affine())
          << "w=" << w;
      EXPECT_EQ(r2[i], (G2::from_affine(base2).mul_limbs(scalars[i].to_canonical())).to_affine())
          << "w=" << w;
    }
  }
  // Small batches get small tables; the width is capped at 12 bits (table memory).
  EXPECT_LE(FixedBaseTable<algebra::G1Config>::best_window(10), 4u);
  EXPECT_EQ(FixedBaseTable<algebra::G1Config>::best_window(std::size_t{1} << 30), 12u);
}

TEST(Groth16, RandomFieldElementsDiffer) {
  // The CSPRNG path: canonical values, and two draws that collide with probability 2^-254.
  const Fr x = random_fr(), y = random_fr();
  EXPECT_NE(x, y);
  const Fr z = random_fr_128();
  EXPECT_EQ(z.to_canonical()[2], 0u);
  EXPECT_EQ(z.to_canonical()[3], 0u);
  const ToxicWaste tw = ToxicWaste::random();
  EXPECT_FALSE(tw.gamma.is_zero());
  EXPECT_FALSE(tw.delta.is_zero());
}

}  // namespace
