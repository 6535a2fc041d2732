#include "prover/r1cs/evaluate.hpp"

#include <stdexcept>

namespace cuzk::r1cs {

std::vector<Fr> full_assignment(std::span<const Fr> inputs, std::span<const Fr> aux) {
  std::vector<Fr> z;
  z.reserve(inputs.size() + aux.size());
  z.insert(z.end(), inputs.begin(), inputs.end());
  z.insert(z.end(), aux.begin(), aux.end());
  return z;
}

std::vector<Fr> multiply(const SparseMatrix& m, std::span<const Fr> z) {
  std::vector<Fr> out(m.rows());
  for (std::size_t row = 0; row < m.rows(); ++row) {
    Fr acc = Fr::zero();
    for (std::uint64_t k = m.row_offsets[row]; k < m.row_offsets[row + 1]; ++k) {
      acc += m.values[k] * z[m.columns[k]];
    }
    out[row] = acc;
  }
  return out;
}

namespace {

std::vector<Fr> checked_assignment(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux) {
  if (inputs.size() != r1cs.num_inputs || aux.size() != r1cs.num_aux) {
    throw std::invalid_argument("witness size does not match the constraint system");
  }
  return full_assignment(inputs, aux);
}

}  // namespace

Evaluation evaluate(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux) {
  std::vector<Fr> z = checked_assignment(r1cs, inputs, aux);
  return {multiply(r1cs.a, z), multiply(r1cs.b, z), multiply(r1cs.c, z)};
}

std::optional<std::size_t> first_unsatisfied(const R1cs& r1cs, std::span<const Fr> inputs,
                                             std::span<const Fr> aux) {
  Evaluation e = evaluate(r1cs, inputs, aux);
  for (std::size_t k = 0; k < e.a.size(); ++k) {
    if (e.a[k] * e.b[k] != e.c[k]) return k;
  }
  return std::nullopt;
}

Densities compute_densities(const R1cs& r1cs) {
  Densities d;
  d.a_aux.resize(r1cs.num_aux);
  d.b_input.resize(r1cs.num_inputs);
  d.b_aux.resize(r1cs.num_aux);
  // Zero coefficients never reach the matrices (the recorder drops them), so every entry counts.
  for (std::uint32_t col : r1cs.a.columns) {
    if (col >= r1cs.num_inputs) d.a_aux.set(col - r1cs.num_inputs);
  }
  for (std::uint32_t col : r1cs.b.columns) {
    if (col >= r1cs.num_inputs) {
      d.b_aux.set(col - r1cs.num_inputs);
    } else {
      d.b_input.set(col);
    }
  }
  return d;
}

}  // namespace cuzk::r1cs
