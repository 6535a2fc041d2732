#include "job/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

#include "gpu/device_info.hpp"
#include "gpu/groth16_engine.hpp"
#include "job/prove.hpp"
#include "prover/timing.hpp"

namespace cuzk::job {

namespace {

const char* place_name(EngineConfig::Place place) {
  return place == EngineConfig::Place::kDevice ? "device" : "host";
}

std::unique_ptr<groth16::ProverEngine> make_cpu_engine(const EngineRequest& request) {
  PhaseTimer timer;
  auto params = std::make_shared<const groth16::Parameters>(
      groth16::Parameters::read(request.params_path, algebra::PointCheck::kUnchecked, request.threads));
  return groth16::make_cpu_engine(std::move(params), request.threads,
                                  {{"params.load", timer.elapsed().wall_s}});
}

std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const EngineConfig& config,
                                                       const EngineRequest& request) {
  // One engine, one device (the job makes one per entry of --devices). The GPU engine allocates on the
  // calling thread's current device, so it is made current here, on the thread that makes the engine.
  if (config.devices.size() != 1)
    throw std::invalid_argument("a GPU engine is made for one device, not " +
                                std::to_string(config.devices.size()));
  gpu::use_device(config.devices.front());
  gpu::GpuEngineOptions options;
  options.memory_limit = config.memory_limit;
  options.reader_threads = config.reader_threads;
  options.device_gather = config.gather == EngineConfig::Place::kDevice;
  options.device_constraints = config.constraints_on_engine();
  options.stream_from_file = config.stream_from_file;
  options.max_witness_batch = config.max_witness_batch;
  // The job's figures of the circuit (its memory plan's): the engine's plan then counts the constraint
  // matrices and the witness too. Empty (no constraints) only for a size the job did not plan.
  if (request.shape.constraints) options.shape = request.shape;
  return gpu::make_gpu_engine(request.params_path, request.header, options);
}

}  // namespace

std::string describe(const EngineConfig& config) {
  if (!config.gpu()) {
    std::string text =
        config.engine_count() > 1 ? fmt::format("{} cpu engines", config.engine_count()) : "cpu";
    return config.constraints_on_engine() ? text + ", constraints offered to the engine" : text;
  }
  std::string devices;
  for (int d : config.devices) devices += (devices.empty() ? "" : ", ") + std::to_string(d);
  if (config.devices.empty()) devices = "all visible";
  return fmt::format(
      "gpu on device{} {}: memory {}, constraints on the {}, dense scalars gathered on the {}, parameter "
      "readers {}, streamed bases {}",
      config.devices.size() == 1 ? "" : "s", devices,
      config.memory_limit
          ? fmt::format("limit {:.1f} GiB", double(config.memory_limit) / double(std::size_t{1} << 30))
          : std::string("up to the device's free memory"),
      place_name(config.constraints), place_name(config.gather),
      config.reader_threads ? std::to_string(config.reader_threads) : std::string("by default"),
      config.stream_from_file ? "read again from the parameter file" : "in pinned host memory");
}

nlohmann::ordered_json engine_config_json(const EngineConfig& config) {
  nlohmann::ordered_json j;
  j["kind"] = config.name();
  j["constraints"] = place_name(config.constraints);
  if (!config.gpu()) {
    if (config.engine_count() > 1) j["engines"] = config.engine_count();
    return j;
  }
  j["devices"] = config.devices;
  j["memory_limit_bytes"] = config.memory_limit;
  j["gather"] = place_name(config.gather);
  j["reader_threads"] = config.reader_threads;
  j["stream_from_file"] = config.stream_from_file;
  j["max_witness_batch"] = config.max_witness_batch;
  return j;
}

std::unique_ptr<groth16::ProverEngine> make_engine(const EngineConfig& config, const EngineRequest& request) {
  return config.gpu() ? make_gpu_engine(config, request) : make_cpu_engine(request);
}

namespace {

// --gpu-memory is what the process may hold on each device, CUDA's own memory included, so that a limit
// of a smaller card's memory stands in for that card: the plan's budget is the limit less that memory, as
// the devices' free memory showed it (most of it, when another process holds memory there), or as
// estimated where no GPU is visible.
void limit_budget(std::size_t limit, EngineDevices& out) {
  out.cuda_memory = out.found.empty() ? gpu::kCudaMemoryEstimate : 0;
  for (const gpu::DeviceInfo& d : out.found) out.cuda_memory = std::max(out.cuda_memory, d.cuda_memory);
  out.budget = limit > out.cuda_memory ? limit - out.cuda_memory : 1;
  out.budget_from = fmt::format("--gpu-memory less {:.2f} GiB that CUDA holds ({})",
                                double(out.cuda_memory) / double(std::size_t{1} << 30),
                                out.found.empty() ? "estimated: no GPU is visible" : "measured");
}

}  // namespace

std::function<std::uint64_t()> device_memory_probe(const EngineConfig& config) {
  if (!config.gpu()) return {};
  return [] { return static_cast<std::uint64_t>(gpu::device_memory_in_use()); };
}

EngineDevices find_devices(const EngineConfig& config) {
  EngineDevices out;
  if (!config.gpu()) return out;
  const std::vector<gpu::DeviceInfo> visible = gpu::list_devices(&out.why_none);
  out.ordinals = config.devices;
  if (out.ordinals.empty())  // --devices all
    for (const gpu::DeviceInfo& d : visible) out.ordinals.push_back(d.index);
  for (int index : out.ordinals) {
    auto it = std::find_if(visible.begin(), visible.end(),
                           [&](const gpu::DeviceInfo& d) { return d.index == index; });
    if (it != visible.end())
      out.found.push_back(*it);
    else
      out.missing.push_back(index);
  }
  if (config.memory_limit) limit_budget(config.memory_limit, out);
  if (out.found.empty()) {
    if (!visible.empty())
      out.why_none = fmt::format("{} GPU(s) visible, none of them configured", visible.size());
    return out;
  }
  // Every engine plans against the same budget: the lowest share of free memory over the devices, a
  // device's free memory divided among the engines named on it (two engines planning for all of one
  // device's memory would not both fit).
  for (const gpu::DeviceInfo& d : out.found) {
    const auto engines_on_it =
        static_cast<std::size_t>(std::count(out.ordinals.begin(), out.ordinals.end(), d.index));
    const std::size_t share = d.free_memory / engines_on_it;
    if (out.budget == 0 || share < out.budget) {
      out.budget = share;
      out.budget_from =
          "the free memory of GPU " + std::to_string(d.index) + " (" + d.name + ")" +
          (engines_on_it > 1 ? fmt::format(" divided among its {} engines", engines_on_it) : "");
    }
  }
  return out;
}

EngineDevices require_devices(const EngineConfig& config) {
  EngineDevices found = find_devices(config);
  if (!config.gpu()) return found;
  if (found.found.empty())
    throw JobError(JobError::Kind::kNoGpu, "--gpu: no usable GPU: none is visible (" + found.why_none + ")");
  if (!found.missing.empty())
    throw JobError(JobError::Kind::kNoGpu,
                   fmt::format("--devices: GPU {} is not visible ({} GPU(s) visible; ordinals count after "
                               "CUDA_VISIBLE_DEVICES)",
                               found.missing.front(), gpu::visible_device_count()));
  return found;
}

}  // namespace cuzk::job
