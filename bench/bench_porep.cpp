// PoRep circuit synthesis on one core: the witness of one 2KiB partition and of one 32GiB challenge
// (WitnessGen, the fast path), the same with ProvingAssignment (a, b, c evaluated, bellperson's way),
// and counting a whole 32GiB partition (Counter). C1 data comes from gen-c1 (dense for 2KiB, sparse for
// 32GiB), made once outside the timed loops.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <memory>

#include "prover/groth16/prover.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/gen_c1.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/proving_assignment.hpp"

namespace {

using namespace cuzk::porep;

struct Partition {
  StackedCircuitShape shape;
  PartitionWitness witness;
  std::size_t num_inputs = 0, num_aux = 0, num_constraints = 0;
};

// Partition 0 of a generated C1 output, cut to `challenges` challenges when non-zero.
Partition make_partition(const char* proof_name, bool sparse, unsigned challenges) {
  GenC1Options o;
  o.proof = find_registered_seal_proof(proof_name);
  o.seed = 1;  // fixed: nothing is asserted
  o.sparse = sparse;
  GeneratedC1 g = generate_c1(o);
  Partition p;
  p.shape = StackedCircuitShape::from_sector(*o.proof->shape);
  p.witness = PartitionWitness::from_c1(g.c1, 0);
  if (challenges) {
    p.shape.challenges = challenges;
    p.witness.challenges.resize(challenges);
  }
  cuzk::r1cs::Counter counter;
  synthesize_stacked_circuit(counter, p.shape, PartitionWitness::blank(p.shape));
  p.num_inputs = counter.num_inputs();
  p.num_aux = counter.num_aux();
  p.num_constraints = counter.num_constraints();
  return p;
}

const Partition& partition_2kib() {
  static const Partition p = make_partition("StackedDrg2KiBV1_1", false, 0);
  return p;
}
const Partition& challenge_32gib() {
  static const Partition p = make_partition("StackedDrg32GiBV1_1", true, 1);
  return p;
}

// Fresh: a new witness buffer per run (its first-touch page faults included). Reused: one buffer kept
// across runs, as a synthesis slot that proves partition after partition would.
void witness_gen(benchmark::State& state, const Partition& p, bool reuse) {
  cuzk::r1cs::WitnessGen reused;
  reused.reserve(p.num_inputs, p.num_aux);
  for (auto _ : state) {
    if (reuse) {
      reused.mutable_inputs().resize(1);  // ONE stays
      reused.mutable_aux().clear();
      synthesize_stacked_circuit(reused, p.shape, p.witness);
      benchmark::DoNotOptimize(reused.aux().data());
    } else {
      cuzk::r1cs::WitnessGen cs;
      cs.reserve(p.num_inputs, p.num_aux);
      synthesize_stacked_circuit(cs, p.shape, p.witness);
      benchmark::DoNotOptimize(cs.aux().data());
    }
  }
  state.counters["aux"] = static_cast<double>(p.num_aux);
  state.counters["values/s"] =
      benchmark::Counter(static_cast<double>(p.num_aux * state.iterations()), benchmark::Counter::kIsRate);
}

void BM_WitnessGen_2KiBPartition_Fresh(benchmark::State& state) {
  witness_gen(state, partition_2kib(), false);
}
BENCHMARK(BM_WitnessGen_2KiBPartition_Fresh)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_WitnessGen_2KiBPartition_Reused(benchmark::State& state) {
  witness_gen(state, partition_2kib(), true);
}
BENCHMARK(BM_WitnessGen_2KiBPartition_Reused)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_WitnessGen_32GiBChallenge_Fresh(benchmark::State& state) {
  witness_gen(state, challenge_32gib(), false);
}
BENCHMARK(BM_WitnessGen_32GiBChallenge_Fresh)->Unit(benchmark::kMillisecond)->UseRealTime();
void BM_WitnessGen_32GiBChallenge_Reused(benchmark::State& state) {
  witness_gen(state, challenge_32gib(), true);
}
BENCHMARK(BM_WitnessGen_32GiBChallenge_Reused)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_ProvingAssignment_2KiBPartition(benchmark::State& state) {
  const Partition& p = partition_2kib();
  for (auto _ : state) {
    cuzk::r1cs::ProvingAssignment cs;
    cs.reserve(p.num_inputs, p.num_aux, p.num_constraints);
    synthesize_stacked_circuit(cs, p.shape, p.witness);
    benchmark::DoNotOptimize(std::move(cs).finish<cuzk::groth16::ProverInput>());
  }
  state.counters["constraints/s"] = benchmark::Counter(
      static_cast<double>(p.num_constraints * state.iterations()), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_ProvingAssignment_2KiBPartition)->Unit(benchmark::kMillisecond)->UseRealTime();

void BM_Counter_32GiBPartition(benchmark::State& state) {
  const StackedCircuitShape shape = StackedCircuitShape::from_sector(*parse_sector_size("32GiB"));
  const PartitionWitness blank = PartitionWitness::blank(shape);
  std::size_t constraints = 0;
  for (auto _ : state) {
    cuzk::r1cs::Counter cs;
    synthesize_stacked_circuit(cs, shape, blank);
    constraints = cs.num_constraints();
  }
  state.counters["constraints"] = static_cast<double>(constraints);
}
BENCHMARK(BM_Counter_32GiBPartition)->Unit(benchmark::kMillisecond)->UseRealTime();

}  // namespace
