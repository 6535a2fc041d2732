// The kernels of the GPU SpMV over the compact R1CS (gpu/spmv.hpp; the host side is gpu/spmv.cpp).
//
// Work split: the row lengths are very uneven. On the 2KiB PoRep partition circuit (2,687,921 rows, the
// same gadgets as at 32GiB): A has 2.39 entries per row on average, 92% of its rows have 1 or 2 entries,
// but 0.2% have more than 32 (up to 929 entries) and hold 37% of A's entries; B has 1
// entry per row (at most 2); C 2.17 per row, at most 256. A warp per row would leave ~30 of 32 lanes idle
// on almost every row. A thread per row keeps the lanes busy on short rows, but a warp then waits for its
// longest row: with the long rows scattered, only 8% of A's lane steps do work. So both: a thread per
// row for the rows of at most kLongRow (32) entries (73% of lane steps busy on A's), and a warp per row
// for the longer ones, listed at upload (95% busy); 10x fewer warp steps than a thread per row for A.
// (Measured on the host from the matrices: warp steps = the sum over warps of the longest row they take.)
//
// Per entry, the CPU path's cases (pce/evaluate.cpp): +-1 is one addition or subtraction; a zero value is
// skipped; a value of one adds the coefficient; otherwise one Montgomery multiplication by the
// coefficient, whose sign is part of its stored value. Every operation is exact and reduced (gpu/field.cuh),
// so the sums equal the CPU's bit for bit whatever the order of their terms.
#include <algorithm>

#include "gpu/cuda_check.hpp"
#include "gpu/field.cuh"
#include "gpu/spmv_launch.hpp"
#include "prover/r1cs/compact_view.hpp"

