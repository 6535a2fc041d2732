// The pce layer's one exception type. Every message names the file (where there is one) and what is
// wrong with it; cli/errors.cpp maps each kind to its exit code (docs/exit-codes.md).
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::pce {

enum class PceErrorKind {
  kMissing,       // no cache file (only an error when building is not allowed)
  kNotACache,     // wrong magic: not a PCE cache file at all
  kVersion,       // a cache of another format version
  kOtherCircuit,  // a valid cache, but built for another circuit (circuit id differs)
  kTruncated,     // the file is shorter (or longer) than its header says
  kCorrupt,       // a checksum, a size or a structural check failed
  kReadonly,      // the cache is unusable and --pce-readonly forbids rebuilding it
  kIo,            // the file system refused a read or write
  kLimits,        // the circuit exceeds what the compact form can hold (2^32 entries, 32768 coefficients)
  kWitness,       // a witness whose size does not fit the constraint system
};

class PceError : public std::runtime_error {
 public:
  PceError(PceErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  PceErrorKind kind() const { return kind_; }

 private:
  PceErrorKind kind_;
};

}  // namespace cuzk::pce
