// `cuzk prove` (the main job) and `cuzk verify`.
#include "job/prove.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "io/atomic_file.hpp"
#include "io/c1_file.hpp"
#include "io/param_names.hpp"
#include "io/proof_file.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::cli {

namespace {

struct ProveFlags {
  JobFlags job;
  std::string output_dir = ".";
  std::string report;
  bool no_verify = false;
  bool check = false;
  bool dump_inputs = false;
  bool pce_readonly = false;
  bool keep_going = false;
  std::string pce_cache_dir;
};

void write_report(const std::string& path, const job::RunReport& report) {
  bool yaml = path.ends_with(".yaml") || path.ends_with(".yml");
  std::string text = yaml ? job::to_yaml(report) : job::to_json(report);
  io::write_file_atomic(path, {reinterpret_cast<const std::uint8_t*>(text.data()), text.size()});
}

void run_prove(const ProveFlags& f) {
  // Output paths first: a report that cannot be written is found before hours of proving, not after.
  if (!f.report.empty()) io::check_output_file(f.report);
  job::ProveOptions options;
  apply_job_flags(f.job, options);
  options.output_dir = f.output_dir;
  options.verify = !f.no_verify;
  options.check_circuit = f.check;
  options.dump_public_inputs = f.dump_inputs;
  options.pce_readonly = f.pce_readonly;
  options.pce_cache_dir = f.pce_cache_dir;
  options.keep_going = f.keep_going;
  options.progress = [](const std::string& m) { spdlog::info("{}", m); };
  if (f.no_verify) spdlog::warn("--no-verify: proofs are written without being verified first");
  job::RunReport report = job::prove_c1_files(f.job.c1_files, options);
  for (const auto& s : report.sectors) {
    std::printf("%s %s\n", s.sector.c_str(), s.proof_hex.c_str());
    spdlog::info("{}: {} partition(s) of {} proven in {:.2f} s{} -> {}", s.c1_path, s.partitions,
                 s.proof_type, s.total.wall_s, s.verified ? ", verified" : "", s.proof_path);
    for (const auto& [phase, t] : s.phases)
      spdlog::info("  {:<14} wall {:8.3f} s  cpu {:8.3f} s", phase, t.wall_s, t.cpu_s);
  }
  for (const auto& [phase, t] : report.shared_phases)
    spdlog::info("shared {:<14} wall {:8.3f} s  cpu {:8.3f} s", phase, t.wall_s, t.cpu_s);
  auto mib = [](std::uint64_t bytes) { return static_cast<double>(bytes) / (1 << 20); };
  spdlog::info("peak RSS {:.1f} MiB (anonymous {:.1f} MiB, file-backed {:.1f} MiB), peak device {:.1f} MiB, total {:.2f} s",
               mib(report.peak_rss_bytes), mib(report.peak_anon_bytes), mib(report.peak_file_bytes),
               mib(report.peak_device_bytes), report.total.wall_s);
  // Each failed sector (--keep-going): its error logged and its exit code, for the report and the run's.
  for (auto& failure : report.failures) {
    try {
      std::rethrow_exception(failure.error);
    } catch (...) {
      failure.exit_code = report_exception();
    }
  }
  if (!f.report.empty()) write_report(f.report, report);
  if (!report.failures.empty()) {
    spdlog::error("{} of {} sector(s) failed; {} proven", report.failures.size(), f.job.c1_files.size(),
                  report.sectors.size());
    for (const auto& failure : report.failures)
      spdlog::error("  {} ({}): exit {}", failure.c1_path, failure.stage, failure.exit_code);
    throw CLI::RuntimeError(report.failures.front().exit_code);
  }
}

struct VerifyFlags {
  std::string proof_file;
  std::string c1_file;
  std::string params_dir;
  std::string proof_type, comm_r, comm_d, ticket, seed, replica_id;
  std::uint64_t sector_id = 0;
  std::uint64_t miner_id = 1000;
};

porep::Domain parse_domain(const std::string& flag, const std::string& hex) {
  auto bytes = algebra::hex_to_bytes(hex);
  if (!bytes || bytes->size() != 32)
    throw CLI::ValidationError(flag, "expected 32 bytes of hex, got \"" + hex + "\"");
  porep::Domain d;
  std::copy(bytes->begin(), bytes->end(), d.begin());
  return d;
}

int run_verify(const VerifyFlags& f) {
  const porep::RegisteredSealProof* proof = nullptr;
  porep::Domain replica{}, comm_d{}, comm_r{}, seed{};
  if (!f.c1_file.empty()) {
    porep::C1Output c1 = io::read_c1_file(f.c1_file);
    proof = c1.registered_proof;
    replica = c1.replica_id;
    comm_d = c1.comm_d;
    comm_r = c1.comm_r;
    seed = c1.seed;
  } else {
    for (const auto& [name, value] : {std::pair{"--proof-type", f.proof_type},
                                      {"--comm-r", f.comm_r},
                                      {"--comm-d", f.comm_d},
                                      {"--seed", f.seed}})
      if (value.empty()) throw CLI::ValidationError(name, "required without --c1");
    proof = porep::find_registered_seal_proof(f.proof_type);
    if (!proof) throw CLI::ValidationError("--proof-type", "unknown registered seal proof " + f.proof_type);
    comm_d = parse_domain("--comm-d", f.comm_d);
    comm_r = parse_domain("--comm-r", f.comm_r);
    seed = parse_domain("--seed", f.seed);
    if (!f.replica_id.empty()) {
      replica = parse_domain("--replica-id", f.replica_id);
    } else {
      if (f.ticket.empty()) throw CLI::ValidationError("--ticket", "required without --c1 or --replica-id");
      replica = porep::replica_id(porep::prover_id_from_miner_id(f.miner_id), f.sector_id,
                                  parse_domain("--ticket", f.ticket), comm_d, proof->porep_id());
    }
  }
  std::vector<groth16::Proof> proofs = io::read_proof_file(f.proof_file);
  job::ParameterStore store(f.params_dir.empty() ? io::parameter_cache_dir().string() : f.params_dir);
  const groth16::VerifyingKey& vk = store.vk_for(*proof->shape);
  if (proofs.size() != proof->partitions()) {
    spdlog::error("{}: {} partition proof(s), {} has {}", f.proof_file, proofs.size(), proof->name,
                  proof->partitions());
    return kVerificationFailed;
  }
  bool ok = job::verify_sector_proofs(vk, *proof, replica, comm_d, comm_r, seed, proofs);
  std::printf("%s\n", ok ? "proof valid" : "proof INVALID");
  return ok ? kOk : kVerificationFailed;
}

}  // namespace

