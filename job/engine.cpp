#include "job/engine.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <memory>
#include <stdexcept>
#include <string>
#include <utility>
#include <vector>

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
  // See EngineConfig::devices: the engine never selects a device, so a config naming another one would be
  // proven on device 0 without saying so.
  if (config.devices != std::vector<int>{0})
    throw std::invalid_argument("the GPU engine proves on device 0 alone, not on the devices configured");
  gpu::GpuEngineOptions options;
  options.memory_limit = config.memory_limit;
  options.reader_threads = config.reader_threads;
  options.device_gather = config.gather == EngineConfig::Place::kDevice;
  options.device_constraints = config.constraints_on_engine();
  options.stream_from_file = config.stream_from_file;
  // The job's figures of the circuit (its memory plan's): the engine's plan then counts the constraint
  // matrices and the witness too. Empty (no constraints) only for a size the job did not plan.
  if (request.shape.constraints) options.shape = request.shape;
  return gpu::make_gpu_engine(request.params_path, request.header, options);
}

}  // namespace

std::string describe(const EngineConfig& config) {
  if (!config.gpu()) return config.constraints_on_engine() ? "cpu, constraints offered to the engine" : "cpu";
  std::string devices;
  for (int d : config.devices) devices += (devices.empty() ? "" : ", ") + std::to_string(d);
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
  if (!config.gpu()) return j;
  j["devices"] = config.devices;
  j["memory_limit_bytes"] = config.memory_limit;
  j["gather"] = place_name(config.gather);
  j["reader_threads"] = config.reader_threads;
  j["stream_from_file"] = config.stream_from_file;
  return j;
}

std::unique_ptr<groth16::ProverEngine> make_engine(const EngineConfig& config, const EngineRequest& request) {
  return config.gpu() ? make_gpu_engine(config, request) : make_cpu_engine(request);
}

EngineDevices find_devices(const EngineConfig& config) {
  EngineDevices out;
  if (!config.gpu()) return out;
  if (config.memory_limit) {
    out.budget = config.memory_limit;
    out.budget_from = "--gpu-memory";
  }
  const std::vector<gpu::DeviceInfo> visible = gpu::list_devices(&out.why_none);
  for (int index : config.devices) {
    auto it = std::find_if(visible.begin(), visible.end(),
                           [&](const gpu::DeviceInfo& d) { return d.index == index; });
    if (it != visible.end()) out.found.push_back(*it);
  }
  if (out.found.empty()) {
    if (!visible.empty())
      out.why_none = fmt::format("{} GPU(s) visible, none of them configured", visible.size());
    return out;
  }
  const gpu::DeviceInfo& d = out.found.front();
  if (out.budget == 0 || d.free_memory < out.budget) {
    out.budget = d.free_memory;
    out.budget_from = "the free memory of GPU " + std::to_string(d.index) + " (" + d.name + ")";
  }
  return out;
}

EngineDevices require_devices(const EngineConfig& config) {
  EngineDevices found = find_devices(config);
  if (config.gpu() && found.found.empty())
    throw JobError(JobError::Kind::kNoGpu, "--gpu: no usable GPU: none is visible (" + found.why_none + ")");
  return found;
}

}  // namespace cuzk::job
