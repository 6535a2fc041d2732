// Randomness for the prover (r, s), test setups (toxic waste) and batch verification weights,
// drawn from OpenSSL's CSPRNG (RAND_bytes). A failing RAND_bytes throws std::runtime_error: there is
// no fallback to a weaker generator.
#pragma once

#include <cstdint>
#include <span>
#include <utility>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::groth16 {

using algebra::Fr;

void random_bytes(std::span<std::uint8_t> out);
// Uniform in [0, r): 255 random bits, rejected while >= r (each try succeeds with probability r/2^255 > 0.9).
Fr random_fr();
// Uniform in [1, r).
Fr random_nonzero_fr();
// Uniform 128-bit integer as a field element (bellperson verify_proofs_batch's weights).
Fr random_fr_128();

// TEST ONLY: r and s derived from a seed (`cuzk prove --test-randomness`), so that runs, engines and memory
// plans can be compared proof for proof. Such proofs are not zero-knowledge: never use them on chain.
std::pair<Fr, Fr> test_randomness(std::uint64_t seed);

}  // namespace cuzk::groth16
