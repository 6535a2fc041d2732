// The front stage of a run: each sector's C1 file parsed and validated, then its partitions synthesized, on
// up to ProveOptions::synthesis_workers tasks at once. Internal to job/prove.cpp.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <functional>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "job/phase_order.hpp"
#include "job/prove.hpp"
#include "job/run_checks.hpp"
#include "job/sector_work.hpp"
#include "job/stage_resources.hpp"
#include "job/synthesizer.hpp"
#include "job/timeline.hpp"
#include "pce/compact_r1cs.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/timing.hpp"

namespace cuzk::job::detail {

// Parse, validate and synthesize, one partition per next() call, sector after sector.
class FrontStage {
 public:
  FrontStage(const std::vector<std::string>& paths, const std::vector<std::size_t>& to_prove,
             const ProveOptions& options, ParameterStore& store, EngineSet& engines, BufferPool& buffers,
             Timeline& timeline, PhaseMap<PhaseTime>& shared_phases, FailureLog& failures);

  // The next partition in order (sector by sector), or nothing after the last. Up to
  // options.synthesis_workers partitions are synthesized at once, each on a task of its own; they are handed
  // out in order, and so are errors: a failure surfaces when its partition's turn comes, after every
  // partition before it.
  // With keep_going, a failed partition's sector is recorded and skipped, and the run goes on.
  std::optional<PartitionWork> next();

 private:
  // Starts the next partition's synthesis (opening its sector first when it is the sector's first). An
  // error in opening the sector is handed out in its turn, like a synthesis error.
  void launch_one();

  PartitionWork make_work(const std::shared_ptr<SectorJob>& job, unsigned k, unsigned lane);

  std::shared_ptr<SectorJob> open_sector(std::size_t index);

  // The synthesizer of the sector's circuit, made once per circuit shape in the run: with use_pce over the
  // constraint cache, loaded or built here (and checked against the parameter file), else direct.
  const Synthesizer& synthesizer_for(const SectorJob& job);

  // May run on several tasks at once: it reads the job and writes only public_inputs[k] and `phases`.
  // `step_done(name)`: the step since the last call (or the start) is over, for the timeline.
  groth16::ProverInput synthesize(SectorJob& job, unsigned k, PhaseMap<PhaseTime>& phases,
                                  const std::function<void(const char*)>& step_done);

  static unsigned per_worker_threads(unsigned workers);

  // The circuit's counts against the parameter file's, before any partition is synthesized: a file for
  // another circuit is refused by name instead of after a whole synthesis.
  static void check_parameters_fit(const pce::CompactR1cs& circuit, const groth16::ParameterHeader& header,
                                   const std::string& path);

  const std::vector<std::string>& paths_;
  const std::vector<std::size_t>& to_prove_;  // indices into paths_ of the sectors that passed the checks
  const ProveOptions& options_;
  ParameterStore& store_;
  EngineSet& engines_;
  BufferPool& buffers_;
  Timeline& timeline_;
  PhaseMap<PhaseTime>& shared_phases_;
  FailureLog& failures_;
  std::map<std::uint64_t, std::unique_ptr<Synthesizer>> synthesizers_;  // one per circuit shape in the run
  std::set<std::string> names_;
  std::shared_ptr<SectorJob> job_;  // the sector whose partitions are being launched
  std::size_t sector_ = 0;
  unsigned partition_ = 0;
  std::deque<std::future<PartitionWork>> pending_;                          // launched, in partition order
  std::deque<std::pair<std::shared_ptr<SectorJob>, unsigned>> pending_of_;  // each one's sector and partition
  bool launched_all_ = false;
  unsigned launched_ = 0;
};

}  // namespace cuzk::job::detail
