// The kernels of gpu/spmv.hpp as plain launch functions (gpu/spmv.cu), so that the host side (gpu/spmv.cpp:
// uploads, checks, logging) is compiled as C++ and not by nvcc's front end.
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "prover/algebra/bls12_381.hpp"

namespace cuzk::gpu::spmv {

// Slots of the device coefficient array: code & 0x1ff for +-2^k (exponent in bits 0..7, sign in bit 8),
// kPowerSlots + table index for table codes.
inline constexpr std::uint32_t kPowerSlots = 512;

// One matrix on the device, and where its products go.
struct MatrixRef {
  const std::uint32_t* row_offsets;
  const std::uint32_t* columns;
  const std::uint16_t* codes;
  const std::uint32_t* long_rows;  // the rows of more than long_row entries, one warp each
  std::uint32_t long_count;
  algebra::Fr* out;
};

struct SpmvArgs {
  MatrixRef a, b, c;
  const algebra::Fr* z;             // the witness: inputs, then aux
  const algebra::Fr* coefficients;  // kPowerSlots + r1cs::kMaxTableSize values
  std::uint32_t rows;
  std::uint32_t long_row;  // rows longer than this are in long_rows
};

// Queues the products of the three matrices on `stream`.
void launch_spmv(const SpmvArgs& args, cudaStream_t stream);

// Queues the search for the first k < count with a_k * b_k != c_k into *d_first (a device word that the
// caller set to ULLONG_MAX: it keeps the smallest such k).
void launch_first_unsatisfied(const algebra::Fr* d_a, const algebra::Fr* d_b, const algebra::Fr* d_c,
                              std::size_t count, unsigned long long* d_first, cudaStream_t stream);

}  // namespace cuzk::gpu::spmv
