// The memory a run needs, planned before it starts: the GPU engine's device plan
// (gpu::plan_device_memory) against a device budget, and the host plan (gpu::plan_host_memory) against the
// host's available memory. `cuzk prove --dry-run` prints it; a real run logs it, sizes
// `--synthesis-workers auto` by it, records it in its report and refuses, before any synthesis, a run whose
// plan does not fit (JobError kInsufficientMemory: exit 8).
#pragma once

#include <cstddef>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>

#include "gpu/memory_plan.hpp"
#include "io/host_memory.hpp"

namespace cuzk::job {

struct RunMemoryRequest {
  bool gpu = false;                // the GPU engine (else the CPU engine, its parameters decoded on the host)
  bool device_constraints = true;  // with the GPU: a, b, c evaluated on the device when they fit there
  // Device bytes the device plan must fit in, and where that figure came from ("--gpu-memory", or the free
  // memory of the GPU); 0: no device plan (the GPU engine makes its own when it loads).
  std::size_t device_budget = 0;
  std::string device_budget_from;
  // CUDA's own memory that a --gpu-memory limit must hold besides the budget (EngineDevices::cuda_memory).
  std::size_t device_cuda_memory = 0;
  // Streamed base vectors kept in a pinned host copy of their own (counted in the host plan), instead of
  // being read again from the parameter file's page cache by every MSM (gpu::GpuEngineOptions
  // stream_from_file, the default: the page cache is not the run's memory).
  bool pinned_streamed_bases = false;
  unsigned synthesis_workers = 0;  // 0: as many as fit, up to 2 per engine with the GPU, 1 on the CPU
  std::size_t available = 0;       // host bytes available (host_memory_available()); 0: unknown, not checked
  std::string available_from = "MemAvailable";  // or "--host-memory" when that limit is the smaller
  unsigned engines = 1;            // engines proving at once (EngineConfig::engine_count), each planned alike
  // Partitions an engine may prove in one pass over the streamed windows: 0, as many as the GPU code allows
  // (gpu::max_witness_batch_allowed); 1 for a path that proves one at a time (update inputs).
  unsigned max_witness_batch = 0;
};

struct RunMemoryPlan {
  std::string sector_size;  // the label of the circuit planned for ("32GiB")
  gpu::ProverShape shape;
  RunMemoryRequest request;
  std::optional<gpu::DevicePlan> device;  // with the GPU and a device budget
  gpu::HostPlan host;

  bool fits() const { return host.fits && (!device || device->fits); }
  // When it does not fit: what is needed against what there is, for the device and the host, and what
  // would fit (a smaller --synthesis-workers, a larger --gpu-memory); empty when it fits.
  std::string shortfall() const;
};

// The plan of one circuit: the device plan when request.gpu and a device budget are given (its streamed
// vectors count as pinned host memory, its choice of where the constraints go decides the host's
// per-partition bytes), then the host plan.
RunMemoryPlan plan_run_memory(const std::string& sector_size, const gpu::ProverShape& shape,
                              const RunMemoryRequest& request);

// The plans as `cuzk prove --dry-run --json` prints them and the run report records them ("memory_plan"):
// {"budget_bytes", "need_bytes", "fits", "range", "sort_pairs" (0: no limit), "constraints_on_device",
// "upload_bytes_per_partition", "vectors": [{"name", "count", "bytes", "resident", "sort_passes"}, ...]} and
// {"synthesis_workers", "partitions_alive", "per_partition_bytes", "pinned_bytes", "total", "available",
// "fits", ...}.
nlohmann::ordered_json device_plan_json(const gpu::DevicePlan& plan);
nlohmann::ordered_json host_plan_json(const gpu::HostPlan& plan);
// {"sector_size", "device" (with a device plan), "host", "fits"}.
nlohmann::ordered_json memory_plan_json(const RunMemoryPlan& plan);

// MemAvailable of /proc/meminfo (io/host_memory.hpp), where the run's plans are made.
using io::host_memory_available;

}  // namespace cuzk::job
