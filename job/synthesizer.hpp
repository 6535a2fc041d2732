// The front stage's synthesis seam: a partition of a C1 file in, the prover's input (a, b, c per
// constraint, the assignment, the A/B densities) out. Two implementations give the same bytes:
//  - the PCE synthesizer: the circuit's constraints pre-compiled once per circuit shape (pce/, loaded from
//    or built into the cache directory), then witness generation and sparse products only;
//  - the direct synthesizer: the circuit synthesized into a ProvingAssignment (slower; kept for checking).
#pragma once

#include <filesystem>
#include <functional>
#include <memory>
#include <string>

#include "prover/groth16/prover.hpp"
#include "prover/porep/vanilla_proof.hpp"
#include "prover/timing.hpp"

namespace cuzk::job {

class Synthesizer {
 public:
  virtual ~Synthesizer() = default;
  // Partition k of `c1`, which has passed porep::validate_c1.
  virtual groth16::ProverInput synthesize(const porep::C1Output& c1, unsigned k) = 0;
};

std::unique_ptr<Synthesizer> make_direct_synthesizer();

// Reports a one-off phase of the run (the cache's load or build) and progress messages.
using SharedPhaseSink = std::function<void(const std::string& phase, const PhaseTime& time)>;
using ProgressSink = std::function<void(const std::string& message)>;

// `cache_dir` as pce::cache_dir gives it; `readonly` refuses to build or rebuild a cache (PceError).
std::unique_ptr<Synthesizer> make_pce_synthesizer(std::filesystem::path cache_dir, bool readonly,
                                                  unsigned threads, SharedPhaseSink on_shared_phase,
                                                  ProgressSink progress);

}  // namespace cuzk::job
