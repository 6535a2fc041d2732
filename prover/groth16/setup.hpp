// Groth16 parameter generation with bellperson's semantics (src/groth16/generator.rs), for tests and
// for `cuzk params setup` (never for production: whoever ran it knows the toxic waste).
//
//   * the circuit's constraints, then one `input_i * 0 = 0` per input (A = input i, B = C = 0);
//   * m = the smallest power of two >= that number of constraints; omega as EvaluationDomain;
//   * Lagrange basis at tau: L_k(tau) = ifft(1, tau, ..., tau^(m-1))_k, computed here in closed form
//     (Z(tau) / m) * omega^k / (tau - omega^k), which is the same field value;
//   * u_i, v_i, w_i(tau) by walking the A, B, C matrices; ic_i = (beta u_i + alpha v_i + w_i) / gamma
//     for inputs, l_i = (...) / delta for aux (a zero l_i is bellperson's UnconstrainedVariable);
//   * h_j = tau^j Z(tau) / delta for j < m - 1;
//   * a = u_i(tau) for all inputs then the aux with A density; b_g1/b_g2 = v_i(tau) for inputs and
//     aux with B density (bellperson drops the points at infinity, which are exactly these).
// The generators are the standard G1/G2 generators (bellperson's generate_random_parameters draws
// random ones; verification does not depend on the choice).
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "prover/algebra/bls12_381.hpp"
#include "prover/groth16/densities.hpp"
#include "prover/groth16/domain.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

struct ToxicWaste {
  Fr tau, alpha, beta, gamma, delta;
  // Every element uniform and non-zero, from the CSPRNG.
  static ToxicWaste random();
  // Deterministic waste for tests and reproducible test parameters (`cuzk params setup --seed`): element
  // j is the first SHA-256("cuzk ToxicWaste::from_seed" || seed (8 B LE) || j (1 B) || counter (4 B LE)),
  // read little-endian with the top bit cleared, that is below r and non-zero. Whoever knows the seed
  // knows the waste: never for production.
  static ToxicWaste from_seed(std::uint64_t seed);
};

// Throws Groth16Error: kMalformedInput for a badly shaped R1CS, kDomainTooLarge above 2^32
// constraints, kUnconstrainedVariable for an aux variable no constraint uses (named by index),
// kParameters when the toxic waste is degenerate (gamma or delta zero, tau in the domain, or a query
// element that would be the point at infinity: probability ~ size / r for random waste).
// `threads` = 0 uses every OpenMP thread.
Parameters generate_parameters(const r1cs::R1cs& cs, const ToxicWaste& waste, unsigned threads = 0);

// Building blocks shared with the streaming setup (pce/test_setup.hpp), so that both compute the same
// values and raise the same errors. `threads` = 0 uses every OpenMP thread.
//
// out[i] = scale * x^(first_exponent + i).
void fill_powers(const Fr& x, const Fr& scale, std::uint64_t first_exponent, std::span<Fr> out,
                 unsigned threads);
// L_k(tau) for k < m, the Lagrange basis of the domain at tau (z_tau = tau^m - 1, non-zero).
std::vector<Fr> lagrange_at(const EvaluationDomain& domain, const Fr& tau, const Fr& z_tau, unsigned threads);
// Groth16Error(kParameters) "degenerate toxic waste: <what> (...)".
[[noreturn]] void throw_degenerate_waste(const std::string& what);
// Groth16Error(kUnconstrainedVariable) for aux variable `aux_index` (variable `variable`).
[[noreturn]] void throw_unconstrained_variable(std::size_t aux_index, std::size_t variable);

}  // namespace cuzk::groth16
