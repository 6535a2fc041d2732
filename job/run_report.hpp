// The report of a run (job/prove.hpp, prove_c1_files): each sector proven or failed, the phases shared by
// the run, memory peaks and the timeline; and its writers. One description, written as JSON or YAML
// (docs/formats.md, "Run reports").
#pragma once

#include <cstdint>
#include <exception>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "job/engine.hpp"
#include "job/gpu_meter.hpp"
#include "job/memory_sampler.hpp"
#include "job/phase_order.hpp"
#include "job/run_memory.hpp"
#include "job/timeline.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/timing.hpp"

namespace cuzk::job {

struct SectorReport {
  std::string c1_path;
  std::string sector;      // the proof file's stem
  std::string proof_type;  // registered seal proof name
  unsigned partitions = 0;
  std::string proof_path;
  std::string proof_hex;
  std::string public_inputs_path;
  bool verified = false;
  // Per phase, in the order they run (job/phase_order.hpp): parse, validate, synthesize, ..., write.
  PhaseMap<PhaseTime> phases;
  PhaseTime total;
  // From the previous sector's write (the run's start for the first) to this one's: the sector's share of
  // the run when sectors follow each other through the pipeline. Its energy and cost are of that span.
  double span_s = 0;
  std::optional<double> energy_joules;  // the GPU energy counter's rise over span_s (job/gpu_meter.hpp)
};

// A sector whose proof file was already in the output folder and verified against its C1 file
// (ProveOptions::skip_existing): not proven again.
struct AlreadyProven {
  std::size_t input_index = 0;  // position among the C1 files
  std::string c1_path;
  std::string sector;  // the proof file's stem
  std::string proof_type;
  unsigned partitions = 0;
  std::string proof_path;
  std::string proof_hex;
  std::string public_inputs_path;  // with --dump-public-inputs
};

// A sector that was not proven (ProveOptions::keep_going).
struct SectorFailure {
  std::size_t input_index = 0;  // position among the C1 files
  std::string c1_path;
  std::string sector;  // the proof file's stem; empty when the C1 file could not be read
  std::string stage;   // "check" (up-front), "synthesize", "prove", "verify" or "write"
  std::string message;
  std::exception_ptr error;  // the exception itself: cli/ turns it into an exit code
  int exit_code = 0;         // filled in by cli/ (exit codes are the CLI's), written to the report
  std::string kind;          // the exit code's kind (docs/json-results.md), filled in by cli/ too
};

// What one engine of the run did (a lane of the report): with --devices or --cpu-engines there are several.
struct EngineReport {
  unsigned lane = 0;          // 0, 1, ...: the engine's place in the config
  std::optional<int> device;  // its CUDA ordinal; none on the CPU
  unsigned partitions = 0;    // partitions it proved
  double busy_s = 0;          // wall seconds it spent proving
  // busy_s over the run's proving span (the first proof's start to the last one's end): 1.0 means the
  // engine never waited for work in that span.
  double busy_share = 0;
};

struct RunReport {
  std::string engine = "cpu";  // engine_config.name()
  EngineConfig engine_config;  // as the run was given it (ProveOptions::engine)
  bool overlap = false;        // synthesis and proving ran at once (ProveOptions::overlap)
  std::vector<SectorReport> sectors;
  std::vector<SectorFailure> failures;        // in input order; empty unless keep_going
  std::vector<AlreadyProven> already_proven;  // in input order; empty unless skip_existing
  PhaseMap<PhaseTime> shared_phases;          // params.load, pce.load or pce.build, gpu.setup
  PhaseTime total;
  std::uint64_t peak_rss_bytes = 0;
  // Sampled (job/memory_sampler.hpp): anonymous and file-backed host memory apart, and device memory.
  std::uint64_t peak_anon_bytes = 0, peak_file_bytes = 0, peak_device_bytes = 0;
  // The same samples over time, one point per second (t_s on the timeline's clock): which steps hold the
  // memory at its peak.
  std::vector<MemoryPoint> memory_series;
  unsigned synthesis_workers = 1;
  std::vector<EngineReport> engines;         // one per engine, in config order
  std::optional<RunMemoryPlan> memory_plan;  // made before the first synthesis (job/run_memory.hpp)
  std::vector<TimelineEvent> timeline;       // every step of every partition, in the order recorded
  GpuMeterFigures gpu;                       // GPU busy share and energy (NVML), or why they are absent
  std::optional<double> usd_per_hour;        // ProveOptions::gpu_price_per_hour: adds the run's cost
  // What makes the report comparable on its own (filled by cli/): date, version, commit, system (machine,
  // load average, GPUs), environment, command line; written after "format", in this order.
  nlohmann::ordered_json context = nlohmann::ordered_json::object();
};

// The run's cost at report.usd_per_hour: its wall hours times the price; per proof, that over the proven
// sectors (no figure without a price or without a proven sector). A sector's own cost is its span_s at the
// price. (docs/formats.md, "Run reports": cost.)
std::optional<double> run_cost_usd(const RunReport& report);
std::optional<double> cost_per_proof_usd(const RunReport& report);
double sector_cost_usd(const SectorReport& sector, double usd_per_hour);

// [[ "0x..", ... ], ...]: one array of canonical big-endian hex field elements per partition.
std::string public_inputs_json(const std::vector<std::vector<algebra::Fr>>& inputs);

// The format tag of a run report (docs/formats.md, "Run reports").
inline constexpr const char* kProveReportFormat = "cuzk-prove-1";

std::string to_json(const RunReport& report);
std::string to_yaml(const RunReport& report);

}  // namespace cuzk::job
