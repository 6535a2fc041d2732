// a = A z, b = B z, c = C z on the GPU, over a compact R1CS (prover/r1cs/compact_view.hpp) whose three
// matrices stay on the device: uploaded once per circuit shape, so that each partition sends only its
// witness z (inputs and aux: ~4.3 GB at 32GiB) instead of a, b and c (~12.9 GB), and the host does no SpMV.
// The CPU SpMV (pce/evaluate.hpp) stays the reference and the
// CPU engine's path; the results here equal it bit for bit (canonical Fr in Montgomery form, exact modular
// arithmetic: the order of the additions does not change the value).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>

#include "gpu/device_buffer.hpp"
#include "gpu/host_staging.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/compact_view.hpp"

namespace cuzk::gpu {

class DeviceR1cs {
 public:
  // Rows longer than this are evaluated by a warp each, the others by a thread each (gpu/spmv.cu says why).
  static constexpr std::uint32_t kLongRow = 32;

  // Uploads the matrices and the coefficient values (complete on return) and logs their device bytes.
  // `circuit` must be structurally valid (pce::validate; every cache file is validated when read): columns
  // below num_variables and row offsets that never decrease are not checked again here. Throws GpuError
  // when the shapes do not fit together or the device memory does not suffice.
  explicit DeviceR1cs(const r1cs::CompactR1csView& circuit);

  std::size_t num_constraints() const { return rows_; }
  std::size_t num_inputs() const { return num_inputs_; }
  std::size_t num_aux() const { return num_aux_; }
  std::size_t num_variables() const { return num_inputs_ + num_aux_; }
  // Device bytes held (matrices, long-row lists, coefficient values).
  std::size_t device_bytes() const;
  // The same for a circuit before it is uploaded (for memory planning), without the long-row lists.
  static std::size_t device_bytes_bound(const r1cs::CompactR1csView& circuit);

  // z = (inputs, aux) into d_z (num_variables() values), through `staging`'s pinned chunks; queued on
  // `stream`, and the host spans may be reused on return. Throws GpuError when the lengths do not fit.
  void upload_witness(std::span<const algebra::Fr> inputs, std::span<const algebra::Fr> aux, algebra::Fr* d_z,
                      std::size_t d_z_count, HostStaging& staging, cudaStream_t stream) const;

  // a, b, c (num_constraints() values each, device) from z (num_variables() values, device), queued on
  // `stream`. z must not overlap the outputs.
  void evaluate(const algebra::Fr* d_z, algebra::Fr* d_a, algebra::Fr* d_b, algebra::Fr* d_c,
                cudaStream_t stream) const;

 private:
  struct Matrix {
    DeviceBuffer<std::uint32_t> row_offsets, columns;
    DeviceBuffer<std::uint16_t> codes;
    DeviceBuffer<std::uint32_t> long_rows;  // the rows with more than kLongRow entries, increasing
  };

  std::size_t rows_ = 0, num_inputs_ = 0, num_aux_ = 0;
  Matrix a_, b_, c_;
  // Every code's value: slot code & 0x1ff for +-2^k (k in bits 0..7, the sign in bit 8), 512 + index for
  // table codes; 512 + 32768 slots, so that any 16-bit code reads inside the buffer.
  DeviceBuffer<algebra::Fr> coefficients_;
};

// The first k < count with a_k * b_k != c_k (device vectors), or nullopt: the satisfaction check of the
// host path (groth16::first_unsatisfied) for a, b, c that never leave the device. Waits for `stream`.
std::optional<std::size_t> first_unsatisfied(const algebra::Fr* d_a, const algebra::Fr* d_b,
                                             const algebra::Fr* d_c, std::size_t count, cudaStream_t stream);

}  // namespace cuzk::gpu
