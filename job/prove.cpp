#include "job/prove.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <filesystem>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <thread>

#include "gpu/device_info.hpp"
#include "io/atomic_file.hpp"
#include "io/param_names.hpp"
#include "job/engine.hpp"
#include "job/gpu_meter.hpp"
#include "job/memory_sampler.hpp"
#include "job/prover_shape.hpp"
#include "job/run_checks.hpp"
#include "job/run_memory.hpp"
#include "job/stage_resources.hpp"
#include "job/synthesizer.hpp"
#include "job/two_stage.hpp"
#include "pce/cache.hpp"
#include "pce/evaluate.hpp"
#include "pce/porep_pce.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/proof_file.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/randomness.hpp"
#include "prover/groth16/verifier.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/c1_validate.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/param_names.hpp"
#include "prover/porep/synthesis.hpp"

namespace cuzk::job {

namespace {

// One sector on its way through the two stages. The front stage fills `report` up to synthesis; the
// back stage keeps its phases apart (back_phases) while the front may still be synthesizing later
// partitions, and merges them once the sector's last partition is proven.
struct SectorJob {
  std::size_t input_index = 0;
  std::string path;
  std::atomic<bool> failed{false};  // keep_going: a stage gave up on it; the other skips what is left
  porep::C1Output c1;
  const porep::RegisteredSealProof* proof = nullptr;
  const groth16::ParameterHeader* header = nullptr;
  const Synthesizer* synthesizer = nullptr;  // of the sector's circuit shape (PCE or direct)
  SectorReport report;
  PhaseMap<PhaseTime> back_phases;
  PhaseTimer timer;  // from the start of parsing
  // The verifier-side public inputs of each partition, derived once by the front stage (which checks the
  // synthesized ones against them) and used again to verify and for --dump-public-inputs.
  std::vector<std::vector<algebra::Fr>> public_inputs;
  std::vector<groth16::Proof> proofs;  // one per partition, filled by whichever engine proves it
  // The back stage's: partitions proven, the run order of the last one handed out, and what finishing it
  // (verify, write) was doing when it failed.
  std::atomic<unsigned> proven{0};
  std::uint64_t last_seq = 0;
  std::string finish_stage = "verify";
};

// A synthesized partition, ready to prove.
struct PartitionWork {
  std::shared_ptr<SectorJob> job;
  unsigned partition = 0;
  groth16::ProverInput input;
  PhaseMap<PhaseTime> phases;  // of this partition's synthesis, merged into the sector's in order
};

using detail::begin_step;
using detail::BufferPool;
using detail::check_inputs;
using detail::CheckedInput;
using detail::FailureLog;
using detail::log_memory_plan;
using detail::plan_memory;
using detail::progress;
using detail::same_proof_file;
using detail::sector_name;

// A partition whose witness fails constraint `row` (found by the host's check or the engine's): the Checker
// re-runs the circuit to name the constraint (porep::check_partition: a direct synthesis, slow at 32GiB, on
// this path only).
JobError unsatisfied_error(const std::string& where, const porep::C1Output& c1, unsigned k, std::size_t row) {
  std::string named = porep::check_partition(c1, k).value_or("constraint " + std::to_string(row));
  return JobError(JobError::Kind::kUnsatisfiedCircuit,
                  where + ": the vanilla proofs do not satisfy the circuit at " + named +
                      " (a tampered or corrupt C1 file?)");
}

// Parse, validate and synthesize, one partition per next() call, sector after sector.
class FrontStage {
 public:
  FrontStage(const std::vector<std::string>& paths, const std::vector<std::size_t>& todo,
             const ProveOptions& options, ParameterStore& store, detail::EngineSet& engines,
             BufferPool& buffers, Timeline& timeline, PhaseMap<PhaseTime>& shared_phases,
             FailureLog& failures)
      : paths_(paths),
        todo_(todo),
        options_(options),
        store_(store),
        engines_(engines),
        buffers_(buffers),
        timeline_(timeline),
        shared_phases_(shared_phases),
        failures_(failures) {}

  // The next partition in order (sector by sector), or nothing after the last. Up to
  // options.synthesis_workers partitions are synthesized at once, each on a task of its own; they are handed
  // out in order, and so are errors: a failure surfaces when its partition's turn comes, after every
  // partition before it.
  // With keep_going, a failed partition's sector is recorded and skipped, and the run goes on.
  std::optional<PartitionWork> next() {
    for (;;) {
      while (pending_.size() < std::max(1u, options_.synthesis_workers) && !launched_all_) launch_one();
      if (pending_.empty()) return std::nullopt;
      std::future<PartitionWork> front = std::move(pending_.front());
      pending_.pop_front();
      const auto [job, k] = std::move(pending_of_.front());
      pending_of_.pop_front();
      try {
        PartitionWork work = front.get();  // rethrows the task's error
        if (work.job->failed) {            // keep_going: another partition of its sector failed
          buffers_.give(std::move(work.input));
          continue;
        }
        for (const auto& [name, t] : work.phases) work.job->report.phases[name] += t;
        return work;
      } catch (...) {
        // Recorded without keep_going too (ProveOptions::sector_failed names the input that ended the run).
        if (job && !job->failed.exchange(true))
          failures_.record(job->input_index, job->path, job->report.sector,
                           "synthesize partition " + std::to_string(k));
        if (!options_.keep_going || !job) throw;
      }
    }
  }

