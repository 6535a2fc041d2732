// One registration function per subcommand file. Each adds its subcommand(s) to the app and sets a
// callback; callbacks throw the library's exceptions, which main.cpp maps to exit codes.
#pragma once

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

namespace cuzk::pipeline {
struct ProveOptions;
}

namespace cuzk::cli {

// cli/params.cpp: `cuzk params names|check|info|setup`.
void register_params_commands(CLI::App& app);
// cli/selftest.cpp: `cuzk selftest`.
void register_selftest_command(CLI::App& app);
// cli/proof.cpp: `cuzk proof inspect`.
void register_proof_commands(CLI::App& app);

// cli/prove.cpp: `cuzk prove`, `cuzk verify`.
void register_prove_commands(CLI::App& app);
// cli/gen_c1.cpp: `cuzk gen-c1`.
void register_gen_c1_command(CLI::App& app);

// cli/circuit.cpp: `cuzk circuit info`.
void register_circuit_commands(CLI::App& app);

// cli/pce.cpp: `cuzk pce build|info` (pre-compiled constraint caches).
void register_pce_commands(CLI::App& app);

// cli/info.cpp: `cuzk info` (build and visible GPUs).
void register_info_command(CLI::App& app);
// The build and the visible GPUs as `cuzk info --json` prints them (also recorded by `cuzk bench`).
nlohmann::json build_info_json();

// cli/engine.cpp: with `use_gpu`, makes `options` prove on the GPU (or throws: never a CPU fall-back).
void select_engine(pipeline::ProveOptions& options, bool use_gpu);

// cli/bench.cpp: `cuzk bench` (repeated proving, statistics per phase) and `cuzk compare`.
void register_bench_commands(CLI::App& app);

// Accepts a sector size as io::parse_sector_size does (2KiB ... 64GiB, or bytes); cli/params.cpp.
CLI::Validator sector_size_validator();

}  // namespace cuzk::cli
