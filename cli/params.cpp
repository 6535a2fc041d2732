// `cuzk params names|check|info|setup`: Filecoin parameter file names, digest checks against
// parameters.json, structure of .params/.vk files, and test parameters for the PoRep and update (SnapDeals)
// circuits (streamed from the constraint cache, on the CPU or the GPU) and for the demo circuit.
#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/demo_params.hpp"
#include "cli/exit_codes.hpp"
#include "cli/format.hpp"
#include "cli/help_format.hpp"
#include "gpu/fixed_base.hpp"
#include "io/atomic_file.hpp"
#include "io/param_names.hpp"
#include "job/prove.hpp"
#include "pce/cache.hpp"
#include "pce/porep_pce.hpp"
#include "pce/test_setup.hpp"
#include "pce/update_pce.hpp"
#include "prover/algebra/bits.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/fixed_base.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/setup.hpp"
#include "prover/porep/param_names.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/porep/synthesis.hpp"
#include "prover/update/param_names.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::cli {
namespace {

namespace fs = std::filesystem;

std::vector<const porep::SectorShape*> selected_sizes(const std::string& sector_size) {
  if (sector_size.empty()) {
    std::vector<const porep::SectorShape*> all;
    for (const porep::SectorShape& s : porep::all_sector_shapes()) all.push_back(&s);
    return all;
  }
  return {porep::parse_sector_size(sector_size)};  // the option's validator already accepted it
}

// `circuit`: porep, update or all (the option's check accepted it); PoRep names first.
void run_names(const std::string& sector_size, const std::string& circuit) {
  const porep::ParamFileKind kinds[] = {porep::ParamFileKind::kParams, porep::ParamFileKind::kVerifyingKey};
  if (circuit != "update") {
    for (const porep::SectorShape* s : selected_sizes(sector_size))
      for (porep::ParamFileKind kind : kinds)
        fmt::print("{:<7} {}\n", s->label, porep::param_file_name(*s, kind));
  }
  if (circuit == "porep") return;
  for (const porep::SectorShape* s : selected_sizes(sector_size)) {
    for (porep::ParamFileKind kind : kinds) {
      const std::optional<porep::ManifestEntry> e = update::find_update_manifest_entry(s->sector_size, kind);
      if (e) fmt::print("{:<7} {}\n", s->label, e->file_name);
    }
  }
}

// Prints OK or MISMATCH for one present file against its parameters.json entry; true when it matches.
bool check_digest(const fs::path& path, const porep::ManifestEntry& entry, const std::string& label) {
  const std::string name = path.filename().string();
  const auto start = std::chrono::steady_clock::now();
  const std::string digest = porep::filecoin_param_digest(path);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  if (digest == entry.digest) {
    fmt::print("OK        {:<7} {} ({}, {:.1f} s)\n", label, name, human_bytes(fs::file_size(path)), seconds);
    return true;
  }
  fmt::print("MISMATCH  {:<7} {}\n          digest {} expected {}\n", label, name, digest, entry.digest);
  return false;
}

void run_check(const std::string& params_dir_flag, const std::string& sector_size) {
  const fs::path dir = params_dir_flag.empty() ? io::parameter_cache_dir() : fs::path(params_dir_flag);
  fmt::print("parameter directory: {}\n", dir.string());
  std::error_code dir_ec;
  if (!fs::is_directory(dir, dir_ec)) spdlog::warn("{} is not a directory", dir.string());
  int ok = 0, mismatched = 0, missing = 0;
  for (const porep::SectorShape* s : selected_sizes(sector_size)) {
    for (porep::ParamFileKind kind : {porep::ParamFileKind::kParams, porep::ParamFileKind::kVerifyingKey}) {
      const std::string name = porep::param_file_name(*s, kind);
      const std::optional<porep::ManifestEntry> entry = porep::find_manifest_entry(name);
      const fs::path path = dir / name;
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) {
        fmt::print("MISSING   {:<7} {}\n", s->label, name);
        ++missing;
        continue;
      }
      if (entry && check_digest(path, *entry, std::string(s->label))) {
        ++ok;
      } else if (!entry) {
        fmt::print("MISMATCH  {:<7} {}\n          (no manifest entry)\n", s->label, name);
        ++mismatched;
      } else {
        ++mismatched;
      }
    }
  }
  // The update (SnapDeals) files where present: not every operator snaps, so absent ones are not missing.
  for (const porep::SectorShape* s : selected_sizes(sector_size)) {
    for (porep::ParamFileKind kind : {porep::ParamFileKind::kParams, porep::ParamFileKind::kVerifyingKey}) {
      const std::optional<porep::ManifestEntry> entry =
          update::find_update_manifest_entry(s->sector_size, kind);
      if (!entry) continue;
      const fs::path path = dir / std::string(entry->file_name);
      std::error_code ec;
      if (!fs::is_regular_file(path, ec)) continue;
      if (check_digest(path, *entry, fmt::format("{} update", s->label)))
        ++ok;
      else
        ++mismatched;
    }
  }
  fmt::print("{} ok, {} mismatch, {} missing\n", ok, mismatched, missing);
  if (mismatched > 0) {
    spdlog::error("{} parameter file(s) do not match parameters.json", mismatched);
    throw CLI::RuntimeError(kParameterError);
  }
  // Files of a size the user asked for explicitly must be there; otherwise absent sizes are normal
  // (operators fetch only the sizes they seal).
  if (missing > 0 && !sector_size.empty()) {
    spdlog::error("{} parameter file(s) for {} missing in {}", missing, sector_size, dir.string());
    throw CLI::RuntimeError(kParameterError);
  }
}

