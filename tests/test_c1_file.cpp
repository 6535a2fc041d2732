// C1 file parsing (raw serde JSON and the lotus-bench envelope), writing, and validation.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "io/io_error.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/c1_validate.hpp"
#include "prover/porep/errors.hpp"
#include "tests/c1_fixture.hpp"
#include "tests/test_util.hpp"

using namespace cuzk;

namespace {

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << "pattern not found: " << from;
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

template <class Fn>
std::string expect_io_error(Fn&& fn) {
  try {
    fn();
  } catch (const io::IoError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected io::IoError";
  return {};
}

template <class Fn>
std::string expect_porep_error(Fn&& fn) {
  try {
    fn();
  } catch (const porep::PorepError& e) {
    return e.what();
  }
  ADD_FAILURE() << "expected porep::PorepError";
  return {};
}

}  // namespace

TEST(C1File, RawJsonRoundTripAllShapes) {
  auto rng = test::seeded_rng("C1File.RawJsonRoundTripAllShapes");
  for (const char* name :
       {"StackedDrg2KiBV1", "StackedDrg8MiBV1_1", "StackedDrg512MiBV1_1_Feat_SyntheticPoRep",
        "StackedDrg32GiBV1_1", "StackedDrg64GiBV1_1"}) {
    SCOPED_TRACE(name);
    porep::C1Output c1 = test::random_c1(rng, name);
    std::string json = porep::c1_to_json(c1);
    porep::C1Output back = porep::parse_c1_json(json, "mem.json");
    EXPECT_EQ(back, c1);
    EXPECT_EQ(porep::c1_to_json(back), json) << "writing is byte-stable";
    EXPECT_NO_THROW(porep::validate_c1(back, "mem.json"));
  }
}

TEST(C1File, SerdeLayoutDetails) {
  auto rng = test::seeded_rng("C1File.SerdeLayoutDetails");
  std::string json = porep::c1_to_json(test::random_c1(rng, "StackedDrg2KiBV1_1"));
  EXPECT_EQ(
      json.rfind("{\"registered_proof\":\"StackedDrg2KiBV1_1\",\"vanilla_proofs\":{\"StackedDrg2KiBV1\":[[{"
                 "\"comm_d_proofs\":{\"data\":{\"Single\":{\"root\":[",
                 0),
      0u);
  EXPECT_NE(json.find(",\"_h\":null},\"inclusion_proof\":"), std::string::npos);
  EXPECT_NE(json.find("\"labeling_proofs\":[{\"parents\":[["), std::string::npos);
}

TEST(C1File, EnvelopeRoundTripAndWhitespace) {
  auto rng = test::seeded_rng("C1File.Envelope");
  porep::C1Output c1 = test::random_c1(rng, "StackedDrg2KiBV1_1");
  c1.sector_num = 42;
  std::string env = porep::c1_to_envelope_json(c1);
  porep::C1Output back = porep::parse_c1_json(env, "env.json");
  EXPECT_EQ(back.sector_num, 42);
  EXPECT_EQ(back.envelope_sector_size, 2048u);
  back.sector_num.reset();
  back.envelope_sector_size.reset();
  c1.sector_num.reset();
  EXPECT_EQ(back, c1);
  // Go's encoder may reorder nothing, but other writers may add whitespace and reorder keys.
  std::string spaced = "{ \"SectorSize\" : 2048 ,\n \"Phase1Out\": \"" +
                       porep::base64_encode(porep::c1_to_json(c1)) + "\", \"SectorNum\": 7 }\n";
  porep::C1Output back2 = porep::parse_c1_json(spaced, "env2.json");
  EXPECT_EQ(back2.sector_num, 7);
}

TEST(C1File, FileRoundTripAndTruncation) {
  auto rng = test::seeded_rng("C1File.File");
  porep::C1Output c1 = test::random_c1(rng, "StackedDrg2KiBV1");
  auto dir = std::filesystem::temp_directory_path() / ("cuzk-c1-" + std::to_string(rng()));
  std::filesystem::create_directories(dir);
  std::string json = porep::c1_to_json(c1);
  auto path = (dir / "c1.json").string();
  std::ofstream(path, std::ios::binary) << json;
  EXPECT_EQ(porep::read_c1_file(path), c1);
  std::ofstream(path, std::ios::binary | std::ios::trunc) << json.substr(0, json.size() / 2);
  std::string msg = expect_io_error([&] { porep::read_c1_file(path); });
  EXPECT_NE(msg.find(path), std::string::npos) << msg;
  EXPECT_NE(msg.find("offset"), std::string::npos) << msg;
  EXPECT_NE(msg.find("partition 0 challenge"), std::string::npos) << msg;
  std::filesystem::remove_all(dir);
  EXPECT_NE(expect_io_error([&] { porep::read_c1_file(path); }).find(path), std::string::npos);
}

TEST(C1File, MalformedJsonIsRejectedWithContext) {
  auto rng = test::seeded_rng("C1File.Malformed");
  std::string json = porep::c1_to_json(test::random_c1(rng, "StackedDrg2KiBV1"));
  auto parse = [](const std::string& s) { porep::parse_c1_json(s, "bad.json"); };
  // Unknown field, missing field, duplicate field.
  EXPECT_NE(
      expect_io_error([&] { parse(replace_once(json, "\"ticket\":", "\"tikcet\":")); }).find("unknown field"),
      std::string::npos);
  std::string missing = replace_once(json, ",\"_h\":null", "");
  EXPECT_NE(expect_io_error([&] { parse(missing); }).find("missing field \"_h\""), std::string::npos);
  EXPECT_NE(expect_io_error([&] { parse(replace_once(json, "\"seed\":", "\"comm_r\":")); }).find("duplicate"),
            std::string::npos);
  // A 33-byte array and a byte out of range.
  std::string long_array = replace_once(json, "\"comm_r\":[", "\"comm_r\":[1,");
  EXPECT_NE(expect_io_error([&] { parse(long_array); }).find("32 bytes"), std::string::npos);
  std::string big_byte = replace_once(json, "\"comm_r\":[", "\"comm_r\":[256,");
  EXPECT_NE(expect_io_error([&] { parse(big_byte); }).find("out of range"), std::string::npos);
  // Trailing garbage, unknown proof type, bad envelope base64.
  EXPECT_NE(expect_io_error([&] { parse(json + "x"); }).find("trailing"), std::string::npos);
  EXPECT_NE(expect_io_error([&] {
              parse(replace_once(json, "StackedDrg2KiBV1\"", "StackedDrg3KiBV1\""));
            }).find("unknown registered_proof"),
            std::string::npos);
  EXPECT_NE(expect_io_error([&] {
              parse("{\"SectorNum\":1,\"Phase1Out\":\"ab$d\",\"SectorSize\":2048}");
            }).find("base64"),
            std::string::npos);
  // The error names the partition and challenge where it happened.
  std::string in_path = replace_once(json, "\"index\":", "\"index\":-");
  EXPECT_NE(expect_io_error([&] { parse(in_path); }).find("partition 0 challenge 0"), std::string::npos);
}

TEST(C1Validate, RejectsWhatRustFilProofsRejects) {
  auto rng = test::seeded_rng("C1Validate");
  const porep::C1Output good = test::random_c1(rng, "StackedDrg32GiBV1_1");
  ASSERT_NO_THROW(porep::validate_c1(good, "g.json"));
  auto rejects = [&](auto mutate, const char* expected) {
    porep::C1Output c1 = good;
    mutate(c1);
    std::string msg = expect_porep_error([&] { porep::validate_c1(c1, "g.json"); });
    EXPECT_NE(msg.find(expected), std::string::npos) << msg;
    EXPECT_NE(msg.find("g.json"), std::string::npos) << msg;
  };
  rejects([](porep::C1Output& c) { c.seed.fill(0); }, "seed is all zero");
  rejects([](porep::C1Output& c) { c.comm_d.fill(0); }, "comm_d is all zero");
  rejects([](porep::C1Output& c) { c.comm_r.fill(0); }, "comm_r is all zero");
  rejects([](porep::C1Output& c) { c.comm_r.fill(0xff); }, "comm_r is not a canonical");
  rejects([](porep::C1Output& c) { c.vanilla_proofs[3].clear(); },
          "partition 3, challenge 0: partition is empty");
  rejects([](porep::C1Output& c) { c.vanilla_proofs.pop_back(); }, "9 partitions");
  rejects(
      [](porep::C1Output& c) {
        c.registered_proof = porep::find_registered_seal_proof("StackedDrg64GiBV1_1");
      },
      "does not match");
  rejects([](porep::C1Output& c) { c.vanilla_proofs[2][5].comm_r_last_proof.root[0] ^= 1; },
          "partition 2, challenge 5: comm_r_last differs");
  rejects(
      [](porep::C1Output& c) {
        c.vanilla_proofs[1][4].replica_column_proofs.drg_parents[3].inclusion_proof.root[0] ^= 1;
      },
      "DRG parent column 3 comm_c differs");
  rejects([](porep::C1Output& c) { c.vanilla_proofs[0][0].replica_column_proofs.exp_parents.pop_back(); },
          "7 expander parent columns");
  rejects([](porep::C1Output& c) { c.vanilla_proofs[0][1].comm_r_last_proof.base.path.pop_back(); },
          "comm_r_last_proof base path has 8 elements");
  rejects(
      [](porep::C1Output& c) {
        c.vanilla_proofs[0][1].comm_r_last_proof.kind = porep::MerkleProof::Kind::kSingle;
      },
      "needs Sub");
  rejects([](porep::C1Output& c) { c.vanilla_proofs[0][0].replica_column_proofs.c_x.column.rows.pop_back(); },
          "10 rows");
  rejects([](porep::C1Output& c) { c.vanilla_proofs[0][0].comm_d_proofs.base.path[0].index ^= 1; },
          "does not lead to the challenged node");
  rejects([](porep::C1Output& c) { c.vanilla_proofs[0][0].comm_d_proofs.base.path[4].hashes[0][31] = 0x80; },
          "not a canonical");
  rejects([](porep::C1Output& c) { c.envelope_sector_size = 2048; }, "SectorSize 2048");
}
