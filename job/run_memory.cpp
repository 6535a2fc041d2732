#include "job/run_memory.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "io/byte_size.hpp"
#include "prover/algebra/curve.hpp"

namespace cuzk::job {

namespace {

constexpr double kGiB = double(std::size_t{1} << 30);

std::string gib(std::size_t bytes) {
  return fmt::format("{:.1f} GiB", double(bytes) / kGiB);
}

// The CPU engine's parameters as Parameters::read decodes them: every base vector in host memory, at the
// host's point sizes (affine coordinates in Montgomery form and an infinity flag).
std::size_t cpu_parameter_bytes(const gpu::ProverShape& s) {
  return (s.h + s.l + s.a + s.b_g1) * sizeof(algebra::G1Affine) + s.b_g2 * sizeof(algebra::G2Affine);
}

gpu::HostPlanRequest host_request(const RunMemoryPlan& plan, unsigned synthesis_workers) {
  const RunMemoryRequest& r = plan.request;
  gpu::HostPlanRequest host;
  host.gpu = r.gpu;
  host.constraints_on_device =
      r.gpu && (plan.device ? plan.device->constraints_on_device : r.device_constraints);
  if (plan.device && r.pinned_streamed_bases)
    for (const gpu::VectorPlan& v : plan.device->vectors)
      if (!v.resident) host.pinned_bases_bytes += v.bytes;
  host.synthesis_workers = synthesis_workers;
  // Auto: two workers keep the cores busy while the GPU proves (one partition's synthesis has serial
  // stretches); on the CPU, proving takes every core itself.
  host.max_auto_workers = r.gpu ? 2 : 1;
  host.available = r.available;
  host.cpu_parameter_bytes = r.gpu ? 0 : cpu_parameter_bytes(plan.shape);
  host.engines = r.engines;
  host.witness_batch = plan.device ? plan.device->witness_batch : 1;
  return host;
}

}  // namespace

RunMemoryPlan plan_run_memory(const std::string& sector_size, const gpu::ProverShape& shape,
                              const RunMemoryRequest& request) {
  RunMemoryPlan plan;
  plan.sector_size = sector_size;
  plan.shape = shape;
  plan.request = request;
  if (request.gpu && request.device_budget) {
    gpu::PlanRequest device;
    device.budget = request.device_budget;
    device.device_constraints = request.device_constraints;
    device.partitions_in_flight = 1;  // the engine proves one partition at a time
    device.windows_in_h_step = gpu::windows_in_h_step_allowed();
    device.two_buffer_h_step = gpu::two_buffer_h_step_allowed();
    device.max_witness_batch = request.max_witness_batch
                                   ? std::min(request.max_witness_batch, gpu::max_witness_batch_allowed())
                                   : gpu::max_witness_batch_allowed();
    plan.device = gpu::plan_device_memory(shape, device);
    plan.host = gpu::plan_host_memory(shape, host_request(plan, request.synthesis_workers));
    if (plan.device->witness_batch > 1) {
      // Pairing partitions holds one more partition per engine on the host (~15.6 GiB at 32GiB) for a
      // shorter pass over the streamed windows: only where the host has that room beside the synthesis
      // workers it would run unpaired. Else the partitions go one at a time.
      RunMemoryPlan unpaired = plan;
      device.max_witness_batch = 1;
      unpaired.device = gpu::plan_device_memory(shape, device);
      unpaired.host = gpu::plan_host_memory(shape, host_request(unpaired, request.synthesis_workers));
      const bool room = plan.host.fits && plan.host.synthesis_workers >= unpaired.host.synthesis_workers;
      if (!room && unpaired.device->fits) return unpaired;
    }
    return plan;
  }
  plan.host = gpu::plan_host_memory(shape, host_request(plan, request.synthesis_workers));
  return plan;
}

std::string RunMemoryPlan::shortfall() const {
  std::vector<std::string> parts;
  if (device && !device->fits) {
    // The smallest plan (every vector streamed, the constraints on the host) is what a budget must hold.
    const std::size_t need_gib =
        (device->need + request.device_cuda_memory + (std::size_t{1} << 30) - 1) >> 30;
    parts.push_back(fmt::format(
        "GPU memory: the {} circuit needs at least {} ({} bytes: every base vector streamed, the "
        "constraints on the host), the budget is {} ({} bytes, {}); it would fit in {}GiB (--gpu-memory "
        "{}GiB or more, on a GPU with that much free memory)",
        sector_size, gib(device->need), device->need, gib(device->budget), device->budget,
        request.device_budget_from.empty() ? "--gpu-memory" : request.device_budget_from, need_gib,
        need_gib));
  }
  if (!host.fits) {
    // The parts are in the plan, which is logged or printed beside this message.
    std::string text = fmt::format(
        "host memory: the {} circuit needs about {} ({} bytes) with {} synthesis worker{}, {} ({} bytes) are "
        "available ({})",
        sector_size, gib(host.total), host.total, host.synthesis_workers,
        host.synthesis_workers == 1 ? "" : "s", gib(host.available), host.available, request.available_from);
    if (host.workers_that_fit >= 1 && host.workers_that_fit < host.synthesis_workers) {
      const gpu::HostPlan fewer = gpu::plan_host_memory(shape, host_request(*this, host.workers_that_fit));
      text += fmt::format("; --synthesis-workers {} would fit (about {})", host.workers_that_fit,
                          gib(fewer.total));
    } else if (!request.gpu) {
      // Where the GPU engine evaluates the constraints depends on its device, unknown here: both ends.
      RunMemoryPlan on_gpu = *this;
      on_gpu.request.gpu = true;
      on_gpu.device.reset();
      on_gpu.request.device_constraints = true;
      const gpu::HostPlan device_abc = gpu::plan_host_memory(shape, host_request(on_gpu, 1));
      on_gpu.request.device_constraints = false;
      const gpu::HostPlan host_abc = gpu::plan_host_memory(shape, host_request(on_gpu, 1));
      text += fmt::format(
          "; even one synthesis worker does not fit: the CPU engine holds the decoded parameters ({}) in "
          "host memory; with --gpu one worker needs about {} (the constraints on the GPU) to {} (on the "
          "host)",
          gib(host.parameter_bytes), gib(device_abc.total), gib(host_abc.total));
    } else {
      text += "; even one synthesis worker does not fit: free memory, or run on a larger machine";
      if (host.pinned_bytes > (std::size_t{2} << 30))
        text += fmt::format(" (a larger --gpu-memory keeps more of the {} of pinned bases on the device)",
                            gib(host.pinned_bytes));
    }
    parts.push_back(std::move(text));
  }
  std::string out;
  for (const std::string& part : parts) out += (out.empty() ? "" : "; ") + part;
  return out.empty() ? out : "the run does not fit in memory: " + out;
}

nlohmann::ordered_json device_plan_json(const gpu::DevicePlan& plan) {
  nlohmann::ordered_json j;
  j["budget_bytes"] = plan.budget;
  j["need_bytes"] = plan.need;
  j["fits"] = plan.fits;
  j["range"] = plan.range;
  j["sort_pairs"] = plan.sort_pairs;
  j["constraints_on_device"] = plan.constraints_on_device;
  j["upload_bytes_per_partition"] = plan.upload_bytes_per_partition;
  j["h_endomorphism"] = plan.h_endomorphism;
  j["windows_in_h_step"] = plan.windows_in_h_step;
  j["h_step_buffers"] = plan.h_step_buffers;
  j["witness_batch"] = plan.witness_batch;
  j["vectors"] = nlohmann::ordered_json::array();
  for (const gpu::VectorPlan& v : plan.vectors)
    j["vectors"].push_back(nlohmann::ordered_json{{"name", gpu::base_vector_name(v.id)},
                                                  {"count", v.count},
                                                  {"bytes", v.bytes},
                                                  {"resident", v.resident},
                                                  {"sort_passes", v.passes}});
  j["parts"] = {{"bases", plan.bases_bytes},
                {"h_step", plan.h_step_bytes},
                {"msm_scratch", plan.msm_scratch_bytes},
                {"windows", plan.window_bytes},
                {"constraints", plan.constraints_bytes},
                {"witness", plan.witness_bytes}};
  return j;
}

nlohmann::ordered_json host_plan_json(const gpu::HostPlan& plan) {
  nlohmann::ordered_json j;
  j["synthesis_workers"] = plan.synthesis_workers;
  j["partitions_alive"] = plan.partitions_alive;
  j["per_partition_bytes"] = plan.per_partition_bytes;
  j["pinned_bytes"] = plan.pinned_bytes;
  j["total"] = plan.total;
  j["available"] = plan.available;
  j["fits"] = plan.fits;
  j["workers_that_fit"] = plan.workers_that_fit;
  j["parts"] = {{"prover_scratch", plan.prover_scratch_bytes},
                {"constraints", plan.constraint_bytes},
                {"parameters", plan.parameter_bytes},
                {"process", plan.base_bytes}};
  return j;
}

nlohmann::ordered_json memory_plan_json(const RunMemoryPlan& plan) {
  nlohmann::ordered_json j;
  j["sector_size"] = plan.sector_size;
  if (plan.device) j["device"] = device_plan_json(*plan.device);
  j["host"] = host_plan_json(plan.host);
  j["fits"] = plan.fits();
  return j;
}

}  // namespace cuzk::job
