// Poseidon parameters exactly as neptune 11 builds them for BLS12-381 Fr (docs/circuit.md §8.2).
//
// Everything is generated in code, as neptune does it, never pasted from tables:
// - round numbers: neptune src/round_numbers.rs (a port of the Poseidon authors' calc_round_numbers.py,
//   computed in f32 like neptune, including its quirks);
// - round constants: the Grain LFSR of neptune src/round_constants.rs;
// - MDS: the Cauchy matrix M[i][j] = 1 / (x_i + y_j), x_i = i, y_j = t + j (neptune src/mds.rs);
// - the pre-processed ("optimized static") form used by both neptune's native `Poseidon::hash` and its
//   legacy circuit `circuit::poseidon_hash`: compressed round constants (src/preprocessing.rs) and
//   the sparse factorisation of the partial-round MDS matrices (src/mds.rs factor_to_sparse_matrices).
//
// Matrix convention: neptune applies matrices as row-vector products (`apply_matrix`:
// out[j] = sum_i m[i][j] * v[i]); the functions below say which one they use.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::gadgets::poseidon {

using algebra::Fr;

// neptune `Strength`. Filecoin uses Standard (neptune DEFAULT_STRENGTH; rfp poseidon_types.rs).
enum class Strength { kStandard, kStrengthened };

struct RoundNumbers {
  std::size_t full_rounds;
  std::size_t partial_rounds;
};

// neptune round_numbers.rs `calc_round_numbers(t, security_margin)`.
RoundNumbers calc_round_numbers(std::size_t width, bool security_margin);
// neptune lib.rs `round_numbers(arity, strength)`: base = calc_round_numbers(arity + 1, true);
// strengthened = base with partial rounds * 1.25 rounded up.
RoundNumbers round_numbers(std::size_t arity, Strength strength);

// neptune round_constants.rs `generate_constants(field, sbox, field_size, t, r_f, r_p)`: (r_f + r_p) * t
// constants from the Grain LFSR in self-shrinking mode, each a field_size-bit big-endian integer with
// rejection of values >= p. neptune passes field = 1 (GF(p)), sbox = 1 (x^5), field_size = Fr::NUM_BITS.
std::vector<Fr> grain_round_constants(std::uint8_t field, std::uint8_t sbox, std::uint16_t field_size,
                                      std::uint16_t width, std::uint16_t full_rounds,
                                      std::uint16_t partial_rounds);

// Square matrix, row-major.
class Matrix {
 public:
  Matrix() = default;
  explicit Matrix(std::size_t size) : size_(size), data_(size * size) {}
  static Matrix identity(std::size_t size);

  std::size_t size() const { return size_; }
  Fr& operator()(std::size_t row, std::size_t col) { return data_[row * size_ + col]; }
  const Fr& operator()(std::size_t row, std::size_t col) const { return data_[row * size_ + col]; }
  friend bool operator==(const Matrix& a, const Matrix& b) {
    return a.size_ == b.size_ && a.data_ == b.data_;
  }

 private:
  std::size_t size_ = 0;
  std::vector<Fr> data_;
};

Matrix mat_mul(const Matrix& a, const Matrix& b);  // ordinary product a * b
Matrix transpose(const Matrix& m);
Matrix minor(const Matrix& m, std::size_t row, std::size_t col);
std::optional<Matrix> invert(const Matrix& m);  // Gauss-Jordan; nullopt when singular
// neptune `apply_matrix(m, v)`: out[j] = sum_i m(i, j) * v[i] (the row vector v times m).
std::vector<Fr> apply_matrix(const Matrix& m, std::span<const Fr> v);

// neptune mds.rs `generate_mds(t)`: M(i, j) = 1 / (i + (t + j)); symmetric by construction.
Matrix cauchy_mds(std::size_t width);

// A matrix whose minor at (0, 0) is the identity (neptune `SparseMatrix`, the M'' of a factorisation):
// w_hat = its first column (width entries), v_rest = its first row without entry 0 (width - 1 entries).
struct SparseMatrix {
  std::vector<Fr> w_hat;
  std::vector<Fr> v_rest;
};

// Every constant of one Poseidon instance (neptune `PoseidonConstants` with HashType::MerkleTree).
struct Constants {
  std::size_t arity = 0;
  std::size_t width = 0;  // arity + 1
  Strength strength = Strength::kStandard;
  std::size_t full_rounds = 0;
  std::size_t half_full_rounds = 0;
  std::size_t partial_rounds = 0;
  Fr domain_tag;                    // HashType::MerkleTree: 2^arity - 1 (neptune Arity::tag)
  std::vector<Fr> round_constants;  // Grain output, width per round, (full + partial) * width
  Matrix mds;                       // M
  Matrix mds_inverse;               // M^-1
  // Pre-processed constants: width (pre-add of round 0), then width post-adds for each of the first
  // half_full_rounds rounds, one per partial round, width for each final full round but the last.
  // Total full_rounds * width + partial_rounds (neptune preprocessing.rs compress_round_constants).
  std::vector<Fr> compressed_round_constants;
  Matrix pre_sparse_matrix;                   // replaces M after the last initial full round
  std::vector<SparseMatrix> sparse_matrices;  // one per partial round, in application order
};

// Builds the constants (takes a few ms to ~100 ms for wide instances); prefer `constants()`.
Constants make_constants(std::size_t arity, Strength strength = Strength::kStandard);

// Shared, lazily built, thread-safe instance for `arity` in {1..36} (neptune implements 1..36).
const Constants& constants(std::size_t arity, Strength strength = Strength::kStandard);

}  // namespace cuzk::gadgets::poseidon
