// The parameter files of a run (ParameterStore) and the verification of a sector's partition proofs: what
// job/prove.hpp declares beside the job itself.
#include <filesystem>
#include <memory>

#include "job/prove.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/verifier.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/param_names.hpp"

namespace cuzk::job {

std::string ParameterStore::params_path(const porep::SectorShape& shape) const {
  return (std::filesystem::path(dir_) / porep::param_file_name(shape, porep::ParamFileKind::kParams))
      .string();
}

std::string ParameterStore::vk_path(const porep::SectorShape& shape) const {
  return (std::filesystem::path(dir_) / porep::param_file_name(shape, porep::ParamFileKind::kVerifyingKey))
      .string();
}

const groth16::ParameterHeader& ParameterStore::header_for(const porep::SectorShape& shape) {
  std::lock_guard lock(mutex_);
  auto it = headers_.find(shape.sector_size);
  if (it != headers_.end()) return *it->second;
  std::string path = params_path(shape);
  if (!std::filesystem::exists(path))
    throw JobError(JobError::Kind::kMissingParameters,
                   "no Groth16 parameters for " + std::string(shape.label) + " sectors: " + path +
                       " does not exist (fetch the production parameters, or make test parameters with "
                       "`cuzk params setup --sector-size " +
                       std::string(shape.label) + "`)");
  return *(headers_[shape.sector_size] =
               std::make_unique<groth16::ParameterHeader>(groth16::read_parameter_header(path)));
}

const groth16::VerifyingKey& ParameterStore::vk_for(const porep::SectorShape& shape) {
  std::lock_guard lock(mutex_);
  auto it = vks_.find(shape.sector_size);
  if (it != vks_.end()) return *it->second;
  std::string path = vk_path(shape);
  if (!std::filesystem::exists(path))
    throw JobError(JobError::Kind::kMissingParameters, "no verifying key for " + std::string(shape.label) +
                                                           " sectors: " + path + " does not exist");
  return *(vks_[shape.sector_size] =
               std::make_unique<groth16::VerifyingKey>(groth16::VerifyingKey::read(path)));
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
