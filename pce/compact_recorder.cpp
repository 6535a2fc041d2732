#include "pce/compact_recorder.hpp"

#include <algorithm>
#include <string>

#include "pce/errors.hpp"

namespace cuzk::pce {

void CompactRecorder::reserve_constraints(std::size_t rows, std::size_t nnz_per_matrix) {
  for (CompactMatrix* m : {&a_, &b_, &c_}) {
    m->row_offsets.reserve(rows + 1);
    m->columns.reserve(nnz_per_matrix);
    m->codes.reserve(nnz_per_matrix);
  }
}

void CompactRecorder::append_row(CompactMatrix& m, std::span<const r1cs::Term> terms) {
  // The same merge as r1cs::detail::MatrixBuilder::append_row: sum repeated variables, drop zero sums.
  r1cs::merge_terms(terms, scratch_, [&](std::uint32_t raw, const Fr& sum) {
    m.columns.push_back(raw);
    m.codes.push_back(encoder_.encode(sum));
  });
  if (m.columns.size() > kMaxEntriesPerMatrix) {
    throw PceError(PceErrorKind::kLimits,
                   "constraint " + std::to_string(m.rows()) +
                       ": a matrix exceeds 2^32 - 1 entries, the compact form's limit");
  }
  m.row_offsets.push_back(static_cast<std::uint32_t>(m.columns.size()));
}

CompactR1cs CompactRecorder::finish() {
  CompactR1cs out;
  out.num_inputs = num_inputs_;
  out.num_aux = num_aux_;
  const auto num_inputs = num_inputs_;
  for (CompactMatrix* m : {&a_, &b_, &c_}) {
    for (auto& column : m->columns) {
      column = static_cast<std::uint32_t>(r1cs::Variable::from_raw(column).unified(num_inputs));
    }
    // Drop the growth slack (up to half of each vector) one vector at a time.
    m->row_offsets.shrink_to_fit();
    m->columns.shrink_to_fit();
    m->codes.shrink_to_fit();
  }
  out.a = std::move(a_);
  out.b = std::move(b_);
  out.c = std::move(c_);
  out.table = encoder_.take_table();
  out.densities = compute_densities(out.a, out.b, out.num_inputs, out.num_aux);
  a_ = {};
  b_ = {};
  c_ = {};
  encoder_ = CoefficientEncoder();
  num_inputs_ = 1;
  num_aux_ = 0;
  return out;
}

}  // namespace cuzk::pce