void print_manifest_match(const fs::path& path, bool compute_digest) {
  const std::string name = path.filename().string();
  std::optional<porep::ManifestEntry> entry = porep::find_manifest_entry(name);
  const char* circuit = "PoRep";
  for (const porep::ManifestEntry& e : update::update_manifest()) {
    if (!entry && e.file_name == name) {
      entry = e;
      circuit = "update (SnapDeals)";
    }
  }
  if (!entry) {
    fmt::print("manifest:     not a Filecoin PoRep or update parameter file name\n");
  } else {
    fmt::print("manifest:     {} {} sector, cid {}, digest {}\n", circuit,
               porep::find_sector_shape(entry->sector_size)->label, entry->cid, entry->digest);
  }
  if (compute_digest) {
    const std::string digest = porep::filecoin_param_digest(path);
    const bool match = entry && digest == entry->digest;
    fmt::print("digest:       {}{}\n", digest, entry ? (match ? " (matches)" : " (MISMATCH)") : "");
    if (entry && !match) throw CLI::RuntimeError(kParameterError);
  }
}

void run_info(const std::string& file, bool check_points, bool compute_digest) {
  const fs::path path(file);
  const bool is_vk = path.extension() == ".vk";
  if (is_vk) {
    // A verifying key is small (32 KiB for 32GiB sectors): decode and check every point (the reader refuses
    // a point at infinity: a subverted setup, under which forged proofs verify).
    const groth16::VerifyingKey vk = groth16::VerifyingKey::read(file);
    fmt::print("file:         {} ({} bytes)\n", file, fs::file_size(path));
    fmt::print("kind:         verifying key (bellperson VerifyingKey)\n");
    fmt::print("ic:           {} points ({} public inputs after ONE)\n", vk.ic.size(), vk.ic.size() - 1);
    fmt::print("size:         {} bytes = 864 + 4 + {} x 96\n", vk.serialized_size(), vk.ic.size());
    fmt::print("structure:    OK (every point on the curve and in the subgroup)\n");
    print_manifest_match(path, compute_digest);
    return;
  }
  const groth16::ParametersInfo info = groth16::read_parameters_info(file);
  // The verifying key at the start is small: decoded and checked (no point at infinity) even without
  // --check-points, as `cuzk prove` reads it.
  (void)groth16::read_parameter_header(file);
  fmt::print("file:         {} ({} bytes, {})\n", file, info.file_size, human_bytes(info.file_size));
  fmt::print("kind:         proving parameters (bellperson Parameters)\n");
  fmt::print("{:<6} {:>12} {:>8} {:>16} {:>12}\n", "vector", "count", "point B", "bytes", "offset");
  for (const auto& v : info.vectors) {
    fmt::print("{:<6} {:>12} {:>8} {:>16} {:>12}\n", v.name, v.count, v.point_bytes, v.bytes(),
               v.length_offset);
  }
  const std::uint64_t domain = info.domain_size();
  fmt::print("inputs:       {} (ONE included)\n", info.num_inputs());
  fmt::print("aux:          {}\n", info.num_aux());
  fmt::print("domain size:  {}{}\n", domain,
             algebra::is_power_of_two(domain) ? fmt::format(" = 2^{}", algebra::log2_floor(domain))
                                              : std::string(" (NOT a power of two)"));
  fmt::print("vk bytes:     {}\n", info.vk_bytes());
  if (!algebra::is_power_of_two(domain)) {
    spdlog::error("{}: h has {} points; a domain of {} is not a power of two", file, domain - 1, domain);
    throw CLI::RuntimeError(kParameterError);
  }
  if (check_points) {
    const auto start = std::chrono::steady_clock::now();
    (void)groth16::Parameters::read(file, algebra::PointCheck::kFull);
    fmt::print(
        "structure:    OK (lengths add up to the file size; every point decoded and checked in {:.1f} s)\n",
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count());
  } else {
    fmt::print(
        "structure:    OK (lengths add up to the file size; the verifying key checked; base points not "
        "decoded, see --check-points)\n");
  }
  print_manifest_match(path, compute_digest);
}

