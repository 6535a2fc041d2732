// The groth16 layer's one exception type.
#pragma once

#include <cstddef>
#include <optional>
#include <stdexcept>
#include <string>

namespace cuzk::groth16 {

enum class Groth16ErrorKind {
  kParameters,             // parameters do not fit the circuit or each other
  kMalformedInput,         // a witness or input of the wrong size
  kDomainTooLarge,         // more than 2^32 constraints (bellperson PolynomialDegreeTooLarge)
  kUnconstrainedVariable,  // setup: an aux variable that no constraint uses (bellperson errors too)
  kUnsatisfied,            // a_k * b_k != c_k for a constraint k (found where the constraints are evaluated)
};

class Groth16Error : public std::runtime_error {
 public:
  Groth16Error(Groth16ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  // kUnsatisfied: the first constraint that fails.
  Groth16Error(std::size_t unsatisfied_constraint, const std::string& what)
      : std::runtime_error(what),
        kind_(Groth16ErrorKind::kUnsatisfied),
        constraint_(unsatisfied_constraint) {}
  Groth16ErrorKind kind() const { return kind_; }
  std::optional<std::size_t> constraint() const { return constraint_; }

 private:
  Groth16ErrorKind kind_;
  std::optional<std::size_t> constraint_;
};

}  // namespace cuzk::groth16
