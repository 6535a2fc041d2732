// prove_update_files: update input files proven on the CPU (job/update_prove.hpp).
#include "job/update_prove.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "io/atomic_file.hpp"
#include "job/engine.hpp"
#include "job/existing_proof.hpp"
#include "job/memory_sampler.hpp"
#include "job/prover_shape.hpp"
#include "job/run_checks.hpp"
#include "job/sector_work.hpp"
#include "job/shard.hpp"
#include "job/stage_resources.hpp"
#include "job/two_stage.hpp"
#include "pce/update_pce.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/proof_file.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/groth16/randomness.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/timing.hpp"
#include "prover/update/input_file.hpp"

namespace cuzk::job {

namespace {

namespace fs = std::filesystem;
using detail::begin_step;

// An update input file that passed the up-front checks.
struct CheckedUpdate {
  std::size_t index = 0;
  std::string path;
  std::string sector;  // the proof file's stem: the sector id
  update::UpdateInput input;
};

const porep::SectorShape& porep_shape_of(const update::UpdateShape& shape) {
  return *porep::find_sector_shape(shape.sector_bytes());
}

// The order update inputs are proven in: one sector size after another, in input order within a size.
void sort_by_size(std::vector<CheckedUpdate>& checked) {
  std::stable_sort(checked.begin(), checked.end(), [](const CheckedUpdate& a, const CheckedUpdate& b) {
    return a.input.registered_proof->shape().sector_bytes() <
           b.input.registered_proof->shape().sector_bytes();
  });
}

// One update sector on its way through the two stages (job/two_stage.hpp). The producer opens it with its
// first partition's synthesis (its timer starts then, its report names it) and hands it over with every
// partition; from then on its report and proofs are the consumer's alone.
struct UpdateSector {
  CheckedUpdate* checked = nullptr;
  unsigned partitions = 0;
  SectorReport report;
  std::vector<groth16::Proof> proofs;
  unsigned proven = 0;
  PhaseTimer timer;
  std::atomic<bool> failed{false};  // keep_going: a partition failed; the stages pass the rest by
};

// A synthesized partition, ready to prove.
struct UpdateWork {
  std::shared_ptr<UpdateSector> sector;
  std::shared_ptr<const pce::LoadResult> pce;  // the circuit it was synthesized over
  unsigned partition = 0;
  groth16::ProverInput input;  // the witness only when the engine holds the constraints
  PhaseMap<PhaseTime> phases;  // of its synthesis, merged into the sector's by the consumer
};

class UpdateRun {
 public:
  // `reserved` holds the proof stems other inputs of the run write (a mixed run's C1 files): an update input
  // of the same sector is refused in its checks, before anything is proven.
  UpdateRun(const ProveOptions& options, std::set<std::string> reserved)
      : options_(options), store_(options.params_dir), names_(std::move(reserved)) {}

