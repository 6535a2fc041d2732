// Native Poseidon (neptune 11, HashType::MerkleTree) and the values of neptune's legacy circuit.
//
// `hash` is neptune's `Poseidon::hash` (the "optimized static" mode: compressed round constants and
// sparse partial-round matrices), which rust-fil-proofs uses for every native Poseidon hash (tree C,
// tree R, comm_r). `hash_reference` is neptune's `hash_correct`, the textbook permutation with the
// plain round constants and M in every round; the two agree (neptune test `hash_values`).
//
// The legacy circuit `neptune::circuit::poseidon_hash` computes exactly the optimized-static
// intermediate states, so `hash_with_circuit_witness` emits the circuit's auxiliary values directly
// (the WitnessGen fast path), in the circuit's allocation order (docs/circuit.md §8.2):
//   first full round: for each preimage element i = 1..arity: (x + k)^2, (x + k)^4, (x + k)^5 + k';
//   every later S-box: its input v (allocated from a linear combination), v^2, v^4, v^5 (+ k');
//   then the output state[1].
#pragma once

#include <array>
#include <cstddef>
#include <span>
#include <stdexcept>

#include "prover/gadgets/poseidon_constants.hpp"

namespace cuzk::gadgets::poseidon {

// The optimized-static permutation; `record(const Fr&)` is called with each value the legacy circuit
// allocates, in allocation order (circuit_constraint_count(c) calls). Defined below.
template <class Record>
Fr hash_traced(const Constants& c, std::span<const Fr> preimage, Record&& record);

// neptune `Poseidon::new_with_preimage(preimage, constants).hash()`; preimage.size() == c.arity.
Fr hash(const Constants& c, std::span<const Fr> preimage);
// The same with the shared Standard constants for arity = preimage.size().
Fr hash(std::span<const Fr> preimage);
// neptune `hash_in_mode(HashMode::Correct)`.
Fr hash_reference(const Constants& c, std::span<const Fr> preimage);

// Number of constraints (= auxiliary variables) of neptune's legacy circuit for these constants:
// 3 * arity + 4 * (width * full_rounds + partial_rounds - width) + 1 (docs/circuit.md §8.2).
std::size_t circuit_constraint_count(const Constants& c);
// Writes circuit_constraint_count(c) values to `aux` and returns the hash.
Fr hash_with_circuit_witness(const Constants& c, std::span<const Fr> preimage, Fr* aux);

// rust-fil-proofs filecoin-hashers poseidon.rs `PoseidonFunction::hash_md`: arity-36 Merkle-Damgard,
// acc = elements[0], then for each chunk of 35 following elements acc = H36(acc, chunk, zero padding).
// Requires elements.size() > 1.
inline constexpr std::size_t kHashMdArity = 36;
Fr hash_md(std::span<const Fr> elements);

// --- implementation of hash_traced ---

namespace detail {

inline constexpr std::size_t kMaxWidth = 37;  // arity 36 (neptune's largest arity; rfp hash_md)
using State = std::array<Fr, kMaxWidth>;

// state <- state * m (neptune apply_matrix / product_mds_with_matrix: out[j] = sum_i m(i, j) state[i]).
inline void apply_dense(const Matrix& m, State& state, std::size_t width) {
  State out{};
  for (std::size_t i = 0; i < width; ++i) {
    const Fr s = state[i];
    const Fr* row = &m(i, 0);
    for (std::size_t j = 0; j < width; ++j) out[j] += row[j] * s;
  }
  for (std::size_t j = 0; j < width; ++j) state[j] = out[j];
}

// neptune product_mds_with_sparse_matrix.
inline void apply_sparse(const SparseMatrix& s, State& state, std::size_t width) {
  Fr first = Fr::zero();
  for (std::size_t i = 0; i < width; ++i) first += s.w_hat[i] * state[i];
  const Fr e0 = state[0];
  for (std::size_t j = 1; j < width; ++j) state[j] += s.v_rest[j - 1] * e0;
  state[0] = first;
}

// neptune round_product_mds: rounds are counted from 0 over all rounds; the last initial full round
// uses the pre-sparse matrix, the partial rounds the sparse ones, every other round M.
inline void mix(const Constants& c, std::size_t round, State& state) {
  const std::size_t sparse_offset = c.half_full_rounds - 1;
  if (round == sparse_offset) {
    apply_dense(c.pre_sparse_matrix, state, c.width);
  } else if (round > sparse_offset && round < c.half_full_rounds + c.partial_rounds) {
    apply_sparse(c.sparse_matrices[round - sparse_offset - 1], state, c.width);
  } else {
    apply_dense(c.mds, state, c.width);
  }
}

inline void check_preimage(const Constants& c, std::span<const Fr> preimage) {
  if (preimage.size() != c.arity)
    throw std::invalid_argument("poseidon: preimage length must equal the arity");
}

}  // namespace detail

template <class Record>
Fr hash_traced(const Constants& c, std::span<const Fr> preimage, Record&& record) {
  detail::check_preimage(c, preimage);
  const std::size_t w = c.width;
  detail::State state{};
  state[0] = c.domain_tag;
  for (std::size_t i = 0; i < c.arity; ++i) state[i + 1] = preimage[i];
  const Fr* keys = c.compressed_round_constants.data();
  std::size_t round = 0;

  // First full round: pre-add keys[0..w), post-add keys[w..2w). The tag's S-box is a circuit constant.
  for (std::size_t i = 0; i < w; ++i) {
    Fr x = state[i] + keys[i];
    Fr x2 = x.square();
    Fr x4 = x2.square();
    Fr x5 = x4 * x + keys[w + i];
    if (i != 0) {
      record(x2);
      record(x4);
      record(x5);
    }
    state[i] = x5;
  }
  keys += 2 * w;
  detail::mix(c, round++, state);

  auto sbox = [&record](Fr& v, const Fr* post_key) {
    record(v);
    Fr v2 = v.square();
    record(v2);
    Fr v4 = v2.square();
    record(v4);
    Fr v5 = v4 * v;
    if (post_key) v5 += *post_key;
    record(v5);
    v = v5;
  };
  auto full_round = [&](bool has_post_keys) {
    for (std::size_t i = 0; i < w; ++i) sbox(state[i], has_post_keys ? keys + i : nullptr);
    if (has_post_keys) keys += w;
    detail::mix(c, round++, state);
  };

  for (std::size_t r = 1; r < c.half_full_rounds; ++r) full_round(true);
  for (std::size_t r = 0; r < c.partial_rounds; ++r) {
    sbox(state[0], keys++);
    detail::mix(c, round++, state);
  }
  for (std::size_t r = 1; r < c.half_full_rounds; ++r) full_round(true);
  full_round(false);  // terminal round: no constant after the S-boxes

  record(state[1]);  // the circuit allocates the output from its linear combination
  return state[1];
}

}  // namespace cuzk::gadgets::poseidon
