// Test data: a C1 output whose every constraint is satisfied, for any sector size.
//  - dense (default up to 8MiB): the sector is sealed for real: random fr32 data -> tree D ->
//    replica_id -> SDR labels of every node on the real graph -> tree C over column hashes ->
//    replica = data + last label -> tree R_last -> comm_r = Poseidon(comm_c, comm_r_last);
//  - sparse (default from 512MiB): a committed-capacity (all-zero data) sector where only the
//    challenged nodes and their parents' columns are materialized. Parent labels are random, each
//    challenged node's labels are computed from its parents exactly as SDR does, every other node
//    keeps the default label 0, and all roots are computed from that. Synthetic and NI challenges
//    depend on comm_r, which this construction cannot know in advance: they need dense mode.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

struct GenC1Options {
  const RegisteredSealProof* proof = nullptr;
  std::uint64_t seed = 0;  // drives data, ticket, interactive seed and random labels
  std::uint64_t sector_id = 1;
  std::uint64_t miner_id = 1000;  // lotus-bench's default t01000
  std::optional<bool> sparse;     // default: dense up to 8MiB
  std::function<void(const std::string&)> progress;  // optional progress messages
};

struct GeneratedC1 {
  C1Output c1;
  Domain prover_id{};
  std::uint64_t sector_id = 0;
  Domain comm_c{}, comm_r_last{};
  bool sparse = false;
};

// Throws PorepError for unsupported combinations (sparse synthetic/NI).
GeneratedC1 generate_c1(const GenC1Options& options);

}  // namespace cuzk::porep