namespace cuzk::gpu::spmv {
namespace {

constexpr unsigned kThreadsPerBlock = 256;
constexpr unsigned kWarp = 32;

__device__ __forceinline__ std::uint32_t coefficient_slot(std::uint16_t code) {
  return r1cs::is_table_code(code) ? kPowerSlots + static_cast<std::uint32_t>(r1cs::table_index(code))
                                   : code & (kPowerSlots - 1);
}

// 32-byte values in two 16-byte loads through the read-only path (cudaMalloc'd arrays of Fr are 32-byte
// aligned), and one store.
__device__ __forceinline__ DevFr load_ro(const DevFr* p) {
  const uint4* src = reinterpret_cast<const uint4*>(p);
  const uint4 lo = __ldg(src), hi = __ldg(src + 1);
  return DevFr{{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}};
}
__device__ __forceinline__ void store(DevFr* p, const DevFr& x) {
  uint4* dst = reinterpret_cast<uint4*>(p);
  dst[0] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
  dst[1] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}

// blockIdx.y picks the matrix (a select, not an indexed parameter array, which would go through local
// memory).
__device__ __forceinline__ MatrixRef matrix_of_block(const SpmvArgs& args) {
  return blockIdx.y == 0 ? args.a : blockIdx.y == 1 ? args.b : args.c;
}

// acc += coefficient(code) * z[column].
__device__ __forceinline__ void add_term(DevFr& acc, std::uint16_t code, std::uint32_t column, const DevFr* z,
                                         const DevFr* coefficients) {
  const DevFr x = load_ro(z + column);
  if (code == r1cs::kPlusOne) {
    acc += x;
  } else if (code == r1cs::kMinusOne) {
    acc -= x;
  } else if (!x.is_zero()) {
    const DevFr coefficient = load_ro(coefficients + coefficient_slot(code));
    acc += x.is_one() ? coefficient : x * coefficient;
  }
}

// One thread per row of at most args.long_row entries; grid (rows / block, 3 matrices).
__global__ void spmv_short_rows(SpmvArgs args) {
  const std::uint32_t row = blockIdx.x * blockDim.x + threadIdx.x;
  if (row >= args.rows) return;
  const MatrixRef m = matrix_of_block(args);
  const std::uint32_t begin = m.row_offsets[row], end = m.row_offsets[row + 1];
  if (end - begin > args.long_row) return;  // spmv_long_rows writes it
  const DevFr* z = reinterpret_cast<const DevFr*>(args.z);
  const DevFr* coefficients = reinterpret_cast<const DevFr*>(args.coefficients);
  DevFr acc = DevFr::zero();
  for (std::uint32_t i = begin; i < end; ++i) add_term(acc, m.codes[i], m.columns[i], z, coefficients);
  store(reinterpret_cast<DevFr*>(m.out) + row, acc);
}

// One warp per long row (m.long_rows); grid (long rows / warps per block, 3 matrices). The lanes take
// every 32nd entry, then the 32 partial sums are added by a shuffle tree into lane 0.
__global__ void spmv_long_rows(SpmvArgs args) {
  const MatrixRef m = matrix_of_block(args);
  const std::uint32_t warp = (blockIdx.x * blockDim.x + threadIdx.x) / kWarp;
  const std::uint32_t lane = threadIdx.x % kWarp;
  if (warp >= m.long_count) return;  // the whole warp (blockDim is a multiple of 32)
  const std::uint32_t row = m.long_rows[warp];
  const std::uint32_t begin = m.row_offsets[row], end = m.row_offsets[row + 1];
  const DevFr* z = reinterpret_cast<const DevFr*>(args.z);
  const DevFr* coefficients = reinterpret_cast<const DevFr*>(args.coefficients);
  DevFr acc = DevFr::zero();
  for (std::uint32_t i = begin + lane; i < end; i += kWarp)
    add_term(acc, m.codes[i], m.columns[i], z, coefficients);
    // Lane l adds lane l + offset's sum; lane 0 ends with all 32 (the upper lanes' results are not used).
#pragma unroll
  for (unsigned offset = kWarp / 2; offset > 0; offset /= 2) {
    DevFr other;
#pragma unroll
    for (int w = 0; w < DevFr::N; ++w) other.v[w] = __shfl_down_sync(0xffffffffu, acc.v[w], offset);
    acc += other;
  }
  if (lane == 0) store(reinterpret_cast<DevFr*>(m.out) + row, acc);
}

__global__ void first_unsatisfied_kernel(const DevFr* a, const DevFr* b, const DevFr* c, std::size_t count,
                                         unsigned long long* first) {
  const std::size_t stride = std::size_t{gridDim.x} * blockDim.x;
  for (std::size_t k = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x; k < count; k += stride) {
    if (!(load_ro(a + k) * load_ro(b + k) == load_ro(c + k)))
      atomicMin(first, static_cast<unsigned long long>(k));
  }
}

}  // namespace

void launch_spmv(const SpmvArgs& args, cudaStream_t stream) {
  if (args.rows == 0) return;
  const dim3 short_grid((args.rows + kThreadsPerBlock - 1) / kThreadsPerBlock, 3);
  spmv_short_rows<<<short_grid, kThreadsPerBlock, 0, stream>>>(args);
  CUDA_LAUNCH_OK();
  const std::uint32_t most_long = std::max({args.a.long_count, args.b.long_count, args.c.long_count});
  if (most_long > 0) {
    constexpr unsigned kWarpsPerBlock = kThreadsPerBlock / kWarp;
    const dim3 long_grid((most_long + kWarpsPerBlock - 1) / kWarpsPerBlock, 3);
    spmv_long_rows<<<long_grid, kThreadsPerBlock, 0, stream>>>(args);
    CUDA_LAUNCH_OK();
  }
}

void launch_first_unsatisfied(const algebra::Fr* d_a, const algebra::Fr* d_b, const algebra::Fr* d_c,
                              std::size_t count, unsigned long long* d_first, cudaStream_t stream) {
  if (count == 0) return;
  // A grid-stride loop over at most 8192 blocks (2M threads: every SM full several times over).
  const std::size_t blocks = std::min<std::size_t>((count + kThreadsPerBlock - 1) / kThreadsPerBlock, 8192);
  first_unsatisfied_kernel<<<static_cast<unsigned>(blocks), kThreadsPerBlock, 0, stream>>>(
      reinterpret_cast<const DevFr*>(d_a), reinterpret_cast<const DevFr*>(d_b),
      reinterpret_cast<const DevFr*>(d_c), count, d_first);
  CUDA_LAUNCH_OK();
}

}  // namespace cuzk::gpu::spmv
