// The compact R1CS's coefficient codes and a read-only view of its three CSR matrices: what the PCE
// (pce/compact_r1cs.hpp: builds, stores and evaluates it on the CPU) and the GPU SpMV (gpu/spmv.hpp)
// share, defined once here because pce/ and gpu/ do not include each other (docs/architecture.md).
//
// A coefficient is a CoeffCode:
//   bit 15 clear: the signed power of two +-2^k, k = bits 0..7 (0..254; 2^254 < r < 2^255), bit 8 = minus;
//                 +1 is code 0, -1 is code 0x100.
//   bit 15 set:   index (bits 0..14) into the table of full field values (at most 32,768).
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>

#include "prover/algebra/bls12_381.hpp"
#include "prover/algebra/host_device.hpp"

namespace cuzk::r1cs {

using CoeffCode = std::uint16_t;
inline constexpr CoeffCode kTableFlag = 0x8000;
inline constexpr CoeffCode kNegativeFlag = 0x0100;
inline constexpr CoeffCode kPlusOne = 0;
inline constexpr CoeffCode kMinusOne = kNegativeFlag;
inline constexpr unsigned kMaxExponent = 254;         // 2^254 < r (r has 255 bits), 2^255 > r
inline constexpr std::size_t kMaxTableSize = 0x8000;  // 15 bits of table index

CUZK_HD constexpr CoeffCode power_of_two_code(unsigned k, bool negative) {
  return static_cast<CoeffCode>(k | (negative ? kNegativeFlag : 0));
}
CUZK_HD constexpr bool is_table_code(CoeffCode code) {
  return (code & kTableFlag) != 0;
}
CUZK_HD constexpr std::size_t table_index(CoeffCode code) {
  return code & ~kTableFlag;
}
CUZK_HD constexpr unsigned exponent_of(CoeffCode code) {
  return code & 0xff;
}
CUZK_HD constexpr bool is_negative(CoeffCode code) {
  return (code & kNegativeFlag) != 0;
}
// Codes that no encoder produces: exponent > 254 or stray bits 9..14 in a power-of-two code.
CUZK_HD constexpr bool is_valid_power_code(CoeffCode code) {
  return !is_table_code(code) && (code & 0x7e00) == 0 && exponent_of(code) <= kMaxExponent;
}

// One matrix: row r's entries are [row_offsets[r], row_offsets[r + 1]) of columns (unified variable
// indices, r1cs.hpp: inputs first, then aux) and codes.
struct CompactMatrixView {
  std::span<const std::uint32_t> row_offsets;  // rows + 1 entries, from 0 to nnz
  std::span<const std::uint32_t> columns;
  std::span<const CoeffCode> codes;
  std::size_t rows() const { return row_offsets.empty() ? 0 : row_offsets.size() - 1; }
  std::size_t nnz() const { return columns.size(); }
};

// A whole compact R1CS (pce::CompactR1cs::view()), valid while the viewed object lives.
struct CompactR1csView {
  std::size_t num_inputs = 0;  // including ONE
  std::size_t num_aux = 0;
  CompactMatrixView a, b, c;
  std::span<const algebra::Fr> table;  // the full coefficients that table codes index
  std::size_t num_constraints() const { return a.rows(); }
  std::size_t num_variables() const { return num_inputs + num_aux; }
};

}  // namespace cuzk::r1cs
