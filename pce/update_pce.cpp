#include "pce/update_pce.hpp"

#include <fmt/format.h>

#include <array>
#include <cstdint>
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

// The partition circuits of the five registered sizes: the headers of the cache files that
// build_update_pce records (`cuzk pce build --update --sector-size S`, then `cuzk pce info`; 2026-12-07, each
// built in under 35 s and 4.5 GB). The 2KiB, 8MiB, 512MiB and 32GiB constraint counts are upstream's
// (docs/update.md); tests/test_prover_shape.cpp checks the 2KiB and 8MiB rows against caches built afresh.
//   constraints, inputs, aux, nnz A, B, C, density A aux, B inputs, B aux
static_assert(kUpdateCircuitRevision == 1, "the circuit changed: record the table again (cuzk pce build)");
constexpr std::array<FiguresRow, 5> kBuiltin = {{
    {std::uint64_t{2} << 10,
     {1'705'039, 5, 1'703'569, 4'030'887, 1'706'537, 3'616'648, 1'697'189, 1, 444'403}},
    {std::uint64_t{8} << 20,
     {10'007'503, 5, 9'998'039, 23'284'273, 10'015'181, 21'302'734, 9'981'015, 1, 2'567'921}},
    {std::uint64_t{512} << 20,
     {57'450'479, 5, 57'401'314, 135'362'847, 57'500'527, 121'971'144, 57'212'317, 1, 14'916'879}},
    {std::uint64_t{32} << 30,
     {81'049'499, 5, 80'978'488, 190'374'907, 81'118'127, 172'187'492, 80'743'581, 1, 20'983'607}},
    {std::uint64_t{64} << 30,
     {85'006'101, 5, 84'931'220, 199'699'027, 85'077'653, 180'585'650, 84'682'725, 1, 22'012'683}},
}};

}  // namespace

const CircuitFigures* builtin_update_figures(std::uint64_t sector_size) {
  return find_figures(kBuiltin, sector_size);
}

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
  CacheKey key{"empty-sector-update-" + update_size_label(shape), update_circuit_description(shape)};
  // The table's figures hold for the registered shapes only (the tests record smaller ones).
  if (shape.registered) {
    if (const CircuitFigures* figures = builtin_update_figures(shape.sector_bytes())) key.figures = *figures;
  }
  return key;
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
