// pce/cache_file: the round trip, every corruption detected and named, concurrent writers.
#include "tests/pce_test_support.hpp"

namespace cuzk::pce {
namespace {

TEST(PceFile, RoundTripGivesIdenticalMatrices) {
  auto rng = test::seeded_rng("PceFile.RoundTripGivesIdenticalMatrices");
  io::TempDir dir("cuzk_pce_");
  CompactRecorder recorder;
  Sha256Circuit{rng}(recorder);
  const CompactR1cs pce = recorder.finish();
  const std::string description = "sha256 test circuit";
  struct Case {
    std::size_t chunk_bytes;
    unsigned threads;
  };
  for (const Case& c : {Case{16u << 20, 1}, Case{65536, 2}, Case{4099, 3}}) {
    WriteOptions options;
    options.chunk_bytes = c.chunk_bytes;
    options.threads = c.threads;
    const CacheHeader written = write_cache_file(dir.file("sha.pce"), pce, description, options);
    EXPECT_EQ(written.file_size, fs::file_size(dir.file("sha.pce")));
    EXPECT_LT(written.compressed_bytes(), written.content_bytes) << "zstd compresses the matrices";
    CacheHeader header;
    const CompactR1cs back = read_cache_file(dir.file("sha.pce"), description, c.threads, &header);
    EXPECT_EQ(back, pce) << "chunk " << c.chunk_bytes;
    EXPECT_EQ(header.num_constraints, pce.num_constraints());
    EXPECT_EQ(header.num_inputs, pce.num_inputs);
    EXPECT_EQ(header.num_aux, pce.num_aux);
    EXPECT_EQ(header.nnz_a, pce.a.nnz());
    EXPECT_EQ(header.nnz_b, pce.b.nnz());
    EXPECT_EQ(header.nnz_c, pce.c.nnz());
    EXPECT_EQ(header.density_b_aux, pce.densities.b_aux.popcount());
    EXPECT_EQ(header.description, description);
    EXPECT_EQ(header.circuit_id, circuit_id(description));
    EXPECT_EQ(header.content_digest, written.content_digest);
    EXPECT_EQ(header.num_chunks, (header.content_bytes + c.chunk_bytes - 1) / c.chunk_bytes);
  }
  // No temporary file is left behind.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

// zstd's frame checksum is the low 32 bits of XXH64(content) (zstd frame format, Content_Checksum): an
// independent implementation to check ours against, at many lengths (every tail case of the function).
TEST(PceFile, Xxh64MatchesZstdFrameChecksums) {
  auto rng = test::seeded_rng("PceFile.Xxh64MatchesZstdFrameChecksums");
  EXPECT_EQ(Xxh64::of("", 0), 0xEF46DB3751D8E999ULL);  // xxHash's published XXH64 of the empty input
  ZSTD_CCtx* cctx = ZSTD_createCCtx();
  ASSERT_NE(cctx, nullptr);
  ASSERT_FALSE(ZSTD_isError(ZSTD_CCtx_setParameter(cctx, ZSTD_c_checksumFlag, 1)));
  std::vector<std::size_t> lengths;
  for (std::size_t n = 0; n <= 100; ++n) lengths.push_back(n);
  for (std::size_t n : {255, 256, 1000, 4097, 65536, 100003}) lengths.push_back(n);
  for (std::size_t n : lengths) {
    std::vector<std::uint8_t> data(n);
    for (auto& b : data) b = static_cast<std::uint8_t>(rng());
    std::vector<std::uint8_t> frame(ZSTD_compressBound(n) + 16);
    const std::size_t size = ZSTD_compress2(cctx, frame.data(), frame.size(), data.data(), n);
    ASSERT_FALSE(ZSTD_isError(size));
    std::uint32_t stored;
    std::memcpy(&stored, frame.data() + size - 4, 4);
    const std::uint64_t ours = Xxh64::of(data.data(), n);
    EXPECT_EQ(static_cast<std::uint32_t>(ours), stored) << n << " bytes";
    // Streaming in random pieces gives the same value.
    Xxh64 h;
    for (std::size_t done = 0; done < n;) {
      const std::size_t piece = std::min<std::size_t>(n - done, rng() % 70);
      h.update(data.data() + done, piece);
      done += piece;
    }
    EXPECT_EQ(h.digest(), ours) << n << " bytes";
  }
  ZSTD_freeCCtx(cctx);
}

TEST(PceFile, CircuitIdIsSha256OfTheDescription) {
  // FIPS 180-4 example: SHA-256("abc").
  EXPECT_EQ(algebra::bytes_to_hex(circuit_id("abc")),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

TEST(PceFile, EveryFlippedByteIsDetected) {
  io::TempDir dir("cuzk_pce_");
  const CompactR1cs pce = compact(groth16::make_demo_circuit().cs);
  WriteOptions options;
  options.chunk_bytes = 1024;  // several frames, so that every part of the layout occurs
  const fs::path path = dir.file("demo.pce");
  const CacheHeader h = write_cache_file(path, pce, kDemoDescription, options);
  ASSERT_GT(h.num_chunks, 3u);
  ASSERT_EQ(read_error(path, kDemoDescription), std::nullopt);
  const std::vector<std::uint8_t> good = read_bytes(path);
  const fs::path bad = dir.file("bad.pce");
  write_bytes(bad, good);
  for (std::size_t pos = 0; pos < good.size(); ++pos) {
    for (std::uint8_t mask : {std::uint8_t{0x01}, std::uint8_t{0xff}}) {
      patch_byte(bad, pos, good[pos] ^ mask);
      const std::optional<PceErrorKind> kind = read_error(bad, kDemoDescription);
      patch_byte(bad, pos, good[pos]);
      ASSERT_TRUE(kind.has_value()) << "flip 0x" << std::hex << int{mask} << std::dec << " at byte " << pos
                                    << " of " << good.size() << " went unnoticed";
      if (pos >=
          12) {  // past magic and version, every flip is corruption (magic: kNotACache, version: kVersion)
        EXPECT_EQ(*kind, PceErrorKind::kCorrupt) << "byte " << pos;
      }
    }
  }
}

TEST(PceFile, SampledFlipsInALargerFileAreDetected) {
  auto rng = test::seeded_rng("PceFile.SampledFlipsInALargerFileAreDetected");
  io::TempDir dir("cuzk_pce_");
  CompactRecorder recorder;
  PoseidonCircuit{rng, 11}(recorder);
  Sha256Circuit{rng}(recorder);
  const CompactR1cs pce = recorder.finish();
  WriteOptions options;
  options.chunk_bytes = 100000;
  const fs::path path = dir.file("big.pce");
  write_cache_file(path, pce, "larger", options);
  const std::vector<std::uint8_t> good = read_bytes(path);
  std::vector<std::size_t> positions;
  for (std::size_t i = 0; i < kHeaderSize + 6; ++i) positions.push_back(i);
  for (int i = 0; i < 200; ++i) positions.push_back(static_cast<std::size_t>(rng() % good.size()));
  for (std::size_t i = good.size() - 2 * kIndexEntrySize; i < good.size(); ++i) positions.push_back(i);
  const fs::path bad = dir.file("bad.pce");
  write_bytes(bad, good);
  for (std::size_t pos : positions) {
    patch_byte(bad, pos, good[pos] ^ static_cast<std::uint8_t>(1 + rng() % 255));
    ASSERT_TRUE(read_error(bad, "larger", 2).has_value()) << "flip at byte " << pos << " went unnoticed";
    patch_byte(bad, pos, good[pos]);
  }
  EXPECT_EQ(read_error(bad, "larger", 2), std::nullopt) << "every byte restored";
}

TEST(PceFile, TruncatedAndExtendedFilesAreDetected) {
  io::TempDir dir("cuzk_pce_");
  const CompactR1cs pce = compact(groth16::make_demo_circuit().cs);
  const fs::path path = dir.file("demo.pce");
  WriteOptions options;
  options.chunk_bytes = 2048;
  write_cache_file(path, pce, kDemoDescription, options);
  const std::vector<std::uint8_t> good = read_bytes(path);
  const fs::path bad = dir.file("bad.pce");
  const std::size_t lengths[] = {0,
                                 1,
                                 7,
                                 8,
                                 11,
                                 12,
                                 100,
                                 kHeaderSize - 1,
                                 kHeaderSize,
                                 kHeaderSize + kDemoDescription.size(),
                                 good.size() / 2,
                                 good.size() - kIndexEntrySize,
                                 good.size() - 1};
  for (std::size_t len : lengths) {
    write_bytes(bad, std::span<const std::uint8_t>(good.data(), len));
    EXPECT_EQ(read_error(bad, kDemoDescription), PceErrorKind::kTruncated) << len << " bytes";
  }
  std::vector<std::uint8_t> longer = good;
  longer.push_back(0);
  write_bytes(bad, longer);
  EXPECT_EQ(read_error(bad, kDemoDescription), PceErrorKind::kCorrupt);
}

TEST(PceFile, OtherVersionOtherCircuitAndNotACacheAreNamed) {
  io::TempDir dir("cuzk_pce_");
  const CompactR1cs pce = compact(groth16::make_demo_circuit().cs);
  const fs::path path = dir.file("demo.pce");
  write_cache_file(path, pce, kDemoDescription);

  // Another circuit: the message names both descriptions.
  try {
    read_cache_file(path, std::string("demo circuit v2"));
    FAIL() << "another circuit's cache must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kOtherCircuit);
    const std::string msg = e.what();
    EXPECT_NE(msg.find(path.string()), std::string::npos) << msg;
    EXPECT_NE(msg.find(kDemoDescription), std::string::npos) << msg;
    EXPECT_NE(msg.find("demo circuit v2"), std::string::npos) << msg;
  }
  // Without an expected description any valid file reads.
  EXPECT_EQ(read_cache_file(path), pce);

  // Another format version (a future writer: version 2 in an otherwise valid layout).
  std::vector<std::uint8_t> bytes = read_bytes(path);
  bytes[8] = 2;
  const fs::path other = dir.file("other.pce");
  write_bytes(other, bytes);
  try {
    read_cache_file(other, kDemoDescription);
    FAIL() << "another format version must be refused";
  } catch (const PceError& e) {
    EXPECT_EQ(e.kind(), PceErrorKind::kVersion);
    EXPECT_NE(std::string(e.what()).find("version 2"), std::string::npos) << e.what();
  }

  const std::string text = "this is not a cache file at all, it is some text";
  write_bytes(other,
              std::span<const std::uint8_t>(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
  EXPECT_EQ(read_error(other, kDemoDescription), PceErrorKind::kNotACache);
  EXPECT_EQ(read_error(dir.file("absent.pce"), kDemoDescription), PceErrorKind::kMissing);
}

TEST(PceFile, ConcurrentWritersLeaveOneCompleteFile) {
  auto rng = test::seeded_rng("PceFile.ConcurrentWritersLeaveOneCompleteFile");
  io::TempDir dir("cuzk_pce_");
  CompactRecorder recorder;
  Sha256Circuit{rng}(recorder);
  const CompactR1cs pce = recorder.finish();
  const fs::path path = dir.file("shared.pce");
  auto writer = [&] {
    for (int i = 0; i < 4; ++i) {
      WriteOptions options;
      options.threads = 1;
      options.chunk_bytes = 50000;
      write_cache_file(path, pce, "shared", options);
    }
  };
  std::thread t1(writer), t2(writer);
  // Meanwhile a reader only ever sees no file or a complete one.
  for (int i = 0; i < 20; ++i) {
    const auto kind = read_error(path, "shared");
    EXPECT_TRUE(!kind || *kind == PceErrorKind::kMissing) << "reader saw a partial file";
  }
  t1.join();
  t2.join();
  EXPECT_EQ(read_cache_file(path, std::string("shared")), pce);
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& entry : fs::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u) << "temporary files left behind";
}

}  // namespace
}  // namespace cuzk::pce
