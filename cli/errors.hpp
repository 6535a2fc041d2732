#pragma once

#include <string>

namespace cuzk::cli {

// An error as it was logged: its exit code, its kind for machine-readable results (`--json` records and
// metrics: the exit code's name, exit_code_kind, or a finer one where one code covers faults that call for
// different answers: "no-device" is exit 8 with no usable GPU at all, which no retry fixes, where "gpu" is a
// CUDA error on a GPU that is there) and its message.
struct ReportedError {
  int exit_code = 0;
  std::string kind;
  std::string message;
};

// Call inside a catch(...) block: logs the current exception and says what it was.
ReportedError report_current_exception();

// The same, for callers that need the exit code alone (and the message, when `message` is given).
int report_exception(std::string* message = nullptr);

}  // namespace cuzk::cli
