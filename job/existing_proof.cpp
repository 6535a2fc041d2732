#include "job/existing_proof.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <ctime>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "job/prove.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/proof_file.hpp"
#include "prover/porep/challenges.hpp"

namespace cuzk::job::detail {

ExistingProof examine_existing_proof(
    const std::filesystem::path& proof_path, std::string_view proof_name, unsigned partitions,
    const std::function<std::vector<std::vector<algebra::Fr>>()>& public_inputs, std::string_view source,
    const groth16::VerifyingKey& vk) {
  ExistingProof found;
  std::error_code ec;
  if (!std::filesystem::exists(proof_path, ec)) return found;
  found.verdict = ExistingProof::Verdict::kRejected;
  std::vector<std::uint8_t> bytes;
  std::vector<groth16::Proof> proofs;
  // A file that cannot be read or decoded is no proof of the sector either: it is set aside like one that
  // does not verify (renaming it needs only the folder's permission), and the sector proven again.
  try {
    bytes = groth16::read_proof_file_bytes(proof_path);
    proofs = groth16::parse_proofs(bytes, proof_path.string());
  } catch (const io::IoError& e) {
    found.why_rejected = e.what();
    return found;
  } catch (const algebra::EncodingError& e) {
    found.why_rejected = e.what();
    return found;
  } catch (const groth16::Groth16Error& e) {
    found.why_rejected = e.what();
    return found;
  }
  if (proofs.size() != partitions) {
    found.why_rejected = fmt::format("it holds {} partition proof(s) where a {} sector has {}", proofs.size(),
                                     proof_name, partitions);
    return found;
  }
  found.public_inputs = public_inputs();
  if (!verify_sector_proofs(vk, proofs, found.public_inputs)) {
    found.public_inputs.clear();
    found.why_rejected = fmt::format(
        "it does not verify against {} public inputs (another sector's proof, or altered)", source);
    return found;
  }
  found.verdict = ExistingProof::Verdict::kVerified;
  found.proof_hex = algebra::bytes_to_hex(bytes);
  return found;
}

ExistingProof examine_existing_proof(const std::filesystem::path& proof_path, const porep::C1Output& c1,
                                     const groth16::VerifyingKey& vk) {
  const porep::RegisteredSealProof& proof = *c1.registered_proof;
  return examine_existing_proof(
      proof_path, proof.name, proof.partitions(),
      [&] {
        std::vector<std::vector<algebra::Fr>> inputs;
        for (unsigned k = 0; k < proof.partitions(); ++k)
          inputs.push_back(
              porep::generate_public_inputs(proof, c1.replica_id, c1.comm_d, c1.comm_r, c1.seed, k));
        return inputs;
      },
      "this C1 file's", vk);
}

std::optional<AlreadyProven> settle_existing_proof(const ExistingProof& existing,
                                                   const std::filesystem::path& proof_path,
                                                   AlreadyProven done, const ProveOptions& options,
                                                   std::vector<std::string>* dry_run_notes) {
  if (existing.verdict == ExistingProof::Verdict::kRejected) {
    if (dry_run_notes) {
      dry_run_notes->push_back(fmt::format(
          "{} is not sector {}'s proof: {}; a run sets it aside ({}...) and proves the sector again",
          proof_path.string(), done.sector, existing.why_rejected, proof_path.string() + ".rejected-"));
    } else {
      const std::filesystem::path aside = io::move_aside(proof_path, rejected_suffix());
      spdlog::warn("{}: {} is not this sector's proof: {}; set aside as {}, and the sector is proven again",
                   done.c1_path, proof_path.string(), existing.why_rejected, aside.string());
    }
    return std::nullopt;
  }
  if (existing.verdict != ExistingProof::Verdict::kVerified) return std::nullopt;
  done.proof_path = proof_path.string();
  done.proof_hex = existing.proof_hex;
  if (options.dump_public_inputs) {
    const std::filesystem::path inputs_path = proof_path.parent_path() / (done.sector + ".inputs.json");
    done.public_inputs_path = inputs_path.string();
    std::error_code ec;
    if (!dry_run_notes && !std::filesystem::exists(inputs_path, ec)) {
      const std::string json = public_inputs_json(existing.public_inputs);
      io::write_file_atomic(inputs_path, {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
    }
  }
  return done;
}

std::string rejected_suffix() {
  const std::time_t now = std::time(nullptr);
  std::tm utc{};
  gmtime_r(&now, &utc);
  char stamp[32];
  std::strftime(stamp, sizeof stamp, "%Y%m%dT%H%M%SZ", &utc);
  return std::string(".rejected-") + stamp;
}

}  // namespace cuzk::job::detail
