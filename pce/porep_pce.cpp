#include "pce/porep_pce.hpp"

#include <fmt/format.h>

#include <array>
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

// The partition circuits of the five production sizes: the headers of the cache files that
// pce::build_porep_pce (`cuzk pce build --sector-size S`) records, as `cuzk pce info` prints them.
// Constraints, inputs and aux are docs/circuit.md §9's; the 32GiB row also gives the production 32GiB .params
// file's exact size, 47,373,928,632 bytes (a + 3 b_g1 = 229,090,466 with 96-byte G1 and 192-byte G2 points).
// tests/test_prover_shape.cpp checks all of it, and the 2KiB and 8MiB rows against caches built afresh.
//   constraints, inputs, aux, nnz A, B, C, density A aux, B inputs, B aux
static_assert(kStackedCircuitRevision == 1, "the circuit changed: record the table again (cuzk pce build)");
constexpr std::array<FiguresRow, 5> kBuiltin = {{
    // 2KiB: built in 2.6 s (0.2 GB).
    {std::uint64_t{2} << 10,
     {2'687'921, 40, 2'685'673, 6'420'965, 2'689'006, 5'824'682, 2'674'908, 1, 685'521}},
    // 8MiB: built in 3.9 s.
    {std::uint64_t{8} << 20,
     {3'844'929, 40, 3'842'449, 9'388'413, 3'847'886, 8'234'882, 3'814'996, 1, 1'011'289}},
    // 512MiB: built in 5.2 s.
    {std::uint64_t{512} << 20,
     {4'423'433, 40, 4'420'837, 10'872'137, 4'427'326, 9'439'982, 4'385'040, 1, 1'174'173}},
    // 32GiB: recording it takes minutes on one core and ~7 GB of memory.
    {std::uint64_t{32} << 30,
     {130'278'541, 328, 130'169'893, 309'404'723, 130'327'340, 282'656'500, 129'753'292, 1, 33'112'281}},
    // 64GiB: likewise.
    {std::uint64_t{64} << 30,
     {131'185'849, 328, 131'076'643, 311'892'197, 131'235'764, 284'512'534, 130'637'542, 1, 33'386'943}},
}};

}  // namespace

std::string porep_circuit_description(const porep::StackedCircuitShape& shape) {
  return fmt::format("stacked-drg r{} nodes={} layers={} challenges={} arities={}-{}-{}",
                     kStackedCircuitRevision, shape.nodes, shape.layers, shape.challenges, shape.base_arity,
                     shape.sub_arity, shape.top_arity);
}

const CircuitFigures* builtin_porep_figures(std::uint64_t sector_size) {
  return find_figures(kBuiltin, sector_size);
}

CacheKey porep_cache_key(const porep::StackedCircuitShape& shape) {
  CacheKey key{fmt::format("stacked-drg-{}-c{}-{}-{}-{}", size_label(shape.nodes * kNodeBytes),
                           shape.challenges, shape.base_arity, shape.sub_arity, shape.top_arity),
               porep_circuit_description(shape)};
  // The table's figures hold for the production shape of a size only (the tests record smaller ones).
  const porep::SectorShape* sector = porep::find_sector_shape(shape.nodes * kNodeBytes);
  if (sector != nullptr && porep::StackedCircuitShape::from_sector(*sector) == shape) {
    if (const CircuitFigures* figures = builtin_porep_figures(sector->sector_size)) key.figures = *figures;
  }
  return key;
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
