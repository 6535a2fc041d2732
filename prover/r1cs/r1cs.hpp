// A rank-1 constraint system as plain data: what the Recorder produces and what Groth16 setup,
// the PCE cache and the tests consume.
//
// Variable numbering (bellperson's): unified index v in [0, num_inputs + num_aux):
//   v < num_inputs   -> input v (input 0 is the constant ONE, then alloc_input order)
//   v >= num_inputs  -> aux v - num_inputs (alloc order)
// Constraint k is <A_k, z> * <B_k, z> = <C_k, z> with z = (inputs..., aux...).
// The matrices hold the circuit's own constraints only. bellperson's proving-time finishing step
// (one `input_i * 0 = 0` constraint per input, appended after the circuit's constraints) is NOT in
// them; the groth16 layer appends it (see groth16::num_constraints_with_inputs).
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::r1cs {

using algebra::Fr;

// Compressed sparse rows: row k's terms are [row_offsets[k], row_offsets[k+1]).
struct SparseMatrix {
  std::vector<std::uint64_t> row_offsets{0};
  std::vector<std::uint32_t> columns;  // unified variable index
  std::vector<Fr> values;              // non-zero coefficients

  std::size_t rows() const { return row_offsets.size() - 1; }
  std::size_t nnz() const { return columns.size(); }
  friend bool operator==(const SparseMatrix&, const SparseMatrix&) = default;
};

// A bitset over variables, LSB of word 0 = first variable (bitvec::as_raw_slice, as supraseal reads it).
struct DensityBits {
  std::vector<std::uint64_t> words;
  std::size_t bit_len = 0;

  void resize(std::size_t n) {
    bit_len = n;
    words.assign((n + 63) / 64, 0);
  }
  void set(std::size_t i) { words[i / 64] |= std::uint64_t{1} << (i % 64); }
  bool test(std::size_t i) const { return (words[i / 64] >> (i % 64)) & 1; }
  std::size_t popcount() const {
    std::size_t n = 0;
    for (auto w : words) n += static_cast<std::size_t>(__builtin_popcountll(w));
    return n;
  }
  friend bool operator==(const DensityBits&, const DensityBits&) = default;
};

struct R1cs {
  std::size_t num_inputs = 1;  // including ONE
  std::size_t num_aux = 0;
  SparseMatrix a, b, c;

  std::size_t num_constraints() const { return a.rows(); }
  std::size_t num_variables() const { return num_inputs + num_aux; }
  friend bool operator==(const R1cs&, const R1cs&) = default;
};

}  // namespace cuzk::r1cs
