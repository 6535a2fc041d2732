// `cuzk verify`: a proof file against the verifying key and the public inputs, rebuilt from a C1 file or
// from the values given on the command line (PoRep), or from an update input file (SnapDeals).
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/exit_codes.hpp"
#include "io/param_names.hpp"
#include "job/prove.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/proof_file.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/update/input_file.hpp"

namespace cuzk::cli {

namespace {

// Option groups of `cuzk verify --help`: the two ways to give the public inputs.
constexpr const char* kFromC1Group = "Public inputs from a C1 file";
constexpr const char* kFromValuesGroup = "Public inputs from values";
constexpr const char* kFromUpdateGroup = "Public inputs of an update (SnapDeals) proof";

struct VerifyFlags {
  std::string proof_file;
  std::string c1_file;
  std::string update_file;
  std::string params_dir;
  std::string proof_type, comm_r, comm_d, ticket, seed, replica_id;
  std::uint64_t sector_id = 0;
  std::uint64_t miner_id = 1000;
};

// What a 32-byte flag value holds: comm_r, comm_d and replica_id are field elements (their little-endian
// value must be below r, as in a C1 file); a ticket or seed is 32 bytes of any value.
enum class DomainValue { kFieldElement, kBytes };

porep::Domain parse_domain(const std::string& flag, const std::string& hex, DomainValue value) {
  auto bytes = algebra::hex_to_bytes(hex);
  if (!bytes || bytes->size() != 32)
    throw CLI::ValidationError(flag, "expected 32 bytes of hex, got \"" + hex + "\"");
  porep::Domain d;
  std::copy(bytes->begin(), bytes->end(), d.begin());
  algebra::Fr unused;
  if (value == DomainValue::kFieldElement && !algebra::Fr::from_bytes_le(d.data(), unused))
    throw CLI::ValidationError(flag,
                               "not a canonical field element (as little-endian bytes it is >= r): " + hex);
  return d;
}

// An update proof: the .vk of the update circuit of the input's size, the public inputs from the input
// file's commitments (update::sector_public_inputs), as filecoin-proofs verify_empty_sector_update_proof.
int run_verify_update(const VerifyFlags& f) {
  for (const auto& [name, value] : {std::pair{"--proof-type", f.proof_type},
                                    {"--comm-r", f.comm_r},
                                    {"--comm-d", f.comm_d},
                                    {"--seed", f.seed},
                                    {"--ticket", f.ticket},
                                    {"--replica-id", f.replica_id}})
    if (!value.empty()) throw CLI::ValidationError(name, "not with --update (the input file has the inputs)");
  const update::UpdateInput input = update::read_update_input_file(f.update_file);
  const update::UpdateShape& shape = input.registered_proof->shape();
  const std::vector<std::vector<algebra::Fr>> public_inputs =
      update::sector_public_inputs(input, f.update_file);
  std::vector<groth16::Proof> proofs = groth16::read_proof_file(f.proof_file);
  job::ParameterStore store(f.params_dir.empty() ? io::parameter_cache_dir().string() : f.params_dir);
  const groth16::VerifyingKey& vk = store.update_vk_for(*porep::find_sector_shape(shape.sector_bytes()));
  if (proofs.size() != public_inputs.size()) {
    spdlog::error("{}: {} partition proof(s), {} has {}", f.proof_file, proofs.size(),
                  input.registered_proof->name, public_inputs.size());
    return kVerificationFailed;
  }
  const bool ok = job::verify_sector_proofs(vk, proofs, public_inputs);
  std::printf("%s\n", ok ? "proof valid" : "proof INVALID");
  return ok ? kOk : kVerificationFailed;
}

int run_verify(const VerifyFlags& f) {
  if (!f.update_file.empty()) return run_verify_update(f);
  const porep::RegisteredSealProof* proof = nullptr;
  porep::Domain replica{}, comm_d{}, comm_r{}, seed{};
  if (!f.c1_file.empty()) {
    porep::C1Output c1 = porep::read_c1_file(f.c1_file);
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
    comm_d = parse_domain("--comm-d", f.comm_d, DomainValue::kFieldElement);
    comm_r = parse_domain("--comm-r", f.comm_r, DomainValue::kFieldElement);
    seed = parse_domain("--seed", f.seed, DomainValue::kBytes);
    if (!f.replica_id.empty()) {
      replica = parse_domain("--replica-id", f.replica_id, DomainValue::kFieldElement);
    } else {
      if (f.ticket.empty()) throw CLI::ValidationError("--ticket", "required without --c1 or --replica-id");
      replica = porep::replica_id(porep::prover_id_from_miner_id(f.miner_id), f.sector_id,
                                  parse_domain("--ticket", f.ticket, DomainValue::kBytes), comm_d,
                                  proof->porep_id());
    }
  }
  std::vector<groth16::Proof> proofs = groth16::read_proof_file(f.proof_file);
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

void register_verify_command(CLI::App& app) {
  auto vf = std::make_shared<VerifyFlags>();
  CLI::App* verify = app.add_subcommand(
      "verify",
      "Verify a proof file against the verifying key and public inputs rebuilt from C1 or from values, or "
      "an update (SnapDeals) proof against its update input file");
  // No CLI::ExistingFile: a missing proof or C1 file is an input error (exit 3), as the README says.
  verify->add_option("proof", vf->proof_file, "proof file (192 bytes per partition)")->required();
  verify->add_option("--params-dir", vf->params_dir, "directory of the .vk file");
  verify
      ->add_option("--c1", vf->c1_file,
                   "take comm_r, comm_d, replica_id, seed and the proof type from this file")
      ->group(kFromC1Group);
  verify
      ->add_option("--update", vf->update_file,
                   "an update input file (docs/formats.md): verify an update proof against comm_r_old, "
                   "comm_d_new, comm_r_new and its registered proof")
      ->excludes("--c1")
      ->group(kFromUpdateGroup);
  verify->add_option("--proof-type", vf->proof_type, "registered seal proof, e.g. StackedDrg32GiBV1_1")
      ->group(kFromValuesGroup);
  verify->add_option("--comm-r", vf->comm_r, "comm_r, 32 bytes hex")->group(kFromValuesGroup);
  verify->add_option("--comm-d", vf->comm_d, "comm_d, 32 bytes hex")->group(kFromValuesGroup);
  verify->add_option("--seed", vf->seed, "interactive seed, 32 bytes hex")->group(kFromValuesGroup);
  verify->add_option("--ticket", vf->ticket, "ticket, 32 bytes hex")->group(kFromValuesGroup);
  verify->add_option("--sector-id", vf->sector_id, "sector number")
      ->check(u64_validator())
      ->group(kFromValuesGroup);
  verify->add_option("--miner-id", vf->miner_id, "miner actor id")
      ->check(u64_validator())
      ->capture_default_str()
      ->group(kFromValuesGroup);
  verify
      ->add_option("--replica-id", vf->replica_id,
                   "replica_id, 32 bytes hex (instead of ticket/miner/sector)")
      ->group(kFromValuesGroup);
  verify->callback([vf] {
    int code = run_verify(*vf);
    if (code != kOk) throw CLI::RuntimeError(code);
  });
}

}  // namespace cuzk::cli
