// prove_update_files: update input files proven on the CPU (job/update_prove.hpp).
#include "job/update_prove.hpp"

#include <spdlog/spdlog.h>

#include <filesystem>
#include <fstream>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "job/run_checks.hpp"
#include "pce/update_pce.hpp"
#include "prover/algebra/hex_bytes.hpp"
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

// What is loaded once per sector size and shared by its sectors.
struct SizeResources {
  std::unique_ptr<pce::LoadResult> pce;
  std::unique_ptr<groth16::Parameters> params;
};

class UpdateRun {
 public:
  explicit UpdateRun(const ProveOptions& options) : options_(options), store_(options.params_dir) {}

  RunReport run(const std::vector<std::string>& paths) {
    PhaseTimer run_timer;
    report_.engine_config = options_.engine;
    report_.engine = options_.engine.name();
    io::prepare_output_dir(options_.output_dir);
    if (std::size_t n = io::remove_stale_temporaries(options_.output_dir))
      spdlog::info("removed {} stale temporary file(s) of killed runs from {}", n, options_.output_dir);
    std::vector<CheckedUpdate> checked = check(paths);
    if (options_.inputs_checked) {
      std::map<std::string, unsigned> partitions;
      for (const CheckedUpdate& c : checked)
        partitions[c.path] = static_cast<unsigned>(c.input.vanilla_proofs.size());
      options_.inputs_checked(partitions);
    }
    for (CheckedUpdate& c : checked) {
      const char* stage = "synthesize";
      try {
        prove_sector(c, stage);
      } catch (...) {
        record_failure(c.index, c.path, c.sector, stage);
        if (!options_.keep_going) throw;
      }
    }
    report_.total = run_timer.elapsed();
    report_.peak_rss_bytes = peak_rss_bytes();
    return std::move(report_);
  }

 private:
  // Every input parsed, its output paths and its size's parameter files checked, before any synthesis.
  std::vector<CheckedUpdate> check(const std::vector<std::string>& paths) {
    std::vector<CheckedUpdate> checked;
    std::set<std::string> names;
    const fs::path out(options_.output_dir);
    for (std::size_t i = 0; i < paths.size(); ++i) {
      std::string sector;
      try {
        begin_step(options_, "checking " + paths[i]);
        update::UpdateInput input = update::read_update_input_file(paths[i]);
        sector = std::to_string(input.sector_id);
        if (!names.insert(sector).second)
          throw JobError(JobError::Kind::kOutputExists, paths[i] + ": sector " + sector +
                                                            " is proven by another input of this run too (" +
                                                            (out / (sector + ".proof")).string() + ")");
        io::check_output_file(out / (sector + ".proof"));
        if (options_.dump_public_inputs) io::check_output_file(out / (sector + ".inputs.json"));
        const porep::SectorShape& shape = porep_shape_of(input.registered_proof->shape());
        store_.update_header_for(shape);
        if (options_.verify) store_.update_vk_for(shape);
        checked.push_back({i, paths[i], sector, std::move(input)});
      } catch (...) {
        record_failure(i, paths[i], sector, "check");
        if (!options_.keep_going) throw;
      }
    }
    return checked;
  }

  SizeResources& resources_for(const update::UpdateShape& shape) {
    SizeResources& r = sizes_[shape.sector_bytes()];
    if (!r.pce) {
      const fs::path dir = pce::cache_dir(options_.pce_cache_dir, options_.params_dir);
      r.pce = std::make_unique<pce::LoadResult>(pce::load_or_build_update(dir, shape, options_.pce_readonly));
      report_.shared_phases[r.pce->built ? "pce.build" : "pce.load"] += PhaseTime{r.pce->seconds, 0};
      spdlog::info("update PCE {} {} in {:.2f} s", r.pce->built ? "built:" : "loaded:", r.pce->path.string(),
                   r.pce->seconds);
    }
    if (!r.params) {
      PhaseTimer timer;
      r.params = std::make_unique<groth16::Parameters>(
          groth16::Parameters::read(store_.update_params_path(porep_shape_of(shape)),
                                    algebra::PointCheck::kUnchecked, options_.threads));
      report_.shared_phases["params.load"] += timer.elapsed();
    }
    return r;
  }

  void prove_sector(CheckedUpdate& c, const char*& stage) {
    const update::UpdateShape& shape = c.input.registered_proof->shape();
    PhaseTimer sector_timer;
    SectorReport report;
    report.c1_path = c.path;
    report.sector = c.sector;
    report.proof_type = c.input.registered_proof->name;
    const unsigned partitions = static_cast<unsigned>(c.input.vanilla_proofs.size());
    report.partitions = partitions;
    SizeResources& r = resources_for(shape);
    std::vector<groth16::Proof> proofs;
    for (unsigned k = 0; k < partitions; ++k) {
      const std::string where = c.path + " partition " + std::to_string(k);
      stage = "synthesize";
      begin_step(options_, "synthesizing " + where);
      PhaseTimer timer;
      groth16::ProverInput in = pce::update_prover_input(
          r.pce->pce, shape, update::partition_witness(c.input, k, c.path), options_.threads);
      report.phases["synthesize"] += timer.elapsed();
      PhaseTimer satisfied_timer;
      if (auto row = groth16::first_unsatisfied(in))
        throw JobError(JobError::Kind::kUnsatisfiedCircuit,
                       where + ": the witness does not satisfy constraint " + std::to_string(*row) +
                           " of the update circuit (bad vanilla proof or commitments)");
      report.phases["satisfied"] += satisfied_timer.elapsed();
      stage = "prove";
      begin_step(options_, "proving " + where);
      PhaseTimer prove_timer;
      algebra::Fr rr, ss;
      if (options_.fixed_randomness) {
        rr = options_.fixed_randomness->first;
        ss = options_.fixed_randomness->second;
      } else {
        rr = groth16::random_fr();
        ss = groth16::random_fr();
      }
      proofs.push_back(groth16::prove(*r.params, std::move(in), rr, ss, options_.threads));
      report.phases["prove"] += prove_timer.elapsed();
      if (options_.partition_proven) options_.partition_proven(c.path, k, partitions);
    }
    const std::vector<std::vector<algebra::Fr>> public_inputs = update::sector_public_inputs(c.input, c.path);
    const porep::SectorShape& porep_shape = porep_shape_of(shape);
    if (options_.verify) {
      stage = "verify";
      begin_step(options_, "verifying " + c.path);
      PhaseTimer timer;
      report.verified = verify_sector_proofs(store_.update_vk_for(porep_shape), proofs, public_inputs);
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
    groth16::write_proof_file_atomic(report.proof_path, proofs);
    report.proof_hex = algebra::bytes_to_hex(groth16::serialize_proofs(proofs));
    if (options_.dump_public_inputs) {
      const std::string json = public_inputs_json(public_inputs);
      report.public_inputs_path = (out / (c.sector + ".inputs.json")).string();
      io::write_file_atomic(report.public_inputs_path,
                            {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
    }
    report.phases["write"] = write_timer.elapsed();
    report.total = sector_timer.elapsed();
    report.span_s = report.total.wall_s;
    report_.sectors.push_back(std::move(report));
    if (options_.sector_done) options_.sector_done(report_.sectors.back());
  }

  // Called inside a catch block.
  void record_failure(std::size_t index, const std::string& path, const std::string& sector,
                      const std::string& stage) {
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
  std::map<std::uint64_t, SizeResources> sizes_;
  RunReport report_;
};

}  // namespace

bool is_update_input_file(const std::string& path) {
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
  return UpdateRun(options).run(paths);
}

}  // namespace cuzk::job
