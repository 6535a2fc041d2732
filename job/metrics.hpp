// A run's figures in the Prometheus text exposition format (version 0.0.4), for node_exporter's
// textfile collector: `cuzk prove --metrics-file FILE` writes them atomically (io/atomic_file.hpp), so
// the collector never reads half a file. Every series is a gauge describing the last run; the labels
// `engine` and `gpu` say what proved, `gpu_uuid` which device, and the operator's own labels
// (`--metrics-label`) which process: node_exporter drops a series that another file of its folder has with
// the same labels, so the processes of one host (one per GPU) must differ in them. The metric names and
// their meaning are listed in docs/json-results.md ("Prometheus metrics").
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <utility>
#include <vector>

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
  // The failed sectors by the error kind of their records ("input", "no-device").
  std::map<std::string, unsigned> failed_by_kind;
  // The UUIDs of the devices the run proved on (none on the CPU engine: no gpu_uuid label).
  std::vector<std::string> gpu_uuids;
  // The operator's labels (--metrics-label), on every series; checked with metrics_label_problem.
  std::vector<std::pair<std::string, std::string>> labels;
};

// The exposition text: HELP and TYPE once per metric family, then its samples.
std::string prometheus_metrics(const RunReport& report, const RunOutcome& outcome);

// A label value escaped as the format asks: backslash, double quote and newline.
std::string prometheus_label_escape(const std::string& value);

// Why `name`="`value`" cannot be one of the operator's labels (empty when it can): the name must follow
// Prometheus' label name syntax ([a-zA-Z_][a-zA-Z0-9_]*), not begin with "__" (reserved) and not be one of
// the labels cuzk sets itself; the value must be valid UTF-8 and not empty (an empty value is no label).
std::string metrics_label_problem(const std::string& name, const std::string& value);

}  // namespace cuzk::job
