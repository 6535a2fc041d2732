// The update layer's one exception type: an EmptySectorUpdate (SnapDeals) shape or witness that does not
// fit the circuit (an unregistered sector size, a wrong path length, a partition index out of range, ...).
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::update {

class UpdateError : public std::runtime_error {
 public:
  explicit UpdateError(const std::string& what) : std::runtime_error(what) {}
};

}  // namespace cuzk::update
