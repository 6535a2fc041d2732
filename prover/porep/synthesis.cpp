#include "prover/porep/synthesis.hpp"

#include "prover/porep/circuit.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/proving_assignment.hpp"

namespace cuzk::porep {

groth16::ProverInput synthesize_partition(const C1Output& c1, unsigned k) {
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(*c1.registered_proof->shape);
  const PartitionWitness witness = PartitionWitness::from_c1(c1, k);
  r1cs::ProvingAssignment cs;
  synthesize_stacked_circuit(cs, shape, witness);
  return std::move(cs).finish<groth16::ProverInput>();
}

std::optional<std::string> check_partition(const C1Output& c1, unsigned k) {
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(*c1.registered_proof->shape);
  const PartitionWitness witness = PartitionWitness::from_c1(c1, k);
  r1cs::Checker cs;
  synthesize_stacked_circuit(cs, shape, witness);
  if (cs.is_satisfied()) return std::nullopt;
  const auto& failure = *cs.first_failure();
  return "constraint " + std::to_string(failure.constraint_index) + " (" + failure.path + ")";
}

}  // namespace cuzk::porep

namespace cuzk::porep {

r1cs::R1cs record_partition_circuit(const SectorShape& sector) {
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(sector);
  r1cs::Recorder cs;
  synthesize_stacked_circuit(cs, shape, PartitionWitness::blank(shape));
  return cs.finish();
}

}  // namespace cuzk::porep
