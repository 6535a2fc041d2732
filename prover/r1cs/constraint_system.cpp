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
  merge_terms(terms, scratch, [&](std::uint32_t raw, const Fr& sum) {
    matrix_.columns.push_back(raw);
    matrix_.values.push_back(sum);
  });
  matrix_.row_offsets.push_back(matrix_.columns.size());
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