  // Every input parsed, its output paths and its size's parameter files checked, before any synthesis.
  // `indices[i]` is paths[i]'s position among the run's inputs (failure records carry it). With
  // `dry_run_notes` (`cuzk prove --dry-run`) nothing is made, renamed or required of a GPU: an output folder
  // yet to be made passes, missing parameter files and proof files that would be set aside are noted there.
  std::vector<CheckedUpdate> check(const std::vector<std::string>& paths,
                                   const std::vector<std::size_t>& indices,
                                   std::vector<std::string>* dry_run_notes = nullptr) {
    report_.engine_config = options_.engine;
    report_.engine = options_.engine.name();
    // --gpu without a usable GPU is refused before any work, never proven on the CPU instead.
    devices_ = dry_run_notes ? detail::dry_run_devices(options_) : require_devices(options_.engine);
    // As for C1 files (job/prove.cpp): the engine plans against --gpu-memory less CUDA's own memory.
    if (options_.engine.gpu() && options_.engine.memory_limit) engine_memory_limit_ = devices_.budget;
    std::vector<CheckedUpdate> checked;
    const fs::path out(options_.output_dir);
    const bool out_exists = fs::is_directory(out);
    for (std::size_t i = 0; i < paths.size(); ++i) {
      std::string sector;
      try {
        begin_step(options_, "checking " + paths[i]);
        update::UpdateInput input = update::read_update_input_file(paths[i]);
        sector = std::to_string(input.sector_id);
        if (!names_.insert(sector).second)
          throw JobError(JobError::Kind::kOutputExists, paths[i] + ": sector " + sector +
                                                            " is proven by another input of this run too (" +
                                                            (out / (sector + ".proof")).string() + ")");
        if (out_exists || !dry_run_notes) {
          io::check_output_file(out / (sector + ".proof"));
          if (options_.dump_public_inputs) io::check_output_file(out / (sector + ".inputs.json"));
        }
        const porep::SectorShape& shape = porep_shape_of(input.registered_proof->shape());
        // A dry run without the parameters cannot check an existing proof: the sector stays to prove.
        if (check_parameters(shape, dry_run_notes) && options_.skip_existing &&
            take_existing_proof(indices[i], paths[i], sector, input, dry_run_notes))
          continue;
        checked.push_back({indices[i], paths[i], sector, std::move(input)});
      } catch (...) {
        record_failure(indices[i], paths[i], sector, "check");
        if (!options_.keep_going) throw;
      }
    }
    return checked;
  }

  // The memory plan of the checked inputs' update circuits (job/run_memory.hpp), as the C1 files' run makes
  // its own: the size that needs the most, or the first that does not fit. One synthesis at a time (the
  // producer, on all threads) and one engine. `notes` gets where each circuit's figures came from.
  std::optional<RunMemoryPlan> plan_memory(const std::vector<CheckedUpdate>& checked,
                                           std::vector<std::string>& notes) {
    RunMemoryRequest request = detail::memory_request(options_, devices_);
    request.synthesis_workers = 1;
    request.engines = 1;
    request.max_witness_batch = 1;  // prove_with: one partition at a time
    request.device_constraints = options_.engine.constraints_on_engine();  // synthesis always has the PCE
    const fs::path pce_dir = pce::cache_dir(options_.pce_cache_dir, options_.params_dir);
    std::set<std::uint64_t> planned;
    std::optional<RunMemoryPlan> chosen;
    for (const CheckedUpdate& c : checked) {
      const update::UpdateShape& shape = c.input.registered_proof->shape();
      if (!planned.insert(shape.sector_bytes()).second) continue;
      const porep::SectorShape& sector = porep_shape_of(shape);
      const ProverShapeResult found =
          update_prover_shape_for(shape, pce_dir, store_.update_params_path(sector));
      const std::string label = std::string(sector.label) + " update";
      notes.push_back(detail::shape_note(label + " circuit", found));
      detail::keep_neediest(chosen, plan_run_memory(label, found.shape, request));
    }
    return chosen;
  }

  // A real run's plan: logged, kept in the report, and a run that does not fit refused before any synthesis.
  void apply_memory_plan(const std::vector<CheckedUpdate>& checked) {
    std::vector<std::string> notes;
    std::optional<RunMemoryPlan> plan = plan_memory(checked, notes);
    if (!plan) return;
    for (const std::string& note : notes) spdlog::debug("{}", note);
    detail::log_memory_plan(*plan);
    if (!plan->fits()) throw JobError(JobError::Kind::kInsufficientMemory, plan->shortfall());
    report_.memory_plan = std::move(plan);
  }

  // The inputs one sector size after another (in input order within a size), so that one size's engine is
  // released before the next one's is made: a GPU engine holds most of the device. Partitions go through two
  // stages (job/two_stage.hpp): synthesis on the host's threads, then proving on the engine; with
  // options.overlap the next partition is synthesized while the engine proves this one.
  void prove(std::vector<CheckedUpdate>& checked) {
    sort_by_size(checked);
    checked_ = &checked;
    last_write_ = std::chrono::steady_clock::now();
    run_two_stage<UpdateWork>([&] { return next_partition(); },
                              [&](UpdateWork&& work) { prove_partition(std::move(work)); }, options_.overlap);
    for (const auto& [name, t] : producer_phases_) report_.shared_phases[name] += t;
  }

