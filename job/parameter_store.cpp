// The parameter files of a run (ParameterStore) and the verification of a sector's partition proofs: what
// job/prove.hpp declares beside the job itself.
#include <filesystem>
#include <memory>

#include "job/prove.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/verifier.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/param_names.hpp"
#include "prover/update/param_names.hpp"

namespace cuzk::job {

std::string ParameterStore::params_path(const porep::SectorShape& shape) const {
  return (std::filesystem::path(dir_) / porep::param_file_name(shape, porep::ParamFileKind::kParams))
      .string();
}

std::string ParameterStore::vk_path(const porep::SectorShape& shape) const {
  return (std::filesystem::path(dir_) / porep::param_file_name(shape, porep::ParamFileKind::kVerifyingKey))
      .string();
}

std::string ParameterStore::update_params_path(const porep::SectorShape& shape) const {
  const auto entry = update::find_update_manifest_entry(shape.sector_size, porep::ParamFileKind::kParams);
  return (std::filesystem::path(dir_) / std::string(entry ? entry->file_name : "")).string();
}

std::string ParameterStore::update_vk_path(const porep::SectorShape& shape) const {
  const auto entry =
      update::find_update_manifest_entry(shape.sector_size, porep::ParamFileKind::kVerifyingKey);
  return (std::filesystem::path(dir_) / std::string(entry ? entry->file_name : "")).string();
}

const groth16::ParameterHeader& ParameterStore::header_at(const std::string& path,
                                                          const porep::SectorShape& shape,
                                                          const std::string& what,
                                                          const std::string& setup_flags) {
  std::lock_guard lock(mutex_);
  auto it = headers_.find(path);
  if (it != headers_.end()) return *it->second;
  if (!std::filesystem::exists(path))
    throw JobError(JobError::Kind::kMissingParameters,
                   "no Groth16 parameters for " + what + std::string(shape.label) + " sectors: " + path +
                       " does not exist (fetch the production parameters, or make test parameters with "
                       "`cuzk params setup " +
                       setup_flags + "--sector-size " + std::string(shape.label) + "`)");
  return *(headers_[path] = std::make_unique<groth16::ParameterHeader>(groth16::read_parameter_header(path)));
}

const groth16::VerifyingKey& ParameterStore::vk_at(const std::string& path, const porep::SectorShape& shape,
                                                   const std::string& what) {
  std::lock_guard lock(mutex_);
  auto it = vks_.find(path);
  if (it != vks_.end()) return *it->second;
  if (!std::filesystem::exists(path))
    throw JobError(
        JobError::Kind::kMissingParameters,
        "no verifying key for " + what + std::string(shape.label) + " sectors: " + path + " does not exist");
  return *(vks_[path] = std::make_unique<groth16::VerifyingKey>(groth16::VerifyingKey::read(path)));
}

const groth16::ParameterHeader& ParameterStore::header_for(const porep::SectorShape& shape) {
  return header_at(params_path(shape), shape, "", "");
}

const groth16::VerifyingKey& ParameterStore::vk_for(const porep::SectorShape& shape) {
  return vk_at(vk_path(shape), shape, "");
}

const groth16::ParameterHeader& ParameterStore::update_header_for(const porep::SectorShape& shape) {
  return header_at(update_params_path(shape), shape, "update ", "--circuit update ");
}

const groth16::VerifyingKey& ParameterStore::update_vk_for(const porep::SectorShape& shape) {
  return vk_at(update_vk_path(shape), shape, "update ");
}

bool verify_sector_proofs(const groth16::VerifyingKey& vk, const porep::RegisteredSealProof& proof,
                          const porep::Domain& replica_id, const porep::Domain& comm_d,
                          const porep::Domain& comm_r, const porep::Domain& seed,
                          const std::vector<groth16::Proof>& proofs) {
  if (proofs.size() != proof.partitions()) return false;
  std::vector<std::vector<algebra::Fr>> inputs;
  for (unsigned k = 0; k < proofs.size(); ++k)
    inputs.push_back(porep::generate_public_inputs(proof, replica_id, comm_d, comm_r, seed, k));
  return verify_sector_proofs(vk, proofs, inputs);
}

bool verify_sector_proofs(const groth16::VerifyingKey& vk, const std::vector<groth16::Proof>& proofs,
                          const std::vector<std::vector<algebra::Fr>>& public_inputs) {
  if (proofs.size() != public_inputs.size()) return false;
  groth16::PreparedVerifyingKey pvk = groth16::prepare_verifying_key(vk);
  return groth16::verify_batch(pvk, proofs, public_inputs);
}

}  // namespace cuzk::job
