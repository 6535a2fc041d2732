// docs/exit-codes.md against the code: every exit code and its kind as cli/exit_codes.hpp defines them, and
// every exception type and kind thrown through cli/errors.cpp's mapping, row by row in both directions.
#include <gtest/gtest.h>

#include <CLI/CLI.hpp>
#include <fstream>
#include <functional>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "cli/errors.hpp"
#include "cli/exit_codes.hpp"
#include "gpu/errors.hpp"
#include "io/io_error.hpp"
#include "job/prove.hpp"
#include "pce/errors.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/porep/errors.hpp"
#include "prover/update/errors.hpp"

namespace cuzk {
namespace {

// The cells of the rows of the Markdown table that follows `heading` (header and separator rows dropped),
// backquotes removed.
std::vector<std::vector<std::string>> table_after(const std::string& heading) {
  std::ifstream in(std::string(CUZK_SOURCE_DIR) + "/docs/exit-codes.md");
  EXPECT_TRUE(in) << "docs/exit-codes.md not found";
  std::vector<std::vector<std::string>> rows;
  std::string line;
  bool in_section = false, in_table = false;
  int header_rows = 0;
  while (std::getline(in, line)) {
    if (line.rfind("## ", 0) == 0) {
      in_section = line == heading;
      continue;
    }
    if (!in_section) continue;
    if (line.rfind("|", 0) != 0) {
      if (in_table) break;
      continue;
    }
    in_table = true;
    if (header_rows < 2) {  // the header and the |---| row
      ++header_rows;
      continue;
    }
    std::vector<std::string> cells;
    std::stringstream ss(line.substr(1));
    std::string cell;
    while (std::getline(ss, cell, '|')) {
      std::string clean;
      for (char c : cell)
        if (c != '`') clean += c;
      const auto first = clean.find_first_not_of(' ');
      const auto last = clean.find_last_not_of(' ');
      cells.push_back(first == std::string::npos ? "" : clean.substr(first, last - first + 1));
    }
    rows.push_back(cells);
  }
  EXPECT_FALSE(rows.empty()) << "no table under " << heading;
  return rows;
}

struct CodeName {
  int code;
  const char* name;
};

// Every enumerator of cli::ExitCode. The switch in exit_code_kind (with -Wswitch) and the doc's table keep
// this list honest: a code added to one and not the others fails below.
constexpr CodeName kCodes[] = {
    {cli::kOk, "kOk"},
    {cli::kInternalError, "kInternalError"},
    {cli::kUsageError, "kUsageError"},
    {cli::kInputError, "kInputError"},
    {cli::kEncodingError, "kEncodingError"},
    {cli::kVerificationFailed, "kVerificationFailed"},
    {cli::kParameterError, "kParameterError"},
    {cli::kCircuitError, "kCircuitError"},
    {cli::kGpuError, "kGpuError"},
    {cli::kCacheError, "kCacheError"},
    {cli::kRegression, "kRegression"},
    {cli::kInterrupted, "kInterrupted"},
    {cli::kTerminated, "kTerminated"},
};

TEST(ExitCodes, TheCodeTableIsTheEnum) {
  const auto rows = table_after("## Codes");
  std::map<int, std::vector<std::string>> documented;
  for (const auto& row : rows) {
    ASSERT_GE(row.size(), 4u) << "a row of fewer than 4 cells";
    const int code = std::stoi(row[0]);
    EXPECT_TRUE(documented.emplace(code, row).second) << "code " << code << " documented twice";
  }
  EXPECT_EQ(documented.size(), std::size(kCodes)) << "the doc and cli::ExitCode list different codes";
  for (const CodeName& c : kCodes) {
    auto it = documented.find(c.code);
    ASSERT_NE(it, documented.end()) << c.name << " = " << c.code << " is not in docs/exit-codes.md";
    EXPECT_EQ(it->second[1], c.name) << "code " << c.code;
    EXPECT_EQ(it->second[2], cli::exit_code_kind(c.code)) << "code " << c.code;
    EXPECT_FALSE(it->second[3].empty()) << "code " << c.code << " has no meaning";
  }
}

// One exception as it is thrown, named as the doc's second table names it.
struct Raised {
  std::string type, kind;
  std::function<void()> raise;
};

std::vector<Raised> every_raised_error() {
  using groth16::Groth16Error;
  using groth16::Groth16ErrorKind;
  using job::JobError;
  using pce::PceError;
  using pce::PceErrorKind;
  std::vector<Raised> all = {
      {"io::IoError", "", [] { throw io::IoError("f.json", "truncated", 7); }},
      {"porep::PorepError", "", [] { throw porep::PorepError("comm_r is not canonical"); }},
      {"update::UpdateError", "", [] { throw update::UpdateError("apex leaf 3 is not canonical"); }},
      {"algebra::EncodingError", "",
       [] { throw algebra::EncodingError(algebra::EncodingErrorKind::kNotOnCurve, "proof point a"); }},
      {"CLI::ParseError", "", [] { throw CLI::ValidationError("--comm-r", "not a field element"); }},
      {"any other std::exception", "", [] { throw std::logic_error("a bug"); }},
  };
  auto groth16_kind = [&](const char* name, Groth16ErrorKind kind) {
    all.push_back({"groth16::Groth16Error", name, [kind] { throw Groth16Error(kind, "x"); }});
  };
  groth16_kind("kParameters", Groth16ErrorKind::kParameters);
  groth16_kind("kMalformedInput", Groth16ErrorKind::kMalformedInput);
  groth16_kind("kDomainTooLarge", Groth16ErrorKind::kDomainTooLarge);
  groth16_kind("kUnconstrainedVariable", Groth16ErrorKind::kUnconstrainedVariable);
  all.push_back({"groth16::Groth16Error", "kUnsatisfied", [] { throw Groth16Error(std::size_t{3}, "x"); }});
  auto job_kind = [&](const char* name, JobError::Kind kind) {
    all.push_back({"job::JobError", name, [kind] { throw JobError(kind, "x"); }});
  };
  job_kind("kSelfVerificationFailed", JobError::Kind::kSelfVerificationFailed);
  job_kind("kUnsatisfiedCircuit", JobError::Kind::kUnsatisfiedCircuit);
  job_kind("kMissingParameters", JobError::Kind::kMissingParameters);
  job_kind("kOutputExists", JobError::Kind::kOutputExists);
  job_kind("kNoDeviceBudget", JobError::Kind::kNoDeviceBudget);
  job_kind("kNoGpu", JobError::Kind::kNoGpu);
  job_kind("kInsufficientMemory", JobError::Kind::kInsufficientMemory);
  job_kind("kInterrupted", JobError::Kind::kInterrupted);
  auto pce_kind = [&](const char* name, PceErrorKind kind) {
    all.push_back({"pce::PceError", name, [kind] { throw PceError(kind, "x"); }});
  };
  pce_kind("kMissing", PceErrorKind::kMissing);
  pce_kind("kNotACache", PceErrorKind::kNotACache);
  pce_kind("kVersion", PceErrorKind::kVersion);
  pce_kind("kOtherCircuit", PceErrorKind::kOtherCircuit);
  pce_kind("kTruncated", PceErrorKind::kTruncated);
  pce_kind("kCorrupt", PceErrorKind::kCorrupt);
  pce_kind("kReadonly", PceErrorKind::kReadonly);
  pce_kind("kIo", PceErrorKind::kIo);
  pce_kind("kLimits", PceErrorKind::kLimits);
  pce_kind("kWitness", PceErrorKind::kWitness);
  // Raised as gpu/cuda_check.hpp raises them from CUDA's codes (2: cudaErrorMemoryAllocation), or as the
  // build without CUDA does for every request of a GPU: the same header, the same mapping, in every build.
  all.push_back({"gpu::GpuError", "a CUDA error",
                 [] { throw gpu::GpuError("cudaMalloc failed", gpu::GpuErrorKind::kFault, 2); }});
  all.push_back({"gpu::GpuError", "no usable device",
                 [] { throw gpu::GpuError("no GPU visible", gpu::GpuErrorKind::kNoDevice); }});
  return all;
}

TEST(ExitCodes, EveryRaisedErrorMapsAsDocumented) {
  const auto rows = table_after("## What raises each code");
  std::map<std::string, std::pair<int, std::string>> documented;  // "type/kind" -> code, result kind
  for (const auto& row : rows) {
    ASSERT_GE(row.size(), 4u) << "a row of fewer than 4 cells";
    documented[row[0] + "/" + row[1]] = {std::stoi(row[2]), row[3]};
  }
  std::set<std::string> checked;
  for (const Raised& r : every_raised_error()) {
    const std::string key = r.type + "/" + r.kind;
    SCOPED_TRACE(key);
    auto it = documented.find(key);
    ASSERT_NE(it, documented.end()) << key << " is raised but not in docs/exit-codes.md";
    cli::ReportedError reported;
    try {
      r.raise();
      FAIL() << "nothing thrown";
    } catch (...) {
      reported = cli::report_current_exception();
    }
    EXPECT_EQ(reported.exit_code, it->second.first);
    EXPECT_EQ(reported.kind, it->second.second);
    checked.insert(key);
  }
  for (const auto& [key, mapping] : documented) {
    EXPECT_TRUE(checked.count(key)) << key << " is documented but this test raises no such error";
  }
}

}  // namespace
}  // namespace cuzk
