// One partition of a C1 output synthesized for proving: the witness and the per-constraint
// evaluations a, b, c with bellperson's densities (groth16::ProverInput), and the circuit checked
// constraint by constraint when asked.
#pragma once

#include <optional>
#include <string>

#include "prover/groth16/prover.hpp"
#include "prover/r1cs/r1cs.hpp"
#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::porep {

groth16::ProverInput synthesize_partition(const C1Output& c1, unsigned k);

// The namespace path of the first unsatisfied constraint of partition k, or nullopt.
std::optional<std::string> check_partition(const C1Output& c1, unsigned k);

}  // namespace cuzk::porep

namespace cuzk::porep {

// The constraint system of one partition circuit of this sector size (Recorder on a blank witness):
// what test parameters are generated from. Memory: about 200 bytes per constraint.
r1cs::R1cs record_partition_circuit(const SectorShape& shape);

}  // namespace cuzk::porep
