// cuzk: Filecoin PoRep C2 prover. Parses flags, dispatches subcommands and maps each layer's
// exception type to a distinct exit code (cli/exit_codes.hpp). No math here.
#include <spdlog/cfg/env.h>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include <CLI/CLI.hpp>
#include <cstdlib>
#include <exception>
#include <string>
#include <utility>
#include <vector>

#include "cli/commands.hpp"
#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "cli/help_format.hpp"
#include "cuzk_version.hpp"

namespace {

// `cuzk --help` groups the commands by task.
const std::pair<const char*, std::vector<const char*>> kCommandGroups[] = {
    {"Proving", {"prove", "verify", "proof"}},
    {"Measuring", {"bench", "compare", "report"}},
    {"Parameters and caches", {"params", "pce", "circuit"}},
    {"Test data and this build", {"gen-c1", "gen-update", "selftest", "info"}},
};

// The footer of `cuzk --help`; help2man makes its "Examples:" the man page's EXAMPLES section
// (scripts/make-man.sh), where `$ ` marks a command.
constexpr const char* kExamples = R"(Examples:
  Prove C1 files on the GPU; one line `<sector> <proof hex>` per sector, proofs in proofs/:
    $ cuzk prove c1/*.json -o proofs/ --gpu
  The same from a sealing script: a JSON record per input, every sector tried, Prometheus metrics:
    $ cuzk prove c1/*.json -o proofs/ --gpu --json --keep-going --metrics-file cuzk.prom
  Check the inputs and the memory plan of a run without proving anything:
    $ cuzk prove c1/*.json -o proofs/ --gpu --dry-run
  Verify a proof file against the public inputs of its C1 file:
    $ cuzk verify proofs/1.proof --c1 c1/1.json
  Check the parameter files of 32GiB sectors against their published digests:
    $ cuzk params check --sector-size 32GiB
  Time a change: five runs of each binary, then the phases side by side (exit 10 when slower):
    $ cuzk bench c1.json --reps 5 --report base.json
    $ ./new/cuzk bench c1.json --reps 5 --report new.json
    $ cuzk compare base.json new.json)";

}  // namespace

int main(int argc, char** argv) {
  using namespace cuzk::cli;
  // Named, so that usage lines say `cuzk` wherever the binary lies (docs/cli.md is made from them).
  CLI::App app{"cuzk: Filecoin PoRep commit phase 2 (C2) Groth16 prover", "cuzk"};
  app.formatter(make_help_formatter());  // before the subcommands, which copy it
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

  // Subcommands (one registration function per cli/*.cpp file, declared in cli/commands.hpp), in the
  // order `cuzk --help` lists them, grouped by task as the README's command list is.
  register_prove_commands(app);
  register_verify_command(app);
  register_proof_commands(app);
  register_bench_commands(app);
  register_report_commands(app);
  register_params_commands(app);
  register_params_load_command(app);
  register_pce_commands(app);
  register_circuit_commands(app);
  register_gen_c1_command(app);
  register_gen_update_command(app);
  register_selftest_command(app);
  register_info_command(app);
  for (const auto& [group, names] : kCommandGroups)
    for (const char* name : names) app.get_subcommand(name)->group(group);
  // Set after the subcommands are added: each would copy it.
  app.footer(kExamples);

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
