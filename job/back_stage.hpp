// The back stage of a run: partitions proven on the run's engines; each sector, once all its partitions
// are proven, verified, written and reported in input order. Internal to job/prove.cpp.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <deque>
#include <exception>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "job/gpu_meter.hpp"
#include "job/phase_order.hpp"
#include "job/prove.hpp"
#include "job/run_checks.hpp"
#include "job/run_report.hpp"
#include "job/sector_work.hpp"
#include "job/stage_resources.hpp"
#include "job/timeline.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/timing.hpp"

namespace cuzk::job::detail {

// Prove, and once a sector's partitions are all proven: verify, write, report. With one engine each
// partition is proven on the consumer's thread as it comes; with several, each engine has a thread of its
// own and a partition goes to whichever engine is free. Sectors are finished in input order either way, and
// without keep_going the error that ends the run is the first in partition order, after everything before
// it is done: what a one-engine run writes, reports and throws.
class BackStage {
 public:
  BackStage(const ProveOptions& options, ParameterStore& store, EngineSet& engines, BufferPool& buffers,
            Timeline& timeline, RunReport& run, FailureLog& failures, GpuMeter* meter,
            std::chrono::steady_clock::time_point run_start);
  ~BackStage();

  // On the consumer's thread, partitions in order.
  void consume(PartitionWork&& work);

  // After the last partition, or when the front stage failed: waits for the engines, finishes what can be
  // finished, puts each engine's figures into the report and rethrows the first error (without keep_going).
  void finish();

 private:
  // A partition whose H step and h MSM are done (groth16::begin_proof), and what its report needs.
  struct Begun {
    PartitionWork work;
    std::uint64_t seq = 0;
    groth16::ProofInProgress proof;
    unsigned batch = 1;                    // the engine's witness_batch when it was begun
    double busy_start = 0, begun_end = 0;  // the lane busy on it: H step and h MSM (evaluation included)
    PhaseMap<PhaseTime> phases;
    PhaseTimer prove_timer;
  };

  struct Assignment {
    PartitionWork work;
    std::uint64_t seq = 0;  // the partition's place in the run's order
  };
  // One engine: its cache (one engine per parameter set), device and figures, and with several engines
  // its thread and the partition handed to it.
  struct Lane {
    Lane(unsigned index, EngineCache& engines, std::optional<int> device)
        : index(index), engines(engines), device(device) {}
    unsigned index = 0;
    EngineCache& engines;
    std::optional<int> device;
    std::string timeline_lane;
    PhaseMap<PhaseTime> shared_phases;  // its setup phases, merged into the run's by finish()
    unsigned partitions = 0;            // proven
    unsigned handed = 0;                // handed to it
    double busy_s = 0;
    std::optional<Assignment> assigned;
    std::thread thread;
    // A partition begun and waiting for a partner whose witness MSMs it shares (one engine only).
    std::optional<Begun> held;
  };

  Lane* idle_lane();

  void serve(Lane& lane);

  // Proves `work` on the lane's engine and finishes what it completes. An engine that batches witness MSMs
  // (ProverEngine::witness_batch, one engine only) has the partition begun (its H step and h MSM) and held
  // until the next partition of the same circuit is begun too; the two are then finished together, their
  // streamed bases sent once for both. finish() proves a partition left held.
  void prove_and_finish(Lane& lane, PartitionWork&& work, std::uint64_t seq);

  // The partition held by the lane, if any, finished alone.
  void flush_held(Lane& lane);

  // Inside a catch block: the partition failed on this lane.
  void fail_partition(Lane& lane, SectorJob& job, unsigned partition, std::uint64_t seq);

  // Everything of a proof up to its witness MSMs: the engine, the constraints' evaluation when the engine
  // declines them, the H step and the h MSM.
  Begun begin_partition(Lane& lane, PartitionWork& work, std::uint64_t seq);

  // The witness MSMs of the group's partitions (together when there are several) and their proofs; then
  // their sectors are finished where complete. A failure fails every partition of the group.
  void finish_group(Lane& lane, std::vector<Begun>& group);

  // The figures of a proven partition, whose witness MSMs ran from `witness_start` to `end` (with its group).
  void record_proven(Lane& lane, Begun& b, const groth16::ProveTimings& t, double witness_start, double end);

  // Call inside a catch block: `job` failed at `stage`; without keep_going the error is the run's when it
  // is the first in partition order.
  void fail(SectorJob& job, const std::string& stage, std::uint64_t seq);

  void rethrow_first_error();

  // Finishes the sectors at the head of the order whose partitions are all proven; a failed one is passed
  // by. After an error that ends the run, only sectors whose partitions all came before it are finished.
  void finish_ready();

  // A witness-only input for an engine that declined the constraints: a, b, c by SpMV here, and their check.
  void evaluate_on_host(Lane& lane, SectorJob& job, PartitionWork& work, const std::string& where,
                        PhaseMap<PhaseTime>& phases);

  void add_step(const Lane& lane, const char* step, const SectorJob& job, unsigned partition, double start,
                double end);

  // Under finish_mutex_: one sector at a time, in order.
  void finish_sector(SectorJob& job);

  const ProveOptions& options_;
  ParameterStore& store_;
  BufferPool& buffers_;
  Timeline& timeline_;
  RunReport& run_;
  FailureLog& failures_;
  GpuMeter* meter_;                                   // null when no GPU is metered
  std::chrono::steady_clock::time_point last_write_;  // of the previous sector (the run's start at first)
  std::vector<std::unique_ptr<Lane>> lanes_;  // one per engine (the GPU engine keeps its bases resident)

  std::mutex mutex_;  // guards what follows and the lanes' assignments and figures
  std::condition_variable changed_;
  bool stop_ = false;
  std::uint64_t next_seq_ = 0;
  std::deque<std::shared_ptr<SectorJob>> unfinished_;  // sectors handed out, in order, not yet finished
  std::exception_ptr first_error_;                     // without keep_going: the run's error so far
  std::uint64_t first_error_seq_ = 0;
  double proving_start_ = 0, proving_end_ = 0;  // from the first proof's start to the last one's end
  bool reported_ = false;

  std::mutex finish_mutex_;  // one sector finished at a time
};

}  // namespace cuzk::job::detail
