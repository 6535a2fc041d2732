#pragma once

namespace cuzk::cli {

// Call inside a catch(...) block: logs the current exception and returns its exit code.
int report_exception();

}  // namespace cuzk::cli