 private:
  // Starts the next partition's synthesis (opening its sector first when it is the sector's first). An
  // error in opening the sector is handed out in its turn, like a synthesis error.
  void launch_one() {
    while (!job_ || partition_ == job_->proof->partitions() || job_->failed) {
      if (sector_ == todo_.size()) {
        launched_all_ = true;
        return;
      }
      const std::size_t index = todo_[sector_++];
      job_.reset();
      try {
        job_ = open_sector(index);
        partition_ = 0;
      } catch (...) {
        failures_.record(index, paths_[index], "", "load");
        if (options_.keep_going) continue;
        std::promise<PartitionWork> failed;
        failed.set_exception(std::current_exception());
        pending_.push_back(failed.get_future());
        pending_of_.push_back({nullptr, 0});
        launched_all_ = true;
        return;
      }
    }
    std::shared_ptr<SectorJob> job = job_;
    const unsigned k = partition_++;
    // The lane of the timeline: tasks take turns, so launch order modulo the worker count names a lane.
    const unsigned lane = launched_++ % std::max(1u, options_.synthesis_workers);
    // One worker: synthesized on the calling thread (the two-stage runner's producer), as before.
    if (options_.synthesis_workers <= 1) {
      std::promise<PartitionWork> done;
      try {
        done.set_value(make_work(job, k, lane));
      } catch (...) {
        done.set_exception(std::current_exception());
      }
      pending_.push_back(done.get_future());
      pending_of_.push_back({job, k});
      return;
    }
    pending_.push_back(
        std::async(std::launch::async, [this, job, k, lane] { return make_work(job, k, lane); }));
    pending_of_.push_back({job, k});
  }

  PartitionWork make_work(const std::shared_ptr<SectorJob>& job, unsigned k, unsigned lane) {
    PartitionWork work{job, k, {}, {}};
    const std::string lane_name = "synthesis " + std::to_string(lane);
    double start = timeline_.now();
    work.input = synthesize(*job, k, work.phases, [&](const char* step) {
      const double end = timeline_.now();
      timeline_.add({lane_name, step, job->report.sector, static_cast<int>(k), start, end});
      start = end;
    });
    return work;
  }

  std::shared_ptr<SectorJob> open_sector(std::size_t index) {
    const std::string& path = paths_[index];
    auto job = std::make_shared<SectorJob>();
    job->input_index = index;
    job->path = path;
    SectorReport& report = job->report;
    report.c1_path = path;

    begin_step(options_, "parsing " + path);
    PhaseTimer parse_timer;
    job->c1 = porep::read_c1_file(path);
    report.phases["parse"] = parse_timer.elapsed();

    PhaseTimer validate_timer;
    porep::validate_c1(job->c1, path);
    const porep::C1Output& c1 = job->c1;
    job->proof = &*c1.registered_proof;
    const porep::RegisteredSealProof& proof = *job->proof;
    report.proof_type = std::string(proof.name);
    report.partitions = proof.partitions();
    job->public_inputs.resize(proof.partitions());  // filled per partition; never reallocated
    job->proofs.resize(proof.partitions());
    report.sector = sector_name(path, c1, options_.proof_naming);
    if (!names_.insert(report.sector).second)
      throw same_proof_file(path, c1, report.sector, options_.proof_naming);
    if (c1.sector_num) {
      porep::Domain expected = porep::replica_id(porep::prover_id_from_miner_id(options_.miner_id),
                                                 static_cast<std::uint64_t>(*c1.sector_num), c1.ticket,
                                                 c1.comm_d, proof.porep_id());
      if (expected != c1.replica_id)
        spdlog::warn(
            "{}: replica_id does not match miner t0{} sector {} (pass --miner-id if the miner differs)", path,
            options_.miner_id, *c1.sector_num);
    }
    report.phases["validate"] = validate_timer.elapsed();

    PhaseTimer header_timer;
    job->header = &store_.header_for(*proof.shape);
    shared_phases_["params.header"] += header_timer.elapsed();
    engines_.prepare(*proof.shape);
    job->synthesizer = &synthesizer_for(*job);
    return job;
  }

  // The synthesizer of the sector's circuit, made once per circuit shape in the run: with use_pce over the
  // constraint cache, loaded or built here (and checked against the parameter file), else direct.
  const Synthesizer& synthesizer_for(const SectorJob& job) {
    const porep::RegisteredSealProof& proof = *job.proof;
    auto it = synthesizers_.find(proof.shape->sector_size);
    if (it != synthesizers_.end()) return *it->second;
    if (!options_.use_pce)
      return *synthesizers_.emplace(proof.shape->sector_size, make_direct_synthesizer()).first->second;
    const porep::StackedCircuitShape shape = porep::StackedCircuitShape::from_sector(*proof.shape);
    PhaseTimer pce_timer;
    // The rule of every command: the flag, else CUZK_PCE_CACHE, else beside the parameters of this run.
    const std::filesystem::path dir = pce::cache_dir(options_.pce_cache_dir, options_.params_dir);
    pce::LoadResult loaded = pce::load_or_build_porep(dir, shape, options_.pce_readonly);
    progress(options_,
             std::string(loaded.built ? "built" : "loaded") + " the constraint cache " +
                 loaded.path.string() +
                 (loaded.rebuild_reason.empty() ? "" : " (rebuilt: " + loaded.rebuild_reason + ")"));
    shared_phases_[loaded.built ? "pce.build" : "pce.load"] += pce_timer.elapsed();
    check_parameters_fit(loaded.pce, *job.header, store_.params_path(*proof.shape));
    return *synthesizers_
                .emplace(proof.shape->sector_size, make_pce_synthesizer(std::move(loaded.pce), shape))
                .first->second;
  }

