// `cuzk pce build|info`: pre-compiled constraint caches (pce/).
//   build (--circuit demo | --sector-size X [--update]) [--cache-dir DIR] [--params-dir DIR] [--force]:
//         load-or-build the cache file of a circuit (the PoRep partition circuit of a size, or with --update
//         its SnapDeals update circuit) in pce::cache_dir's directory (with --force: rebuild and rewrite it
//         even when a valid one exists);
//   info FILE: header, counts, sizes on disk and in memory, and a full checksum verification.
#include <fmt/format.h>
#include <omp.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

#include "cli/commands.hpp"
#include "cli/format.hpp"
#include "io/io_error.hpp"
#include "io/mapped_file.hpp"
#include "io/param_names.hpp"
#include "pce/cache.hpp"
#include "pce/cache_file.hpp"
#include "pce/compact_r1cs.hpp"
#include "pce/porep_pce.hpp"
#include "pce/update_pce.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/demo_circuit.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::cli {

namespace {

namespace fs = std::filesystem;

double per(std::uint64_t bytes, std::uint64_t constraints) {
  return constraints == 0 ? 0.0 : static_cast<double>(bytes) / static_cast<double>(constraints);
}

struct BuildOptions {
  std::string circuit;
  std::string sector_size;
  bool update = false;  // with sector_size: the update (SnapDeals) circuit of that size
  std::string cache_dir;
  std::string params_dir;
  bool force = false;
  unsigned threads = 0;
  int level = pce::WriteOptions{}.compression_level;
};

// The demo circuit of `cuzk selftest` (groth16::make_demo_circuit()).
const pce::CacheKey kDemoKey{"demo", "groth16 demo circuit v1 secrets=3,5,7 rounds=50"};

void run_build(const BuildOptions& o) {
  const fs::path dir =
      pce::cache_dir(o.cache_dir, o.params_dir.empty() ? io::parameter_cache_dir() : fs::path(o.params_dir));
  // The point of `pce build` is the file: a cache folder that is a file (or cannot be made) is refused
  // before the build, not found after it (load_or_build would only warn and use the circuit in memory).
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec || !fs::is_directory(dir)) {
    const std::string why = io::why_not_a_regular_file(dir.string());
    throw io::IoError(dir.string(), why.empty()
                                        ? "the cache folder is a file, not a folder"
                                        : "cannot make the cache folder: " + (ec ? ec.message() : why));
  }
  pce::CacheKey key;
  pce::BuildFn build;
  if (o.update) {
    const update::UpdateShape shape =
        update::UpdateShape::from_sector_bytes(porep::parse_sector_size(o.sector_size)->sector_size);
    key = pce::update_cache_key(shape);
    build = [shape] { return pce::build_update_pce(shape); };
  } else if (!o.sector_size.empty()) {
    const porep::StackedCircuitShape shape =
        porep::StackedCircuitShape::from_sector(*porep::parse_sector_size(o.sector_size));
    key = pce::porep_cache_key(shape);
    build = [shape] { return pce::build_porep_pce(shape); };
  } else {
    key = kDemoKey;
    build = [] { return pce::compact(groth16::make_demo_circuit().cs); };
  }
  pce::WriteOptions write;
  write.threads = o.threads;
  write.compression_level = o.level;
  const auto start = std::chrono::steady_clock::now();
  pce::LoadResult r;
  if (o.force) {
    fs::create_directories(dir);
    r.path = pce::cache_path(dir, key);
    r.pce = build();
    r.built = true;
    pce::write_cache_file(r.path, r.pce, key.description, write);
  } else {
    r = pce::load_or_build(dir, key, build, /*readonly=*/false, write);
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  // load_or_build uses a built circuit that cannot be written, with a warning; here that is the failure.
  if (r.built && !fs::is_regular_file(r.path))
    throw io::IoError(r.path.string(),
                      "built, but the cache file could not be written (see the warning above)");
  fmt::print("{}: {} in {:.2f} s\n", r.path.string(), r.built ? "built and written" : "valid, loaded",
             seconds);
  fmt::print("circuit:     {}\n", key.description);
  fmt::print("constraints: {}  inputs: {}  aux: {}  entries: {}\n", r.pce.num_constraints(), r.pce.num_inputs,
             r.pce.num_aux, r.pce.nnz());
  fmt::print("on disk:     {}\n", human_bytes(fs::file_size(r.path)));
  fmt::print("in memory:   {} ({:.1f} bytes per constraint)\n", human_bytes(r.pce.memory_bytes()),
             per(r.pce.memory_bytes(), r.pce.num_constraints()));
}

void run_info(const std::string& file, unsigned threads) {
  // A FIFO, a device or a directory is an input error (exit 3), refused before it is opened; a missing
  // file stays the cache layer's kMissing (exit 9), like any other unusable cache.
  if (std::string why = io::why_not_a_regular_file(file);
      !why.empty() && why != "no such file" && why != "a dangling symbolic link")
    throw io::IoError(file, why);
  const pce::CacheHeader h = pce::read_cache_header(file);
  const std::uint64_t n = h.num_constraints;
  fmt::print("file:          {}\n", file);
  fmt::print("format:        CUZKPCE version {}\n", h.format_version);
  fmt::print("circuit:       {}\n", h.description);
  fmt::print("circuit id:    {}\n", algebra::bytes_to_hex(h.circuit_id));
  fmt::print("constraints:   {}\n", n);
  fmt::print("inputs:        {} (including ONE)\n", h.num_inputs);
  fmt::print("aux:           {}\n", h.num_aux);
  fmt::print("entries:       A {}  B {}  C {}  ({:.2f} per constraint)\n", h.nnz_a, h.nnz_b, h.nnz_c,
             per(h.nnz_a + h.nnz_b + h.nnz_c, n));
  fmt::print("full coeffs:   {} table values\n", h.table_size);
  fmt::print("densities:     A aux {}/{}  B inputs {}/{}  B aux {}/{}\n", h.density_a_aux, h.num_aux,
             h.density_b_input, h.num_inputs, h.density_b_aux, h.num_aux);
  fmt::print("content:       {} uncompressed in {} zstd frames of {} (level {})\n",
             human_bytes(h.content_bytes), h.num_chunks, human_bytes(h.chunk_bytes), h.compression_level);
  fmt::print("on disk:       {} ({:.1f} bytes per constraint; compressed body {}, ratio {:.2f})\n",
             human_bytes(h.file_size), per(h.file_size, n), human_bytes(h.compressed_bytes()),
             h.compressed_bytes()
                 ? static_cast<double>(h.content_bytes) / static_cast<double>(h.compressed_bytes())
                 : 0.0);
  fmt::print("content digest: {} (SHA-256 of the chunks' XXH64s)\n", algebra::bytes_to_hex(h.content_digest));

  const auto start = std::chrono::steady_clock::now();
  const pce::CompactR1cs pce = pce::read_cache_file(file, std::nullopt, threads);
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  fmt::print("checksums:     OK (header, index, {} frames, content; structure valid) in {:.2f} s\n",
             h.num_chunks, seconds);
  const pce::CoefficientStats stats = pce::coefficient_stats(pce);
  const double total = static_cast<double>(std::max<std::uint64_t>(1, pce.nnz()));
  fmt::print("coefficients:  +-1 {:.1f}%  +-2^k {:.1f}%  table {:.1f}%\n",
             100.0 * stats.plus_minus_one / total, 100.0 * stats.power_of_two / total,
             100.0 * stats.table / total);
  fmt::print("in memory:     {} ({:.1f} bytes per constraint)\n", human_bytes(pce.memory_bytes()),
             per(pce.memory_bytes(), n));
  for (const auto& [name, m] : {std::pair{"A", &pce.a}, std::pair{"B", &pce.b}, std::pair{"C", &pce.c}}) {
    fmt::print("  matrix {}:    {} ({:.1f} bytes per constraint: row offsets 4, entries {} x 6)\n", name,
               human_bytes(m->memory_bytes()), per(m->memory_bytes(), n), m->nnz());
  }
}

}  // namespace

