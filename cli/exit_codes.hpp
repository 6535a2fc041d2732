// Process exit codes of the cuzk binary. Every layer throws its own exception type; only cli/ maps
// them to these numbers (documented in docs/exit-codes.md, which tests/test_exit_codes.cpp checks against
// them).
#pragma once

namespace cuzk::cli {

enum ExitCode : int {
  kOk = 0,
  kInternalError = 1,  // a bug or an unexpected exception
  kUsageError = 2,     // bad flags or arguments (CLI11 parse errors)
  kInputError = 3,     // an input that is not a parameter file or a proof: missing, unreadable, malformed
  kEncodingError = 4,  // a proof file is not a valid encoding of proofs (its size or a point)
  kVerificationFailed = 5,  // a proof does not verify
  kParameterError = 6,      // any fault of a .params or .vk file, or a .vk not of its .params
  kCircuitError = 7,        // the witness does not satisfy the circuit (bad C1 data)
  kGpuError = 8,            // CUDA reported an error (never silently replaced by the CPU path)
  kCacheError = 9,          // a PCE cache is corrupt and may not be rebuilt (--pce-readonly)
  kRegression = 10,         // `cuzk compare`: a phase is slower than the threshold allows
  // `cuzk prove` stopped by a signal at a safe point (cli/signals.hpp): 128 + the signal, as a shell reports
  // it
  kInterrupted = 130,  // SIGINT
  kTerminated = 143,   // SIGTERM
};

// A short stable name per code, for machine-readable results (`cuzk prove --json`, docs/json-results.md).
constexpr const char* exit_code_kind(int code) {
  switch (code) {
    case kOk:
      return "ok";
    case kInternalError:
      return "internal";
    case kUsageError:
      return "usage";
    case kInputError:
      return "input";
    case kEncodingError:
      return "encoding";
    case kVerificationFailed:
      return "verification";
    case kParameterError:
      return "parameters";
    case kCircuitError:
      return "circuit";
    case kGpuError:
      return "gpu";
    case kCacheError:
      return "cache";
    case kRegression:
      return "regression";
    case kInterrupted:
    case kTerminated:
      return "interrupted";
  }
  return "internal";
}

}  // namespace cuzk::cli