  RunReport take_report() {
    std::stable_sort(
        report_.failures.begin(), report_.failures.end(),
        [](const SectorFailure& a, const SectorFailure& b) { return a.input_index < b.input_index; });
    return std::move(report_);
  }

 private:
  // The update .params of `shape` (its header read) and with verify or skip_existing its .vk. A dry run
  // notes a missing one instead (false: not there; a real run stops with exit 6).
  bool check_parameters(const porep::SectorShape& shape, std::vector<std::string>* dry_run_notes) {
    const bool need_vk = options_.verify || options_.skip_existing;
    if (dry_run_notes) {
      std::vector<std::string> needed{store_.update_params_path(shape)};
      if (need_vk) needed.push_back(store_.update_vk_path(shape));
      std::error_code ec;
      for (const std::string& path : needed) {
        if (fs::exists(path, ec)) continue;
        if (noted_missing_.insert(path).second)
          dry_run_notes->push_back("no update parameters for " + std::string(shape.label) + " sectors: " +
                                   path + " does not exist (a real run stops there with exit 6)");
        return false;
      }
    }
    store_.update_header_for(shape);
    if (need_vk) store_.update_vk_for(shape);
    return true;
  }

  // --skip-existing: the sector's proof file, when there is one, as for C1 files (job/existing_proof.hpp):
  // one that verifies against the input file's commitments makes the sector already proven (its inputs.json
  // written when asked for and missing); one that does not is set aside and the sector proven again.
  bool take_existing_proof(std::size_t index, const std::string& path, const std::string& sector,
                           const update::UpdateInput& input, std::vector<std::string>* dry_run_notes) {
    const fs::path proof_path = fs::path(options_.output_dir) / (sector + ".proof");
    const porep::SectorShape& shape = porep_shape_of(input.registered_proof->shape());
    AlreadyProven identity;
    identity.input_index = index;
    identity.c1_path = path;
    identity.sector = sector;
    identity.proof_type = std::string(input.registered_proof->name);
    identity.partitions = static_cast<unsigned>(input.vanilla_proofs.size());
    std::optional<AlreadyProven> done =
        detail::settle_existing_proof(detail::examine_existing_proof(
                                          proof_path, input.registered_proof->name, identity.partitions,
                                          [&] { return update::sector_public_inputs(input, path); },
                                          "this update input file's", store_.update_vk_for(shape)),
                                      proof_path, std::move(identity), options_, dry_run_notes);
    if (!done) return false;
    detail::progress(options_,
                     "checking " + path + ": " + done->proof_path + " verifies: already proven, skipped");
    if (options_.already_proven) options_.already_proven(*done);
    report_.already_proven.push_back(std::move(*done));
    return true;
  }

  // --- the producer (synthesis) ---------------------------------------------------------------------

  // The next partition in order, sector after sector, or nothing after the last. A sector that fails here
  // is recorded; with keep_going its remaining partitions are passed by and the run goes on.
  std::optional<UpdateWork> next_partition() {
    for (;;) {
      if (open_ && (next_k_ == open_->partitions || open_->failed)) open_.reset();
      if (!open_) {
        if (next_sector_ == checked_->size()) return std::nullopt;
        open_ = std::make_shared<UpdateSector>();
        open_->checked = &(*checked_)[next_sector_++];
        const CheckedUpdate& opened = *open_->checked;
        open_->partitions = static_cast<unsigned>(opened.input.vanilla_proofs.size());
        open_->report.c1_path = opened.path;
        open_->report.sector = opened.sector;
        open_->report.proof_type = opened.input.registered_proof->name;
        open_->report.partitions = open_->partitions;
        next_k_ = 0;
      }
      const CheckedUpdate& c = *open_->checked;
      try {
        return synthesize(open_, next_k_++);
      } catch (...) {
        open_->failed = true;
        record_failure(c.index, c.path, c.sector, "synthesize");
        if (!options_.keep_going) throw;
      }
    }
  }