struct PorepSetupFlags {
  std::string sector_size, params_dir, pce_cache_dir;
  bool update = false;  // --circuit update: the SnapDeals circuit of the size instead of the PoRep one
  bool force = false, gpu = false;
  std::optional<std::uint64_t> seed;
  unsigned threads = 0;
};

// The fixed-base encoder: --gpu never falls back to the CPU (gpu::GpuError of kind no-device, exit 8,
// without a GPU or without CUDA).
std::unique_ptr<groth16::FixedBaseEncoder> make_encoder(const PorepSetupFlags& f) {
  if (!f.gpu) return groth16::make_cpu_fixed_base_encoder(f.threads);
  return gpu::make_gpu_fixed_base_encoder();
}

// What one setup writes and from which circuit: the PoRep or the update circuit of a sector size.
struct SetupTarget {
  std::string label;  // "2KiB" or "2KiB update", for the log lines
  fs::path params_path, vk_path;
  std::optional<fs::path> meta_path;  // rfp's .meta: PoRep only (lotus lists none for the update files)
  std::function<pce::LoadResult(const fs::path& pce_dir)> load_pce;
};

SetupTarget setup_target(const PorepSetupFlags& f, const fs::path& dir) {
  const porep::SectorShape* shape = porep::parse_sector_size(f.sector_size);
  if (!f.update) {
    const auto circuit = porep::StackedCircuitShape::from_sector(*shape);
    return {std::string(shape->label), dir / porep::param_file_name(*shape, porep::ParamFileKind::kParams),
            dir / porep::param_file_name(*shape, porep::ParamFileKind::kVerifyingKey),
            dir / porep::param_file_name(*shape, porep::ParamFileKind::kMeta),
            [circuit](const fs::path& pce_dir) { return pce::load_or_build_porep(pce_dir, circuit); }};
  }
  // Every size parse_sector_size accepts has a registered update proof and lotus' two file names.
  const auto params = update::find_update_manifest_entry(shape->sector_size, porep::ParamFileKind::kParams);
  const auto vk = update::find_update_manifest_entry(shape->sector_size, porep::ParamFileKind::kVerifyingKey);
  if (!params || !vk) throw CLI::ValidationError("--sector-size", "no update circuit for " + f.sector_size);
  const update::UpdateShape circuit = update::UpdateShape::from_sector_bytes(shape->sector_size);
  return {std::string(shape->label) + " update", dir / std::string(params->file_name),
          dir / std::string(vk->file_name), std::nullopt,
          [circuit](const fs::path& pce_dir) { return pce::load_or_build_update(pce_dir, circuit); }};
}

