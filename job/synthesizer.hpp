// How a partition of a C1 file becomes a prover input: one seam, two implementations (docs/architecture.md).
//   - through the pre-compiled constraint cache (pce/): the witness (its challenges in parallel), then a, b,
//   c
//     by SpMV over the cached matrices; the default, loaded or built once per circuit shape;
//   - direct synthesis (porep/synthesis.hpp, bellperson's ProvingAssignment): `--no-pce`, kept for checking.
// Both give the same inputs, aux, a, b, c and densities for the same partition.
#pragma once

#include <memory>

#include "pce/compact_r1cs.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::job {

class Synthesizer {
 public:
  virtual ~Synthesizer() = default;
  // Partition `partition` of `c1` (a C1 output of this synthesizer's circuit shape) on up to `threads`
  // threads (0: all). `recycled`: an earlier partition's prover input whose buffers may be reused.
  // `witness_only`: leave a, b, c to the engine (only a synthesizer with a circuit() can; the others ignore
  // it). Throws what the layers below throw (porep::PorepError, pce::PceError).
  virtual groth16::ProverInput synthesize(const porep::C1Output& c1, unsigned partition, unsigned threads,
                                          groth16::ProverInput&& recycled, bool witness_only) const = 0;
  // The compact constraint system it evaluates a, b, c over (null for direct synthesis): what an engine that
  // evaluates them itself is given, and what the host evaluates over when such an engine declines.
  virtual const pce::CompactR1cs* circuit() const { return nullptr; }
};

// Over `circuit`, the cache of `shape`'s circuit (which the synthesizer keeps).
std::unique_ptr<Synthesizer> make_pce_synthesizer(pce::CompactR1cs circuit,
                                                  const porep::StackedCircuitShape& shape);
// Direct synthesis; ignores `recycled` and `threads` (ProvingAssignment is one thread).
std::unique_ptr<Synthesizer> make_direct_synthesizer();

}  // namespace cuzk::job