  // May run on several tasks at once: it reads the job and writes only public_inputs[k] and `phases`.
  // `step_done(name)`: the step since the last call (or the start) is over, for the timeline.
  groth16::ProverInput synthesize(SectorJob& job, unsigned k, PhaseMap<PhaseTime>& phases,
                                  const std::function<void(const char*)>& step_done) {
    const porep::C1Output& c1 = job.c1;
    const porep::RegisteredSealProof& proof = *job.proof;
    std::string where = job.path + " partition " + std::to_string(k);
    if (options_.check_circuit) {
      PhaseTimer check_timer;
      if (auto failure = porep::check_partition(c1, k))
        throw JobError(JobError::Kind::kUnsatisfiedCircuit,
                       where + ": the witness does not satisfy the circuit at " + *failure);
      phases["check"] += check_timer.elapsed();
      step_done("check");
    }
    begin_step(options_, "synthesizing " + where);
    PhaseTimer synth_timer;
    const unsigned workers = std::max(1u, options_.synthesis_workers);
    const unsigned threads = options_.threads == 0 ? 0 : std::max(1u, options_.threads / workers);
    // With the constraints on the engine, a, b, c and the check a * b = c are left to the proving stage.
    const bool witness_only = options_.engine.constraints_on_engine() && job.synthesizer->circuit() &&
                              !engines_.declined_constraints(*proof.shape);
    groth16::ProverInput input = job.synthesizer->synthesize(
        c1, k, workers > 1 && threads == 0 ? per_worker_threads(workers) : threads, buffers_.take(),
        witness_only);
    phases["synthesize"] += synth_timer.elapsed();
    step_done("synthesize");
    // The inputs the circuit allocated from the C1 witness must be the ones the verifier will
    // rebuild (challenges from replica_id and seed, parents from porep_id): a C1 file whose seed,
    // replica_id or challenges disagree is refused here, before any proving time is spent.
    PhaseTimer inputs_timer;
    const std::vector<algebra::Fr>& expected = job.public_inputs[k] =
        porep::generate_public_inputs(proof, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, k);
    if (input.inputs.size() != expected.size() + 1 ||
        !std::equal(expected.begin(), expected.end(), input.inputs.begin() + 1)) {
      std::size_t i = 0;
      while (i < expected.size() && i + 1 < input.inputs.size() && input.inputs[i + 1] == expected[i]) ++i;
      throw JobError(JobError::Kind::kUnsatisfiedCircuit,
                     where + ": public input " + std::to_string(i) +
                         " from the vanilla proofs differs from the one the verifier derives (challenge " +
                         std::to_string(i < porep::kSectorInputs
                                            ? 0
                                            : (i - porep::kSectorInputs) / porep::kInputsPerChallenge) +
                         "): the C1 file does not match its replica_id, seed or proof type");
    }
    phases["inputs"] += inputs_timer.elapsed();
    step_done("inputs");
    if (witness_only) return input;
    // a*b = c for every constraint: a cheap pass over what synthesis already computed.
    PhaseTimer satisfied_timer;
    if (auto row = groth16::first_unsatisfied(input)) throw unsatisfied_error(where, c1, k, *row);
    phases["satisfied"] += satisfied_timer.elapsed();
    step_done("satisfied");
    return input;
  }

  static unsigned per_worker_threads(unsigned workers) {
    return std::max(1u, std::thread::hardware_concurrency() / workers);
  }

  // The circuit's counts against the parameter file's, before any partition is synthesized: a file for
  // another circuit is refused by name instead of after a whole synthesis.
  static void check_parameters_fit(const pce::CompactR1cs& circuit, const groth16::ParameterHeader& header,
                                   const std::string& path) {
    const gpu::ProverShape want = prover_shape(circuit_figures(circuit));
    std::string why;
    auto expect = [&](const char* what, std::size_t have, std::size_t want) {
      if (have != want && why.empty())
        why = std::string(what) + " has " + std::to_string(have) + " points where the circuit needs " +
              std::to_string(want);
    };
    expect("ic", header.vk.ic.size(), want.inputs);
    expect("h", header.h, want.h);
    expect("l", header.l, want.l);
    expect("a", header.a, want.a);
    expect("b_g1", header.b_g1, want.b_g1);
    expect("b_g2", header.b_g2, want.b_g2);
    if (!why.empty())
      throw JobError(
          JobError::Kind::kMissingParameters,
          path + " is not for this circuit: " + why + " (parameters of another sector size or version?)");
  }

