// Shards (job/shard.hpp): N slices cover every input exactly once, whatever the order of the arguments; the
// inputs of one sector stay together; K/N and the schedulers' variables are read strictly.
#include <gtest/gtest.h>

#include <algorithm>
#include <filesystem>
#include <map>
#include <random>
#include <set>
#include <string>
#include <vector>

#include "job/shard.hpp"
#include "prover/update/gen_update.hpp"
#include "prover/update/input_file.hpp"

namespace cuzk::job {
namespace {

// 50 inputs as a batch of C1 files would give them: numbered sectors (some above 9, so that string order
// and number order differ), a few named by their file stem, in folders of their own.
std::vector<ShardKey> synthetic_inputs() {
  std::vector<ShardKey> keys;
  for (int i = 0; i < 44; ++i) {
    const std::string sector = std::to_string(1000 - 17 * i);
    keys.push_back({sector, "c1/batch" + std::to_string(i % 3) + "/" + sector + ".json"});
  }
  for (const char* stem : {"alpha", "beta", "gamma", "delta", "0042", "z9"})
    keys.push_back({stem, std::string("c1/named/") + stem + ".json"});
  return keys;
}

// The paths of one shard's inputs.
std::set<std::string> shard_paths(const std::vector<ShardKey>& keys, Shard shard) {
  std::set<std::string> paths;
  for (std::size_t i : shard_slice(keys, shard)) paths.insert(keys.at(i).path);
  return paths;
}

TEST(Shard, EveryCountCoversEveryInputExactlyOnce) {
  const std::vector<ShardKey> keys = synthetic_inputs();
  ASSERT_EQ(keys.size(), 50u);
  for (unsigned count = 1; count <= 8; ++count) {
    std::map<std::string, unsigned> taken;
    std::size_t smallest = keys.size(), largest = 0;
    for (unsigned index = 0; index < count; ++index) {
      const std::vector<std::size_t> slice = shard_slice(keys, {index, count});
      EXPECT_TRUE(std::is_sorted(slice.begin(), slice.end())) << "the inputs keep their given order";
      smallest = std::min(smallest, slice.size());
      largest = std::max(largest, slice.size());
      for (std::size_t i : slice) ++taken[keys.at(i).path];
    }
    EXPECT_EQ(taken.size(), keys.size()) << count << " shards left inputs out";
    for (const auto& [path, times] : taken) EXPECT_EQ(times, 1u) << path << " in " << count << " shards";
    EXPECT_LE(largest - smallest, 1u) << "round robin over distinct sectors: shards differ by one at most";
  }
}

TEST(Shard, TheSliceDoesNotDependOnTheOrderOfTheArguments) {
  const std::vector<ShardKey> keys = synthetic_inputs();
  std::mt19937 random(29);
  for (unsigned count = 1; count <= 8; ++count) {
    for (int trial = 0; trial < 5; ++trial) {
      std::vector<ShardKey> shuffled = keys;
      std::shuffle(shuffled.begin(), shuffled.end(), random);
      for (unsigned index = 0; index < count; ++index)
        EXPECT_EQ(shard_paths(shuffled, {index, count}), shard_paths(keys, {index, count}))
            << "slice " << index << " of " << count << " after shuffle " << trial;
    }
  }
}

TEST(Shard, SectorsAreOrderedByNumberThenNameThenPath) {
  // Sorted: 9, 10, 100 (by value, not "10" < "100" < "9"), then "a", "b": dealt to shards 0, 1, 0, 1, 0.
  const std::vector<ShardKey> keys = {
      {"b", "x/b.json"}, {"100", "x/100.json"}, {"9", "x/9.json"}, {"a", "x/a.json"}, {"10", "x/10.json"}};
  EXPECT_EQ(shard_paths(keys, {0, 2}), (std::set<std::string>{"x/9.json", "x/100.json", "x/b.json"}));
  EXPECT_EQ(shard_paths(keys, {1, 2}), (std::set<std::string>{"x/10.json", "x/a.json"}));
}

TEST(Shard, InputsOfOneSectorMeetInOneShard) {
  // Two files that both write 7.proof: one shard gets both and refuses them, instead of each shard
  // writing 7.proof.
  const std::vector<ShardKey> keys = {{"7", "a/7.json"}, {"8", "a/8.json"}, {"7", "b/seven.json"}};
  for (unsigned count = 2; count <= 3; ++count)
    for (unsigned index = 0; index < count; ++index) {
      const std::set<std::string> paths = shard_paths(keys, {index, count});
      EXPECT_EQ(paths.contains("a/7.json"), paths.contains("b/seven.json")) << index << "/" << count;
    }
}

TEST(Shard, NoInputsGiveEmptySlices) {
  EXPECT_TRUE(shard_slice({}, {2, 3}).empty());
}

TEST(Shard, ParsesKOfN) {
  EXPECT_EQ(parse_shard("0/1").shard, (Shard{0, 1}));
  EXPECT_EQ(parse_shard("3/8").shard, (Shard{3, 8}));
  EXPECT_EQ(parse_shard("07/10").shard, (Shard{7, 10}));
  for (const char* bad : {"", "3", "3/", "/4", "-1/4", "1/-4", "+1/4", " 1/4", "1/4 ", "1/4/2", "a/b",
                          "1.0/4", "1/99999999999999999999", "0/1000001"}) {
    const ShardChoice choice = parse_shard(bad);
    EXPECT_FALSE(choice.shard) << '"' << bad << '"';
    EXPECT_NE(choice.problem.find("expected K/N"), std::string::npos) << choice.problem;
  }
  EXPECT_NE(parse_shard("4/4").problem.find("does not exist"), std::string::npos);
  EXPECT_NE(parse_shard("5/4").problem.find("from 0 to N - 1 = 3"), std::string::npos);
  EXPECT_NE(parse_shard("0/0").problem.find("is 0"), std::string::npos);
}

// An environment of its own, for shard_from_environment.
struct Environment {
  std::map<std::string, std::string> variables;
  std::function<std::string(const char*)> lookup() const {
    return [this](const char* name) {
      auto it = variables.find(name);
      return it == variables.end() ? std::string() : it->second;
    };
  }
};

TEST(Shard, AutoReadsASlurmArray) {
  Environment env{{{"SLURM_ARRAY_TASK_ID", "2"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}};
  ShardChoice choice = shard_from_environment(env.lookup(), std::nullopt);
  EXPECT_EQ(choice.problem, "");
  EXPECT_EQ(choice.shard, (Shard{2, 4}));
  EXPECT_NE(choice.source.find("SLURM_ARRAY_TASK_ID=2"), std::string::npos);
  // --array=1-4: ids 1..4 are slices 0..3; --array=0-14:2: id 6 is slice 3.
  env.variables = {
      {"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}, {"SLURM_ARRAY_TASK_MIN", "1"}};
  EXPECT_EQ(shard_from_environment(env.lookup(), std::nullopt).shard, (Shard{3, 4}));
  env.variables = {{"SLURM_ARRAY_TASK_ID", "6"},
                   {"SLURM_ARRAY_TASK_COUNT", "8"},
                   {"SLURM_ARRAY_TASK_MIN", "0"},
                   {"SLURM_ARRAY_TASK_STEP", "2"}};
  EXPECT_EQ(shard_from_environment(env.lookup(), std::nullopt).shard, (Shard{3, 8}));
  EXPECT_EQ(shard_from_environment(env.lookup(), 8u).shard, (Shard{3, 8})) << "--shard-count that agrees";
}

TEST(Shard, AutoRefusesASlurmArrayItCannotSlice) {
  const std::vector<std::pair<std::map<std::string, std::string>, std::string>> cases = {
      {{{"SLURM_ARRAY_TASK_ID", "1"}}, "SLURM_ARRAY_TASK_COUNT is not"},
      {{{"SLURM_ARRAY_TASK_ID", "x"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}, "SLURM_ARRAY_TASK_ID=\"x\""},
      {{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "-4"}}, "SLURM_ARRAY_TASK_COUNT=\"-4\""},
      {{{"SLURM_ARRAY_TASK_ID", "0"}, {"SLURM_ARRAY_TASK_COUNT", "0"}}, "SLURM_ARRAY_TASK_COUNT is 0"},
      {{{"SLURM_ARRAY_TASK_ID", "4"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}, "SLURM_ARRAY_TASK_ID=4 is not one"},
      // --array=1,5,9: three tasks, ids not evenly spaced from the minimum by the step.
      {{{"SLURM_ARRAY_TASK_ID", "9"},
        {"SLURM_ARRAY_TASK_COUNT", "3"},
        {"SLURM_ARRAY_TASK_MIN", "1"},
        {"SLURM_ARRAY_TASK_STEP", "1"}},
       "SLURM_ARRAY_TASK_ID=9 is not one"},
  };
  for (const auto& [variables, expected] : cases) {
    const Environment env{variables};
    const ShardChoice choice = shard_from_environment(env.lookup(), std::nullopt);
    EXPECT_FALSE(choice.shard) << expected;
    EXPECT_NE(choice.problem.find(expected), std::string::npos) << choice.problem;
  }
  const Environment env{{{"SLURM_ARRAY_TASK_ID", "1"}, {"SLURM_ARRAY_TASK_COUNT", "4"}}};
  EXPECT_NE(shard_from_environment(env.lookup(), 3u).problem.find("disagrees with SLURM_ARRAY_TASK_COUNT=4"),
            std::string::npos);
}

TEST(Shard, AutoReadsAKubernetesIndexedJobWithItsCount) {
  const Environment env{{{"JOB_COMPLETION_INDEX", "5"}}};
  const ShardChoice choice = shard_from_environment(env.lookup(), 6u);
  EXPECT_EQ(choice.problem, "");
  EXPECT_EQ(choice.shard, (Shard{5, 6}));
  EXPECT_NE(shard_from_environment(env.lookup(), std::nullopt).problem.find("give --shard-count N"),
            std::string::npos);
  EXPECT_NE(shard_from_environment(env.lookup(), 5u).problem.find("JOB_COMPLETION_INDEX=5 is not below"),
            std::string::npos);
  const Environment garbage{{{"JOB_COMPLETION_INDEX", "five"}}};
  EXPECT_NE(shard_from_environment(garbage.lookup(), 6u).problem.find("JOB_COMPLETION_INDEX=\"five\""),
            std::string::npos);
}

TEST(Shard, AutoWithoutASchedulerTakesEverything) {
  const Environment none;
  ShardChoice choice = shard_from_environment(none.lookup(), std::nullopt);
  EXPECT_EQ(choice.problem, "");
  EXPECT_FALSE(choice.shard);
  EXPECT_NE(choice.source.find("every input"), std::string::npos);
  EXPECT_FALSE(shard_from_environment(none.lookup(), 1u).shard);
  EXPECT_NE(shard_from_environment(none.lookup(), 4u).problem.find("cannot know its slice"),
            std::string::npos);
}

TEST(Shard, KeysAreWhatNamesTheProofFile) {
  const std::string dir = std::string(CUZK_SOURCE_DIR) + "/testdata/c1/";
  const std::vector<std::string> paths = {dir + "2KiB-V1-envelope.json", dir + "2KiB-V1_1.json",
                                          dir + "bad-truncated.json", dir + "no-such-file.json"};
  const std::vector<ShardKey> by_sector = shard_keys(paths, ProveOptions::ProofNaming::kSectorNumber);
  ASSERT_EQ(by_sector.size(), 4u);
  EXPECT_EQ(by_sector[0].sector, "2") << "the envelope's SectorNum";
  EXPECT_EQ(by_sector[1].sector, "2KiB-V1_1") << "a raw C1 file has no sector number: its stem";
  EXPECT_EQ(by_sector[2].sector, "bad-truncated");
  EXPECT_EQ(by_sector[3].sector, "no-such-file") << "unreadable: its stem, in every shard alike";
  EXPECT_EQ(by_sector[3].path, paths[3]);
  const std::vector<ShardKey> by_stem = shard_keys(paths, ProveOptions::ProofNaming::kFileStem);
  EXPECT_EQ(by_stem[0].sector, "2KiB-V1-envelope");
}

// An update input's proof file is <sector_id>.proof: that is its key, with either naming of C1 files, so
// that an update input and a C1 envelope of one sector meet in one shard (which refuses them).
TEST(Shard, AnUpdateInputIsKeyedByItsSectorId) {
  const std::filesystem::path dir = std::filesystem::temp_directory_path() / "cuzk-test-shard-update";
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  const std::string update_path = (dir / "snap-of-2.json").string();
  update::GenUpdateOptions options;
  options.seed = 3;
  update::write_update_input_file(update_path, update::generate_update_input("2KiB", 2, options));
  const std::string envelope = std::string(CUZK_SOURCE_DIR) + "/testdata/c1/2KiB-V1-envelope.json";
  for (const auto naming : {ProveOptions::ProofNaming::kSectorNumber, ProveOptions::ProofNaming::kFileStem}) {
    const std::vector<ShardKey> keys = shard_keys({update_path, envelope}, naming);
    ASSERT_EQ(keys.size(), 2u);
    EXPECT_EQ(keys[0].sector, "2") << "the update input's sector_id, not its stem";
  }
  const std::vector<ShardKey> keys =
      shard_keys({update_path, envelope}, ProveOptions::ProofNaming::kSectorNumber);
  for (unsigned count = 2; count <= 4; ++count)
    for (unsigned index = 0; index < count; ++index) {
      const std::vector<std::size_t> slice = shard_slice(keys, {index, count});
      EXPECT_TRUE(slice.empty() || slice.size() == 2u) << "one sector's inputs meet in one shard";
    }
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cuzk::job
