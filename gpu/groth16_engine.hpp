// The Groth16 prover's heavy parts on the GPU (groth16::ProverEngine): the H step (gpu/h_step.hpp, its
// tables and buffers made at the first proof) and the five multi-scalar multiplications (gpu/msm.hpp)
// with the parameters' bases uploaded once, at construction; both kept for every partition proved with
// these parameters. The checks and
// the combination with r, s and the verifying key stay in groth16::prove_with, shared with the CPU.
#pragma once

#include <memory>
#include <optional>
#include <string>

#include "gpu/memory_plan.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"

namespace cuzk::gpu {

// How the engine uses the device (both factories; memory_limit and reader_threads apply to the file's).
struct GpuEngineOptions {
  // Device bytes the engine may use (0: the device's free memory; a larger limit is cut to it). The memory
  // plan (gpu/memory_plan.hpp) keeps resident what fits, in order of the PCIe traffic it saves; the other
  // base vectors are kept in pinned host memory and streamed a window at a time, double buffered, per MSM
  // (the same proofs).
  std::size_t memory_limit = 0;
  unsigned reader_threads = 0;  // threads reading the parameter file (0: a default for the machine)
  // Gather the A and B MSMs' dense scalars on the device from one upload of the witness
  // (gpu/dense_gather.hpp) when every base vector is resident and the witness fits beside them; else, and by
  // default, on the host with an upload per MSM. Not yet measured at scale: off until an A/B shows
  // it faster.
  bool device_gather = false;
  // Evaluate a, b, c on the device (gpu/spmv.hpp) from the same upload of the witness, over the circuit's
  // constraint matrices held on the device (groth16::ProverEngine::hold_constraints), when they fit beside
  // resident bases; the dense scalars are then gathered on the device too. A partition sends ~4.3 GB
  // instead of ~17 GB at 32GiB, and the host computes no a, b, c.
  bool device_constraints = false;
  // The circuit's sizes (the job's, from the constraint cache): the plan then counts the constraint matrices
  // and the witness exactly. Without it the plan knows only the parameters' lengths, and the constraints
  // stay on the host.
  std::optional<ProverShape> shape;
  // Streamed base vectors are read again from the parameter file (the page cache) for every MSM, through
  // pinned staging buffers, instead of being kept in a pinned host copy of their own (which costs their size
  // in host memory: up to ~44 GiB at 32GiB).
  bool stream_from_file = true;
  // The most partitions whose witness MSMs share one pass over each streamed window (PlanRequest).
  unsigned max_witness_batch = 2;
};

// Throws GpuError when no GPU is visible (with the CUDA runtime's reason) or an upload fails: the
// caller asked for the GPU, so there is no quiet fall-back to the CPU.
std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const groth16::Parameters& params,
                                                       const GpuEngineOptions& options = {});

// The same over a .params file whose base vectors are read straight to the device
// (gpu/parameter_upload.hpp): the host never holds the resident ones. `header`:
// groth16::read_parameter_header of the file. The memory plan (everything resident, or a streamed tier) is
// chosen before any upload and logged. The engine's setup_phases() report the read (params.load.warm or
// params.load.cold, by the share of the file in the page cache) and the decoding.
std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const std::string& params_path,
                                                       const groth16::ParameterHeader& header,
                                                       const GpuEngineOptions& options = {});

}  // namespace cuzk::gpu
