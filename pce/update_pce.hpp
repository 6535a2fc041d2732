// The PCE of the EmptySectorUpdate (SnapDeals) partition circuit (prover/update/circuit.hpp): its cache
// key, its extraction with the CompactRecorder, and the witness-then-SpMV proving path, as
// pce/porep_pce.hpp does for the PoRep circuit.
//
//   const update::UpdateShape& shape = input.registered_proof->shape();
//   pce::LoadResult pce = pce::load_or_build_update(pce::default_cache_dir(), shape, readonly);
//   groth16::ProverInput in = pce::update_prover_input(pce.pce, shape, update::partition_witness(input, k,
//   name));
//
// The circuit depends only on the shape (docs/update.md): one cache file per sector size.
#pragma once

#include <filesystem>
#include <string>

#include "pce/cache.hpp"
#include "pce/compact_r1cs.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/update/circuit.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::pce {

// Part of every update circuit description: bump it whenever synthesize_update_circuit changes the
// constraint system it emits, so that caches of the old circuit are detected as another circuit.
inline constexpr unsigned kUpdateCircuitRevision = 1;

// "empty-sector-update r1 nodes=64 challenges=10 partitions=1 apex=0 arities=8-0-0 hs=1-1-1-1-1-1".
std::string update_circuit_description(const update::UpdateShape& shape);
// The built-in figures of a registered size's circuit (2KiB, 8MiB, 512MiB, 32GiB, 64GiB; nullptr for any
// other size), as pce::builtin_porep_figures for the PoRep circuit: what the memory plans use without a
// cache.
const CircuitFigures* builtin_update_figures(std::uint64_t sector_size);
// Name "empty-sector-update-<size>" (2KiB, 32GiB; bytes for a size with no label), the description, and for
// a registered size the built-in figures (a cache whose figures differ is corrupt).
CacheKey update_cache_key(const update::UpdateShape& shape);

// The circuit recorded on a blank witness with the CompactRecorder.
CompactR1cs build_update_pce(const update::UpdateShape& shape);

LoadResult load_or_build_update(const std::filesystem::path& cache_dir, const update::UpdateShape& shape,
                                bool readonly = false, const WriteOptions& write_options = {});

// The partition witness (update::generate_update_witness: its challenges on up to `threads` threads, 0: all)
// and nothing else: a, b, c left to an engine that holds the constraints. Throws as update_prover_input.
groth16::ProverInput update_witness_input(const CompactR1cs& pce, const update::UpdateShape& shape,
                                          const update::PartitionWitness& witness, unsigned threads = 0,
                                          groth16::ProverInput&& recycled = {});

// The partition witness (as update_witness_input), then a, b, c by SpMV. Throws
// update::UpdateError for a witness of another shape, PceError(kWitness) when the witness does not fit the
// cache. `recycled`: an earlier partition's prover input whose buffers are reused (make_prover_input).
groth16::ProverInput update_prover_input(const CompactR1cs& pce, const update::UpdateShape& shape,
                                         const update::PartitionWitness& witness, unsigned threads = 0,
                                         groth16::ProverInput&& recycled = {});

}  // namespace cuzk::pce
