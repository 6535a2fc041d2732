// The groth16 layer's one exception type.
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::groth16 {

enum class Groth16ErrorKind {
  kParameters,          // parameters do not fit the circuit or each other
  kMalformedInput,      // a witness or input of the wrong size
  kDomainTooLarge,      // more than 2^32 constraints (bellperson PolynomialDegreeTooLarge)
  kUnconstrainedVariable,  // setup: an aux variable that no constraint uses (bellperson errors too)
};

class Groth16Error : public std::runtime_error {
 public:
  Groth16Error(Groth16ErrorKind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Groth16ErrorKind kind() const { return kind_; }

 private:
  Groth16ErrorKind kind_;
};

}  // namespace cuzk::groth16
