// The proving engine as data: an EngineConfig says which engine proves and how (the CLI fills it from
// flags, the run report records it), and make_engine, the one factory, makes the CPU or the GPU engine from
// it on the job's own thread. The job, not the caller, looks up the devices a GPU config names, and so the
// device budget its memory plan is made against (docs/architecture.md, "Seams").
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "gpu/device_info.hpp"
#include "gpu/memory_plan.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"

namespace cuzk::job {

struct EngineConfig {
  enum class Kind { kCpu, kGpu };
  // Where a step of the proof runs: on the host, or on the engine's device (an engine without a device, the
  // CPU's, declines the step and the host does it: the same proofs either way).
  enum class Place { kHost, kDevice };

  Kind kind = Kind::kCpu;
  // kGpu: the CUDA ordinals (after CUDA_VISIBLE_DEVICES) of the run's engines, one engine per entry
  // (--devices); empty: one per visible GPU (--devices all; the job fills it in). An ordinal may repeat:
  // two engines on one device, each under memory_limit (how the scheduler is tested on one GPU). Each
  // engine's thread makes that device its current one (gpu::use_device) before making or calling it.
  std::vector<int> devices = {0};
  // kCpu: CPU engines proving at once, each with its share of the threads (--cpu-engines): the scheduler of
  // several engines without a GPU (tests, CI). Proofs are the same for any count.
  unsigned cpu_engines = 1;
  // kGpu: device bytes the engine may use (--gpu-memory); 0: the device's free memory. A limit above the
  // free memory is cut to it (gpu::GpuEngineOptions::memory_limit).
  std::size_t memory_limit = 0;
  // a, b, c evaluated from the witness over the constraint matrices held by the engine
  // (groth16::ProverEngine::hold_constraints, --gpu-constraints device), or by SpMV on the host.
  Place constraints = Place::kHost;
  // kGpu: the A and B MSMs' dense scalars gathered on the device from one upload of the witness, or on the
  // host with an upload per MSM (--gpu-gather).
  Place gather = Place::kHost;
  // kGpu: threads reading the parameter file to the device (0: a default for the machine).
  unsigned reader_threads = 0;
  // kGpu: base vectors that do not fit the device are read again from the parameter file's page cache for
  // every MSM instead of being copied into pinned host memory of their own (gpu::GpuEngineOptions).
  bool stream_from_file = true;
  // kGpu: the most partitions whose witness MSMs share one pass over each streamed window
  // (gpu::PlanRequest::max_witness_batch). The run sets 1 where its memory plan found no host room for the
  // partition a pair holds back.
  unsigned max_witness_batch = 2;

  bool gpu() const { return kind == Kind::kGpu; }
  // The engines of a run: one per device entry with the GPU, cpu_engines on the CPU.
  std::size_t engine_count() const { return gpu() ? devices.size() : std::max(1u, cpu_engines); }
  bool constraints_on_engine() const { return constraints == Place::kDevice; }
  // "cpu" or "gpu": the run report's engine and the prefix of the engine's own phases (gpu.setup).
  const char* name() const { return gpu() ? "gpu" : "cpu"; }
};

// One line for logs: "cpu", or "gpu on device 0: memory limit 22.0 GiB, constraints on the device, ...".
std::string describe(const EngineConfig& config);
// As run reports record it (docs/formats.md, "Run reports"): {"kind", "constraints"} and, for kGpu,
// "devices", "memory_limit_bytes", "gather", "reader_threads", "stream_from_file".
nlohmann::ordered_json engine_config_json(const EngineConfig& config);

// What the factory is given besides the config: the parameter file, its header, the run's thread count, and
// the sizes of the circuit and its parameters (job/prover_shape.hpp), which the GPU engine plans its memory
// by (without them, constraints = 0, it plans for the parameters alone).
struct EngineRequest {
  const std::string& params_path;
  const groth16::ParameterHeader& header;
  unsigned threads = 0;  // 0: all hardware threads
  gpu::ProverShape shape{};
};

// The engine of `config` for `request`, made once per parameter set (job/stage_resources.hpp):
// - kCpu: the .params file's vectors decoded into host memory (without the subgroup checks, as
//   rust-fil-proofs reads them; every proof is verified before it is written); its setup phase, the decoding,
//   is params.load.
// - kGpu: the bases read straight to the device (gpu/groth16_engine.hpp); throws gpu::GpuError when no GPU
//   can be used, never the CPU engine in its place. Its setup phases are the read (params.load.warm or
//   .cold) and the decoding.
std::unique_ptr<groth16::ProverEngine> make_engine(const EngineConfig& config, const EngineRequest& request);

// The signature of make_engine. The job always makes its engines with make_engine; tests give a factory
// of their own to prove_c1_files (an engine that counts its calls, one that holds the constraints).
using EngineFactory =
    std::function<std::unique_ptr<groth16::ProverEngine>(const EngineConfig& config, const EngineRequest&)>;

// The devices of a GPU config as this process sees them, and the device budget a run plans against
// (job/run_memory.hpp): memory_limit, or the free memory of the first device when that is lower or no limit
// is given.
struct EngineDevices {
  std::vector<gpu::DeviceInfo> found;  // the config's devices that are visible, in its order
  std::string why_none;                // when none is (CUDA's reason, or a build without CUDA)
  std::size_t budget = 0;              // device bytes; 0: unknown (no limit and no device)
  std::string budget_from;             // "--gpu-memory", or "the free memory of GPU 0 (NVIDIA H200)"
  // CUDA's own memory (context, kernel stacks) that --gpu-memory holds besides the plan: taken off the
  // limit for the budget (measured on the devices, kCudaMemoryEstimate where none is visible).
  std::size_t cuda_memory = 0;
  std::vector<int> missing;   // configured ordinals that are not visible
  std::vector<int> ordinals;  // the engines' devices: the config's, or every visible one for "all"
};
// Looks them up (starts CUDA); a CPU config finds none and has no budget. An ordinal named twice shares its
// device: without memory_limit each of its engines plans against the free memory divided among them.
// `missing`: configured ordinals that are not visible. Throws gpu::GpuError only on a CUDA failure other
// than "no device".
EngineDevices find_devices(const EngineConfig& config);

// The same for a GPU config that is about to be used: throws JobError kNoGpu ("--gpu: no usable GPU: ...")
// when any of its devices is not visible (or, for "all", none is), before any work.
EngineDevices require_devices(const EngineConfig& config);

// The device memory in use, for MemorySampler, with a GPU config; empty (no device to sample) otherwise.
std::function<std::uint64_t()> device_memory_probe(const EngineConfig& config);

}  // namespace cuzk::job
