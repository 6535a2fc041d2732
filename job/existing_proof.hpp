// `cuzk prove --skip-existing` (ProveOptions::skip_existing): a sector's proof file found in the output
// folder before any work is checked as a new proof is before it is written, against the verifying key and
// the public inputs the verifier derives from the C1 file. One that verifies is the sector's proof; one that
// does not is renamed aside (kept for a person to look at, never overwritten or deleted).
#pragma once

#include <filesystem>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "job/prove.hpp"
#include "job/run_report.hpp"
#include "prover/algebra/bls12_381.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/porep/vanilla_proof.hpp"

namespace cuzk::job::detail {

struct ExistingProof {
  enum class Verdict {
    kAbsent,    // no file: the sector is proven
    kVerified,  // the sector's proof: not proven again
    kRejected,  // a file that is not the sector's valid proof: set aside, and the sector proven again
  };
  Verdict verdict = Verdict::kAbsent;
  std::string why_rejected;  // "holds 2 partition proofs where the sector has 1", "does not verify", ...
  std::string proof_hex;     // kVerified: the file's bytes
  std::vector<std::vector<algebra::Fr>> public_inputs;  // kVerified: per partition (--dump-public-inputs)
};

// Reads and verifies `proof_path` (a regular file, or none: io::check_output_file has refused the others).
ExistingProof examine_existing_proof(const std::filesystem::path& proof_path, const porep::C1Output& c1,
                                     const groth16::VerifyingKey& vk);

// The same for any circuit: `partitions` proofs of a `proof_name` sector, each verified against its
// partition's entry of `public_inputs()` (called only once the file decodes); `source` names where those
// come from in the reason a file is rejected ("this C1 file's", "this update input file's").
ExistingProof examine_existing_proof(
    const std::filesystem::path& proof_path, std::string_view proof_name, unsigned partitions,
    const std::function<std::vector<std::vector<algebra::Fr>>()>& public_inputs, std::string_view source,
    const groth16::VerifyingKey& vk);

// What --skip-existing makes of an examined proof file, for either circuit. kRejected: set aside as
// `<proof>.rejected-<time>` (in a dry run, with `dry_run_notes`, only noted); kAbsent: nothing; kVerified:
// `done` (its input's fields filled by the caller) completed with the file and its bytes, and with
// --dump-public-inputs its inputs.json written when missing (a run killed between the two; not in a dry run).
std::optional<AlreadyProven> settle_existing_proof(const ExistingProof& existing,
                                                   const std::filesystem::path& proof_path,
                                                   AlreadyProven done, const ProveOptions& options,
                                                   std::vector<std::string>* dry_run_notes);

// The suffix a rejected proof file is renamed with: ".rejected-<UTC time, 20240131T235959Z>".
std::string rejected_suffix();

}  // namespace cuzk::job::detail
