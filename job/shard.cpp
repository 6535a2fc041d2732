#include "job/shard.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <filesystem>
#include <numeric>
#include <tuple>

#include "io/json_reader.hpp"
#include "job/update_prove.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/update/input_file.hpp"

namespace cuzk::job {

namespace {

// A decimal of digits alone (no sign, no space) up to kMaxShards; nothing otherwise.
std::optional<unsigned> parse_small_decimal(std::string_view text) {
  if (text.empty() || text.size() > 12) return std::nullopt;
  std::uint64_t value = 0;
  for (char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + unsigned(c - '0');
  }
  if (value > kMaxShards) return std::nullopt;
  return static_cast<unsigned>(value);
}

// A sector name that is a number is ordered by its value ("9" before "10"); the others after the numbers.
std::optional<std::uint64_t> sector_number(const std::string& sector) {
  if (sector.empty() || sector.size() > 19) return std::nullopt;  // 19 digits always fit in 64 bits
  std::uint64_t value = 0;
  for (char c : sector) {
    if (c < '0' || c > '9') return std::nullopt;
    value = value * 10 + unsigned(c - '0');
  }
  return value;
}

bool sector_before(const std::string& a, const std::string& b) {
  const std::optional<std::uint64_t> na = sector_number(a), nb = sector_number(b);
  if (na.has_value() != nb.has_value()) return na.has_value();
  if (na && *na != *nb) return *na < *nb;
  return a < b;  // two non-numbers, or "7" and "007"
}

// The variable `name` as a count or an index: its value, or a problem naming it.
std::optional<unsigned> variable_value(const std::function<std::string(const char*)>& getenv,
                                       const char* name, std::string& problem) {
  const std::string text = getenv(name);
  const std::optional<unsigned> value = parse_small_decimal(text);
  if (!value && problem.empty())
    problem = fmt::format("{}={} is not a non-negative integer (at most {})", name,
                          io::quote_for_message(text), kMaxShards);
  return value;
}

ShardChoice from_slurm(const std::function<std::string(const char*)>& getenv,
                       std::optional<unsigned> shard_count) {
  ShardChoice choice;
  if (getenv("SLURM_ARRAY_TASK_COUNT").empty()) {
    choice.problem =
        "SLURM_ARRAY_TASK_ID is set but SLURM_ARRAY_TASK_COUNT is not (Slurm before 18.08?): "
        "give --shard K/N";
    return choice;
  }
  std::string& problem = choice.problem;
  const std::optional<unsigned> id = variable_value(getenv, "SLURM_ARRAY_TASK_ID", problem);
  const std::optional<unsigned> count = variable_value(getenv, "SLURM_ARRAY_TASK_COUNT", problem);
  const bool has_min = !getenv("SLURM_ARRAY_TASK_MIN").empty();
  const bool has_step = !getenv("SLURM_ARRAY_TASK_STEP").empty();
  const std::optional<unsigned> min = has_min ? variable_value(getenv, "SLURM_ARRAY_TASK_MIN", problem) : 0u;
  const std::optional<unsigned> step =
      has_step ? variable_value(getenv, "SLURM_ARRAY_TASK_STEP", problem) : 1u;
  if (!problem.empty()) return choice;
  if (*count == 0 || *step == 0) {
    problem = fmt::format("SLURM_ARRAY_TASK_{} is 0", *count == 0 ? "COUNT" : "STEP");
    return choice;
  }
  if (shard_count && *shard_count != *count) {
    problem = fmt::format("--shard-count {} disagrees with SLURM_ARRAY_TASK_COUNT={}", *shard_count, *count);
    return choice;
  }
  // The task ids are min, min + step, ...: the slice is the id's place among them.
  if (*id < *min || (*id - *min) % *step != 0 || (*id - *min) / *step >= *count) {
    problem = fmt::format(
        "SLURM_ARRAY_TASK_ID={} is not one of the {} ids {}, {} + {}, ... of an evenly spaced "
        "array (SLURM_ARRAY_TASK_MIN, SLURM_ARRAY_TASK_STEP): give the array as a range such as "
        "--array=0-{}, or --shard K/N",
        *id, *count, *min, *min, *step, *count - 1);
    return choice;
  }
  choice.shard = Shard{(*id - *min) / *step, *count};
  choice.source = fmt::format("SLURM_ARRAY_TASK_ID={} of SLURM_ARRAY_TASK_COUNT={}", *id, *count);
  if (*min != 0 || *step != 1) choice.source += fmt::format(" (ids from {} by {})", *min, *step);
  return choice;
}

}  // namespace

std::vector<std::size_t> shard_slice(const std::vector<ShardKey>& keys, Shard shard) {
  std::vector<std::size_t> order(keys.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) {
    const ShardKey &ka = keys[a], &kb = keys[b];
    if (ka.sector != kb.sector) return sector_before(ka.sector, kb.sector);
    return ka.path < kb.path;
  });
  std::vector<std::size_t> slice;
  std::size_t sector_rank = 0;  // the place of the current sector among the distinct sectors
  for (std::size_t i = 0; i < order.size(); ++i) {
    if (i > 0 && keys[order[i]].sector != keys[order[i - 1]].sector) ++sector_rank;
    if (sector_rank % shard.count == shard.index) slice.push_back(order[i]);
  }
  std::sort(slice.begin(), slice.end());
  return slice;
}

