// The Groth16 prover's heavy parts on the GPU (groth16::ProverEngine): the H step (gpu/ntt.hpp, its
// tables and buffers made at the first proof) and the five multi-scalar multiplications (gpu/msm.hpp)
// with the parameters' bases uploaded once, at construction; both kept for every partition proved with
// these parameters. The checks and
// the combination with r, s and the verifying key stay in groth16::prove_with, shared with the CPU.
#pragma once

#include <memory>

#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"

namespace cuzk::gpu {

// Throws GpuError when no GPU is visible (with the CUDA runtime's reason) or an upload fails: the
// caller asked for the GPU, so there is no quiet fall-back to the CPU.
std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const groth16::Parameters& params);

}  // namespace cuzk::gpu
