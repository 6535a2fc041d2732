// The porep layer's one exception type: C1 data that is well-formed JSON but not a valid input to
// the PoRep circuit (wrong shape, inconsistent commitments, non-canonical field elements, ...).
// Messages name the file, partition and challenge where they apply.
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::porep {

class PorepError : public std::runtime_error {
 public:
  explicit PorepError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace cuzk::porep
