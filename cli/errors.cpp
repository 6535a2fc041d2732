// The one place where library exceptions become messages and exit codes.
#include "cli/errors.hpp"

#include <spdlog/spdlog.h>

#include <exception>

#include "cli/exit_codes.hpp"
#include "io/io_error.hpp"
#include "prover/algebra/encoding.hpp"

namespace cuzk::cli {

int report_exception() {
  try {
    throw;
  } catch (const io::IoError& e) {
    spdlog::error("{}", e.what());
    return kInputError;
  } catch (const algebra::EncodingError& e) {
    spdlog::error("invalid encoding: {}", e.what());
    return kEncodingError;
  } catch (const std::exception& e) {
    spdlog::critical("internal error: {}", e.what());
    return kInternalError;
  } catch (...) {
    spdlog::critical("internal error: unknown exception");
    return kInternalError;
  }
}

}  // namespace cuzk::cli
