#include "job/synthesizer.hpp"

#include <utility>

#include "pce/porep_pce.hpp"
#include "prover/porep/synthesis.hpp"

namespace cuzk::job {

namespace {

class PceSynthesizer final : public Synthesizer {
 public:
  PceSynthesizer(pce::CompactR1cs circuit, const porep::StackedCircuitShape& shape)
      : circuit_(std::move(circuit)), shape_(shape) {}
  groth16::ProverInput synthesize(const porep::C1Output& c1, unsigned partition, unsigned threads,
                                  groth16::ProverInput&& recycled, bool witness_only) const override {
    const porep::PartitionWitness witness = porep::PartitionWitness::from_c1(c1, partition);
    if (witness_only)
      return pce::porep_witness_input(circuit_, shape_, witness, threads, std::move(recycled));
    return pce::porep_prover_input(circuit_, shape_, witness, threads, std::move(recycled));
  }
  const pce::CompactR1cs* circuit() const override { return &circuit_; }

 private:
  pce::CompactR1cs circuit_;
  porep::StackedCircuitShape shape_;
};

class DirectSynthesizer final : public Synthesizer {
 public:
  groth16::ProverInput synthesize(const porep::C1Output& c1, unsigned partition, unsigned /*threads*/,
                                  groth16::ProverInput&& /*recycled*/, bool /*witness_only*/) const override {
    return porep::synthesize_partition(c1, partition);
  }
};

}  // namespace

std::unique_ptr<Synthesizer> make_pce_synthesizer(pce::CompactR1cs circuit,
                                                  const porep::StackedCircuitShape& shape) {
  return std::make_unique<PceSynthesizer>(std::move(circuit), shape);
}

std::unique_ptr<Synthesizer> make_direct_synthesizer() {
  return std::make_unique<DirectSynthesizer>();
}

}  // namespace cuzk::job