  const std::vector<std::string>& paths_;
  const std::vector<std::size_t>& todo_;  // indices into paths_ of the sectors that passed the checks
  const ProveOptions& options_;
  ParameterStore& store_;
  detail::EngineSet& engines_;
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

// Prove, and once a sector's partitions are all proven: verify, write, report. With one engine each
// partition is proven on the consumer's thread as it comes; with several, each engine has a thread of its
// own and a partition goes to whichever engine is free. Sectors are finished in input order either way, and
// without keep_going the error that ends the run is the first in partition order, after everything before
// it is done: what a one-engine run writes, reports and throws.
class BackStage {
 public:
  BackStage(const ProveOptions& options, ParameterStore& store, detail::EngineSet& engines,
            BufferPool& buffers, Timeline& timeline, RunReport& run, FailureLog& failures, GpuMeter* meter,
            std::chrono::steady_clock::time_point run_start)
      : options_(options),
        store_(store),
        buffers_(buffers),
        timeline_(timeline),
        run_(run),
        failures_(failures),
        meter_(meter),
        last_write_(run_start) {
    for (std::size_t i = 0; i < engines.size(); ++i) {
      auto lane = std::make_unique<Lane>(static_cast<unsigned>(i), engines.at(i), engines.device(i));
      lane->timeline_lane = engines.size() == 1 ? "prover" : "prover " + std::to_string(i);
      lanes_.push_back(std::move(lane));
    }
    if (lanes_.size() > 1)
      for (auto& lane : lanes_) lane->thread = std::thread([this, raw = lane.get()] { serve(*raw); });
  }
  ~BackStage() {
    {
      std::lock_guard lock(mutex_);
      stop_ = true;
    }
    changed_.notify_all();
    for (auto& lane : lanes_)
      if (lane->thread.joinable()) lane->thread.join();
  }

  // On the consumer's thread, partitions in order.
  void consume(PartitionWork&& work) {
    if (work.job->failed) {  // keep_going: an earlier partition of this sector failed
      buffers_.give(std::move(work.input));
      return;
    }
    std::unique_lock lock(mutex_);
    const std::uint64_t seq = next_seq_++;
    if (unfinished_.empty() || unfinished_.back() != work.job) unfinished_.push_back(work.job);
    work.job->last_seq = seq;
    if (lanes_.size() == 1) {
      lock.unlock();
      prove_and_finish(*lanes_.front(), std::move(work), seq);
      rethrow_first_error();
      return;
    }
    changed_.wait(lock, [&] { return first_error_ || idle_lane(); });
    if (first_error_) {
      lock.unlock();
      buffers_.give(std::move(work.input));
      finish();
      return;  // finish() threw
    }
    // Of the free engines, the one that has proven the fewest: every engine gets work from the start.
    Lane* lane = idle_lane();
    lane->assigned.emplace(Assignment{std::move(work), seq});
    ++lane->handed;
    changed_.notify_all();
  }

  // After the last partition, or when the front stage failed: waits for the engines, finishes what can be
  // finished, puts each engine's figures into the report and rethrows the first error (without keep_going).
  void finish() {
    if (lanes_.size() == 1) flush_held(*lanes_.front());
    {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] {
        return std::all_of(lanes_.begin(), lanes_.end(), [](const auto& l) { return !l->assigned; });
      });
    }
    finish_ready();
    if (!reported_) {
      reported_ = true;
      const double span = proving_end_ - proving_start_;
      for (auto& lane : lanes_) {
        for (const auto& [name, t] : lane->shared_phases) run_.shared_phases[name] += t;
        run_.engines.push_back({lane->index, lane->device, lane->partitions, lane->busy_s,
                                span > 0 ? lane->busy_s / span : 0.0});
      }
    }
    rethrow_first_error();
  }

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
    Lane(unsigned index, detail::EngineCache& engines, std::optional<int> device)
        : index(index), engines(engines), device(device) {}
    unsigned index = 0;
    detail::EngineCache& engines;
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

  Lane* idle_lane() {
    Lane* best = nullptr;
    for (auto& lane : lanes_)
      if (!lane->assigned && (!best || lane->handed < best->handed)) best = lane.get();
    return best;
  }

  void serve(Lane& lane) {
    for (;;) {
      std::unique_lock lock(mutex_);
      changed_.wait(lock, [&] { return stop_ || lane.assigned; });
      if (!lane.assigned) return;  // stopping
      Assignment& task = *lane.assigned;
      lock.unlock();
      prove_and_finish(lane, std::move(task.work), task.seq);
      lock.lock();
      lane.assigned.reset();
      changed_.notify_all();
    }
  }

