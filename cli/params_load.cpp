// `cuzk params load --gpu --sector-size S`: reads one size's parameters onto the GPU as `cuzk prove --gpu`
// does, prints the memory plan and the load's phases, and exits: how long the fixed cost of an invocation
// is, cold or warm, and whether the parameters fit, without proving anything.
#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "gpu/device_info.hpp"
#include "io/param_names.hpp"
#include "job/engine.hpp"
#include "job/prove.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/timing.hpp"

namespace cuzk::cli {

namespace {

struct LoadFlags {
  std::string sector_size, params_dir, gpu_memory;
  bool gpu = false;
};

void run_load(const LoadFlags& f) {
  if (!f.gpu) throw CLI::ValidationError("--gpu", "`params load` measures the GPU load: pass --gpu");
  // The parameters alone: no circuit is known here, so the plan keeps a, b, c and the gather on the host.
  const job::EngineConfig config = gpu_engine_config(f.gpu_memory, "host", "host");
  job::require_devices(config);  // no usable GPU: exit 8 before the parameters are read
  const porep::SectorShape* shape = porep::parse_sector_size(f.sector_size);
  job::ParameterStore store(f.params_dir.empty() ? io::parameter_cache_dir().string() : f.params_dir);
  const std::string path = store.params_path(*shape);
  const groth16::ParameterHeader& header = store.header_for(*shape);
  PhaseTimer timer;
  auto engine = job::make_engine(config, {path, header});
  const double seconds = timer.elapsed().wall_s;
  fmt::print("{}: on the GPU in {:.2f} s ({:.1f} GiB in use on the device)\n", path, seconds,
             double(gpu::device_memory_in_use()) / double(1ull << 30));
  for (const auto& [name, s] : engine->setup_phases()) fmt::print("  {:<18} {:8.3f} s\n", name, s);
}

}  // namespace

void register_params_load_command(CLI::App& app) {
  CLI::App* params = app.get_subcommand("params");
  auto f = std::make_shared<LoadFlags>();
  CLI::App* load = params->add_subcommand(
      "load",
      "Read one size's parameters onto the GPU as `prove --gpu` does; print the memory plan and the "
      "load's phases (params.load.warm or .cold by the share of the file in the page cache)");
  load->add_option("--sector-size", f->sector_size, "the sector size whose parameters to load")
      ->required()
      ->check(sector_size_validator());
  load->add_option("--params-dir", f->params_dir, "parameter directory (default: the parameter cache)");
  load->add_flag("--gpu", f->gpu, "load onto the GPU (required: the CPU engine decodes in host memory)");
  load->add_option("--gpu-memory", f->gpu_memory, "device memory the plan may use (e.g. 22GiB)");
  load->callback([f] { run_load(*f); });
}

}  // namespace cuzk::cli
