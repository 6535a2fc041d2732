// Real Filecoin PoRep proofs: rust-fil-proofs filecoin-proofs/tests/seal_regression_records-v16.json
// (JSON Lines, one sealed sector per line, `proof` = the MultiProof bytes: 192 per partition; docs/circuit.md
// §9). The file is not in this repository: the tests read it from CUZK_SHARED_DIR (a CMake cache path) and
// skip, visibly, where it is absent.
//
// Every partition proof must decode with full checks (a, c in G1, b in G2, none at infinity, as
// bellperson's Proof::read_many) and re-encode to the same bytes; single-bit corruptions must be
// rejected with the expected kind, except the y-sign bit, which gives the negated point.
#include <gtest/gtest.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <nlohmann/json.hpp>
#include <set>
#include <string>
#include <vector>

#include "prover/algebra/encoding.hpp"
#include "prover/groth16/proof.hpp"
#include "prover/groth16/proof_file.hpp"
#include "tests/test_util.hpp"

using cuzk::algebra::EncodingError;
using cuzk::algebra::EncodingErrorKind;
using cuzk::algebra::PointCheck;
using cuzk::groth16::Proof;

namespace {

struct Record {
  std::uint64_t sector_size = 0;
  std::string api_version;
  bool synthetic = false;
  std::size_t partitions = 0;
  std::vector<std::uint8_t> proof;
};

std::string records_path() {
  return cuzk::test::shared_dir() + "/testdata/filecoin/seal_regression_records-v16.json";
}

std::vector<Record> load_records(const std::string& path) {
  std::ifstream in(path);
  std::vector<Record> out;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty()) continue;
    auto j = nlohmann::json::parse(line);
    Record r;
    const auto& config = j.at("porep_config");
    r.sector_size = config.at("sector_size").get<std::uint64_t>();
    r.partitions = config.at("partitions").get<std::size_t>();
    r.api_version = config.at("api_version").get<std::string>();
    for (const auto& f : config.at("api_features")) r.synthetic |= f.get<std::string>() == "SyntheticPoRep";
    r.proof = j.at("proof").get<std::vector<std::uint8_t>>();
    out.push_back(std::move(r));
  }
  return out;
}

class FilecoinProofs : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists(records_path())) {
      GTEST_SKIP() << "regression records not found at " << records_path()
                   << " (copy rust-fil-proofs filecoin-proofs/tests/seal_regression_records-v16.json there)";
    }
    records_ = load_records(records_path());
  }
  std::vector<Record> records_;
};

// Flips one bit and returns the bytes.
std::vector<std::uint8_t> flipped(std::span<const std::uint8_t> bytes, std::size_t byte, std::uint8_t mask) {
  std::vector<std::uint8_t> out(bytes.begin(), bytes.end());
  out[byte] ^= mask;
  return out;
}

}  // namespace