  // Proves `work` on the lane's engine and finishes what it completes. An engine that batches witness MSMs
  // (ProverEngine::witness_batch, one engine only) has the partition begun (its H step and h MSM) and held
  // until the next partition of the same circuit is begun too; the two are then finished together, their
  // streamed bases sent once for both. finish() proves a partition left held.
  void prove_and_finish(Lane& lane, PartitionWork&& work, std::uint64_t seq) {
    SectorJob& job = *work.job;
    if (job.failed) {
      buffers_.give(std::move(work.input));
      finish_ready();
      return;
    }
    if (lane.held && lane.held->work.job->proof->shape != job.proof->shape) flush_held(lane);
    std::optional<Begun> begun;
    try {
      begun.emplace(begin_partition(lane, work, seq));
    } catch (...) {
      flush_held(lane);  // the partition before this one comes first, in the report and in the errors
      fail_partition(lane, job, work.partition, seq);
      buffers_.give(std::move(work.input));
      finish_ready();
      return;
    }
    std::vector<Begun> group;
    if (lane.held) {
      group.push_back(std::move(*lane.held));
      lane.held.reset();
    }
    group.push_back(std::move(*begun));
    if (group.size() < group.back().batch) {
      lane.held.emplace(std::move(group.back()));  // waits for a partner
      return;
    }
    finish_group(lane, group);
  }

  // The partition held by the lane, if any, finished alone.
  void flush_held(Lane& lane) {
    if (!lane.held) return;
    std::vector<Begun> group;
    group.push_back(std::move(*lane.held));
    lane.held.reset();
    finish_group(lane, group);
  }

  // Inside a catch block: the partition failed on this lane.
  void fail_partition(Lane& lane, SectorJob& job, unsigned partition, std::uint64_t seq) {
    const std::string stage = "prove partition " + std::to_string(partition);
    // The phase and partition, beside the error itself (logged by the CLI): a GPU fault mid-batch names
    // where it happened. Nothing of the sector has been written (proofs are written whole).
    spdlog::error("{}: {} failed{}", job.path, stage,
                  lanes_.size() > 1 ? " on engine " + std::to_string(lane.index) : "");
    fail(job, stage, seq);
    // A bad input leaves the engine as it was; anything else may have left it half-way: this engine gets a
    // fresh one for its next sector, the others go on with theirs.
    if (!is_unsatisfied(std::current_exception())) lane.engines.forget(*job.proof->shape);
  }

  // Everything of a proof up to its witness MSMs: the engine, the constraints' evaluation when the engine
  // declines them, the H step and the h MSM.
  Begun begin_partition(Lane& lane, PartitionWork& work, std::uint64_t seq) {
    SectorJob& job = *work.job;
    begin_step(options_, "proving " + job.path + " partition " + std::to_string(work.partition));
    // The GPU engine proves on this thread's current device.
    if (lane.device) gpu::use_device(*lane.device);
    algebra::Fr r, s;
    // Drawn (or fixed) per partition, never per engine: which engine proves a partition changes nothing.
    if (options_.fixed_randomness) {
      r = options_.fixed_randomness->first;
      s = options_.fixed_randomness->second;
    } else {
      r = groth16::random_fr();
      s = groth16::random_fr();
    }
    const double wait_start = timeline_.now();
    groth16::ProverEngine& engine = lane.engines.get(*job.proof->shape, lane.shared_phases);
    double start = timeline_.now();
    if (start - wait_start > 1e-3) add_step(lane, "prove.wait", job, work.partition, wait_start, start);
    const std::string where = job.path + " partition " + std::to_string(work.partition);
    const pce::CompactR1cs* circuit = job.synthesizer->circuit();
    PhaseMap<PhaseTime> phases;
    PhaseTimer prove_timer;  // waiting for the engine (the parameter load) is a phase of its own
    const double busy_start = start;
    if (work.input.a.empty() && circuit) {
      if (!lane.engines.hold_constraints(*job.proof->shape, *circuit, lane.shared_phases))
        evaluate_on_host(lane, job, work, where, phases);
      prove_timer = PhaseTimer();
      start = timeline_.now();
    }
    groth16::ProofInProgress proof;
    try {
      proof = groth16::begin_proof(engine, *job.header, work.input, r, s);
    } catch (const groth16::Groth16Error& e) {
      if (e.kind() != groth16::Groth16ErrorKind::kUnsatisfied || !e.constraint()) throw;
      throw unsatisfied_error(where, job.c1, work.partition, *e.constraint());
    }
    const groth16::ProveTimings& t = proof.timings;
    add_step(lane, "prove.h", job, work.partition, start, start + t.h.wall_s);
    const double begun_end = timeline_.now();
    // The h MSM, apart from the witness MSMs that finish_group draws as prove.msm_g1 (so that a partition
    // has one box of each step, as before the split).
    add_step(lane, "prove.msm_h", job, work.partition, start + t.h.wall_s, begun_end);
    // One engine only: with several, a partition goes to whichever engine is free, one at a time.
    const unsigned batch = lanes_.size() == 1 ? std::max(1u, engine.witness_batch()) : 1;
    return Begun{std::move(work), seq, proof, batch, busy_start, begun_end, std::move(phases), prove_timer};
  }

