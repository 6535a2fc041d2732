// `cuzk circuit info [--sector-size X] [--json]`: the size of one partition's PoRep circuit, counted by
// synthesizing it with the Counter (no witness): constraints, public inputs (including ONE), aux
// variables and the Groth16 evaluation domain (the next power of two of constraints + inputs: bellperson
// appends one `input * 0 = 0` constraint per input). All five production sizes without --sector-size.
#include "prover/porep/circuit.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdint>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "prover/algebra/bits.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/r1cs/constraint_system.hpp"

namespace cuzk::cli {

namespace {

struct CircuitInfo {
  const porep::SectorShape* sector;
  std::size_t constraints, inputs, aux;
  std::uint64_t domain;
  double seconds;
};

CircuitInfo count_circuit(const porep::SectorShape& sector) {
  const auto start = std::chrono::steady_clock::now();
  const porep::StackedCircuitShape shape = porep::StackedCircuitShape::from_sector(sector);
  r1cs::Counter cs;
  porep::synthesize_stacked_circuit(cs, shape, porep::PartitionWitness::blank(shape));
  // bellperson adds one `input * 0 = 0` constraint per input (docs/circuit.md §9).
  const std::uint64_t domain = algebra::next_power_of_two(cs.num_constraints() + cs.num_inputs());
  return {&sector,         cs.num_constraints(),
          cs.num_inputs(), cs.num_aux(),
          domain,          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void run_info(const std::string& sector_size, bool json) {
  std::vector<const porep::SectorShape*> sectors;
  if (sector_size.empty()) {
    for (const auto& s : porep::all_sector_shapes()) sectors.push_back(&s);
  } else {
    sectors.push_back(porep::parse_sector_size(sector_size));  // validated by the option's check
  }
  std::vector<CircuitInfo> infos;
  for (const auto* s : sectors) infos.push_back(count_circuit(*s));

  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : infos) {
      out.push_back({{"sector_size", i.sector->label},
                     {"sector_size_bytes", i.sector->sector_size},
                     {"partitions", i.sector->partitions},
                     {"challenges_per_partition", i.sector->challenges_per_partition},
                     {"constraints", i.constraints},
                     {"inputs", i.inputs},
                     {"aux", i.aux},
                     {"domain_size", i.domain}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print("Per partition (inputs include ONE; domain = next power of two of constraints + inputs):\n");
  fmt::print("{:<7} {:>10} {:>11} {:>13} {:>7} {:>13} {:>23}\n", "sector", "partitions", "challenges",
             "constraints", "inputs", "aux", "domain");
  for (const auto& i : infos) {
    fmt::print("{:<7} {:>10} {:>11} {:>13} {:>7} {:>13} {:>23}\n", i.sector->label, i.sector->partitions,
               i.sector->challenges_per_partition, grouped(i.constraints), i.inputs, grouped(i.aux),
               fmt::format("2^{} ({})", __builtin_ctzll(i.domain), grouped(i.domain)));
  }
}

}  // namespace

void register_circuit_commands(CLI::App& app) {
  CLI::App* circuit = app.add_subcommand("circuit", "The PoRep circuit of one partition");
  circuit->require_subcommand(1);
  auto sector_size = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* info = circuit->add_subcommand(
      "info", "Constraints, inputs, aux variables and FFT domain size (counted, no witness)");
  info->add_option("--sector-size", *sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB (default: all five)")
      ->check(sector_size_validator());
  info->add_flag("--json", *json, "Print JSON instead of text");
  info->callback([sector_size, json] { run_info(*sector_size, *json); });
}

}  // namespace cuzk::cli
