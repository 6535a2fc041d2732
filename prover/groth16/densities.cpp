#include "prover/groth16/densities.hpp"

#include <string>

#include "prover/groth16/errors.hpp"

namespace cuzk::groth16 {

namespace {

void validate_matrix(const r1cs::SparseMatrix& m, const char* name, std::size_t rows, std::size_t num_vars) {
  auto fail = [&](const std::string& what) {
    throw Groth16Error(Groth16ErrorKind::kMalformedInput, std::string("R1CS matrix ") + name + ": " + what);
  };
  if (m.row_offsets.empty() || m.row_offsets.front() != 0) fail("row_offsets must start with 0");
  if (m.rows() != rows) fail(std::to_string(m.rows()) + " rows, expected " + std::to_string(rows));
  if (m.columns.size() != m.values.size()) fail("columns and values differ in length");
  if (m.row_offsets.back() != m.columns.size()) fail("last row offset does not equal the number of terms");
  for (std::size_t k = 0; k < m.rows(); ++k)
    if (m.row_offsets[k] > m.row_offsets[k + 1]) fail("row offsets decrease at row " + std::to_string(k));
  for (std::size_t t = 0; t < m.columns.size(); ++t) {
    if (m.columns[t] >= num_vars)
      fail("term " + std::to_string(t) + " names variable " + std::to_string(m.columns[t]) + " of " +
           std::to_string(num_vars));
    if (m.values[t].is_zero()) fail("term " + std::to_string(t) + " has a zero coefficient");
  }
}

}  // namespace

void validate_r1cs(const r1cs::R1cs& cs) {
  if (cs.num_inputs == 0)
    throw Groth16Error(Groth16ErrorKind::kMalformedInput, "R1CS has no inputs (input 0 must be ONE)");
  validate_matrix(cs.a, "A", cs.a.rows(), cs.num_variables());
  validate_matrix(cs.b, "B", cs.a.rows(), cs.num_variables());
  validate_matrix(cs.c, "C", cs.a.rows(), cs.num_variables());
}

}  // namespace cuzk::groth16
