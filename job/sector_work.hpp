// What the job's two stages hand each other: a sector on its way through them and a synthesized partition
// of it. Internal to job/ (job/front_stage.hpp, job/back_stage.hpp).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "job/phase_order.hpp"
#include "job/prove.hpp"
#include "job/run_report.hpp"
#include "job/synthesizer.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/proof.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/porep/vanilla_proof.hpp"
#include "prover/timing.hpp"

namespace cuzk::job::detail {

// One sector on its way through the two stages. The front stage fills `report` up to synthesis; the
// back stage keeps its phases apart (back_phases) while the front may still be synthesizing later
// partitions, and merges them once the sector's last partition is proven.
struct SectorJob {
  std::size_t input_index = 0;
  std::string path;
  std::atomic<bool> failed{false};  // keep_going: a stage gave up on it; the other skips what is left
  porep::C1Output c1;
  const porep::RegisteredSealProof* proof = nullptr;
  const groth16::ParameterHeader* header = nullptr;
  const Synthesizer* synthesizer = nullptr;  // of the sector's circuit shape (PCE or direct)
  SectorReport report;
  PhaseMap<PhaseTime> back_phases;
  PhaseTimer timer;  // from the start of parsing
  // The verifier-side public inputs of each partition, derived once by the front stage (which checks the
  // synthesized ones against them) and used again to verify and for --dump-public-inputs.
  std::vector<std::vector<algebra::Fr>> public_inputs;
  std::vector<groth16::Proof> proofs;  // one per partition, filled by whichever engine proves it
  // The back stage's: partitions proven, the run order of the last one handed out, and what finishing it
  // (verify, write) was doing when it failed.
  std::atomic<unsigned> proven{0};
  std::uint64_t last_seq = 0;
  std::string finish_stage = "verify";
};

// A synthesized partition, ready to prove.
struct PartitionWork {
  std::shared_ptr<SectorJob> job;
  unsigned partition = 0;
  groth16::ProverInput input;
  PhaseMap<PhaseTime> phases;  // of this partition's synthesis, merged into the sector's in order
};

// A partition whose witness fails constraint `row` (found by the host's check or the engine's): the Checker
// re-runs the circuit to name the constraint (porep::check_partition: a direct synthesis, slow at 32GiB, on
// this path only).
JobError unsatisfied_error(const std::string& where, const porep::C1Output& c1, unsigned k, std::size_t row);

// Whether `error` is a JobError kUnsatisfiedCircuit: a bad input, which leaves the engine as it was (any
// other failure may have left it half-way, and the engine is made again).
bool is_unsatisfied(const std::exception_ptr& error);

// r and s of one partition: --test-randomness's fixed pair, else drawn from the secure RNG. Drawn per
// partition, never per engine: which engine proves a partition changes nothing.
std::pair<algebra::Fr, algebra::Fr> partition_randomness(const ProveOptions& options);

}  // namespace cuzk::job::detail
