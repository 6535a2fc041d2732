// A run's figures in the Prometheus text exposition format (version 0.0.4), for node_exporter's
// textfile collector: `cuzk prove --metrics-file FILE` writes them atomically (io/atomic_file.hpp), so
// the collector never reads half a file. Every series is a gauge describing the last run; the labels
// `engine` and `gpu` say what proved. The metric names and their meaning are listed in
// docs/json-results.md ("Prometheus metrics").
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "job/prove.hpp"

namespace cuzk::job {

struct RunOutcome {
  bool success = true;
  unsigned sectors_failed = 0;                         // the sector whose error stopped the run
  unsigned partitions_failed = 0;                      // its partitions, when known
  unsigned sectors_skipped = 0;                        // inputs after it, not attempted
  std::string gpu_name;                                // empty on the CPU engine
  std::optional<std::uint64_t> gpu_memory_used_bytes;  // the most seen in use on the device, when known
  double finished_unix_s = 0;                          // when the run ended (seconds since the epoch)
};

// The exposition text: HELP and TYPE once per metric family, then its samples.
std::string prometheus_metrics(const RunReport& report, const RunOutcome& outcome);

// A label value escaped as the format asks: backslash, double quote and newline.
std::string prometheus_label_escape(const std::string& value);

}  // namespace cuzk::job