// Test parameters for one sector size's PoRep or update circuit, written under Filecoin's names so that
// `cuzk prove` finds them: the circuit's PCE (loaded from the cache or built, as `cuzk prove` does), then
// the streaming setup (pce/test_setup.hpp) into .params and .vk, and the PoRep .meta.
void run_filecoin_setup(const PorepSetupFlags& f) {
  const auto start = std::chrono::steady_clock::now();
  auto seconds = [&] {
    return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  const fs::path dir = f.params_dir.empty() ? io::parameter_cache_dir() : fs::path(f.params_dir);
  const SetupTarget target = setup_target(f, dir);
  if (!f.force && (fs::exists(target.params_path) || fs::exists(target.vk_path))) {
    spdlog::error("{} already exists; pass --force to replace it",
                  fs::exists(target.params_path) ? target.params_path.string() : target.vk_path.string());
    throw CLI::RuntimeError(kParameterError);
  }
  // The outputs, then the encoder: a device or FIFO in their place, or --gpu on a machine without one, fails
  // before minutes of PCE work.
  fs::create_directories(dir);
  for (const fs::path& output : {target.params_path, target.vk_path}) io::check_output_file(output);
  if (target.meta_path) io::check_output_file(*target.meta_path);
  const std::unique_ptr<groth16::FixedBaseEncoder> encoder = make_encoder(f);
  groth16::ToxicWaste waste;
  if (f.seed) {
    waste = groth16::ToxicWaste::from_seed(*f.seed);
    fmt::print("toxic waste from seed {} (TEST ONLY: anyone who knows the seed can forge proofs)\n", *f.seed);
    std::fflush(stdout);  // before the long run's log lines on stderr
  } else {
    waste = groth16::ToxicWaste::random();
  }

  // The PCE cache directory by the one rule (pce::cache_dir): the flag, CUZK_PCE_CACHE, or <params dir>/pce.
  const fs::path pce_dir = pce::cache_dir(f.pce_cache_dir, dir);
  const std::string& label = target.label;
  spdlog::info("params setup {}: loading or building the constraint cache in {}", label, pce_dir.string());
  const pce::LoadResult loaded = target.load_pce(pce_dir);
  spdlog::info("params setup {}: phase pce.{}: {:.2f} s ({}{}; {} constraints, {} inputs, {} aux)", label,
               loaded.built ? "build" : "load", loaded.seconds, loaded.path.string(),
               loaded.rebuild_reason.empty() ? "" : ", rebuilt: " + loaded.rebuild_reason,
               loaded.pce.num_constraints(), loaded.pce.num_inputs, loaded.pce.num_aux);
  const pce::TestParametersSize sizes = pce::test_parameters_size(loaded.pce);
  spdlog::info("params setup {}: {} ({}) and {} with the {} encoder", label,
               target.params_path.filename().string(), human_bytes(sizes.params_bytes),
               target.vk_path.filename().string(), encoder->name());
  pce::write_test_parameters(
      loaded.pce, waste, *encoder, target.params_path, target.vk_path, f.threads,
      [&](const std::string& line) { spdlog::info("params setup {}: {}", label, line); });
  fmt::print("wrote {} ({} bytes)\nwrote {} ({} bytes)\n", target.params_path.string(),
             fs::file_size(target.params_path), target.vk_path.string(), fs::file_size(target.vk_path));
  if (target.meta_path) {
    const std::string meta =
        fmt::format("{{\"sector_size\":{}}}",
                    porep::parse_sector_size(f.sector_size)->sector_size);  // rfp CacheEntryMetadata
    io::write_file_atomic(*target.meta_path,
                          {reinterpret_cast<const std::uint8_t*>(meta.data()), meta.size()});
    fmt::print("wrote {}\n", target.meta_path->string());
  }
  fmt::print("setup took {:.1f} s\n", seconds());
}

}  // namespace

