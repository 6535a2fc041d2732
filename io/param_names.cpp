#include "io/param_names.hpp"

#include <cstdlib>

namespace cuzk::io {

std::filesystem::path parameter_cache_dir() {
  // rfp storage-proofs-core/src/settings.rs: setting parameter_cache, env prefix FIL_PROOFS.
  const char* env = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  if (env != nullptr && *env != '\0') return env;
  return "/var/tmp/filecoin-proof-parameters";
}

}  // namespace cuzk::io
