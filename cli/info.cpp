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

#ifdef CUZK_HAVE_CUDA
#include "gpu/device_info.hpp"
#endif

namespace cuzk::cli {

void register_info_command(CLI::App& app) {
  auto* cmd = app.add_subcommand("info", "Print the build and the visible GPUs");
  auto json = std::make_shared<bool>(false);
  cmd->add_flag("--json", *json, "Print JSON instead of text");
  cmd->callback([json] {
    nlohmann::json out;
    out["version"] = CUZK_VERSION;
    out["commit"] = CUZK_GIT_COMMIT;
#ifdef CUZK_HAVE_CUDA
    out["cuda"] = true;
    std::string why_none;
    auto devices = gpu::list_devices(&why_none);
    out["gpus"] = nlohmann::json::array();
    for (const auto& d : devices) {
      out["gpus"].push_back({{"index", d.index},
                             {"name", d.name},
                             {"total_memory_bytes", d.total_memory},
                             {"free_memory_bytes", d.free_memory},
                             {"multiprocessors", d.multiprocessors},
                             {"compute_capability", fmt::format("{}.{}", d.major, d.minor)},
                             {"l2_bytes", d.l2_bytes},
                             {"pci_bus_id", d.pci_bus_id}});
    }
    if (devices.empty()) out["no_gpu_reason"] = why_none;
#else
    out["cuda"] = false;
    out["gpus"] = nlohmann::json::array();
#endif
    if (*json) {
      fmt::print("{}\n", out.dump(2));
      return;
    }
    fmt::print("cuzk {} (commit {})\n", CUZK_VERSION, CUZK_GIT_COMMIT);
#ifdef CUZK_HAVE_CUDA
    if (devices.empty()) {
      fmt::print("built with CUDA; no GPU visible ({})\n", why_none);
      return;
    }
    fmt::print("built with CUDA; {} GPU(s) visible:\n", devices.size());
    for (const auto& d : devices) {
      fmt::print("  [{}] {}  cc {}.{}  {} SMs  {:.1f} GiB total ({:.1f} GiB free)  L2 {} MiB  {}\n", d.index,
                 d.name, d.major, d.minor, d.multiprocessors, d.total_memory / 1073741824.0,
                 d.free_memory / 1073741824.0, d.l2_bytes >> 20, d.pci_bus_id);
    }
#else
    fmt::print("built without CUDA: no GPU support in this binary\n");
#endif
  });
}

}  // namespace cuzk::cli
