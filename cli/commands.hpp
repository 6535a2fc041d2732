// One registration function per subcommand file. Each adds its subcommand(s) to the app and sets a
// callback; callbacks throw the library's exceptions, which main.cpp maps to exit codes.
#pragma once

#include <CLI/CLI.hpp>

namespace cuzk::cli {


}  // namespace cuzk::cli
