// The PCE of the StackedDRG PoRep partition circuit (prover/porep/circuit.hpp): its cache key, its
// extraction with the CompactRecorder, and the witness-only proving path.
//
//   const auto shape = porep::StackedCircuitShape::from_sector(*c1.registered_proof->shape);
//   pce::LoadResult pce = pce::load_or_build_porep(pce::default_cache_dir(), shape, readonly);
//   groth16::ProverInput in = pce::porep_prover_input(pce.pce, shape, porep::PartitionWitness::from_c1(c1,
//   k));
//
// The circuit depends only on the shape (nodes, layers, challenges per partition, tree arities): the
// PoRep variants (interactive, synthetic, NI) and API versions of one sector size share it, as they share
// the Groth16 parameters (docs/circuit.md §1), so they share one cache file.
#pragma once

#include <filesystem>
#include <string>

#include "pce/cache.hpp"
#include "pce/compact_r1cs.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/porep/circuit.hpp"

namespace cuzk::pce {

// Part of every PoRep circuit description: bump it whenever synthesize_stacked_circuit changes the
// constraint system it emits, so that caches of the old circuit are detected as another circuit.
inline constexpr unsigned kStackedCircuitRevision = 1;

// The figures of the production PoRep circuit of a sector size (2KiB ... 64GiB), recorded from the caches
// that build_porep_pce makes; nullptr for another size. Without building anything: the memory plans and the
// check of a loaded cache (CacheKey::figures) use them.
const CircuitFigures* builtin_porep_figures(std::uint64_t sector_size);

// "stacked-drg r1 nodes=64 layers=2 challenges=2 arities=8-0-0".
std::string porep_circuit_description(const porep::StackedCircuitShape& shape);
// Name "stacked-drg-<size>-c<challenges>" (size from nodes x 32 bytes, e.g. 2KiB; the arities follow
// from the size for production shapes, and are appended otherwise), and the description above.
CacheKey porep_cache_key(const porep::StackedCircuitShape& shape);

// The circuit recorded on a blank witness with the CompactRecorder (~6 bytes per entry).
CompactR1cs build_porep_pce(const porep::StackedCircuitShape& shape);

LoadResult load_or_build_porep(const std::filesystem::path& cache_dir,
                               const porep::StackedCircuitShape& shape, bool readonly = false,
                               const WriteOptions& write_options = {});

// The partition witness (its challenges on `threads` threads, porep/parallel_witness.hpp), then a, b, c by
// SpMV: no linear combination is built.
// `recycled`: an earlier partition's prover input, whose witness and a, b, c buffers are reused (see
// make_prover_input).
groth16::ProverInput porep_prover_input(const CompactR1cs& pce, const porep::StackedCircuitShape& shape,
                                        const porep::PartitionWitness& witness, unsigned threads = 0,
                                        groth16::ProverInput&& recycled = {});
// The witness only (inputs, aux and the densities; a, b, c left empty), for an engine that evaluates the
// constraints itself (groth16::ProverEngine::hold_constraints). `recycled`'s witness buffers are reused;
// its a, b, c are released.
groth16::ProverInput porep_witness_input(const CompactR1cs& pce, const porep::StackedCircuitShape& shape,
                                         const porep::PartitionWitness& witness, unsigned threads = 0,
                                         groth16::ProverInput&& recycled = {});

}  // namespace cuzk::pce
