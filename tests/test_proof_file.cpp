// groth16::Proof's 192-byte encoding, proof files (size checks, error messages naming the file, the
// offset, the partition and the point) and atomic file writes.
#include <gtest/gtest.h>
#include <sys/stat.h>

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/temp_dir.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/groth16/proof.hpp"
#include "prover/groth16/proof_file.hpp"
#include "prover/porep/registered_proof.hpp"
#include "tests/test_util.hpp"

using namespace cuzk::algebra;
using cuzk::groth16::Proof;
using cuzk::io::IoError;
namespace fs = std::filesystem;

namespace {

Proof random_proof(std::mt19937_64& rng) {
  using cuzk::test::random_field;
  return Proof{(G1::generator() * random_field<Fr>(rng)).to_affine(),
               (G2::generator() * random_field<Fr>(rng)).to_affine(),
               (G1::generator() * random_field<Fr>(rng)).to_affine()};
}

// A fresh directory under the system temp dir, removed at the end of the test.

std::vector<std::uint8_t> read_all(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void write_raw(const fs::path& p, const std::vector<std::uint8_t>& bytes) {
  std::ofstream out(p, std::ios::binary);
  out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
}

}  // namespace

TEST(ProofEncoding, LayoutIsACompressedBCompressedCCompressed) {
  auto rng = cuzk::test::seeded_rng("ProofEncoding.Layout");
  Proof p = random_proof(rng);
  auto bytes = p.to_bytes();
  std::uint8_t a[48], b[96], c[48];
  encode_g1_compressed(p.a, a);
  encode_g2_compressed(p.b, b);
  encode_g1_compressed(p.c, c);
  EXPECT_TRUE(std::equal(a, a + 48, bytes.begin()));
  EXPECT_TRUE(std::equal(b, b + 96, bytes.begin() + 48));
  EXPECT_TRUE(std::equal(c, c + 48, bytes.begin() + 144));
  EXPECT_EQ(Proof::read(bytes), p);
  EXPECT_EQ(Proof::read(bytes, PointCheck::kUnchecked), p);
}

TEST(ProofEncoding, ReadRejectsWrongLengthAndInfinityNamingThePoint) {
  auto rng = cuzk::test::seeded_rng("ProofEncoding.Rejects");
  Proof p = random_proof(rng);
  auto bytes = p.to_bytes();
  try {
    Proof::read(std::span(bytes).first(191));
    FAIL();
  } catch (const EncodingError& e) {
    EXPECT_EQ(e.kind(), EncodingErrorKind::kWrongLength);
  }
  for (auto [name, group, offset, size] :
       {std::tuple{"a", "G1", 0, 48}, std::tuple{"b", "G2", 48, 96}, std::tuple{"c", "G1", 144, 48}}) {
    const std::string label = std::string("proof point ") + name + " (" + group + " compressed)";
    auto bad = bytes;
    std::fill(bad.begin() + offset, bad.begin() + offset + size, 0);
    bad[offset] = 0xc0;  // compressed infinity: a valid encoding, but not in a proof (bellperson)
    for (PointCheck check : {PointCheck::kFull, PointCheck::kUnchecked}) {
      try {
        Proof::read(bad, check);
        FAIL() << name;
      } catch (const EncodingError& e) {
        EXPECT_EQ(e.kind(), EncodingErrorKind::kUnexpectedInfinity);
        EXPECT_EQ(e.context(), label);
      }
    }
    bad = bytes;
    bad[offset] ^= 0x80;
    try {
      Proof::read(bad);
      FAIL() << name;
    } catch (const EncodingError& e) {
      EXPECT_EQ(e.kind(), EncodingErrorKind::kCompressionFlagMismatch);
      EXPECT_EQ(e.context(), label);
      EXPECT_EQ(std::string(e.what()), label + ": " + to_string(EncodingErrorKind::kCompressionFlagMismatch));
    }
  }
}

TEST(ProofFile, WriteAtomicThenReadBack) {
  auto rng = cuzk::test::seeded_rng("ProofFile.RoundTrip");
  cuzk::io::TempDir dir("cuzk_test_proof_file.");
  std::vector<Proof> proofs;
  for (int i = 0; i < 10; ++i) proofs.push_back(random_proof(rng));
  fs::path file = dir.path() / "sector.proof";
  cuzk::groth16::write_proof_file_atomic(file, proofs);
  EXPECT_EQ(fs::file_size(file), 1920u);
  EXPECT_EQ(cuzk::groth16::read_proof_file(file), proofs);
  auto bytes = read_all(file);
  for (std::size_t i = 0; i < proofs.size(); ++i) {
    auto expected = proofs[i].to_bytes();
    EXPECT_TRUE(std::equal(expected.begin(), expected.end(), bytes.begin() + 192 * i)) << i;
  }
  // Overwrite with one proof: replaced whole, no temporary file left behind.
  cuzk::groth16::write_proof_file_atomic(file, std::span(proofs).first(1));
  EXPECT_EQ(cuzk::groth16::read_proof_file(file), std::vector<Proof>{proofs[0]});
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  // Mode 0666 & ~umask, as for any newly created file (mkstemp alone would give 0600).
  mode_t mask = umask(022);
  umask(mask);
  EXPECT_EQ(static_cast<mode_t>(fs::status(file).permissions()), 0666 & ~mask);
}

TEST(ProofFile, WrongSizesNameTheFileAndOffset) {
  auto rng = cuzk::test::seeded_rng("ProofFile.WrongSizes");
  cuzk::io::TempDir dir("cuzk_test_proof_file.");
  auto good = random_proof(rng).to_bytes();
  struct Case {
    std::size_t size;
    std::uint64_t offset;
  };
  for (Case c : {Case{0, 0}, Case{1, 0}, Case{191, 0}, Case{193, 192}, Case{192 * 3 - 5, 384}}) {
    fs::path file = dir.path() / ("size" + std::to_string(c.size) + ".proof");
    std::vector<std::uint8_t> bytes;
    while (bytes.size() < c.size) bytes.insert(bytes.end(), good.begin(), good.end());
    bytes.resize(c.size);
    write_raw(file, bytes);
    try {
      cuzk::groth16::read_proof_file(file);
      FAIL() << c.size;
    } catch (const cuzk::algebra::EncodingError& e) {  // a wrong size is a bad encoding: exit 4, not 3
      EXPECT_EQ(e.kind(), cuzk::algebra::EncodingErrorKind::kWrongLength);
      EXPECT_NE(std::string(e.what()).find(file.string() + " (offset " + std::to_string(c.offset) + ")"),
                std::string::npos)
          << e.what();
    }
  }
  try {
    cuzk::groth16::read_proof_file(dir.path() / "missing.proof");
    FAIL();
  } catch (const IoError& e) {
    EXPECT_NE(std::string(e.what()).find("missing.proof"), std::string::npos);
  }
  EXPECT_THROW(cuzk::groth16::read_proof_file(dir.path()), IoError) << "a directory";
}

// A proof file was read whole whatever its size (and `cuzk proof inspect` of a huge
// file took its size in memory). A file of more proofs than any registered proof has is refused by its
// size before it is read.
TEST(ProofFile, SizeIsBoundedByTheMostPartitions) {
  std::size_t most = 0;
  for (const auto& proof : cuzk::porep::all_registered_seal_proofs())
    most = std::max<std::size_t>(most, proof.partitions());
  EXPECT_EQ(cuzk::groth16::kMaxProofsPerFile, most);

  cuzk::io::TempDir dir("cuzk_test_proof_file.");
  const fs::path largest = dir.path() / "largest.proof";
  write_raw(largest, std::vector<std::uint8_t>(most * Proof::kSize));
  EXPECT_EQ(cuzk::groth16::read_proof_file_bytes(largest).size(), most * Proof::kSize);
  const fs::path huge = dir.path() / "huge.proof";
  write_raw(huge, {});
  fs::resize_file(huge, std::uint64_t{Proof::kSize} << 22);  // 768 MiB, sparse: whole proofs, far too many
  try {
    (void)cuzk::groth16::read_proof_file_bytes(huge);
    FAIL() << "a proof file of 4 Mi proofs was read";
  } catch (const cuzk::algebra::EncodingError& e) {
    EXPECT_NE(
        std::string(e.what()).find(huge.string() + " (offset " + std::to_string(most * Proof::kSize) + ")"),
        std::string::npos)
        << e.what();
    EXPECT_NE(std::string(e.what()).find("more than the 126 partition proofs"), std::string::npos)
        << e.what();
  }
}

TEST(ProofFile, BadPointNamesFilePartitionAndPoint) {
  auto rng = cuzk::test::seeded_rng("ProofFile.BadPoint");
  cuzk::io::TempDir dir("cuzk_test_proof_file.");
  std::vector<Proof> proofs = {random_proof(rng), random_proof(rng), random_proof(rng)};
  auto bytes = cuzk::groth16::serialize_proofs(proofs);
  bytes[2 * 192 + 144] |= 0x40;  // infinity flag on partition 2's c, other bits non-zero
  fs::path file = dir.path() / "bad.proof";
  write_raw(file, bytes);
  try {
    cuzk::groth16::read_proof_file(file);
    FAIL();
  } catch (const EncodingError& e) {
    EXPECT_EQ(e.kind(), EncodingErrorKind::kInfinityNotZero);
    std::string msg = e.what();
    EXPECT_NE(msg.find(file.string() + ": partition 2 (offset 384): proof point c (G1 compressed)"),
              std::string::npos)
        << msg;
  }
}

TEST(AtomicFile, FailureLeavesNothingBehind) {
  cuzk::io::TempDir dir("cuzk_test_proof_file.");
  std::vector<std::uint8_t> data = {1, 2, 3};
  EXPECT_THROW(cuzk::io::write_file_atomic(dir.path() / "no_such_dir" / "f", data), IoError);
  // The target is a directory: rename fails, the temporary file is removed, the directory survives.
  fs::create_directory(dir.path() / "target");
  EXPECT_THROW(cuzk::io::write_file_atomic(dir.path() / "target", data), IoError);
  EXPECT_TRUE(fs::is_directory(dir.path() / "target"));
  EXPECT_EQ(std::distance(fs::directory_iterator(dir.path()), fs::directory_iterator()), 1);
  // Empty content is a valid file too.
  cuzk::io::write_file_atomic(dir.path() / "empty", {});
  EXPECT_EQ(fs::file_size(dir.path() / "empty"), 0u);
  cuzk::io::write_file_atomic(dir.path() / "data", data);
  EXPECT_EQ(read_all(dir.path() / "data"), data);
}
