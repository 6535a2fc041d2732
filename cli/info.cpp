// `cuzk info [--json]`: the build (version, CUDA or not) and the GPUs this process can see, with
// memory, multiprocessor count and compute capability. CUDA_VISIBLE_DEVICES applies, as for every
// CUDA program. A CUDA failure other than "no device/driver" raises gpu::GpuError (exit kGpuError).
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>

#include "cli/commands.hpp"
#include "cuzk_version.hpp"
#include "gpu/device_info.hpp"
#include "job/bench_report.hpp"

namespace cuzk::cli {

nlohmann::json build_info_json() {
  nlohmann::json out;
  out["version"] = CUZK_VERSION;
  out["commit"] = CUZK_GIT_COMMIT;
  out["gpus"] = nlohmann::json::array();
  out["cuda"] = gpu::built_with_cuda();
  std::string why_none;  // without CUDA: that this build has none
  for (const auto& d : gpu::list_devices(&why_none)) {
    out["gpus"].push_back({{"index", d.index},
                           {"name", d.name},
                           {"total_memory_bytes", d.total_memory},
                           {"free_memory_bytes", d.free_memory},
                           {"multiprocessors", d.multiprocessors},
                           {"compute_capability", fmt::format("{}.{}", d.major, d.minor)},
                           {"l2_bytes", d.l2_bytes},
                           {"pci_bus_id", d.pci_bus_id},
                           {"uuid", d.uuid}});
  }
  if (out["gpus"].empty()) out["no_gpu_reason"] = why_none;
  return out;
}

namespace {
std::vector<std::string>& command_line_storage() {
  static std::vector<std::string> args;
  return args;
}
}  // namespace

void remember_command_line(int argc, char** argv) {
  command_line_storage().assign(argv, argv + argc);
}

const std::vector<std::string>& command_line() {
  return command_line_storage();
}

nlohmann::ordered_json report_context_json(const std::string& date, bool with_gpus) {
  nlohmann::ordered_json j;
  j["date"] = date.empty() ? job::utc_now() : date;
  j["version"] = CUZK_VERSION;
  j["commit"] = CUZK_GIT_COMMIT;
  nlohmann::json system = job::machine_json();
  if (with_gpus) {
    const nlohmann::json build = build_info_json();
    system["cuda"] = build["cuda"];
    system["gpus"] = build["gpus"];
  }
  j["system"] = system;
  j["environment"] = job::bench_environment_json();
  j["command_line"] = command_line();
  return j;
}

void register_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print the build and the visible GPUs");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  cmd->callback([json] {
    const nlohmann::json out = build_info_json();
    if (*json) {
      fmt::print("{}\n", out.dump(2));
      return;
    }
    fmt::print("cuzk {} (commit {})\n", CUZK_VERSION, CUZK_GIT_COMMIT);
    if (!out["cuda"].get<bool>()) {
      fmt::print("no GPU support in this binary: {}\n", out["no_gpu_reason"].get<std::string>());
      return;
    }
    if (out["gpus"].empty()) {
      fmt::print("built with CUDA; no GPU visible ({})\n", out["no_gpu_reason"].get<std::string>());
      return;
    }
    fmt::print("built with CUDA; {} GPU(s) visible:\n", out["gpus"].size());
    for (const auto& d : out["gpus"]) {
      fmt::print("  [{}] {}  cc {}  {} SMs  {:.1f} GiB total ({:.1f} GiB free)  L2 {} MiB  {}\n",
                 d["index"].get<int>(), d["name"].get<std::string>(),
                 d["compute_capability"].get<std::string>(), d["multiprocessors"].get<int>(),
                 d["total_memory_bytes"].get<double>() / 1073741824.0,
                 d["free_memory_bytes"].get<double>() / 1073741824.0,
                 d["l2_bytes"].get<std::uint64_t>() >> 20, d["pci_bus_id"].get<std::string>());
    }
  });
}

}  // namespace cuzk::cli
