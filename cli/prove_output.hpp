// What `cuzk prove` prints on stdout for programs: the `--json` result records, one line per input
// (docs/json-results.md), and the plan of `--dry-run` (as text, or one JSON object with --json).
#pragma once

#include <optional>
#include <string>

#include "cli/errors.hpp"
#include "job/prove.hpp"
#include "job/run_report.hpp"
#include "job/shard.hpp"

namespace cuzk::cli {

std::string proven_record(const job::SectorReport& s);
// An input whose proof file was there already and verified (--skip-existing).
std::string already_proven_record(const job::AlreadyProven& s);
std::string failed_record(const std::string& c1, const ReportedError& error);
// An input not attempted because an earlier one failed (without --keep-going).
std::string skipped_record(const std::string& c1, int exit_code);

// The dry run's plan, with the shard it was made for (none: every input).
void print_dry_run(const job::RunPlan& plan, const std::optional<job::Shard>& shard, bool json);

}  // namespace cuzk::cli