  // The witness MSMs of the group's partitions (together when there are several) and their proofs; then
  // their sectors are finished where complete. A failure fails every partition of the group.
  void finish_group(Lane& lane, std::vector<Begun>& group) {
    SectorJob& first = *group.front().work.job;
    std::vector<groth16::ProofInProgress> proofs;
    for (Begun& b : group) {
      b.proof.input = &b.work.input;  // the input moved into `b` after begin_partition
      proofs.push_back(b.proof);
    }
    try {
      if (lane.device) gpu::use_device(*lane.device);
      groth16::ProverEngine& engine = lane.engines.get(*first.proof->shape, lane.shared_phases);
      const double start = timeline_.now();
      std::vector<groth16::Proof> done = groth16::finish_proofs(engine, *first.header, proofs);
      const double end = timeline_.now();
      // The witness MSMs ran once for the group: each partition's share of the span, in turn, so that the
      // lane's steps do not overlap (G1, then G2 for each).
      double g2_total = 0;
      for (const auto& p : proofs) g2_total += p.timings.msm_g2.wall_s;
      const double g1_span = std::max(0.0, end - start - g2_total) / double(group.size());
      double at = start;
      for (std::size_t i = 0; i < group.size(); ++i) {
        Begun& b = group[i];
        SectorJob& job = *b.work.job;
        job.proofs.at(b.work.partition) = done.at(i);
        add_step(lane, "prove.msm_g1", job, b.work.partition, at, at + g1_span);
        at += g1_span;
      }
      for (std::size_t i = 0; i < group.size(); ++i) {
        Begun& b = group[i];
        const double g2 = proofs[i].timings.msm_g2.wall_s;
        add_step(lane, "prove.msm_g2", *b.work.job, b.work.partition, at, std::min(end, at + g2));
        at += g2;
      }
      for (std::size_t i = 0; i < group.size(); ++i)
        record_proven(lane, group[i], proofs[i].timings, start, end);
    } catch (...) {
      for (Begun& b : group) {
        SectorJob& job = *b.work.job;
        fail_partition(lane, job, b.work.partition, b.seq);
      }
    }
    for (Begun& b : group) buffers_.give(std::move(b.work.input));
    finish_ready();
  }

  // The figures of a proven partition, whose witness MSMs ran from `witness_start` to `end` (with its group).
  void record_proven(Lane& lane, Begun& b, const groth16::ProveTimings& t, double witness_start, double end) {
    SectorJob& job = *b.work.job;
    PhaseMap<PhaseTime>& phases = b.phases;
    phases["prove"] += b.prove_timer.elapsed();
    phases["prove.h"] += t.h;
    phases["prove.msm_g1"] += t.msm_g1;
    phases["prove.msm_g2"] += t.msm_g2;
    ++job.proven;
    std::lock_guard lock(mutex_);
    for (const auto& [name, time] : phases) job.back_phases[name] += time;
    ++lane.partitions;
    // The lane's busy time: this partition's evaluation, H step and h MSM (a held partition's wait for its
    // partner not counted) and its share of the group's witness MSMs.
    lane.busy_s += (b.begun_end - b.busy_start) + (end - witness_start) / double(t.batch);
    if (proving_end_ == 0 || b.busy_start < proving_start_) proving_start_ = b.busy_start;
    proving_end_ = std::max(proving_end_, end);
    // Called one at a time, as with one engine.
    if (options_.partition_proven)
      options_.partition_proven(job.path, b.work.partition, job.proof->partitions());
  }

  // Call inside a catch block: `job` failed at `stage`; without keep_going the error is the run's when it
  // is the first in partition order.
  void fail(SectorJob& job, const std::string& stage, std::uint64_t seq) {
    if (!job.failed.exchange(true)) failures_.record(job.input_index, job.path, job.report.sector, stage);
    if (options_.keep_going) return;
    std::lock_guard lock(mutex_);
    if (!first_error_ || seq < first_error_seq_) {
      first_error_ = std::current_exception();
      first_error_seq_ = seq;
    }
    changed_.notify_all();
  }

  void rethrow_first_error() {
    std::lock_guard lock(mutex_);
    if (first_error_) std::rethrow_exception(first_error_);
  }

  // Finishes the sectors at the head of the order whose partitions are all proven; a failed one is passed
  // by. After an error that ends the run, only sectors whose partitions all came before it are finished.
  void finish_ready() {
    std::lock_guard finishing(finish_mutex_);
    for (;;) {
      std::shared_ptr<SectorJob> job;
      {
        std::lock_guard lock(mutex_);
        if (unfinished_.empty()) return;
        job = unfinished_.front();
        if (!job->failed && job->proven < job->proof->partitions()) return;
        unfinished_.pop_front();
        if (first_error_ && job->last_seq > first_error_seq_) return;
      }
      if (job->failed) continue;
      try {
        finish_sector(*job);
      } catch (...) {
        fail(*job, job->finish_stage, job->last_seq);
      }
    }
  }

  // A witness-only input for an engine that declined the constraints: a, b, c by SpMV here, and their check.
  void evaluate_on_host(Lane& lane, SectorJob& job, PartitionWork& work, const std::string& where,
                        PhaseMap<PhaseTime>& phases) {
    PhaseTimer timer;
    const double start = timeline_.now();
    groth16::ProverInput& in = work.input;
    in = pce::make_prover_input(*job.synthesizer->circuit(), std::move(in.inputs), std::move(in.aux),
                                options_.threads, std::move(in));
    if (auto row = groth16::first_unsatisfied(in))
      throw unsatisfied_error(where, job.c1, work.partition, *row);
    phases["evaluate"] += timer.elapsed();
    add_step(lane, "evaluate", job, work.partition, start, timeline_.now());
  }

