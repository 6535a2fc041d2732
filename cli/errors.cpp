// The one place where library exceptions become messages and exit codes.
#include "cli/errors.hpp"

#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <exception>
#include <utility>

#include "cli/exit_codes.hpp"
#include "cli/signals.hpp"
#include "gpu/errors.hpp"
#include "io/io_error.hpp"
#include "job/prove.hpp"
#include "pce/errors.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/porep/errors.hpp"
#include "prover/update/errors.hpp"

namespace cuzk::cli {

namespace {

// An exit code and the kind that names it in machine-readable results.
struct Classified {
  int exit_code;
  const char* kind;
  // Implicit: most errors are named by their exit code alone.
  // NOLINTNEXTLINE(google-explicit-constructor)
  Classified(int code) : exit_code(code), kind(exit_code_kind(code)) {}
  Classified(int code, const char* finer_kind) : exit_code(code), kind(finer_kind) {}
};

constexpr const char* kNoDeviceKind = "no-device";

Classified log_exception() {
  try {
    throw;
  } catch (const io::IoError& e) {
    spdlog::error("{}", e.what());
    return kInputError;
  } catch (const algebra::EncodingError& e) {
    spdlog::error("invalid encoding: {}", e.what());
    return kEncodingError;
  } catch (const job::JobError& e) {
    spdlog::error("{}", e.what());
    switch (e.kind()) {
      case job::JobError::Kind::kSelfVerificationFailed:
        return kVerificationFailed;
      case job::JobError::Kind::kUnsatisfiedCircuit:
        return kCircuitError;
      case job::JobError::Kind::kMissingParameters:
        return kParameterError;
      case job::JobError::Kind::kOutputExists:
      case job::JobError::Kind::kNoDeviceBudget:  // give --gpu-memory
        return kUsageError;
      case job::JobError::Kind::kNoGpu:  // none visible, or no CUDA in this build: retrying does not help
        return {kGpuError, kNoDeviceKind};
      case job::JobError::Kind::kInsufficientMemory:  // the machine's resources, like a missing GPU
        return kGpuError;
      case job::JobError::Kind::kInterrupted:
        return interrupted_exit_code();
    }
    return kInternalError;
  } catch (const pce::PceError& e) {
    spdlog::error("PCE cache: {}", e.what());
    switch (e.kind()) {
      case pce::PceErrorKind::kIo:
        return kInputError;  // a file that cannot be read or written, like any other
      case pce::PceErrorKind::kWitness:
        return kCircuitError;  // the witness does not fit the constraint system
      case pce::PceErrorKind::kLimits:
        return kInternalError;  // a limit of cuzk's compact form, not a fault of the input
      case pce::PceErrorKind::kMissing:
      case pce::PceErrorKind::kNotACache:
      case pce::PceErrorKind::kVersion:
      case pce::PceErrorKind::kOtherCircuit:
      case pce::PceErrorKind::kTruncated:
      case pce::PceErrorKind::kCorrupt:
      case pce::PceErrorKind::kReadonly:
        return kCacheError;
    }
    return kInternalError;
  } catch (const porep::PorepError& e) {
    spdlog::error("invalid C1 data: {}", e.what());
    return kInputError;
  } catch (const update::UpdateError& e) {
    spdlog::error("invalid update data: {}", e.what());
    return kInputError;
  } catch (const groth16::Groth16Error& e) {
    spdlog::error("{}", e.what());
    switch (e.kind()) {
      case groth16::Groth16ErrorKind::kParameters:
        return kParameterError;
      case groth16::Groth16ErrorKind::kMalformedInput:
        return kInputError;
      case groth16::Groth16ErrorKind::kDomainTooLarge:
      case groth16::Groth16ErrorKind::kUnconstrainedVariable:
      case groth16::Groth16ErrorKind::kUnsatisfied:  // the job names the partition: JobError; here a bare one
        return kCircuitError;
    }
    return kInternalError;
  } catch (const CLI::ParseError& e) {
    // A flag refused after parsing, when the job is set up (--gpu-memory without --gpu, say).
    spdlog::error("{}", e.what());
    return kUsageError;
  } catch (const gpu::GpuError& e) {
    if (e.no_usable_device()) {
      spdlog::error("no usable GPU: {}", e.what());
      return {kGpuError, kNoDeviceKind};
    }
    spdlog::error("GPU error: {}", e.what());
    return kGpuError;
  } catch (const std::exception& e) {
    spdlog::critical("internal error: {}", e.what());
    return kInternalError;
  } catch (...) {
    spdlog::critical("internal error: unknown exception");
    return kInternalError;
  }
}

}  // namespace

ReportedError report_current_exception() {
  ReportedError reported;
  try {
    throw;
  } catch (const std::exception& e) {
    reported.message = e.what();
  } catch (...) {
    reported.message = "unknown exception";
  }
  const Classified classified = log_exception();
  reported.exit_code = classified.exit_code;
  reported.kind = classified.kind;
  return reported;
}

int report_exception(std::string* message) {
  ReportedError reported = report_current_exception();
  if (message) *message = std::move(reported.message);
  return reported.exit_code;
}

}  // namespace cuzk::cli
