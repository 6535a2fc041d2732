// The back stage of a run (job/back_stage.hpp): prove on the engines, then verify and write each sector.
#include "job/back_stage.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <string>
#include <utility>

#include "gpu/device_info.hpp"
#include "io/atomic_file.hpp"
#include "pce/evaluate.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/proof_file.hpp"
#include "prover/groth16/randomness.hpp"

namespace cuzk::job::detail {

BackStage::BackStage(const ProveOptions& options, ParameterStore& store, EngineSet& engines,
                     BufferPool& buffers, Timeline& timeline, RunReport& run, FailureLog& failures,
                     GpuMeter* meter, std::chrono::steady_clock::time_point run_start)
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

BackStage::~BackStage() {
  {
    std::lock_guard lock(mutex_);
    stop_ = true;
  }
  changed_.notify_all();
  for (auto& lane : lanes_)
    if (lane->thread.joinable()) lane->thread.join();
}

void BackStage::consume(PartitionWork&& work) {
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

void BackStage::finish() {
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
      run_.engines.push_back(
          {lane->index, lane->device, lane->partitions, lane->busy_s, span > 0 ? lane->busy_s / span : 0.0});
    }
  }
  rethrow_first_error();
}

BackStage::Lane* BackStage::idle_lane() {
  Lane* best = nullptr;
  for (auto& lane : lanes_)
    if (!lane->assigned && (!best || lane->handed < best->handed)) best = lane.get();
  return best;
}

void BackStage::serve(Lane& lane) {
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

void BackStage::prove_and_finish(Lane& lane, PartitionWork&& work, std::uint64_t seq) {
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

void BackStage::flush_held(Lane& lane) {
  if (!lane.held) return;
  std::vector<Begun> group;
  group.push_back(std::move(*lane.held));
  lane.held.reset();
  finish_group(lane, group);
}

void BackStage::fail_partition(Lane& lane, SectorJob& job, unsigned partition, std::uint64_t seq) {
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

BackStage::Begun BackStage::begin_partition(Lane& lane, PartitionWork& work, std::uint64_t seq) {
  SectorJob& job = *work.job;
  begin_step(options_, "proving " + job.path + " partition " + std::to_string(work.partition));
  // The GPU engine proves on this thread's current device.
  if (lane.device) gpu::use_device(*lane.device);
  const auto [r, s] = partition_randomness(options_);
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

void BackStage::finish_group(Lane& lane, std::vector<Begun>& group) {
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

void BackStage::record_proven(Lane& lane, Begun& b, const groth16::ProveTimings& t, double witness_start,
                              double end) {
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

void BackStage::fail(SectorJob& job, const std::string& stage, std::uint64_t seq) {
  if (!job.failed.exchange(true)) failures_.record(job.input_index, job.path, job.report.sector, stage);
  if (options_.keep_going) return;
  std::lock_guard lock(mutex_);
  if (!first_error_ || seq < first_error_seq_) {
    first_error_ = std::current_exception();
    first_error_seq_ = seq;
  }
  changed_.notify_all();
}

void BackStage::rethrow_first_error() {
  std::lock_guard lock(mutex_);
  if (first_error_) std::rethrow_exception(first_error_);
}

void BackStage::finish_ready() {
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

void BackStage::evaluate_on_host(Lane& lane, SectorJob& job, PartitionWork& work, const std::string& where,
                                 PhaseMap<PhaseTime>& phases) {
  PhaseTimer timer;
  const double start = timeline_.now();
  groth16::ProverInput& in = work.input;
  in = pce::make_prover_input(*job.synthesizer->circuit(), std::move(in.inputs), std::move(in.aux),
                              options_.threads, std::move(in));
  if (auto row = groth16::first_unsatisfied(in)) throw unsatisfied_error(where, job.c1, work.partition, *row);
  phases["evaluate"] += timer.elapsed();
  add_step(lane, "evaluate", job, work.partition, start, timeline_.now());
}

void BackStage::add_step(const Lane& lane, const char* step, const SectorJob& job, unsigned partition,
                         double start, double end) {
  timeline_.add({lane.timeline_lane, step, job.report.sector, static_cast<int>(partition), start, end});
}

void BackStage::finish_sector(SectorJob& job) {
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

}  // namespace cuzk::job::detail
