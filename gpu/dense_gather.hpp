// The dense scalars of the A and B MSMs gathered on the device from the witness z = (inputs, aux) already
// there: z_i for every set bit i of a density over z (groth16::concat_density), in order, which is
// groth16::append_dense's result. The GPU engine uploads z once per partition for the l MSM and gathers the
// A and B scalars from it, instead of gathering them on the host and uploading each (GpuEngineOptions).
#pragma once

#include <cuda_runtime_api.h>

#include <cstddef>
#include <cstdint>

#include "gpu/device_buffer.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/r1cs/r1cs.hpp"

namespace cuzk::gpu {

class DeviceDenseGather {
 public:
  // d_dst[k] = d_z[i] for the k-th set bit i < count of `density`; returns how many were gathered. The
  // density's words and their offsets (groth16::density_word_offsets) go up from host memory, and one thread
  // per word writes its values. Queued on `stream`: the caller synchronises before reading d_dst.
  std::size_t gather(const algebra::Fr* d_z, std::size_t count, const r1cs::DensityBits& density,
                     algebra::Fr* d_dst, cudaStream_t stream);

  // Device bytes of gathering over `count` values (the density's words and offsets), for planning.
  static std::size_t device_bytes(std::size_t count);

 private:
  DeviceBuffer<std::uint64_t> words_;
  DeviceBuffer<std::uint32_t> offsets_;
};

}  // namespace cuzk::gpu
