#pragma once

#include <string>

namespace cuzk::cli {

// Call inside a catch(...) block: logs the current exception and returns its exit code; puts the message
// it logged in `message` when given.
int report_exception(std::string* message = nullptr);

}  // namespace cuzk::cli