  // The update PCE of `shape`, loaded or built once per sector size (the previous size's released with its
  // last partition).
  std::shared_ptr<const pce::LoadResult> pce_for(const update::UpdateShape& shape) {
    if (pce_ && pce_size_ == shape.sector_bytes()) return pce_;
    pce_.reset();
    const fs::path dir = pce::cache_dir(options_.pce_cache_dir, options_.params_dir);
    pce_ =
        std::make_shared<const pce::LoadResult>(pce::load_or_build_update(dir, shape, options_.pce_readonly));
    pce_size_ = shape.sector_bytes();
    producer_phases_[pce_->built ? "pce.build" : "pce.load"] += PhaseTime{pce_->seconds, 0};
    spdlog::info("update PCE {} {} in {:.2f} s", pce_->built ? "built:" : "loaded:", pce_->path.string(),
                 pce_->seconds);
    return pce_;
  }

  UpdateWork synthesize(const std::shared_ptr<UpdateSector>& sector, unsigned k) {
    const CheckedUpdate& c = *sector->checked;
    const update::UpdateShape& shape = c.input.registered_proof->shape();
    UpdateWork work{sector, pce_for(shape), k, {}, {}};
    const std::string where = c.path + " partition " + std::to_string(k);
    begin_step(options_, "synthesizing " + where);
    PhaseTimer timer;
    const update::PartitionWitness witness = update::partition_witness(c.input, k, c.path);
    // Once the engine holds the constraints, a, b and c are its to evaluate (and the check a * b = c).
    if (witness_only_size_.load() == shape.sector_bytes()) {
      work.input =
          pce::update_witness_input(work.pce->pce, shape, witness, options_.threads, buffers_.take());
      work.phases["synthesize"] += timer.elapsed();
      return work;
    }
    work.input = pce::update_prover_input(work.pce->pce, shape, witness, options_.threads, buffers_.take());
    work.phases["synthesize"] += timer.elapsed();
    PhaseTimer satisfied_timer;
    if (auto row = groth16::first_unsatisfied(work.input)) throw unsatisfied(where, *row);
    work.phases["satisfied"] += satisfied_timer.elapsed();
    return work;
  }

  static JobError unsatisfied(const std::string& where, std::size_t row) {
    return JobError(JobError::Kind::kUnsatisfiedCircuit,
                    where + ": the witness does not satisfy constraint " + std::to_string(row) +
                        " of the update circuit (bad vanilla proof or commitments)");
  }

  // --- the consumer (proving, verifying, writing) ---------------------------------------------------

  // The engine for `shape`'s update .params, made once per sector size (the previous size's released
  // first); offered the circuit's constraints when the run's config puts them on the engine.
  groth16::ProverEngine& engine_for(const update::UpdateShape& shape, const pce::CompactR1cs& circuit) {
    if (engine_ && engine_size_ == shape.sector_bytes()) return *engine_;
    engine_.reset();
    witness_only_size_ = 0;
    const porep::SectorShape& sector = porep_shape_of(shape);
    header_ = &store_.update_header_for(sector);
    // The GPU engine plans its device memory by the circuit's figures and the vectors' lengths.
    gpu::ProverShape prover = prover_shape(circuit_figures(circuit));
    apply_parameter_header(prover, *header_);
    EngineConfig config = options_.engine;
    if (engine_memory_limit_) config.memory_limit = engine_memory_limit_;
    config.max_witness_batch = 1;  // one partition at a time (prove_with), as the run's plan has it
    PhaseTimer timer;
    engine_ = make_engine(config, {store_.update_params_path(sector), *header_, options_.threads, prover});
    engine_size_ = shape.sector_bytes();
    detail::add_setup_phases(*engine_, timer.elapsed(), options_.engine.name(), report_.shared_phases);
    if (config.constraints_on_engine()) {
      PhaseTimer constraints_timer;
      const bool held = engine_->hold_constraints(circuit.view());
      report_.shared_phases[std::string(config.name()) + ".constraints"] += constraints_timer.elapsed();
      if (held) witness_only_size_ = shape.sector_bytes();
      spdlog::info("update {}: a, b and c are evaluated {}", shape_label(shape),
                   held ? "on the device" : "on the host (the engine declined the constraint matrices)");
    }
    return *engine_;
  }