std::vector<ShardKey> shard_keys(const std::vector<std::string>& c1_paths, ProveOptions::ProofNaming naming) {
  std::vector<ShardKey> keys;
  keys.reserve(c1_paths.size());
  for (const std::string& path : c1_paths) {
    std::string sector = std::filesystem::path(path).stem().string();
    if (is_update_input_file(path)) {
      // An update input's proof file is named after its sector_id, whatever the naming of C1 files.
      try {
        sector = std::to_string(update::read_update_input_file(path).sector_id);
      } catch (const std::exception& e) {
        spdlog::debug("{}: sharded by its file name: {}", path, e.what());
      }
    } else if (naming == ProveOptions::ProofNaming::kSectorNumber) {
      try {
        if (const std::optional<std::int64_t> number = porep::read_c1_sector_number(path))
          sector = std::to_string(*number);
      } catch (const std::exception& e) {
        spdlog::debug("{}: sharded by its file name: {}", path, e.what());
      }
    }
    keys.push_back({std::move(sector), path});
  }
  return keys;
}

ShardChoice parse_shard(std::string_view text) {
  ShardChoice choice;
  const std::size_t slash = text.find('/');
  const std::optional<unsigned> index =
      slash == std::string_view::npos ? std::nullopt : parse_small_decimal(text.substr(0, slash));
  const std::optional<unsigned> count =
      slash == std::string_view::npos ? std::nullopt : parse_small_decimal(text.substr(slash + 1));
  if (!index || !count)
    choice.problem = fmt::format("expected K/N (slice K, from 0, of N; N at most {}) or auto, got {}",
                                 kMaxShards, io::quote_for_message(text));
  else if (*count == 0)
    choice.problem = "the shard count N of K/N is 0: there is no slice to take";
  else if (*index >= *count)
    choice.problem = fmt::format("slice {} of {} does not exist: K of K/N counts from 0 to N - 1 = {}",
                                 *index, *count, *count - 1);
  else {
    choice.shard = Shard{*index, *count};
    choice.source = "--shard " + std::string(text);
  }
  return choice;
}

ShardChoice shard_from_environment(const std::function<std::string(const char*)>& getenv,
                                   std::optional<unsigned> shard_count) {
  if (!getenv("SLURM_ARRAY_TASK_ID").empty()) return from_slurm(getenv, shard_count);
  ShardChoice choice;
  if (!getenv("JOB_COMPLETION_INDEX").empty()) {
    std::string& problem = choice.problem;
    const std::optional<unsigned> index = variable_value(getenv, "JOB_COMPLETION_INDEX", problem);
    if (!problem.empty()) return choice;
    if (!shard_count)
      problem =
          "JOB_COMPLETION_INDEX is set (a Kubernetes indexed Job) but not --shard-count, the "
          "Job's completions: give --shard-count N";
    else if (*index >= *shard_count)
      problem = fmt::format("JOB_COMPLETION_INDEX={} is not below --shard-count {}", *index, *shard_count);
    else {
      choice.shard = Shard{*index, *shard_count};
      choice.source = fmt::format("JOB_COMPLETION_INDEX={} of --shard-count {}", *index, *shard_count);
    }
    return choice;
  }
  if (shard_count && *shard_count > 1) {
    choice.problem = fmt::format(
        "--shard-count {}: neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set, so this process "
        "cannot know its slice (each would prove every input)",
        *shard_count);
    return choice;
  }
  choice.source = "neither SLURM_ARRAY_TASK_ID nor JOB_COMPLETION_INDEX is set: one slice, every input";
  return choice;
}

}  // namespace cuzk::job
