// Where Filecoin's Groth16 parameter files live. Their names and digests are the PoRep domain's:
// prover/porep/param_names.hpp.
#pragma once

#include <filesystem>

namespace cuzk::io {

// FIL_PROOFS_PARAMETER_CACHE when set and non-empty, else /var/tmp/filecoin-proof-parameters
// (rfp storage-proofs-core/src/settings.rs).
std::filesystem::path parameter_cache_dir();

}  // namespace cuzk::io
