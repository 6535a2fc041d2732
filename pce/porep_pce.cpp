#include "pce/porep_pce.hpp"

#include <fmt/format.h>

#include <string>

#include "pce/compact_recorder.hpp"
#include "pce/errors.hpp"
#include "pce/evaluate.hpp"
#include "prover/porep/parallel_witness.hpp"
#include "prover/r1cs/constraint_system.hpp"

namespace cuzk::pce {

namespace {

// 2048 -> "2KiB", 34359738368 -> "32GiB"; other sizes in bytes ("256B").
std::string size_label(std::uint64_t bytes) {
  static constexpr const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  while (unit < 4 && bytes >= 1024 && bytes % 1024 == 0) {
    bytes /= 1024;
    ++unit;
  }
  return fmt::format("{}{}", bytes, kUnits[unit]);
}

// rfp NODE_SIZE: 32 bytes per node.
constexpr std::uint64_t kNodeBytes = 32;

}  // namespace

std::string porep_circuit_description(const porep::StackedCircuitShape& shape) {
  return fmt::format("stacked-drg r{} nodes={} layers={} challenges={} arities={}-{}-{}",
                     kStackedCircuitRevision, shape.nodes, shape.layers, shape.challenges, shape.base_arity,
                     shape.sub_arity, shape.top_arity);
}

CacheKey porep_cache_key(const porep::StackedCircuitShape& shape) {
  return {fmt::format("stacked-drg-{}-c{}-{}-{}-{}", size_label(shape.nodes * kNodeBytes), shape.challenges,
                      shape.base_arity, shape.sub_arity, shape.top_arity),
          porep_circuit_description(shape)};
}

CompactR1cs build_porep_pce(const porep::StackedCircuitShape& shape) {
  CompactRecorder cs;
  porep::synthesize_stacked_circuit(cs, shape, porep::PartitionWitness::blank(shape));
  return cs.finish();
}

LoadResult load_or_build_porep(const std::filesystem::path& cache_dir,
                               const porep::StackedCircuitShape& shape, bool readonly,
                               const WriteOptions& write_options) {
  return load_or_build(
      cache_dir, porep_cache_key(shape), [&] { return build_porep_pce(shape); }, readonly, write_options);
}

groth16::ProverInput porep_prover_input(const CompactR1cs& pce, const porep::StackedCircuitShape& shape,
                                        const porep::PartitionWitness& witness, unsigned threads,
                                        groth16::ProverInput&& recycled) {
  // The witness goes into the recycled buffers (their capacity kept), the challenges on `threads` threads.
  std::vector<Fr> inputs = std::move(recycled.inputs);
  std::vector<Fr> aux = std::move(recycled.aux);
  porep::generate_partition_witness(shape, witness, inputs, aux, threads);
  return make_prover_input(pce, std::move(inputs), std::move(aux), threads, std::move(recycled));
}

groth16::ProverInput porep_witness_input(const CompactR1cs& pce, const porep::StackedCircuitShape& shape,
                                         const porep::PartitionWitness& witness, unsigned threads,
                                         groth16::ProverInput&& recycled) {
  groth16::ProverInput in;
  in.inputs = std::move(recycled.inputs);
  in.aux = std::move(recycled.aux);
  recycled = {};
  porep::generate_partition_witness(shape, witness, in.inputs, in.aux, threads);
  if (in.inputs.size() != pce.num_inputs || in.aux.size() != pce.num_aux)
    throw PceError(PceErrorKind::kWitness,
                   "the partition witness has " + std::to_string(in.inputs.size()) + " inputs and " +
                       std::to_string(in.aux.size()) + " aux values; the constraint cache has " +
                       std::to_string(pce.num_inputs) + " and " + std::to_string(pce.num_aux));
  in.densities = pce.densities;
  return in;
}

}  // namespace cuzk::pce