  static std::string shape_label(const update::UpdateShape& shape) {
    return std::string(porep_shape_of(shape).label);
  }

  void prove_partition(UpdateWork&& work) {
    UpdateSector& s = *work.sector;
    const CheckedUpdate& c = *s.checked;
    const char* stage = "prove";
    if (!s.failed) try {
        for (const auto& [name, t] : work.phases) s.report.phases[name] += t;
        prove_one(work);
        if (++s.proven == s.partitions) finish_sector(s, stage);
      } catch (...) {
        s.failed = true;
        record_failure(c.index, c.path, c.sector, stage);
        // A bad input leaves the engine as it was; anything else may have left it half-way: the next
        // partition gets a fresh one.
        if (std::string_view(stage) == "prove" && !detail::is_unsatisfied(std::current_exception()))
          engine_.reset();
        if (!options_.keep_going) {
          buffers_.give(std::move(work.input));
          throw;
        }
      }
    buffers_.give(std::move(work.input));
  }

  void prove_one(UpdateWork& work) {
    UpdateSector& s = *work.sector;
    const CheckedUpdate& c = *s.checked;
    const update::UpdateShape& shape = c.input.registered_proof->shape();
    const unsigned k = work.partition;
    const std::string where = c.path + " partition " + std::to_string(k);
    groth16::ProverEngine& engine = engine_for(shape, work.pce->pce);
    begin_step(options_, "proving " + where);
    PhaseTimer prove_timer;
    const auto [rr, ss] = detail::partition_randomness(options_);
    groth16::ProveTimings timings;
    try {
      s.proofs.push_back(groth16::prove_with(engine, *header_, work.input, rr, ss, &timings));
    } catch (const groth16::Groth16Error& e) {
      if (e.kind() != groth16::Groth16ErrorKind::kUnsatisfied || !e.constraint()) throw;
      throw unsatisfied(where, *e.constraint());
    }
    s.report.phases["prove"] += prove_timer.elapsed();
    s.report.phases["prove.h"] += timings.h;
    s.report.phases["prove.msm_g1"] += timings.msm_g1;
    s.report.phases["prove.msm_g2"] += timings.msm_g2;
    if (options_.partition_proven) options_.partition_proven(c.path, k, s.partitions);
  }

