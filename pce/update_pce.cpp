#include "pce/update_pce.hpp"

#include <fmt/format.h>

#include <string>
#include <utility>

#include "pce/compact_recorder.hpp"
#include "pce/errors.hpp"
#include "pce/evaluate.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/update/parallel_witness.hpp"

namespace cuzk::pce {

namespace {

// "2KiB" for a size of all_sector_sizes, else the size in bytes ("4096B").
std::string update_size_label(const update::UpdateShape& shape) {
  for (const update::LabelledShape& s : update::all_sector_sizes())
    if (s.shape.sector_nodes == shape.sector_nodes) return s.label;
  return fmt::format("{}B", shape.sector_bytes());
}

// The partition's witness (its challenges on up to `threads` threads), checked against the cache's counts.
void fill_update_witness(const CompactR1cs& pce, const update::UpdateShape& shape,
                         const update::PartitionWitness& witness, unsigned threads, std::vector<Fr>& inputs,
                         std::vector<Fr>& aux) {
  update::generate_update_witness(shape, witness, inputs, aux, threads);
  if (inputs.size() != pce.num_inputs || aux.size() != pce.num_aux)
    throw PceError(PceErrorKind::kWitness,
                   fmt::format("the update partition witness has {} inputs and {} aux values; the constraint "
                               "cache has {} and {}",
                               inputs.size(), aux.size(), pce.num_inputs, pce.num_aux));
}

}  // namespace

std::string update_circuit_description(const update::UpdateShape& shape) {
  const auto& h = shape.hs;
  return fmt::format(
      "empty-sector-update r{} nodes={} challenges={} partitions={} apex={} arities={}-{}-{} "
      "hs={}-{}-{}-{}-{}-{}",
      kUpdateCircuitRevision, shape.sector_nodes, shape.challenge_count, shape.partition_count,
      shape.apex_leaf_count, shape.tree_r.base_arity, shape.tree_r.sub_arity, shape.tree_r.top_arity, h[0],
      h[1], h[2], h[3], h[4], h[5]);
}

CacheKey update_cache_key(const update::UpdateShape& shape) {
  return CacheKey{"empty-sector-update-" + update_size_label(shape), update_circuit_description(shape)};
}

CompactR1cs build_update_pce(const update::UpdateShape& shape) {
  CompactRecorder cs;
  update::synthesize_update_circuit(cs, shape, update::PartitionWitness::blank(shape));
  return cs.finish();
}

LoadResult load_or_build_update(const std::filesystem::path& cache_dir, const update::UpdateShape& shape,
                                bool readonly, const WriteOptions& write_options) {
  return load_or_build(
      cache_dir, update_cache_key(shape), [&] { return build_update_pce(shape); }, readonly, write_options);
}

groth16::ProverInput update_witness_input(const CompactR1cs& pce, const update::UpdateShape& shape,
                                          const update::PartitionWitness& witness, unsigned threads,
                                          groth16::ProverInput&& recycled) {
  groth16::ProverInput in;
  in.inputs = std::move(recycled.inputs);
  in.aux = std::move(recycled.aux);
  recycled = {};
  fill_update_witness(pce, shape, witness, threads, in.inputs, in.aux);
  in.densities = pce.densities;
  return in;
}

groth16::ProverInput update_prover_input(const CompactR1cs& pce, const update::UpdateShape& shape,
                                         const update::PartitionWitness& witness, unsigned threads,
                                         groth16::ProverInput&& recycled) {
  std::vector<Fr> inputs = std::move(recycled.inputs), aux = std::move(recycled.aux);
  fill_update_witness(pce, shape, witness, threads, inputs, aux);
  return make_prover_input(pce, std::move(inputs), std::move(aux), threads, std::move(recycled));
}

}  // namespace cuzk::pce
