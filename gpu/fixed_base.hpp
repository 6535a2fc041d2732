// Fixed-base scalar multiplication of the G1 and G2 generators on the GPU, for the streaming test setup
// (pce/test_setup.hpp): the same bytes as groth16::make_cpu_fixed_base_encoder for the same scalars.
//
// A table of 16-bit windows of the generator (entry (j, d) = d 2^(16 j) G for d in [1, 2^16), 16 windows:
// 100 MB in G1, 200 MB in G2) is built on the host (groth16::FixedBaseTable) and uploaded once. A kernel
// runs one thread per scalar: the canonical scalar's 16 digits, one mixed XYZZ addition per non-zero
// digit (no doublings), the affine point with one Fermat inversion (of ZZ ZZZ, which gives both 1/ZZ and
// 1/ZZZ; in G2 of the norm of that Fp2 element), and bellperson's uncompressed encoding written on the
// device, so that only the final bytes travel back. Scalars and bytes move in chunks through pinned
// staging buffers.
#pragma once

#include <cstddef>
#include <memory>

#include "prover/groth16/fixed_base.hpp"

namespace cuzk::gpu {

// Points per kernel launch and copy by default (2^20: 96 MiB of G1 or 192 MiB of G2 encoding on the device).
inline constexpr std::size_t kFixedBaseChunkPoints = std::size_t{1} << 20;

// On the current device. Throws GpuError when no GPU is visible or CUDA fails. `chunk_points` = 0: the
// default (tests use small chunks to cross the chunk boundaries).
std::unique_ptr<groth16::FixedBaseEncoder> make_gpu_fixed_base_encoder(std::size_t chunk_points = 0);

}  // namespace cuzk::gpu
