// SIGINT and SIGTERM during `cuzk prove`: the first asks the run to stop at its next safe point (before a
// partition is synthesized or proven, before a sector is verified and written), so that it ends like any
// failed run: temporary files removed, `failed` records of kind "interrupted", the report and the metrics
// written, exit 130 (SIGINT) or 143 (SIGTERM). A second signal of the same kind ends the process at once
// (the handler is installed with SA_RESETHAND). docs/integration.md, "Signals".
#pragma once

#include <signal.h>

#include <atomic>

namespace cuzk::cli {

class StopOnSignals {
 public:
  StopOnSignals();
  ~StopOnSignals();  // the previous dispositions back
  StopOnSignals(const StopOnSignals&) = delete;
  StopOnSignals& operator=(const StopOnSignals&) = delete;

  // Non-zero once a signal asked to stop: its number (job::ProveOptions::stop_requested reads it).
  static const std::atomic<int>& requested();

 private:
  struct sigaction old_int_ {
  }, old_term_{};
};

// 128 + the signal that stopped the run (130 for SIGINT, 143 for SIGTERM), as a shell reports a process
// killed by it; 130 when none was recorded.
int interrupted_exit_code();

}  // namespace cuzk::cli