  static bool is_unsatisfied(const std::exception_ptr& error) {
    try {
      std::rethrow_exception(error);
    } catch (const JobError& e) {
      return e.kind() == JobError::Kind::kUnsatisfiedCircuit;
    } catch (...) {
      return false;
    }
  }

  void add_step(const Lane& lane, const char* step, const SectorJob& job, unsigned partition, double start,
                double end) {
    timeline_.add({lane.timeline_lane, step, job.report.sector, static_cast<int>(partition), start, end});
  }

  // Under finish_mutex_: one sector at a time, in order.
  void finish_sector(SectorJob& job) {
    const porep::RegisteredSealProof& proof = *job.proof;
    SectorReport& report = job.report;
    for (const auto& [name, t] : job.back_phases) report.phases[name] += t;
    if (options_.verify) {
      job.finish_stage = "verify";
      begin_step(options_, "verifying " + job.path);
      PhaseTimer verify_timer;
      const double verify_start = timeline_.now();
      const groth16::VerifyingKey& vk = store_.vk_for(*proof.shape);
      report.verified = verify_sector_proofs(vk, job.proofs, job.public_inputs);
      report.phases["verify"] = verify_timer.elapsed();
      timeline_.add({"writer", "verify", report.sector, -1, verify_start, timeline_.now()});
      if (!report.verified)
        throw JobError(
            JobError::Kind::kSelfVerificationFailed,
            job.path + ": the proof does not verify against " + store_.vk_path(*proof.shape) +
                "; nothing was written (are the parameters and the verifying key from the same setup?)");
    }

    job.finish_stage = "write";
    PhaseTimer write_timer;
    const double write_start = timeline_.now();
    report.proof_path = (std::filesystem::path(options_.output_dir) / (report.sector + ".proof")).string();
    groth16::write_proof_file_atomic(report.proof_path, job.proofs);
    report.proof_hex = algebra::bytes_to_hex(groth16::serialize_proofs(job.proofs));
    if (options_.dump_public_inputs) {
      std::string json = public_inputs_json(job.public_inputs);
      report.public_inputs_path =
          (std::filesystem::path(options_.output_dir) / (report.sector + ".inputs.json")).string();
      io::write_file_atomic(report.public_inputs_path,
                            {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
    }
    report.phases["write"] = write_timer.elapsed();
    timeline_.add({"writer", "write", report.sector, -1, write_start, timeline_.now()});
    report.total = job.timer.elapsed();
    const auto written = std::chrono::steady_clock::now();
    report.span_s = std::chrono::duration<double>(written - last_write_).count();
    last_write_ = written;
    if (meter_) report.energy_joules = meter_->energy_since_last_read();
    run_.sectors.push_back(std::move(report));
    if (options_.sector_done) options_.sector_done(run_.sectors.back());
  }

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

// Several engines report progress from threads of their own: one call at a time, as the callers of
// ProveOptions expect (partition_proven and sector_done are called under the back stage's locks).
void serialize_callbacks(ProveOptions& options) {
  auto mutex = std::make_shared<std::mutex>();
  if (auto progress = options.progress)
    options.progress = [mutex, progress](const std::string& message) {
      std::lock_guard lock(*mutex);
      progress(message);
    };
}

}  // namespace

RunReport prove_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& options) {
  return prove_c1_files(c1_paths, options, make_engine);
}

RunReport prove_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& given,
                         const EngineFactory& make) {
  PhaseTimer run_timer;
  const auto run_start = std::chrono::steady_clock::now();
  // First of all: --gpu where no GPU can be used ends the run before anything is looked at or made.
  const EngineDevices devices = require_devices(given.engine);
  // The GPU engine's devices are metered through NVML; the CPU engine's run does not load it.
  std::vector<std::string> metered = given.metered_pci_bus_ids;
  if (metered.empty())
    for (const gpu::DeviceInfo& device : devices.found) metered.push_back(device.pci_bus_id);
  // (GpuMeter meters each GPU once, however many engines it holds.)
  std::unique_ptr<GpuMeter> meter;
  if (!metered.empty()) meter = std::make_unique<GpuMeter>(metered, given.gpu_sample_interval);
  if (given.engine.gpu()) {
    std::vector<int> repeated = devices.ordinals;
    std::sort(repeated.begin(), repeated.end());
    if (std::adjacent_find(repeated.begin(), repeated.end()) != repeated.end() && !given.engine.memory_limit)
      spdlog::warn("--devices names a GPU twice without --gpu-memory: its engines share its free memory");
  }
  std::function<std::uint64_t()> device_used;
  if (given.engine.gpu())
    device_used = [] { return static_cast<std::uint64_t>(gpu::device_memory_in_use()); };
  MemorySampler memory(std::chrono::milliseconds(100), device_used);
  RunReport run;
  run.engine = given.engine.name();
  run.engine_config = given.engine;
  run.overlap = given.overlap;
  ParameterStore store(given.params_dir);
  io::prepare_output_dir(given.output_dir);
  if (std::size_t n = io::remove_stale_temporaries(given.output_dir))
    spdlog::info("removed {} stale temporary file(s) of killed runs from {}", n, given.output_dir);

  FailureLog failures(given);
  PhaseTimer check_timer;
  detail::CheckedInputs inputs = check_inputs(c1_paths, given, store, failures);
  const std::vector<CheckedInput>& checked = inputs.to_prove;
  run.already_proven = std::move(inputs.already_proven);
  std::vector<std::size_t> to_prove;  // indices into c1_paths
  for (const CheckedInput& input : checked) to_prove.push_back(input.index);
  if (given.inputs_checked) {
    std::map<std::string, unsigned> partitions_by_c1;
    for (const CheckedInput& input : checked)
      partitions_by_c1[c1_paths[input.index]] = input.proof->partitions();
    given.inputs_checked(partitions_by_c1);
  }
  // Before any synthesis: a run that cannot fit in memory is refused now, not after an hour of synthesis
  // and a kill by the OOM killer, and --synthesis-workers auto becomes what fits.
  ProveOptions options = given;
  if (options.engine.gpu()) options.engine.devices = devices.ordinals;  // --devices all: the visible ones
  // Engines of one device made at once would each plan for all its free memory: each gets its share.
  if (options.engine.gpu() && !options.engine.memory_limit && devices.ordinals.size() > 1)
    options.engine.memory_limit = devices.budget;
  if (options.engine.engine_count() > 1) serialize_callbacks(options);
  std::map<std::uint64_t, gpu::ProverShape> shapes;
  if (!checked.empty()) {
    std::vector<std::string> notes;
    RunMemoryPlan plan = plan_memory(checked, given, devices, store, shapes, notes);
    for (const std::string& note : notes) spdlog::debug("{}", note);
    log_memory_plan(plan);
    if (!plan.fits()) throw JobError(JobError::Kind::kInsufficientMemory, plan.shortfall());
    options.synthesis_workers = plan.host.synthesis_workers;
    // A device plan that keeps the constraint matrices on the host: synthesis computes a, b, c from the
    // first partition on (else the first partitions would be evaluated by the proving stage, after the
    // engine declined the matrices).
    if (plan.device && !plan.device->constraints_on_device && options.engine.constraints_on_engine()) {
      options.engine.constraints = EngineConfig::Place::kHost;
      spdlog::info(
          "a, b and c are evaluated by synthesis on the host (the device plan has no room for the "
          "constraint matrices)");
    }
    if (plan.device) options.engine.max_witness_batch = plan.device->witness_batch;
    run.memory_plan = std::move(plan);
  }
  run.shared_phases["inputs.check"] = check_timer.elapsed();

  // The front stage's shared phases (parameter loads, constraint caches) are kept apart from the back
  // stage's (engine setup) while both threads run, and merged at the end.
  PhaseMap<PhaseTime> front_shared;
  Timeline timeline;
  // The config as given (the memory plan may keep the constraints on the host for synthesis; the engines
  // are still made as asked), on the devices found.
  EngineConfig engine_config = given.engine;
  engine_config.devices = options.engine.devices;
  engine_config.memory_limit = options.engine.memory_limit;
  engine_config.max_witness_batch = options.engine.max_witness_batch;
  detail::EngineSet engines(engine_config, devices.ordinals, make, options.threads, store, timeline, shapes);
  BufferPool buffers;
  FrontStage front(c1_paths, to_prove, options, store, engines, buffers, timeline, front_shared, failures);
  BackStage back(options, store, engines, buffers, timeline, run, failures, meter.get(), run_start);
  try {
    run_two_stage<PartitionWork>([&] { return front.next(); },
                                 [&](PartitionWork&& work) { back.consume(std::move(work)); },
                                 options.overlap);
  } catch (...) {
    // The partitions on the engines come before the one that failed: they finish first, and an error
    // among them is the run's.
    back.finish();
    throw;
  }
  back.finish();
  for (const auto& [name, t] : front_shared) run.shared_phases[name] += t;
  run.failures = failures.in_input_order();
  run.total = run_timer.elapsed();
  run.peak_rss_bytes = peak_rss_bytes();
  run.synthesis_workers = std::max(1u, options.synthesis_workers);
  run.timeline = timeline.events();
  const MemoryPeaks peaks = memory.peaks();
  run.peak_anon_bytes = peaks.anon_bytes;
  run.peak_file_bytes = peaks.file_bytes;
  run.peak_device_bytes = peaks.device_bytes;
  run.usd_per_hour = given.gpu_price_per_hour;
  if (meter) {
    // The steady state is the prover lanes' span, as prover_busy's (job/timeline.hpp, lane_utilization):
    // "prover", or "prover 0", "prover 1", ... with several engines.
    double first_start = -1, last_end = -1;
    for (const TimelineEvent& e : run.timeline)
      if (e.lane == "prover" || e.lane.starts_with("prover ")) {
        first_start = first_start < 0 ? e.start_s : std::min(first_start, e.start_s);
        last_end = std::max(last_end, e.end_s);
      }
    const auto at = [&](double s) {
      return timeline.start() + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                    std::chrono::duration<double>(s));
    };
    // No prover step (every sector failed or was already proven): an empty window, no steady figure.
    run.gpu = first_start < 0 ? meter->finish(at(1), at(0)) : meter->finish(at(first_start), at(last_end));
  } else {
    run.gpu = GpuMeter::not_applicable(given.engine.gpu() ? "no GPU to meter" : "the CPU engine proves");
  }
  return run;
}

}  // namespace cuzk::job
