// The front stage of a run (job/front_stage.hpp): parse, validate and synthesize, partition by partition.
#include "job/front_stage.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <exception>
#include <filesystem>
#include <future>
#include <string>
#include <thread>
#include <utility>

#include "gpu/memory_plan.hpp"
#include "job/prover_shape.hpp"
#include "pce/cache.hpp"
#include "pce/porep_pce.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/c1_validate.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/circuit.hpp"
#include "prover/porep/synthesis.hpp"

namespace cuzk::job::detail {

FrontStage::FrontStage(const std::vector<std::string>& paths, const std::vector<std::size_t>& to_prove,
                       const ProveOptions& options, ParameterStore& store, EngineSet& engines,
                       BufferPool& buffers, Timeline& timeline, PhaseMap<PhaseTime>& shared_phases,
                       FailureLog& failures)
    : paths_(paths),
      to_prove_(to_prove),
      options_(options),
      store_(store),
      engines_(engines),
      buffers_(buffers),
      timeline_(timeline),
      shared_phases_(shared_phases),
      failures_(failures) {}

std::optional<PartitionWork> FrontStage::next() {
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

void FrontStage::launch_one() {
  while (!job_ || partition_ == job_->proof->partitions() || job_->failed) {
    if (sector_ == to_prove_.size()) {
      launched_all_ = true;
      return;
    }
    const std::size_t index = to_prove_[sector_++];
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

PartitionWork FrontStage::make_work(const std::shared_ptr<SectorJob>& job, unsigned k, unsigned lane) {
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

std::shared_ptr<SectorJob> FrontStage::open_sector(std::size_t index) {
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
    porep::Domain expected =
        porep::replica_id(porep::prover_id_from_miner_id(options_.miner_id),
                          static_cast<std::uint64_t>(*c1.sector_num), c1.ticket, c1.comm_d, proof.porep_id());
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

const Synthesizer& FrontStage::synthesizer_for(const SectorJob& job) {
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
  progress(options_, std::string(loaded.built ? "built" : "loaded") + " the constraint cache " +
                         loaded.path.string() +
                         (loaded.rebuild_reason.empty() ? "" : " (rebuilt: " + loaded.rebuild_reason + ")"));
  shared_phases_[loaded.built ? "pce.build" : "pce.load"] += pce_timer.elapsed();
  check_parameters_fit(loaded.pce, *job.header, store_.params_path(*proof.shape));
  return *synthesizers_.emplace(proof.shape->sector_size, make_pce_synthesizer(std::move(loaded.pce), shape))
              .first->second;
}

groth16::ProverInput FrontStage::synthesize(SectorJob& job, unsigned k, PhaseMap<PhaseTime>& phases,
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
  groth16::ProverInput input =
      job.synthesizer->synthesize(c1, k, workers > 1 && threads == 0 ? per_worker_threads(workers) : threads,
                                  buffers_.take(), witness_only);
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

unsigned FrontStage::per_worker_threads(unsigned workers) {
  return std::max(1u, std::thread::hardware_concurrency() / workers);
}

void FrontStage::check_parameters_fit(const pce::CompactR1cs& circuit, const groth16::ParameterHeader& header,
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

}  // namespace cuzk::job::detail
