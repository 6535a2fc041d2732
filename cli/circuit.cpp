// `cuzk circuit info [--circuit porep|update] [--sector-size X] [--json]`: the size of one partition's PoRep
// (StackedDRG) or SnapDeals (EmptySectorUpdate, docs/update.md) circuit, counted by synthesizing it with the
// Counter (no witness): constraints, public inputs (including ONE), aux variables and the Groth16 evaluation
// domain (the next power of two of constraints + inputs: bellperson appends one `input * 0 = 0` constraint
// per input). All five production sizes without --sector-size.
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
#include "prover/update/circuit.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::cli {

namespace {

struct CircuitInfo {
  const porep::SectorShape* sector;
  std::size_t partitions, challenges;
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
  return {&sector,
          sector.partitions,
          sector.challenges_per_partition,
          cs.num_constraints(),
          cs.num_inputs(),
          cs.num_aux(),
          domain,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

// The EmptySectorUpdate circuit of the same sector size (its own partitions and challenges).
CircuitInfo count_update_circuit(const porep::SectorShape& sector) {
  const auto start = std::chrono::steady_clock::now();
  const update::UpdateShape shape = update::UpdateShape::from_sector_bytes(sector.sector_size);
  r1cs::Counter cs;
  update::synthesize_update_circuit(cs, shape, update::PartitionWitness::blank(shape));
  const std::uint64_t domain = algebra::next_power_of_two(cs.num_constraints() + cs.num_inputs());
  return {&sector,
          shape.partition_count,
          shape.challenge_count,
          cs.num_constraints(),
          cs.num_inputs(),
          cs.num_aux(),
          domain,
          std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count()};
}

std::string grouped(std::uint64_t n) {
  std::string digits = std::to_string(n), out;
  for (std::size_t i = 0; i < digits.size(); ++i) {
    if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
    out += digits[i];
  }
  return out;
}

void run_info(const std::string& circuit, const std::string& sector_size, bool json) {
  std::vector<const porep::SectorShape*> sectors;
  if (sector_size.empty()) {
    for (const auto& s : porep::all_sector_shapes()) sectors.push_back(&s);
  } else {
    sectors.push_back(porep::parse_sector_size(sector_size));  // validated by the option's check
  }
  std::vector<CircuitInfo> infos;
  const bool is_update = circuit == "update";
  for (const auto* s : sectors) infos.push_back(is_update ? count_update_circuit(*s) : count_circuit(*s));

  if (json) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& i : infos) {
      out.push_back({{"circuit", circuit},
                     {"sector_size", i.sector->label},
                     {"sector_size_bytes", i.sector->sector_size},
                     {"partitions", i.partitions},
                     {"challenges_per_partition", i.challenges},
                     {"constraints", i.constraints},
                     {"inputs", i.inputs},
                     {"aux", i.aux},
                     {"domain_size", i.domain}});
    }
    fmt::print("{}\n", out.dump(2));
    return;
  }
  fmt::print(
      "{} circuit, per partition (inputs include ONE; domain = next power of two of constraints + inputs):\n",
      is_update ? "SnapDeals (EmptySectorUpdate)" : "PoRep (StackedDRG)");
  fmt::print("{:<7} {:>10} {:>11} {:>13} {:>7} {:>13} {:>23}\n", "sector", "partitions", "challenges",
             "constraints", "inputs", "aux", "domain");
  for (const auto& i : infos) {
    fmt::print("{:<7} {:>10} {:>11} {:>13} {:>7} {:>13} {:>23}\n", i.sector->label, i.partitions,
               i.challenges, grouped(i.constraints), i.inputs, grouped(i.aux),
               fmt::format("2^{} ({})", __builtin_ctzll(i.domain), grouped(i.domain)));
  }
}

}  // namespace

void register_circuit_commands(CLI::App& app) {
  CLI::App* circuit = app.add_subcommand("circuit", "The PoRep or SnapDeals circuit of one partition");
  circuit->require_subcommand(1);
  auto kind = std::make_shared<std::string>("porep");
  auto sector_size = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  CLI::App* info = circuit->add_subcommand(
      "info", "Constraints, inputs, aux variables and FFT domain size (counted, no witness)");
  info->add_option("--circuit", *kind, "porep (StackedDRG, C2) or update (SnapDeals, EmptySectorUpdate)")
      ->check(CLI::IsMember({"porep", "update"}))
      ->capture_default_str();
  info->add_option("--sector-size", *sector_size, "2KiB, 8MiB, 512MiB, 32GiB or 64GiB (default: all five)")
      ->check(sector_size_validator());
  info->add_flag("--json", *json, "Print JSON instead of text");
  info->callback([kind, sector_size, json] { run_info(*kind, *sector_size, *json); });
}

}  // namespace cuzk::cli
