// Evaluating a recorded R1cs against a witness, and the A/B densities bellperson's prover tracks.
// Used by tests and by anything that needs a = A·z, b = B·z, c = C·z without the PCE machinery.
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "prover/r1cs/r1cs.hpp"

namespace cuzk::r1cs {

// z = (inputs..., aux...) in the unified numbering of r1cs.hpp.
std::vector<Fr> full_assignment(std::span<const Fr> inputs, std::span<const Fr> aux);

// M·z, one value per row.
std::vector<Fr> multiply(const SparseMatrix& m, std::span<const Fr> z);

struct Evaluation {
  std::vector<Fr> a, b, c;
};
Evaluation evaluate(const R1cs& r1cs, std::span<const Fr> inputs, std::span<const Fr> aux);

// Index of the first constraint with a_k * b_k != c_k, if any. Throws std::invalid_argument when the
// witness does not have num_inputs + num_aux values.
std::optional<std::size_t> first_unsatisfied(const R1cs& r1cs, std::span<const Fr> inputs,
                                             std::span<const Fr> aux);

// Which variables occur (with a non-zero merged coefficient) in A and in B. bellperson's prover keeps
// a_aux_density, b_input_density and b_aux_density; inputs are always dense in A (the finishing
// constraints input_i * 0 = 0 put every input in A).
struct Densities {
  DensityBits a_aux;
  DensityBits b_input;
  DensityBits b_aux;
};
Densities compute_densities(const R1cs& r1cs);

}  // namespace cuzk::r1cs
