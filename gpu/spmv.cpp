// The host side of the GPU SpMV (gpu/spmv.hpp): uploads, checks and logging; the kernels are in gpu/spmv.cu.
#include "gpu/spmv.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <climits>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/spmv_launch.hpp"

namespace cuzk::gpu {
namespace {

using algebra::Fr;

constexpr std::size_t kCoefficientSlots = spmv::kPowerSlots + r1cs::kMaxTableSize;
// The kernels index rows and entries with 32-bit integers and round the row count up to whole blocks.
constexpr std::size_t kMaxRows = UINT32_MAX - 1024;

// Every code's value at its slot (spmv::kPowerSlots): +-2^k already signed, then the table; zero elsewhere,
// so that no code reads outside the buffer.
std::vector<Fr> coefficient_values(std::span<const Fr> table) {
  std::vector<Fr> values(kCoefficientSlots, Fr::zero());
  Fr power = Fr::one();
  for (unsigned k = 0; k <= r1cs::kMaxExponent; ++k) {
    values[r1cs::power_of_two_code(k, false)] = power;
    values[r1cs::power_of_two_code(k, true)] = -power;
    power = power.dbl();
  }
  for (std::size_t i = 0; i < table.size(); ++i) values[spmv::kPowerSlots + i] = table[i];
  return values;
}

}  // namespace

DeviceR1cs::DeviceR1cs(const r1cs::CompactR1csView& circuit)
    : rows_(circuit.num_constraints()), num_inputs_(circuit.num_inputs), num_aux_(circuit.num_aux) {
  const auto start = std::chrono::steady_clock::now();
  if (circuit.b.rows() != rows_ || circuit.c.rows() != rows_)
    throw GpuError(fmt::format("GPU SpMV: the matrices have {}, {} and {} rows", rows_, circuit.b.rows(),
                               circuit.c.rows()));
  if (rows_ > kMaxRows) throw GpuError(fmt::format("GPU SpMV: {} rows do not fit 32-bit row indices", rows_));
  if (circuit.table.size() > r1cs::kMaxTableSize)
    throw GpuError(fmt::format("GPU SpMV: {} table coefficients (at most {})", circuit.table.size(),
                               r1cs::kMaxTableSize));
  HostStaging staging;  // pinned chunks: the matrices go up at pinned speed (~5.5 GiB at 32GiB)
  Stream stream;
  auto upload = [&](auto& device, auto host) {
    device = std::remove_reference_t<decltype(device)>(host.size());
    // HostStaging returns once the bytes are in its pinned chunks: `host` may go right after.
    if (!host.empty()) staging.upload(device.data(), host.data(), host.size_bytes(), stream);
  };
  auto upload_matrix = [&](const r1cs::CompactMatrixView& host, Matrix& device, const char* name) {
    if (host.row_offsets.empty() || host.rows() != rows_ || host.codes.size() != host.nnz() ||
        host.row_offsets.front() != 0 || host.row_offsets.back() != host.nnz())
      throw GpuError(
          fmt::format("GPU SpMV: matrix {} has {} columns, {} codes, and row offsets from {} to {}", name,
                      host.nnz(), host.codes.size(), host.row_offsets.empty() ? 0 : host.row_offsets.front(),
                      host.row_offsets.empty() ? 0 : host.row_offsets.back()));
    std::vector<std::uint32_t> long_rows;
    for (std::size_t r = 0; r < rows_; ++r)
      if (host.row_offsets[r + 1] - host.row_offsets[r] > kLongRow)
        long_rows.push_back(static_cast<std::uint32_t>(r));
    upload(device.row_offsets, host.row_offsets);
    upload(device.columns, host.columns);
    upload(device.codes, host.codes);
    upload(device.long_rows, std::span<const std::uint32_t>(long_rows));
  };
  upload_matrix(circuit.a, a_, "A");
  upload_matrix(circuit.b, b_, "B");
  upload_matrix(circuit.c, c_, "C");
  const std::vector<Fr> values = coefficient_values(circuit.table);
  upload(coefficients_, std::span<const Fr>(values));
  stream.synchronize();
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  spdlog::info(
      "constraint matrices on the GPU: {:.2f} GB ({} constraints, {} entries; {}, {} and {} rows of A, B, "
      "C with more than {} entries taken by a warp each), uploaded in {:.2f} s",
      double(device_bytes()) / 1e9, rows_, circuit.a.nnz() + circuit.b.nnz() + circuit.c.nnz(),
      a_.long_rows.size(), b_.long_rows.size(), c_.long_rows.size(), kLongRow, seconds);
}

std::size_t DeviceR1cs::device_bytes() const {
  std::size_t bytes = coefficients_.bytes();
  for (const Matrix* m : {&a_, &b_, &c_})
    bytes += m->row_offsets.bytes() + m->columns.bytes() + m->codes.bytes() + m->long_rows.bytes();
  return bytes;
}

std::size_t DeviceR1cs::device_bytes_bound(const r1cs::CompactR1csView& circuit) {
  std::size_t bytes = kCoefficientSlots * sizeof(Fr);
  for (const r1cs::CompactMatrixView* m : {&circuit.a, &circuit.b, &circuit.c})
    bytes += m->row_offsets.size_bytes() + m->columns.size_bytes() + m->codes.size_bytes();
  return bytes;
}

void DeviceR1cs::upload_witness(std::span<const Fr> inputs, std::span<const Fr> aux, Fr* d_z,
                                std::size_t d_z_count, HostStaging& staging, cudaStream_t stream) const {
  if (inputs.size() != num_inputs_ || aux.size() != num_aux_)
    throw GpuError(fmt::format("GPU SpMV: the witness has {} inputs and {} aux; the circuit has {} and {}",
                               inputs.size(), aux.size(), num_inputs_, num_aux_));
  if (d_z_count < num_variables())
    throw GpuError(
        fmt::format("GPU SpMV: a witness buffer of {} values for {} variables", d_z_count, num_variables()));
  if (!inputs.empty()) staging.upload(d_z, inputs.data(), inputs.size_bytes(), stream);
  if (!aux.empty()) staging.upload(d_z + num_inputs_, aux.data(), aux.size_bytes(), stream);
}

void DeviceR1cs::evaluate(const Fr* d_z, Fr* d_a, Fr* d_b, Fr* d_c, cudaStream_t stream) const {
  auto ref = [](const Matrix& m, Fr* out) {
    return spmv::MatrixRef{m.row_offsets.data(),
                           m.columns.data(),
                           m.codes.data(),
                           m.long_rows.data(),
                           static_cast<std::uint32_t>(m.long_rows.size()),
                           out};
  };
  const spmv::SpmvArgs args{ref(a_, d_a), ref(b_, d_b),         ref(c_, d_c),
                            d_z,          coefficients_.data(), static_cast<std::uint32_t>(rows_),
                            kLongRow};
  spmv::launch_spmv(args, stream);
}

std::optional<std::size_t> first_unsatisfied(const Fr* d_a, const Fr* d_b, const Fr* d_c, std::size_t count,
                                             cudaStream_t stream) {
  if (count == 0) return std::nullopt;
  DeviceBuffer<unsigned long long> first(1);
  const unsigned long long none = ULLONG_MAX;
  CUDA_OK(cudaMemcpyAsync(first.data(), &none, sizeof(none), cudaMemcpyHostToDevice, stream));
  spmv::launch_first_unsatisfied(d_a, d_b, d_c, count, first.data(), stream);
  unsigned long long result = none;
  CUDA_OK(cudaMemcpyAsync(&result, first.data(), sizeof(result), cudaMemcpyDeviceToHost, stream));
  CUDA_OK(cudaStreamSynchronize(stream));
  if (result == none) return std::nullopt;
  return static_cast<std::size_t>(result);
}

}  // namespace cuzk::gpu
