// prove_c1_files: the run as a whole, from the up-front checks and the memory plan to the two stages
// (job/front_stage.hpp, job/back_stage.hpp) and the run's report.
#include "job/prove.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "gpu/device_info.hpp"
#include "gpu/memory_plan.hpp"
#include "io/atomic_file.hpp"
#include "job/back_stage.hpp"
#include "job/engine.hpp"
#include "job/front_stage.hpp"
#include "job/gpu_meter.hpp"
#include "job/memory_sampler.hpp"
#include "job/run_checks.hpp"
#include "job/run_memory.hpp"
#include "job/sector_work.hpp"
#include "job/stage_resources.hpp"
#include "job/timeline.hpp"
#include "job/two_stage.hpp"
#include "prover/timing.hpp"

namespace cuzk::job {

namespace {

using detail::BackStage;
using detail::BufferPool;
using detail::check_inputs;
using detail::CheckedInput;
using detail::FailureLog;
using detail::FrontStage;
using detail::log_memory_plan;
using detail::PartitionWork;
using detail::plan_memory;

// Several engines report progress from threads of their own: one call at a time, as the callers of
// ProveOptions expect (partition_proven and sector_done are called under the back stage's locks).
void serialize_callbacks(ProveOptions& options) {
  auto mutex = std::make_shared<std::mutex>();
  if (auto progress = options.progress)
    options.progress = [mutex, progress](const std::string& message) {
      std::lock_guard lock(*mutex);
      progress(message);
    };
}

// The GPU engine's devices are metered through NVML; the CPU engine's run does not load it (null then).
// GpuMeter meters each GPU once, however many engines it holds.
std::unique_ptr<GpuMeter> start_meter(const ProveOptions& given, const EngineDevices& devices) {
  std::vector<std::string> metered = given.metered_pci_bus_ids;
  if (metered.empty())
    for (const gpu::DeviceInfo& device : devices.found) metered.push_back(device.pci_bus_id);
  if (metered.empty()) return nullptr;
  return std::make_unique<GpuMeter>(metered, given.gpu_sample_interval);
}

// The run's memory plan, before any synthesis: a run that cannot fit in memory is refused now, not after
// an hour of synthesis and a kill by the OOM killer. Sets what the plan decides in `options`: the
// synthesis workers (--synthesis-workers auto becomes what fits), where a, b and c are evaluated, the
// witness MSMs' batch.
RunMemoryPlan apply_memory_plan(const std::vector<CheckedInput>& checked, const ProveOptions& given,
                                const EngineDevices& devices, ParameterStore& store,
                                std::map<std::uint64_t, gpu::ProverShape>& shapes, ProveOptions& options) {
  std::vector<std::string> notes;
  RunMemoryPlan plan = plan_memory(checked, given, devices, store, shapes, notes);
  for (const std::string& note : notes) spdlog::debug("{}", note);
  log_memory_plan(plan);
  if (!plan.fits()) throw JobError(JobError::Kind::kInsufficientMemory, plan.shortfall());
  options.synthesis_workers = plan.host.synthesis_workers;
  // A device plan that keeps the constraint matrices on the host: synthesis computes a, b, c from the
  // first partition on (else the first partitions would be evaluated by the proving stage, after the
  // engine declined the matrices).
  if (plan.device && !plan.device->constraints_on_device && options.engine.constraints_on_engine()) {
    options.engine.constraints = EngineConfig::Place::kHost;
    spdlog::info(
        "a, b and c are evaluated by synthesis on the host (the device plan has no room for the "
        "constraint matrices)");
  }
  if (plan.device) options.engine.max_witness_batch = plan.device->witness_batch;
  return plan;
}

// The GPU figures over the steady state: the prover lanes' span, as prover_busy's (job/timeline.hpp,
// lane_utilization): "prover", or "prover 0", "prover 1", ... with several engines.
GpuMeterFigures finish_meter(GpuMeter& meter, const Timeline& timeline,
                             const std::vector<TimelineEvent>& events) {
  double first_start = -1, last_end = -1;
  for (const TimelineEvent& e : events)
    if (e.lane == "prover" || e.lane.starts_with("prover ")) {
      first_start = first_start < 0 ? e.start_s : std::min(first_start, e.start_s);
      last_end = std::max(last_end, e.end_s);
    }
  const auto at = [&](double s) {
    return timeline.start() +
           std::chrono::duration_cast<std::chrono::steady_clock::duration>(std::chrono::duration<double>(s));
  };
  // No prover step (every sector failed or was already proven): an empty window, no steady figure.
  return first_start < 0 ? meter.finish(at(1), at(0)) : meter.finish(at(first_start), at(last_end));
}
}  // namespace

RunReport prove_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& options) {
  return prove_c1_files(c1_paths, options, make_engine);
}

