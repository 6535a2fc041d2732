#include "prover/r1cs/constraint_system.hpp"

#include <array>

namespace cuzk::r1cs {
namespace detail {

namespace {

std::array<Fr, 256> make_powers_of_two() {
  std::array<Fr, 256> powers;
  powers[0] = Fr::one();
  for (std::size_t i = 1; i < powers.size(); ++i) powers[i] = powers[i - 1].dbl();
  return powers;
}

}  // namespace

const Fr& pow2(std::size_t i) {
  static const std::array<Fr, 256> powers = make_powers_of_two();
  return powers[i];
}

void MatrixBuilder::reserve(std::size_t rows, std::size_t nnz) {
  matrix_.row_offsets.reserve(rows + 1);
  matrix_.columns.reserve(nnz);
  matrix_.values.reserve(nnz);
}

void MatrixBuilder::append_row(std::span<const Term> terms, std::vector<std::uint64_t>& scratch) {
  auto& columns = matrix_.columns;
  auto& values = matrix_.values;
  // Merge repeated variables (bellperson's LinearCombination sums their coefficients) and drop zero sums.
  auto emit = [&](std::uint32_t raw, const Fr& sum) {
    if (!sum.is_zero()) {
      columns.push_back(raw);
      values.push_back(sum);
    }
  };
  bool sorted = true;
  for (std::size_t i = 1; i < terms.size() && sorted; ++i)
    sorted = terms[i - 1].var.raw() <= terms[i].var.raw();
  if (sorted) {
    for (std::size_t i = 0; i < terms.size();) {
      Fr sum = terms[i].coeff;
      std::size_t j = i + 1;
      while (j < terms.size() && terms[j].var == terms[i].var) sum += terms[j++].coeff;
      emit(terms[i].var.raw(), sum);
      i = j;
    }
  } else {
    // Sort (variable, position) keys rather than the 40-byte terms; positions keep the order stable.
    scratch.resize(terms.size());
    for (std::size_t i = 0; i < terms.size(); ++i) scratch[i] = std::uint64_t{terms[i].var.raw()} << 32 | i;
    std::sort(scratch.begin(), scratch.end());
    for (std::size_t i = 0; i < scratch.size();) {
      std::uint32_t raw = static_cast<std::uint32_t>(scratch[i] >> 32);
      Fr sum = terms[static_cast<std::uint32_t>(scratch[i])].coeff;
      std::size_t j = i + 1;
      while (j < scratch.size() && static_cast<std::uint32_t>(scratch[j] >> 32) == raw) {
        sum += terms[static_cast<std::uint32_t>(scratch[j++])].coeff;
      }
      emit(raw, sum);
      i = j;
    }
  }
  matrix_.row_offsets.push_back(columns.size());
}

SparseMatrix MatrixBuilder::finish(std::size_t num_inputs) && {
  for (auto& column : matrix_.columns) {
    column = static_cast<std::uint32_t>(Variable::from_raw(column).unified(num_inputs));
  }
  SparseMatrix out = std::move(matrix_);
  matrix_ = SparseMatrix{};
  return out;
}

}  // namespace detail
}  // namespace cuzk::r1cs