CLI::Validator sector_size_validator() {
  return CLI::Validator(
      [](std::string& value) -> std::string {
        return porep::parse_sector_size(value)
                   ? std::string()
                   : "expected 2KiB, 8MiB, 512MiB, 32GiB, 64GiB or the size in bytes";
      },
      "SIZE", "SectorSize");
}

namespace {

// Option groups of `cuzk params setup --help`.
constexpr const char* kPorepSetupGroup = "Filecoin circuits (PoRep, SnapDeals update)";
constexpr const char* kDemoSetupGroup = "Built-in demo circuit";

// `cuzk params names`.
void add_names_command(CLI::App* params) {
  auto sector_size = std::make_shared<std::string>();
  auto circuit = std::make_shared<std::string>("porep");
  CLI::App* names = params->add_subcommand(
      "names", "Print the v28 .params/.vk file names (rust-fil-proofs parameter_cache.rs)");
  names->add_option("--sector-size", *sector_size, "Only this size: 2KiB 8MiB 512MiB 32GiB 64GiB or bytes")
      ->check(sector_size_validator());
  names->add_option("--circuit", *circuit, "porep, update (SnapDeals: lotus parameters.json) or all")
      ->check(CLI::IsMember({"porep", "update", "all"}))
      ->capture_default_str();
  names->callback([sector_size, circuit] { run_names(*sector_size, *circuit); });
}

// `cuzk params check`.
void add_check_command(CLI::App* params) {
  auto params_dir = std::make_shared<std::string>();
  auto check_size = std::make_shared<std::string>();
  CLI::App* check =
      params->add_subcommand("check",
                             "Check the parameter files present against parameters.json (BLAKE2b-512, first "
                             "32 hex chars). Exit 6 on a "
                             "mismatch, or when files of an explicitly requested --sector-size are missing");
  check->add_option(
      "--params-dir", *params_dir,
      "Parameter directory (default: $FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters)");
  check->add_option("--sector-size", *check_size, "Only this size")->check(sector_size_validator());
  check->callback([params_dir, check_size] { run_check(*params_dir, *check_size); });
}

// `cuzk params info`.
void add_info_command(CLI::App* params) {
  auto info_file = std::make_shared<std::string>();
  auto check_points = std::make_shared<bool>(false);
  auto digest = std::make_shared<bool>(false);
  CLI::App* info =
      params->add_subcommand("info", "Vector counts, domain size and byte sizes of a .params or .vk file");
  info->add_option("FILE", *info_file, "A .params or .vk file (bellperson layout)")->required();
  info->add_flag("--check-points", *check_points,
                 "Also decode every .params point with the full checks (slow for large sectors)");
  info->add_flag("--digest", *digest, "Also compute the BLAKE2b digest and compare it with parameters.json");
  info->callback([info_file, check_points, digest] { run_info(*info_file, *check_points, *digest); });
}

// `cuzk params setup`: its options for the PoRep circuit and for the demo circuit, and the run of either.
void add_setup_command(CLI::App* params) {
  auto setup_circuit = std::make_shared<std::string>();
  auto setup_out = std::make_shared<std::string>();
  auto porep_flags = std::make_shared<PorepSetupFlags>();
  CLI::App* setup = params->add_subcommand(
      "setup",
      "Generate TEST parameters (random toxic waste, NOT FOR PRODUCTION): for the PoRep or the update "
      "(SnapDeals) circuit of a sector size under Filecoin's file names, or for the built-in demo circuit");
  // Two sets of flags: Filecoin's circuits (PoRep, update) under Filecoin's names, the demo circuit's in a
  // folder.
  auto* size_opt =
      setup->add_option("--sector-size", porep_flags->sector_size, "The circuit of this sector size")
          ->check(sector_size_validator())
          ->group(kPorepSetupGroup);
  setup
      ->add_option("--params-dir", porep_flags->params_dir,
                   "Where the .params/.vk/.meta files go (default: $FIL_PROOFS_PARAMETER_CACHE or "
                   "/var/tmp/filecoin-proof-parameters)")
      ->needs(size_opt)
      ->group(kPorepSetupGroup);
  setup->add_flag("--force", porep_flags->force, "Overwrite existing parameter files")
      ->needs(size_opt)
      ->group(kPorepSetupGroup);
  setup
      ->add_option("--pce-cache-dir", porep_flags->pce_cache_dir,
                   "Constraint cache directory (default: $CUZK_PCE_CACHE, else <params dir>/pce)")
      ->needs(size_opt)
      ->group(kPorepSetupGroup);
  setup
      ->add_option("--circuit", *setup_circuit,
                   "porep (default with --sector-size), update (the SnapDeals circuit of --sector-size, "
                   "under lotus' file names) or demo (the built-in example, with -o)")
      ->check(CLI::IsMember({"porep", "update", "demo"}))
      ->group(kPorepSetupGroup);
  setup->add_option("-o,--output", *setup_out, "Output directory for --circuit demo")->group(kDemoSetupGroup);
  setup
      ->add_flag(
          "--gpu", porep_flags->gpu,
          "The fixed-base multiplications on the GPU (exit 8 without one; never falls back to the CPU)")
      ->needs(size_opt)
      ->group(kGpuGroup);
  setup
      ->add_option("--threads", porep_flags->threads, "CPU threads (0: all; at most 4x the hardware threads)")
      ->check(thread_count_validator())
      ->needs(size_opt)
      ->capture_default_str()
      ->group(kTuningGroup);
  setup
      ->add_option("--seed", porep_flags->seed,
                   "Derive the toxic waste from this number: the same files on the CPU and the GPU; anyone "
                   "who knows the seed can forge proofs")
      ->check(u64_validator())
      ->needs(size_opt)
      ->group(kTestOnlyGroup);
  setup->callback([setup_circuit, setup_out, porep_flags] {
    const bool demo = *setup_circuit == "demo";
    if (demo != !setup_out->empty() || demo == !porep_flags->sector_size.empty())
      throw CLI::ValidationError("params setup",
                                 "give --sector-size SIZE [--circuit porep|update] or --circuit demo -o DIR");
    print_not_for_production_banner();
    if (demo) {
      const DemoParams result = generate_demo_params(*setup_out, groth16::make_demo_circuit());
      fmt::print("wrote {} ({} bytes)\nwrote {} ({} bytes)\nsetup took {:.3f} s\n",
                 result.params_path.string(), fs::file_size(result.params_path), result.vk_path.string(),
                 fs::file_size(result.vk_path), result.seconds);
      return;
    }
    porep_flags->update = *setup_circuit == "update";
    run_filecoin_setup(*porep_flags);
  });
}

}  // namespace

void register_params_commands(CLI::App& app) {
  CLI::App* params =
      app.add_subcommand("params", "Filecoin Groth16 parameter files: names, digests, structure");
  params->require_subcommand(1);
  add_names_command(params);
  add_check_command(params);
  add_info_command(params);
  add_setup_command(params);
}

}  // namespace cuzk::cli
