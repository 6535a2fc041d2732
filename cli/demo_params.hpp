// Test parameters for the built-in demo circuit (groth16::make_demo_circuit), shared by
// `cuzk params setup --circuit demo` and `cuzk selftest`.
#pragma once

#include <filesystem>

#include "prover/groth16/demo_circuit.hpp"
#include "prover/groth16/parameters.hpp"

namespace cuzk::cli {

// File names inside the output directory.
inline constexpr const char* kDemoParamsFile = "demo.params";
inline constexpr const char* kDemoVkFile = "demo.vk";

// The loud warning every command that makes parameters from random toxic waste prints (stderr).
void print_not_for_production_banner();

struct DemoParams {
  groth16::Parameters params;
  std::filesystem::path params_path, vk_path;
  double seconds = 0;   // setup (or load) wall time
  bool reused = false;  // read from an existing demo.params instead of generated
};

// Generates parameters for `circuit` from fresh random toxic waste and writes demo.params and demo.vk
// into `dir` (created if needed) atomically.
DemoParams generate_demo_params(const std::filesystem::path& dir, const groth16::DemoCircuit& circuit);

// Reads dir/demo.params when it exists (every point checked) and rewrites dir/demo.vk when it is
// missing or differs from the parameters' vk; otherwise as generate_demo_params.
DemoParams load_or_generate_demo_params(const std::filesystem::path& dir,
                                        const groth16::DemoCircuit& circuit);

}  // namespace cuzk::cli