  void finish_sector(UpdateSector& s, const char*& stage) {
    const CheckedUpdate& c = *s.checked;
    SectorReport& report = s.report;
    const std::vector<std::vector<algebra::Fr>> public_inputs = update::sector_public_inputs(c.input, c.path);
    const porep::SectorShape& porep_shape = porep_shape_of(c.input.registered_proof->shape());
    if (options_.verify) {
      stage = "verify";
      begin_step(options_, "verifying " + c.path);
      PhaseTimer timer;
      report.verified = verify_sector_proofs(store_.update_vk_for(porep_shape), s.proofs, public_inputs);
      report.phases["verify"] = timer.elapsed();
      if (!report.verified)
        throw JobError(JobError::Kind::kSelfVerificationFailed,
                       c.path + ": the update proof does not verify against " +
                           store_.update_vk_path(porep_shape) +
                           "; nothing was written (are the parameters and the verifying key from the same "
                           "setup?)");
    }
    stage = "write";
    PhaseTimer write_timer;
    const fs::path out(options_.output_dir);
    report.proof_path = (out / (c.sector + ".proof")).string();
    groth16::write_proof_file_atomic(report.proof_path, s.proofs);
    report.proof_hex = algebra::bytes_to_hex(groth16::serialize_proofs(s.proofs));
    if (options_.dump_public_inputs) {
      const std::string json = public_inputs_json(public_inputs);
      report.public_inputs_path = (out / (c.sector + ".inputs.json")).string();
      io::write_file_atomic(report.public_inputs_path,
                            {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
    }
    report.phases["write"] = write_timer.elapsed();
    report.total = s.timer.elapsed();
    // Sector to sector, as for C1 files: from the previous sector's write (the run's start at first).
    const auto written = std::chrono::steady_clock::now();
    report.span_s = std::chrono::duration<double>(written - last_write_).count();
    last_write_ = written;
    report_.sectors.push_back(std::move(report));
    if (options_.sector_done) options_.sector_done(report_.sectors.back());
  }

  // Called inside a catch block.
  void record_failure(std::size_t index, const std::string& path, const std::string& sector,
                      const std::string& stage) {
    std::lock_guard lock(failures_mutex_);  // the two stages' threads
    SectorFailure f;
    f.input_index = index;
    f.c1_path = path;
    f.sector = sector;
    f.stage = stage;
    f.error = std::current_exception();
    try {
      throw;
    } catch (const std::exception& e) {
      f.message = e.what();
    } catch (...) {
      f.message = "unknown exception";
    }
    if (options_.keep_going)
      detail::progress(options_, path + ": failed (" + stage + "); --keep-going: on with the next sector");
    if (options_.sector_failed) options_.sector_failed(f);
    if (options_.keep_going) report_.failures.push_back(std::move(f));
  }

  const ProveOptions& options_;
  ParameterStore store_;
  std::set<std::string> names_;  // the proof stems of the run's inputs so far
  RunReport report_;
  std::mutex failures_mutex_;
  EngineDevices devices_;                // the run's (found by check)
  std::size_t engine_memory_limit_ = 0;  // with --gpu-memory: the device budget the engine plans against
  std::set<std::string> noted_missing_;  // a dry run's missing parameter files, noted once each
  std::vector<CheckedUpdate>* checked_ = nullptr;
  detail::BufferPool buffers_;  // proven partitions' vectors, for the next synthesis (their pages mapped)
  // The producer's.
  std::size_t next_sector_ = 0;
  unsigned next_k_ = 0;
  std::shared_ptr<UpdateSector> open_;
  std::shared_ptr<const pce::LoadResult> pce_;
  std::uint64_t pce_size_ = 0;
  PhaseMap<PhaseTime> producer_phases_;
  // The sector size whose engine holds the constraints (0: none): the producer then makes witnesses only.
  std::atomic<std::uint64_t> witness_only_size_{0};
  // The consumer's.
  std::unique_ptr<groth16::ProverEngine> engine_;
  const groth16::ParameterHeader* header_ = nullptr;
  std::uint64_t engine_size_ = 0;
  std::chrono::steady_clock::time_point last_write_;
};

std::map<std::string, unsigned> partitions_by_path(const std::vector<CheckedUpdate>& checked) {
  std::map<std::string, unsigned> partitions;
  for (const CheckedUpdate& c : checked)
    partitions[c.path] = static_cast<unsigned>(c.input.vanilla_proofs.size());
  return partitions;
}

// The peaks of an update run (or of a mixed run: the larger of its C1 part's and its own), as
// prove_c1_files records them; the series too, with `origin` (the run's start) as its zero, unless the C1
// part's series (on its timeline's clock) is there.
void record_memory_peaks(MemorySampler& memory, RunReport& report,
                         std::chrono::steady_clock::time_point origin) {
  const MemoryPeaks peaks = memory.peaks();
  if (report.memory_series.empty()) report.memory_series = memory.series(origin);
  report.peak_rss_bytes = std::max(report.peak_rss_bytes, peak_rss_bytes());
  report.peak_anon_bytes = std::max(report.peak_anon_bytes, peaks.anon_bytes);
  report.peak_file_bytes = std::max(report.peak_file_bytes, peaks.file_bytes);
  report.peak_device_bytes = std::max(report.peak_device_bytes, peaks.device_bytes);
}

std::vector<std::size_t> positions(std::size_t n) {
  std::vector<std::size_t> all(n);
  for (std::size_t i = 0; i < n; ++i) all[i] = i;
  return all;
}

// A run's inputs by kind (is_update_input_file), each with its position among them.
struct InputsByKind {
  std::vector<std::string> c1_paths, update_paths;
  std::vector<std::size_t> c1_positions, update_positions;

  // The proof stems the C1 files write: an update input of the same sector is refused in its checks.
  std::set<std::string> c1_sectors(ProveOptions::ProofNaming naming) const {
    std::set<std::string> sectors;
    for (const ShardKey& key : shard_keys(c1_paths, naming)) sectors.insert(key.sector);
    return sectors;
  }
};

InputsByKind split_by_kind(const std::vector<std::string>& paths) {
  InputsByKind inputs;
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const bool update = is_update_input_file(paths[i]);
    (update ? inputs.update_paths : inputs.c1_paths).push_back(paths[i]);
    (update ? inputs.update_positions : inputs.c1_positions).push_back(i);
  }
  return inputs;
}

// C1 files and update files in one run: the update inputs are checked first, then prove_c1_files checks and
// proves the C1 files (its own up-front checks, the run's engines), then the update inputs are proven on the
// CPU. Every input is checked before the first partition is synthesized; one progress total covers both
// kinds; failure records carry the input's position in `paths`.
RunReport prove_mixed(const InputsByKind& inputs, const ProveOptions& options) {
  PhaseTimer run_timer;
  const auto run_start = std::chrono::steady_clock::now();
  MemorySampler memory(std::chrono::milliseconds(100), device_memory_probe(options.engine));
  const std::vector<std::string>& c1_paths = inputs.c1_paths;
  const std::vector<std::size_t>& c1_positions = inputs.c1_positions;

  ProveOptions update_options = options;
  update_options.inputs_checked = nullptr;  // reported once, with the C1 files' (below)
  io::prepare_output_dir(options.output_dir);
  UpdateRun updates(update_options, inputs.c1_sectors(options.proof_naming));
  std::vector<CheckedUpdate> checked = updates.check(inputs.update_paths, inputs.update_positions);
  updates.apply_memory_plan(checked);

  ProveOptions c1_options = options;
  const std::map<std::string, unsigned> update_partitions = partitions_by_path(checked);
  c1_options.inputs_checked = [&options, &update_partitions](const std::map<std::string, unsigned>& c1) {
    std::map<std::string, unsigned> all = c1;
    all.insert(update_partitions.begin(), update_partitions.end());
    if (options.inputs_checked) options.inputs_checked(all);
  };
  c1_options.sector_failed = [&options, &c1_positions](const SectorFailure& f) {
    SectorFailure at_position = f;
    at_position.input_index = c1_positions.at(f.input_index);
    if (options.sector_failed) options.sector_failed(at_position);
  };
  c1_options.already_proven = [&options, &c1_positions](const AlreadyProven& s) {
    AlreadyProven at_position = s;
    at_position.input_index = c1_positions.at(s.input_index);
    if (options.already_proven) options.already_proven(at_position);
  };
  RunReport run = prove_c1_files(c1_paths, c1_options);
  for (SectorFailure& f : run.failures) f.input_index = c1_positions.at(f.input_index);
  for (AlreadyProven& s : run.already_proven) s.input_index = c1_positions.at(s.input_index);

  updates.prove(checked);
  RunReport update_run = updates.take_report();
  for (SectorReport& s : update_run.sectors) run.sectors.push_back(std::move(s));
  for (SectorFailure& f : update_run.failures) run.failures.push_back(std::move(f));
  for (AlreadyProven& s : update_run.already_proven) run.already_proven.push_back(std::move(s));
  std::stable_sort(
      run.already_proven.begin(), run.already_proven.end(),
      [](const AlreadyProven& a, const AlreadyProven& b) { return a.input_index < b.input_index; });
  std::stable_sort(
      run.failures.begin(), run.failures.end(),
      [](const SectorFailure& a, const SectorFailure& b) { return a.input_index < b.input_index; });
  for (const auto& [phase, time] : update_run.shared_phases) run.shared_phases["update." + phase] += time;
  detail::keep_neediest(run.memory_plan, std::move(update_run.memory_plan));
  run.total = run_timer.elapsed();
  record_memory_peaks(memory, run, run_start);
  return run;
}

}  // namespace

bool is_update_input_file(const std::string& path) {
  // Only a regular file is opened here: opening a FIFO would block the run before the C1 reader could
  // refuse it (exit 3), and a device or a directory is refused there too.
  std::error_code error;
  if (!fs::is_regular_file(fs::status(path, error))) return false;
  std::ifstream in(path, std::ios::binary);
  if (!in) return false;
  std::string head(1 << 20, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  for (const char* key : {"\"comm_r_old\"", "\"comm_r_new\"", "\"comm_d_new\""})
    if (head.find(key) != std::string::npos) return true;
  return false;
}

RunReport prove_update_files(const std::vector<std::string>& paths, const ProveOptions& options) {
  PhaseTimer run_timer;
  const auto run_start = std::chrono::steady_clock::now();
  MemorySampler memory(std::chrono::milliseconds(100), device_memory_probe(options.engine));
  io::prepare_output_dir(options.output_dir);
  if (std::size_t n = io::remove_stale_temporaries(options.output_dir))
    spdlog::info("removed {} stale temporary file(s) of killed runs from {}", n, options.output_dir);
  UpdateRun updates(options, {});
  std::vector<CheckedUpdate> checked = updates.check(paths, positions(paths.size()));
  updates.apply_memory_plan(checked);
  if (options.inputs_checked) options.inputs_checked(partitions_by_path(checked));
  updates.prove(checked);
  RunReport report = updates.take_report();
  report.total = run_timer.elapsed();
  record_memory_peaks(memory, report, run_start);
  return report;
}

RunPlan plan_input_files(const std::vector<std::string>& paths, const ProveOptions& options) {
  const InputsByKind inputs = split_by_kind(paths);
  if (inputs.update_paths.empty()) return plan_c1_files(paths, options);
  // As a real run: the update inputs checked first (refused when a C1 file writes the same proof), then the
  // C1 files; the sectors listed in the order they are proven (the C1 files', then the updates' by size).
  ProveOptions strict = options;
  strict.keep_going = false;  // a dry run stops at the first bad input, as a run without --keep-going would
  io::prepare_output_dir(options.output_dir, /*create=*/false);
  UpdateRun updates(strict, inputs.c1_sectors(options.proof_naming));
  std::vector<std::string> update_notes;
  std::vector<CheckedUpdate> checked =
      updates.check(inputs.update_paths, inputs.update_positions, &update_notes);
  RunPlan plan = inputs.c1_paths.empty() ? RunPlan{} : plan_c1_files(inputs.c1_paths, options);
  plan.notes.insert(plan.notes.end(), update_notes.begin(), update_notes.end());
  RunReport already = updates.take_report();
  for (AlreadyProven& s : already.already_proven) plan.already_proven.push_back(std::move(s));
  sort_by_size(checked);
  for (const CheckedUpdate& c : checked) {
    PlannedSector s;
    s.c1_path = c.path;
    s.sector = c.sector;
    s.proof_type = std::string(c.input.registered_proof->name);
    s.sector_size = std::string(porep_shape_of(c.input.registered_proof->shape()).label);
    s.partitions = static_cast<unsigned>(c.input.vanilla_proofs.size());
    s.proof_path = (fs::path(options.output_dir) / (c.sector + ".proof")).string();
    plan.sectors.push_back(std::move(s));
  }
  detail::keep_neediest(plan.memory, updates.plan_memory(checked, plan.notes));
  return plan;
}

RunReport prove_input_files(const std::vector<std::string>& paths, const ProveOptions& options) {
  const InputsByKind inputs = split_by_kind(paths);
  if (inputs.update_paths.empty()) return prove_c1_files(paths, options);
  if (inputs.c1_paths.empty()) return prove_update_files(paths, options);
  return prove_mixed(inputs, options);
}

}  // namespace cuzk::job
