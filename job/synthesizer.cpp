#include "job/synthesizer.hpp"

#include <map>

#include "pce/porep_pce.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/synthesis.hpp"

namespace cuzk::job {

namespace {

class DirectSynthesizer final : public Synthesizer {
 public:
  groth16::ProverInput synthesize(const porep::C1Output& c1, unsigned k) override {
    return porep::synthesize_partition(c1, k);
  }
};

class PceSynthesizer final : public Synthesizer {
 public:
  PceSynthesizer(std::filesystem::path cache_dir, bool readonly, unsigned threads,
                 SharedPhaseSink on_shared_phase, ProgressSink progress)
      : cache_dir_(std::move(cache_dir)),
        readonly_(readonly),
        threads_(threads),
        on_shared_phase_(std::move(on_shared_phase)),
        progress_(std::move(progress)) {}

  groth16::ProverInput synthesize(const porep::C1Output& c1, unsigned k) override {
    const porep::SectorShape& sector = *c1.registered_proof->shape;
    const porep::StackedCircuitShape shape = porep::StackedCircuitShape::from_sector(sector);
    auto it = by_size_.find(sector.sector_size);
    if (it == by_size_.end()) {
      PhaseTimer timer;
      pce::LoadResult loaded = pce::load_or_build_porep(cache_dir_, shape, readonly_);
      if (progress_)
        progress_(std::string(loaded.built ? "built" : "loaded") + " the constraint cache " +
                  loaded.path.string() +
                  (loaded.rebuild_reason.empty() ? "" : " (rebuilt: " + loaded.rebuild_reason + ")"));
      if (on_shared_phase_) on_shared_phase_(loaded.built ? "pce.build" : "pce.load", timer.elapsed());
      it = by_size_.emplace(sector.sector_size, std::move(loaded.pce)).first;
    }
    return pce::porep_prover_input(it->second, shape, porep::PartitionWitness::from_c1(c1, k), threads_);
  }

 private:
  std::filesystem::path cache_dir_;
  bool readonly_;
  unsigned threads_;
  SharedPhaseSink on_shared_phase_;
  ProgressSink progress_;
  std::map<std::uint64_t, pce::CompactR1cs> by_size_;  // one cache per circuit shape in the run
};

}  // namespace

std::unique_ptr<Synthesizer> make_direct_synthesizer() {
  return std::make_unique<DirectSynthesizer>();
}

std::unique_ptr<Synthesizer> make_pce_synthesizer(std::filesystem::path cache_dir, bool readonly,
                                                  unsigned threads, SharedPhaseSink on_shared_phase,
                                                  ProgressSink progress) {
  return std::make_unique<PceSynthesizer>(std::move(cache_dir), readonly, threads, std::move(on_shared_phase),
                                          std::move(progress));
}

}  // namespace cuzk::job