void register_pce_commands(CLI::App& app) {
  CLI::App* pce_cmd = app.add_subcommand("pce", "Pre-compiled constraint caches (PCE)");
  pce_cmd->require_subcommand(1);

  auto build_opts = std::make_shared<BuildOptions>();
  CLI::App* build = pce_cmd->add_subcommand("build", "Build (or check) the PCE cache file of a circuit");
  auto* circuit = build->add_option("--circuit", build_opts->circuit, "The built-in demo circuit")
                      ->check(CLI::IsMember({"demo"}));
  auto* sector = build
                     ->add_option("--sector-size", build_opts->sector_size,
                                  "The PoRep partition circuit of this sector size (2KiB ... 64GiB)")
                     ->check(sector_size_validator());
  circuit->excludes(sector);
  sector->excludes(circuit);
  build
      ->add_flag("--update", build_opts->update,
                 "With --sector-size: the SnapDeals update circuit of that size, not the PoRep one")
      ->needs(sector);
  build->add_option("--cache-dir", build_opts->cache_dir,
                    "Cache directory (default: $CUZK_PCE_CACHE, else <params dir>/pce, as `cuzk prove`)");
  build->add_option("--params-dir", build_opts->params_dir,
                    "The parameter directory whose pce/ subdirectory holds the cache (default: "
                    "$FIL_PROOFS_PARAMETER_CACHE or /var/tmp/filecoin-proof-parameters)");
  build->add_flag("--force", build_opts->force, "Rebuild and rewrite even when a valid cache exists");
  build->add_option("--threads", build_opts->threads, "Compression threads (0: all)")
      ->check(thread_count_validator());
  build->add_option("--level", build_opts->level, "zstd compression level")->check(CLI::Range(1, 19));
  build->callback([build_opts, circuit, sector] {
    if (circuit->count() == 0 && sector->count() == 0) throw CLI::RequiredError("--circuit or --sector-size");
    run_build(*build_opts);
  });

  auto file = std::make_shared<std::string>();
  auto info_threads = std::make_shared<unsigned>(0);
  CLI::App* info =
      pce_cmd->add_subcommand("info", "Header, counts, sizes and a full checksum check of a PCE file");
  info->add_option("FILE", *file, "A .pce cache file")->required();
  info->add_option("--threads", *info_threads, "Decompression threads (0: all)")
      ->check(thread_count_validator());
  info->callback([file, info_threads] { run_info(*file, *info_threads); });
}

}  // namespace cuzk::cli