TEST_F(FilecoinProofs, EveryPartitionProofDecodesWithFullChecksAndReencodes) {
  ASSERT_FALSE(records_.empty());
  auto start = std::chrono::steady_clock::now();
  std::map<std::uint64_t, std::size_t> records_by_size;
  std::size_t partitions = 0;
  std::set<std::string> distinct;
  for (const Record& r : records_) {
    ++records_by_size[r.sector_size];
    // The MultiProof length is partitions * 192 (rfp MultiProof::write; docs/formats.md, "Proof files").
    ASSERT_EQ(r.proof.size(), r.partitions * Proof::kSize) << r.sector_size << " " << r.api_version;
    std::vector<Proof> proofs = cuzk::groth16::parse_proofs(r.proof, "regression record", PointCheck::kFull);
    ASSERT_EQ(proofs.size(), r.partitions);
    for (std::size_t k = 0; k < proofs.size(); ++k) {
      std::span<const std::uint8_t> bytes(r.proof.data() + k * Proof::kSize, Proof::kSize);
      ASSERT_FALSE(proofs[k].a.is_identity());
      ASSERT_TRUE(proofs[k].a.is_on_curve() && proofs[k].b.is_on_curve() && proofs[k].c.is_on_curve());
      auto again = proofs[k].to_bytes();
      ASSERT_TRUE(std::equal(again.begin(), again.end(), bytes.begin())) << "re-encoding differs";
      distinct.insert(std::string(bytes.begin(), bytes.end()));
      ++partitions;
    }
    EXPECT_EQ(cuzk::groth16::serialize_proofs(proofs), r.proof);
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf(
      "[filecoin] %zu records, %zu partition proofs (%zu distinct) decoded with full checks in %.2f s\n",
      records_.size(), partitions, distinct.size(), seconds);
  for (const auto& [size, n] : records_by_size)
    std::printf("[filecoin]   sector size %llu: %zu records\n", static_cast<unsigned long long>(size), n);
  EXPECT_EQ(records_.size(), 448u);  // the v16 file's records: 4*31 + 4*22 + 114 + 116 + 4 + 2
  EXPECT_EQ(partitions, 502u);       // 442 one-partition records + 6 ten-partition (32/64 GiB) records
}

TEST_F(FilecoinProofs, SingleBitCorruptionsAreRejected) {
  ASSERT_FALSE(records_.empty());
  auto start = std::chrono::steady_clock::now();
  std::map<std::string, std::size_t> kinds;
  std::size_t checked = 0, sign_flips = 0;
  struct PointSpan {
    const char* name;
    std::size_t offset, size;
  };
  const PointSpan points[] = {{"a", Proof::kOffsetA, cuzk::algebra::kG1CompressedSize},
                              {"b", Proof::kOffsetB, cuzk::algebra::kG2CompressedSize},
                              {"c", Proof::kOffsetC, cuzk::algebra::kG1CompressedSize}};
  auto expect_kind = [&](const std::vector<std::uint8_t>& bad, std::set<EncodingErrorKind> allowed,
                         const std::string& what) {
    try {
      Proof::read(bad, PointCheck::kFull);
      ADD_FAILURE() << what << ": corrupted proof accepted";
    } catch (const EncodingError& e) {
      EXPECT_TRUE(allowed.count(e.kind())) << what << ": " << e.what();
      EXPECT_NE(std::string(e.what()).find("proof point"), std::string::npos) << e.what();
      ++kinds[cuzk::algebra::to_string(e.kind())];
    }
    ++checked;
  };
  for (std::size_t ri = 0; ri < records_.size(); ++ri) {
    const Record& r = records_[ri];
    for (std::size_t k = 0; k < r.partitions; ++k) {
      std::span<const std::uint8_t> bytes(r.proof.data() + k * Proof::kSize, Proof::kSize);
      const Proof good = Proof::read(bytes);
      const std::string where = "record " + std::to_string(ri) + " partition " + std::to_string(k);
      for (const PointSpan& p : points) {
        const std::string at = where + " point " + p.name;
        expect_kind(flipped(bytes, p.offset, 0x80), {EncodingErrorKind::kCompressionFlagMismatch},
                    at + " 0x80");
        expect_kind(flipped(bytes, p.offset, 0x40), {EncodingErrorKind::kInfinityNotZero}, at + " 0x40");
        // Coordinate bits: the lowest bit of x (of x.c0 and x.c1 for b). The new x has a curve point
        // about half the time, and that point is outside the subgroup (probability 1 - 1/h).
        std::vector<std::size_t> low_bytes = {p.offset + p.size - 1};
        if (p.size == cuzk::algebra::kG2CompressedSize) low_bytes.push_back(p.offset + 47);
        for (std::size_t byte : low_bytes) {
          expect_kind(flipped(bytes, byte, 0x01),
                      {EncodingErrorKind::kNotOnCurve, EncodingErrorKind::kNotInSubgroup},
                      at + " byte " + std::to_string(byte) + " bit 0");
        }
      }
      // The y-sign bit is not redundant: flipping it on a gives -a, a valid point (the proof would then
      // fail verification, not decoding). Checked on every 32nd record and the 10-partition ones (each
      // costs a full decode).
      if (ri % 32 == 0 || r.partitions == 10) {
        Proof negated = Proof::read(flipped(bytes, Proof::kOffsetA, 0x20));
        EXPECT_EQ(negated.a, -good.a);
        EXPECT_EQ(negated.b, good.b);
        EXPECT_EQ(negated.c, good.c);
        ++sign_flips;
      }
    }
  }
  double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::printf("[filecoin] %zu single-bit corruptions rejected in %.2f s; sign-bit flips giving -a: %zu\n",
              checked, seconds, sign_flips);
  for (const auto& [kind, n] : kinds) std::printf("[filecoin]   %-55s %zu\n", kind.c_str(), n);
  // Both outcomes of a coordinate flip occur among ~2000 flips (each with probability about 1/2).
  EXPECT_GT(kinds[cuzk::algebra::to_string(EncodingErrorKind::kNotOnCurve)], 0u);
  EXPECT_GT(kinds[cuzk::algebra::to_string(EncodingErrorKind::kNotInSubgroup)], 0u);
}

TEST_F(FilecoinProofs, ParseErrorsNameThePartitionAndPoint) {
  // A ten-partition (32 GiB) record with the compression flag of partition 7's b cleared.
  const Record* big = nullptr;
  for (const Record& r : records_) {
    if (r.partitions == 10) {
      big = &r;
      break;
    }
  }
  ASSERT_NE(big, nullptr);
  std::vector<std::uint8_t> bytes = big->proof;
  bytes[7 * Proof::kSize + Proof::kOffsetB] ^= 0x80;  // compression flag of b
  try {
    cuzk::groth16::parse_proofs(bytes, "sector.proof");
    FAIL() << "accepted";
  } catch (const EncodingError& e) {
    EXPECT_EQ(e.kind(), EncodingErrorKind::kCompressionFlagMismatch);
    std::string msg = e.what();
    EXPECT_NE(msg.find("sector.proof: partition 7 (offset 1344): proof point b"), std::string::npos) << msg;
  }
}
