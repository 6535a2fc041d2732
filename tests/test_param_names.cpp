// Filecoin parameter names, manifest and digests against the published values in
// rust-fil-proofs' root parameters.json (docs/formats.md, "File names, digests, directory").
#include <gtest/gtest.h>
#include <unistd.h>

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <set>
#include <string>
#include <vector>

#include "io/io_error.hpp"
#include "io/param_names.hpp"
#include "prover/porep/param_names.hpp"
#include "prover/porep/registered_proof.hpp"
#include "prover/update/input_file.hpp"
#include "prover/update/param_names.hpp"
#include "prover/update/shape.hpp"

namespace cuzk::porep {
namespace {

using io::parameter_cache_dir;

const SectorShape& shape(const char* label) {
  return *parse_sector_size(label);
}

// The SHA-256 file ids of the ten PoRep entries of rust-fil-proofs' parameters.json.
struct PublishedSuffix {
  const char* size;
  const char* sha256;
  const char* shape;
};
constexpr PublishedSuffix kPublished[] = {
    {"2KiB", "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f", "8-0-0"},
    {"8MiB", "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb", "8-0-0"},
    {"512MiB", "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472", "8-0-0"},
    {"32GiB", "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820", "8-8-0"},
    {"64GiB", "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2", "8-8-2"},
};

TEST(ParamNames, IdentifierSha256MatchesPublishedSuffixForAllSizes) {
  for (const auto& p : kPublished) {
    EXPECT_EQ(identifier_sha256(shape(p.size)), p.sha256) << p.size;
    EXPECT_EQ(cache_identifier(shape(p.size)),
              std::string("stacked-proof-of-replication-merkletree-poseidon_hasher-") + p.shape +
                  "-sha256_hasher-" + p.sha256);
  }
}

TEST(ParamNames, Full2KiBNamesEqualTheManifest) {
  // The 2KiB entries of rust-fil-proofs' parameters.json.
  const std::string stem =
      "v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
      "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f";
  EXPECT_EQ(param_file_name(shape("2KiB"), ParamFileKind::kParams), stem + ".params");
  EXPECT_EQ(param_file_name(shape("2KiB"), ParamFileKind::kVerifyingKey), stem + ".vk");
  EXPECT_EQ(param_file_name(shape("2KiB"), ParamFileKind::kMeta), stem + ".meta");
}

TEST(ParamNames, Identifier2KiBIsTheRfpFormat) {
  // rfp layered_drgporep::PublicParams::identifier() with N = 2048/32 = 64, 2 layers, 2 challenges.
  EXPECT_EQ(
      public_params_identifier(shape("2KiB")),
      "layered_drgporep::PublicParams{ graph: stacked_graph::StackedGraph{expansion_degree: 8 base_graph: "
      "drgraph::BucketGraph{size: 64; degree: 6; hasher: poseidon_hasher} }, challenges: LayerChallenges { "
      "layers: 2, max_count: 2 }, tree: merkletree-poseidon_hasher-8-0-0 }");
}

TEST(ParamNames, ShapesFollowRustFilProofs) {
  // rfp filecoin-proofs/src/constants.rs (docs/circuit.md §1).
  EXPECT_EQ(shape("2KiB").nodes, 64u);
  EXPECT_EQ(shape("8MiB").nodes, std::uint64_t{1} << 18);
  EXPECT_EQ(shape("512MiB").nodes, std::uint64_t{1} << 24);
  EXPECT_EQ(shape("32GiB").nodes, std::uint64_t{1} << 30);
  EXPECT_EQ(shape("64GiB").nodes, std::uint64_t{1} << 31);
  EXPECT_EQ(shape("32GiB").layers, 11u);
  EXPECT_EQ(shape("32GiB").partitions, 10u);
  EXPECT_EQ(shape("32GiB").challenges_per_partition, 18u);
  EXPECT_EQ(shape("2KiB").partitions, 1u);
  for (const SectorShape& s : all_sector_shapes()) EXPECT_EQ(s.nodes * kNodeBytes, s.sector_size) << s.label;
  // The verifying key's ic length: 40 for 2 challenges, 328 for 18 (rfp PR #1325 for 32GiB).
  EXPECT_EQ(shape("2KiB").inputs_per_partition(), 40u);
  EXPECT_EQ(shape("32GiB").inputs_per_partition(), 328u);
}

TEST(ParamNames, ManifestHasOneParamsAndOneVkPerSizeAndNamesMatchComputed) {
  ASSERT_EQ(porep_manifest().size(), 10u);
  std::set<std::string> names;
  for (const ManifestEntry& e : porep_manifest()) {
    names.insert(std::string(e.file_name));
    EXPECT_EQ(e.digest.size(), 32u) << e.file_name;
    EXPECT_EQ(e.cid.substr(0, 2), "Qm") << e.file_name;
  }
  for (const SectorShape& s : all_sector_shapes()) {
    for (ParamFileKind kind : {ParamFileKind::kParams, ParamFileKind::kVerifyingKey}) {
      const std::string name = param_file_name(s, kind);
      EXPECT_EQ(names.count(name), 1u) << name;
      auto entry = find_manifest_entry(name);
      ASSERT_TRUE(entry.has_value()) << name;
      EXPECT_EQ(entry->sector_size, s.sector_size);
    }
  }
  // rust-fil-proofs' parameters.json, the 2KiB .vk entry.
  auto vk = find_manifest_entry(param_file_name(shape("2KiB"), ParamFileKind::kVerifyingKey));
  ASSERT_TRUE(vk.has_value());
  EXPECT_EQ(vk->digest, "dc1ade9929ade1708238f155343044ac");
  EXPECT_EQ(vk->cid, "QmamahpFCstMUqHi2qGtVoDnRrsXhid86qsfvoyCTKJqHr");
  EXPECT_FALSE(find_manifest_entry("v28-unknown.params").has_value());
}

TEST(ParamNames, SectorSizeParse) {
  for (const SectorShape& s : all_sector_shapes()) {
    EXPECT_EQ(parse_sector_size(s.label), &s);
    EXPECT_EQ(parse_sector_size(std::to_string(s.sector_size)), &s);
  }
  EXPECT_EQ(parse_sector_size("2kib"), &shape("2KiB"));
  EXPECT_EQ(parse_sector_size("2048"), &shape("2KiB"));
  EXPECT_EQ(parse_sector_size("34359738368"), &shape("32GiB"));
  EXPECT_EQ(shape("512MiB").label, "512MiB");
  EXPECT_EQ(parse_sector_size("4KiB"), nullptr);  // a test-only shape, no production parameters
  EXPECT_EQ(parse_sector_size("4096"), nullptr);
  EXPECT_EQ(parse_sector_size(""), nullptr);
  EXPECT_EQ(parse_sector_size("2048x"), nullptr);
  EXPECT_EQ(parse_sector_size("-2048"), nullptr);
}

TEST(ParamNames, CacheDirFollowsEnvironment) {
  const char* saved = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  std::string saved_value = saved ? saved : "";
  ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  EXPECT_EQ(parameter_cache_dir(), std::filesystem::path("/var/tmp/filecoin-proof-parameters"));
  ::setenv("FIL_PROOFS_PARAMETER_CACHE", "/tmp/some-params", 1);
  EXPECT_EQ(parameter_cache_dir(), std::filesystem::path("/tmp/some-params"));
  if (saved) {
    ::setenv("FIL_PROOFS_PARAMETER_CACHE", saved_value.c_str(), 1);
  } else {
    ::unsetenv("FIL_PROOFS_PARAMETER_CACHE");
  }
}

class Blake2bFile : public ::testing::Test {
 protected:
  std::filesystem::path write(const std::vector<unsigned char>& bytes) {
    path_ = std::filesystem::temp_directory_path() / ("cuzk_test_blake2b_" + std::to_string(::getpid()));
    std::ofstream out(path_, std::ios::binary);
    out.write(reinterpret_cast<const char*>(bytes.data()), static_cast<std::streamsize>(bytes.size()));
    return path_;
  }
  void TearDown() override {
    if (!path_.empty()) std::filesystem::remove(path_);
  }
  std::filesystem::path path_;
};

TEST_F(Blake2bFile, RfcVectors) {
  // RFC 7693 Appendix A: BLAKE2b-512("abc").
  auto abc = write({'a', 'b', 'c'});
  EXPECT_EQ(blake2b512_file_hex(abc),
            "ba80a53f981c4d0d6a2797b69f12f6e94c212f14685ac4b74b12bb6fdbffa2d17d87c5392aab792dc252d5de4533cc95"
            "18d38aa8dbf1925ab92386edd4009923");
  EXPECT_EQ(filecoin_param_digest(abc), "ba80a53f981c4d0d6a2797b69f12f6e9");
  // BLAKE2b-512 of the empty string (Python hashlib.blake2b(b'').hexdigest()).
  auto empty = write({});
  EXPECT_EQ(blake2b512_file_hex(empty),
            "786a02f742015903c6c6fd852552d272912f4740e15847618a86e217f71f5419d25e1031afee585313896444934eb04b"
            "903a685b1448b755d56f701afe9be2ce");
}

TEST_F(Blake2bFile, LargerThanOneReadChunk) {
  // 9 MiB + 123 bytes, byte i = (31 i + 7) mod 256; digest from Python's hashlib (independent of OpenSSL):
  // hashlib.blake2b(bytes((i*31+7)&0xff for i in range(9*(1<<20)+123))).hexdigest()
  std::vector<unsigned char> data((std::size_t{9} << 20) + 123);
  for (std::size_t i = 0; i < data.size(); ++i) data[i] = static_cast<unsigned char>((i * 31 + 7) & 0xff);
  auto path = write(data);
  EXPECT_EQ(blake2b512_file_hex(path),
            "3f173086362e93dac1f3a9d41e35b676ddda283b869eb71e30b4adf20075e767eeca3c28ae3bce784ed41121492930"
            "376ec1972262d7b477393ef307dac9a16f");
}

TEST(Blake2bFileErrors, MissingFileThrowsIoErrorNamingIt) {
  try {
    blake2b512_file_hex("/nonexistent/cuzk/file.params");
    FAIL() << "no exception";
  } catch (const io::IoError& e) {
    EXPECT_NE(std::string(e.what()).find("/nonexistent/cuzk/file.params"), std::string::npos);
  }
}

// The update (SnapDeals) entries of lotus' parameters.json: one .params and one .vk per registered size,
// sharing one file id, each name carrying the size's TreeR arities, a CIDv0 and a 32-hex-digit digest, and
// none of them a PoRep name.
TEST(UpdateParamNames, OnePairPerRegisteredSize) {
  ASSERT_EQ(update::update_manifest().size(), 10u);
  std::set<std::string> names;
  for (const update::RegisteredUpdateProof& p : update::registered_update_proofs()) {
    SCOPED_TRACE(p.name);
    const update::UpdateShape& s = p.shape();
    const auto params = update::find_update_manifest_entry(s.sector_bytes(), ParamFileKind::kParams);
    const auto vk = update::find_update_manifest_entry(s.sector_bytes(), ParamFileKind::kVerifyingKey);
    ASSERT_TRUE(params && vk);
    const std::string arities = "-poseidon_hasher-" + std::to_string(s.tree_r.base_arity) + "-" +
                                std::to_string(s.tree_r.sub_arity) + "-" +
                                std::to_string(s.tree_r.top_arity) + "-";
    const std::string p_name(params->file_name), v_name(vk->file_name);
    EXPECT_EQ(p_name.rfind("v28-empty-sector-update-merkletree" + arities, 0), 0u) << p_name;
    EXPECT_TRUE(p_name.ends_with(".params")) << p_name;
    EXPECT_EQ(p_name.substr(0, p_name.size() - 7) + ".vk", v_name);
    EXPECT_EQ(p_name.size(),
              std::string("v28-empty-sector-update-merkletree-poseidon_hasher-8-0-0-").size() + 64 + 7);
    for (const ManifestEntry* e : {&*params, &*vk}) {
      EXPECT_EQ(e->cid.size(), 46u);
      EXPECT_EQ(e->cid.substr(0, 2), "Qm");
      EXPECT_EQ(e->digest.size(), 32u);
      EXPECT_EQ(e->digest.find_first_not_of("0123456789abcdef"), std::string_view::npos);
      EXPECT_FALSE(find_manifest_entry(e->file_name).has_value());  // not a PoRep file
      names.insert(std::string(e->file_name));
    }
  }
  EXPECT_EQ(names.size(), 10u);
  EXPECT_FALSE(update::find_update_manifest_entry(4096, ParamFileKind::kParams).has_value());
  EXPECT_FALSE(update::find_update_manifest_entry(2048, ParamFileKind::kMeta).has_value());
  // lotus' 32GiB pair, as published.
  EXPECT_EQ(update::find_update_manifest_entry(34359738368u, ParamFileKind::kVerifyingKey)->digest,
            "3a6941983754737fde880d29c7094905");
}

}  // namespace
}  // namespace cuzk::porep