RunReport prove_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& given,
                         const EngineFactory& make) {
  PhaseTimer run_timer;
  const auto run_start = std::chrono::steady_clock::now();
  // First of all: --gpu where no GPU can be used ends the run before anything is looked at or made.
  const EngineDevices devices = require_devices(given.engine);
  std::unique_ptr<GpuMeter> meter = start_meter(given, devices);
  if (given.engine.gpu()) {
    std::vector<int> repeated = devices.ordinals;
    std::sort(repeated.begin(), repeated.end());
    if (std::adjacent_find(repeated.begin(), repeated.end()) != repeated.end() && !given.engine.memory_limit)
      spdlog::warn("--devices names a GPU twice without --gpu-memory: its engines share its free memory");
  }
  MemorySampler memory(std::chrono::milliseconds(100), device_memory_probe(given.engine));
  RunReport run;
  run.engine = given.engine.name();
  run.engine_config = given.engine;
  run.overlap = given.overlap;
  ParameterStore store(given.params_dir);
  io::prepare_output_dir(given.output_dir);
  if (std::size_t n = io::remove_stale_temporaries(given.output_dir))
    spdlog::info("removed {} stale temporary file(s) of killed runs from {}", n, given.output_dir);

  FailureLog failures(given);
  PhaseTimer check_timer;
  detail::CheckedInputs inputs = check_inputs(c1_paths, given, store, failures);
  const std::vector<CheckedInput>& checked = inputs.to_prove;
  run.already_proven = std::move(inputs.already_proven);
  std::vector<std::size_t> to_prove;  // indices into c1_paths
  for (const CheckedInput& input : checked) to_prove.push_back(input.index);
  if (given.inputs_checked) {
    std::map<std::string, unsigned> partitions_by_c1;
    for (const CheckedInput& input : checked)
      partitions_by_c1[c1_paths[input.index]] = input.proof->partitions();
    given.inputs_checked(partitions_by_c1);
  }
  ProveOptions options = given;
  if (options.engine.gpu()) options.engine.devices = devices.ordinals;  // --devices all: the visible ones
  // The engines plan against the job's budget: --gpu-memory less what CUDA itself holds on the device (the
  // limit stands for the whole card: job/engine.cpp limit_budget; given as it is, the engines' plans took
  // 0.9 GiB more than a 16 GiB limit, bench/RESULTS.md), and engines of one device made at once, each for
  // its share of the free memory rather than all of it.
  if (options.engine.gpu() && (options.engine.memory_limit || devices.ordinals.size() > 1))
    options.engine.memory_limit = devices.budget;
  if (options.engine.engine_count() > 1) serialize_callbacks(options);
  std::map<std::uint64_t, gpu::ProverShape> shapes;
  if (!checked.empty()) run.memory_plan = apply_memory_plan(checked, given, devices, store, shapes, options);
  run.shared_phases["inputs.check"] = check_timer.elapsed();

  // The front stage's shared phases (parameter loads, constraint caches) are kept apart from the back
  // stage's (engine setup) while both threads run, and merged at the end.
  PhaseMap<PhaseTime> front_shared;
  Timeline timeline;
  // The config as given (the memory plan may keep the constraints on the host for synthesis; the engines
  // are still made as asked), on the devices found.
  EngineConfig engine_config = given.engine;
  engine_config.devices = options.engine.devices;
  engine_config.memory_limit = options.engine.memory_limit;
  engine_config.max_witness_batch = options.engine.max_witness_batch;
  detail::EngineSet engines(engine_config, devices.ordinals, make, options.threads, store, timeline, shapes);
  BufferPool buffers;
  FrontStage front(c1_paths, to_prove, options, store, engines, buffers, timeline, front_shared, failures);
  BackStage back(options, store, engines, buffers, timeline, run, failures, meter.get(), run_start);
  try {
    run_two_stage<PartitionWork>([&] { return front.next(); },
                                 [&](PartitionWork&& work) { back.consume(std::move(work)); },
                                 options.overlap);
  } catch (...) {
    // The partitions on the engines come before the one that failed: they finish first, and an error
    // among them is the run's.
    back.finish();
    throw;
  }
  back.finish();
  for (const auto& [name, t] : front_shared) run.shared_phases[name] += t;
  run.failures = failures.in_input_order();
  run.total = run_timer.elapsed();
  run.peak_rss_bytes = peak_rss_bytes();
  run.synthesis_workers = std::max(1u, options.synthesis_workers);
  run.timeline = timeline.events();
  const MemoryPeaks peaks = memory.peaks();
  run.peak_anon_bytes = peaks.anon_bytes;
  run.peak_file_bytes = peaks.file_bytes;
  run.peak_device_bytes = peaks.device_bytes;
  run.memory_series = memory.series(timeline.start());
  run.usd_per_hour = given.gpu_price_per_hour;
  run.gpu = meter
                ? finish_meter(*meter, timeline, run.timeline)
                : GpuMeter::not_applicable(given.engine.gpu() ? "no GPU to meter" : "the CPU engine proves");
  return run;
}

}  // namespace cuzk::job
