#include "cli/demo_params.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <chrono>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <system_error>
#include <vector>

#include "io/io_error.hpp"
#include "prover/groth16/setup.hpp"

namespace cuzk::cli {
namespace {

namespace fs = std::filesystem;

double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

void create_dir(const fs::path& dir) {
  std::error_code ec;
  fs::create_directories(dir, ec);
  if (ec) throw io::IoError(dir.string(), "cannot create directory: " + ec.message());
}

bool file_equals(const fs::path& path, const std::vector<std::uint8_t>& bytes) {
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::vector<std::uint8_t> have((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  return have == bytes;
}

}  // namespace

void print_not_for_production_banner() {
  std::fputs(
      "************************************************************************\n"
      "*  TEST PARAMETERS - NOT FOR PRODUCTION                                *\n"
      "*  Generated from random toxic waste on this machine: whoever ran this *\n"
      "*  could forge proofs. Real Filecoin parameters come from the trusted  *\n"
      "*  setup ceremony (fetch them with lotus fetch-params / paramfetch).   *\n"
      "************************************************************************\n",
      stderr);
}

DemoParams generate_demo_params(const fs::path& dir, const groth16::DemoCircuit& circuit) {
  create_dir(dir);
  DemoParams out;
  out.params_path = dir / kDemoParamsFile;
  out.vk_path = dir / kDemoVkFile;
  const auto start = std::chrono::steady_clock::now();
  out.params = groth16::generate_parameters(circuit.cs, groth16::ToxicWaste::random());
  out.params.write_file(out.params_path.string());
  out.params.vk.write_file(out.vk_path.string());
  out.seconds = seconds_since(start);
  return out;
}

DemoParams load_or_generate_demo_params(const fs::path& dir, const groth16::DemoCircuit& circuit) {
  const fs::path params_path = dir / kDemoParamsFile;
  std::error_code ec;
  if (!fs::exists(params_path, ec)) return generate_demo_params(dir, circuit);
  DemoParams out;
  out.params_path = params_path;
  out.vk_path = dir / kDemoVkFile;
  out.reused = true;
  const auto start = std::chrono::steady_clock::now();
  out.params = groth16::Parameters::read(params_path.string(), algebra::PointCheck::kFull);
  const std::vector<std::uint8_t> vk_bytes = out.params.vk.to_bytes();
  if (!file_equals(out.vk_path, vk_bytes)) {
    spdlog::info("{}: missing or not the vk of {}; rewriting it", out.vk_path.string(), params_path.string());
    out.params.vk.write_file(out.vk_path.string());
  }
  out.seconds = seconds_since(start);
  return out;
}

}  // namespace cuzk::cli