void register_prove_commands(CLI::App& app) {
  auto pf = std::make_shared<ProveFlags>();
  CLI::App* prove = app.add_subcommand("prove", "Prove C1 output files: write <sector>.proof per sector");
  CLI::Option* no_pce = add_job_flags(prove, pf->job);
  prove->add_option("-o,--output-dir", pf->output_dir, "where <sector>.proof files are written")
      ->check(CLI::Validator(
          [](std::string& dir) {
            return dir.empty() ? std::string("the output directory is an empty path") : "";
          },
          "DIR"))
      ->capture_default_str();
  prove->add_option("--report", pf->report, "write the timing report here (.json, or .yaml/.yml)");
  prove->add_flag("--no-verify", pf->no_verify, "skip verifying each proof before writing it");
  prove->add_flag("--check", pf->check, "check every constraint first and name the first unsatisfied one");
  prove->add_flag("--dump-public-inputs", pf->dump_inputs,
                  "also write <sector>.inputs.json (verifier-side public inputs, for independent verifiers)");
  prove
      ->add_option("--pce-cache-dir", pf->pce_cache_dir,
                   "constraint cache directory (default: $CUZK_PCE_CACHE, else <params dir>/pce)")
      ->excludes(no_pce);
  prove
      ->add_flag("--pce-readonly", pf->pce_readonly,
                 "never build or rebuild a constraint cache (exit 9 instead)")
      ->excludes(no_pce);
  prove->add_flag("--keep-going", pf->keep_going,
                  "prove every sector that can be proven; report the failed ones and exit with the first "
                  "failure's code");
  prove->callback([pf] { run_prove(*pf); });

  auto vf = std::make_shared<VerifyFlags>();
  CLI::App* verify = app.add_subcommand(
      "verify",
      "Verify a proof file against the verifying key and public inputs rebuilt from C1 or from values");
  // No CLI::ExistingFile: a missing proof or C1 file is an input error (exit 3), as the README says.
  verify->add_option("proof", vf->proof_file, "proof file (192 bytes per partition)")->required();
  verify->add_option("--c1", vf->c1_file,
                     "take comm_r, comm_d, replica_id, seed and the proof type from this C1 file");
  verify->add_option("--params-dir", vf->params_dir, "directory of the .vk file");
  verify->add_option("--proof-type", vf->proof_type, "registered seal proof, e.g. StackedDrg32GiBV1_1");
  verify->add_option("--comm-r", vf->comm_r, "comm_r, 32 bytes hex");
  verify->add_option("--comm-d", vf->comm_d, "comm_d, 32 bytes hex");
  verify->add_option("--ticket", vf->ticket, "ticket, 32 bytes hex");
  verify->add_option("--seed", vf->seed, "interactive seed, 32 bytes hex");
  verify->add_option("--replica-id", vf->replica_id,
                     "replica_id, 32 bytes hex (instead of ticket/miner/sector)");
  verify->add_option("--sector-id", vf->sector_id, "sector number")->check(u64_validator());
  verify->add_option("--miner-id", vf->miner_id, "miner actor id")
      ->check(u64_validator())
      ->capture_default_str();
  verify->callback([vf] {
    int code = run_verify(*vf);
    if (code != kOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace cuzk::cli
