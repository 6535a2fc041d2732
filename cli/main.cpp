// cuzk: Filecoin PoRep C2 prover. Parses flags, dispatches subcommands and maps each layer's
// exception type to a distinct exit code (cli/exit_codes.hpp). No math here.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <string>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cuzk_version.hpp"

int main(int argc, char** argv) {
  using namespace cuzk::cli;
  CLI::App app{"cuzk: Filecoin PoRep commit phase 2 (C2) Groth16 prover"};
  app.require_subcommand(1);
  app.set_version_flag("--version",
                       std::string("cuzk ") + CUZK_VERSION + " (commit " + CUZK_GIT_COMMIT + ")");
  std::string log_level = "info";
  app.add_option("--log-level", log_level, "trace|debug|info|warn|error|off (env CUZK_LOG)")
      ->envname("CUZK_LOG")
      ->check(CLI::IsMember({"trace", "debug", "info", "warn", "error", "critical", "off"}));
  bool quiet = false;
  app.add_flag("-q,--quiet", quiet,
               "only errors and result lines: no progress, no info logs (--log-level error)");
  app.parse_complete_callback([&] {
    auto logger = spdlog::stderr_color_mt("cuzk");
    logger->set_pattern("%Y-%m-%dT%H:%M:%S.%e %^%l%$ %v");
    spdlog::set_default_logger(logger);
    spdlog::set_level(quiet ? spdlog::level::err : spdlog::level::from_str(log_level));
  });

  // Subcommands (one registration function per cli/*.cpp file, declared in cli/commands.hpp).
  register_params_commands(app);
  register_params_load_command(app);
  register_selftest_command(app);
  register_proof_commands(app);
  register_info_command(app);
  register_gen_c1_command(app);
  register_pce_commands(app);
  register_circuit_commands(app);
  register_prove_commands(app);
  register_verify_command(app);
  register_bench_commands(app);
  register_report_commands(app);

  remember_command_line(argc, argv);
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    // A subcommand that has already reported its outcome asks for a specific exit code.
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    int code = app.exit(e);
    return code == 0 ? kOk : kUsageError;
  } catch (...) {
    return report_exception();
  }
  return kOk;
}
