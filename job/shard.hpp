// Shards: slice K of N deterministic slices of a run's inputs, so that N processes given the same inputs (a
// Slurm job array, a Kubernetes indexed Job) prove every sector exactly once between them, whatever order
// each was given the inputs in (`cuzk prove --shard K/N|auto`).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "job/prove.hpp"

namespace cuzk::job {

struct Shard {
  unsigned index = 0;  // 0-based, below count
  unsigned count = 1;
  bool operator==(const Shard&) const = default;
};

// What an input is sliced by: the sector (the stem of the proof file it writes), then its path.
struct ShardKey {
  std::string sector;
  std::string path;
};

// The positions in `keys` (ascending: the inputs keep the order they were given in) of shard `shard`'s
// inputs. The inputs are ordered by sector (numeric names by value and before the others, which compare as
// strings), then by path, and the distinct sectors in that order are dealt out round robin: the i-th goes to
// shard i mod count. The inputs of one sector stay together, so that two inputs writing the same proof file
// meet in one shard, which refuses them, instead of each shard writing the file. `shard.count` is at least 1.
std::vector<std::size_t> shard_slice(const std::vector<ShardKey>& keys, Shard shard);

// The keys of C1 files: the sector is what names the proof file (ProveOptions::ProofNaming), read without
// parsing the vanilla proofs (porep::read_c1_sector_number). A file that cannot be read for it is keyed by
// its stem: every shard keys it the same way, and the one that gets it reports the error in its checks.
// An update input file (is_update_input_file) is keyed by its sector_id, which names its proof file.
std::vector<ShardKey> shard_keys(const std::vector<std::string>& c1_paths, ProveOptions::ProofNaming naming);

// A shard, or why there is none: `problem` is a usage error's message and names the flag or the variable.
struct ShardChoice {
  std::optional<Shard> shard;  // none: every input (--shard auto without a scheduler's variables)
  std::string source;          // where it came from, for the log
  std::string problem;         // names the variable or the flag that is wrong, not --shard itself
};

// "K/N" (--shard K/N): K and N decimal, N at least 1 and K below N.
ShardChoice parse_shard(std::string_view text);

// The upper bound of N, far above any cluster: a larger count is a typo, not a plan.
inline constexpr unsigned kMaxShards = 1'000'000;

// --shard auto, from the scheduler's variables (`getenv` looks one up; empty: not set):
//  - a Slurm job array: SLURM_ARRAY_TASK_COUNT tasks, this one SLURM_ARRAY_TASK_ID. The ids run from
//    SLURM_ARRAY_TASK_MIN by SLURM_ARRAY_TASK_STEP (0 and 1 when not set), so `--array=1-8` and
//    `--array=0-14:2` are slices 0..7 too; an id off that range (an array given as a list such as 1,5,9) is
//    a problem, never a guess that could prove a sector twice or never;
//  - a Kubernetes indexed Job: JOB_COMPLETION_INDEX, and `shard_count` (--shard-count) for the Job's
//    completions, which Kubernetes does not pass to the pod;
//  - neither: no shard (every input), unless a `shard_count` above 1 says that one was expected.
// A `shard_count` given beside a Slurm array must agree with SLURM_ARRAY_TASK_COUNT.
ShardChoice shard_from_environment(const std::function<std::string(const char*)>& getenv,
                                   std::optional<unsigned> shard_count);

}  // namespace cuzk::job
