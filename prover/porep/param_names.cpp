#include "io/param_names.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <openssl/evp.h>
#include <openssl/sha.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <memory>
#include <vector>

#include "io/io_error.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::io {
namespace {

// rfp storage-proofs-core/src/parameter_cache.rs: `pub const VERSION: usize = 28;`
constexpr int kParameterVersion = 28;
// rfp storage-proofs-core/src/drgraph.rs BASE_DEGREE and storage-proofs-porep/.../graph.rs EXP_DEGREE.
constexpr int kDrgDegree = 6;
constexpr int kExpansionDegree = 8;
std::string to_hex(const unsigned char* bytes, std::size_t n) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out(2 * n, '0');
  for (std::size_t i = 0; i < n; ++i) {
    out[2 * i] = kDigits[bytes[i] >> 4];
    out[2 * i + 1] = kDigits[bytes[i] & 0xf];
  }
  return out;
}

// parameters.json entries for the PoRep circuits, copied from
// rust-fil-proofs' root parameters.json
// (44 entries; these are the ten StackedDrg PoRep v28 ones). cid = IPFS CID, digest = first 32 hex
// chars of BLAKE2b-512, sector_size in bytes.
constexpr ManifestEntry kPorepManifest[] = {
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.params",
     "QmWceMgnWYLopMuM4AoGMvGEau7tNe5UK83XFjH5V9B17h", "434fb1338ecfaf0f59256f30dde4968f", 2048},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "032d3138d22506ec0082ed72b2dcba18df18477904e35bafee82b3793b06832f.vk",
     "QmamahpFCstMUqHi2qGtVoDnRrsXhid86qsfvoyCTKJqHr", "dc1ade9929ade1708238f155343044ac", 2048},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.params",
     "QmPXAPPuQtuQz7Zz3MHMAMEtsYwqM1o9H1csPLeiMUQwZH", "09e612e4eeb7a0eb95679a88404f960c", 8388608},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "ecd683648512ab1765faa2a5f14bab48f676e633467f0aa8aad4b55dcb0652bb.vk",
     "QmYCuipFyvVW1GojdMrjK1JnMobXtT4zRCZs1CGxjizs99", "b687beb9adbd9dabe265a7e3620813e4", 8388608},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.params",
     "QmYBpTt7LWNAWr1JXThV5VxX7wsQFLd1PHrGYVbrU1EZjC", "6c77597eb91ab936c1cef4cf19eba1b3", 536870912},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-0-0-sha256_hasher-"
     "6babf46ce344ae495d558e7770a585b2382d54f225af8ed0397b8be7c3fcd472.vk",
     "QmWionkqH2B6TXivzBSQeSyBxojaiAFbzhjtwYRrfwd8nH", "065179da19fbe515507267677f02823e", 536870912},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.params",
     "QmengpM684XLQfG8754ToonszgEg2bQeAGUan5uXTHUQzJ", "6a388072a518cf46ebd661f5cc46900a", 34359738368},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-0-sha256_hasher-"
     "82a357d2f2ca81dc61bb45f4a762807aedee1b0a53fd6c4e77b46a01bfef7820.vk",
     "Qmf93EMrADXAK6CyiSfE8xx45fkMfR3uzKEPCvZC1n2kzb", "0c7b4aac1c40fdb7eb82bc355b41addf", 34359738368},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.params",
     "QmS7ye6Ri2MfFzCkcUJ7FQ6zxDKuJ6J6B8k5PN7wzSR9sX", "1801f8a6e1b00bceb00cc27314bb5ce3", 68719476736},
    {"v28-stacked-proof-of-replication-merkletree-poseidon_hasher-8-8-2-sha256_hasher-"
     "96f1b4a04c5c51e4759bbf224bbc2ef5a42c7100f16ec0637123f16a845ddfb2.vk",
     "QmehSmC6BhrgRZakPDta2ewoH9nosNzdjCqQRXsNFNUkLN", "a89884252c04c298d0b3c81bfd884164", 68719476736},
};

struct Fd {
  int fd;
  ~Fd() {
    if (fd >= 0) ::close(fd);
  }
};

struct MdCtxDeleter {
  void operator()(EVP_MD_CTX* ctx) const { EVP_MD_CTX_free(ctx); }
};

}  // namespace

// The sector shapes live in prover/porep/registered_proof.hpp (docs/circuit.md §1); these wrap them.
std::string_view format_sector_size(SectorSize s) {
  const porep::SectorShape* shape = porep::find_sector_shape(sector_bytes(s));
  return shape ? shape->label : "?";
}

std::optional<SectorSize> parse_sector_size(std::string_view text) {
  if (text.empty()) return std::nullopt;
  const porep::SectorShape* shape = porep::parse_sector_size(text);
  if (!shape) return std::nullopt;
  return static_cast<SectorSize>(shape->sector_size);
}

PorepShape porep_shape(SectorSize s) {
  const porep::SectorShape* shape = porep::find_sector_shape(sector_bytes(s));
  if (!shape) return {};
  return {shape->nodes, shape->layers, shape->partitions, shape->challenges_per_partition,
          shape->base_arity, shape->sub_arity, shape->top_arity};
}

std::string porep_public_params_identifier(SectorSize s) {
  const PorepShape shape = porep_shape(s);
  return fmt::format(
      "layered_drgporep::PublicParams{{ graph: stacked_graph::StackedGraph{{expansion_degree: {} base_graph: "
      "drgraph::BucketGraph{{size: {}; degree: {}; hasher: poseidon_hasher}} }}, challenges: LayerChallenges "
      "{{ "
      "layers: {}, max_count: {} }}, tree: merkletree-poseidon_hasher-{}-{}-{} }}",
      kExpansionDegree, shape.nodes, kDrgDegree, shape.layers, shape.challenges_per_partition,
      shape.base_arity, shape.sub_arity, shape.top_arity);
}

std::string porep_identifier_sha256(SectorSize s) {
  const std::string id = porep_public_params_identifier(s);
  unsigned char digest[SHA256_DIGEST_LENGTH];
  SHA256(reinterpret_cast<const unsigned char*>(id.data()), id.size(), digest);
  return to_hex(digest, sizeof digest);
}

std::string porep_cache_identifier(SectorSize s) {
  const PorepShape shape = porep_shape(s);
  // StackedCompound cache_prefix: "stacked-proof-of-replication-{Tree::display()}-sha256_hasher".
  return fmt::format("stacked-proof-of-replication-merkletree-poseidon_hasher-{}-{}-{}-sha256_hasher-{}",
                     shape.base_arity, shape.sub_arity, shape.top_arity, porep_identifier_sha256(s));
}

std::string_view extension(ParamFileKind kind) {
  switch (kind) {
    case ParamFileKind::kParams:
      return "params";
    case ParamFileKind::kVerifyingKey:
      return "vk";
    case ParamFileKind::kMeta:
      return "meta";
  }
  return "";
}

std::string porep_param_file_name(SectorSize s, ParamFileKind kind) {
  return fmt::format("v{}-{}.{}", kParameterVersion, porep_cache_identifier(s), extension(kind));
}

std::span<const ManifestEntry> porep_manifest() {
  return kPorepManifest;
}

std::optional<ManifestEntry> find_manifest_entry(std::string_view file_name) {
  for (const ManifestEntry& e : kPorepManifest) {
    if (e.file_name == file_name) return e;
  }
  return std::nullopt;
}

std::filesystem::path parameter_cache_dir() {
  // rfp storage-proofs-core/src/settings.rs: setting parameter_cache, env prefix FIL_PROOFS.
  const char* env = std::getenv("FIL_PROOFS_PARAMETER_CACHE");
  if (env != nullptr && *env != '\0') return env;
  return "/var/tmp/filecoin-proof-parameters";
}

std::string blake2b512_file_hex(const std::filesystem::path& path) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw IoError(path.string(), std::strerror(errno));
  std::unique_ptr<EVP_MD_CTX, MdCtxDeleter> ctx(EVP_MD_CTX_new());
  if (!ctx || EVP_DigestInit_ex(ctx.get(), EVP_blake2b512(), nullptr) != 1) {
    throw IoError(path.string(), "cannot initialise BLAKE2b-512 (OpenSSL)");
  }
  // 4 MiB chunks: large enough that the syscall cost vanishes next to hashing, small on the stack-free heap.
  std::vector<unsigned char> buffer(std::size_t{4} << 20);
  std::uint64_t offset = 0;
  for (;;) {
    ssize_t n = ::read(file.fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw IoError(path.string(), std::strerror(errno), offset);
    }
    if (n == 0) break;
    EVP_DigestUpdate(ctx.get(), buffer.data(), static_cast<std::size_t>(n));
    offset += static_cast<std::uint64_t>(n);
  }
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_DigestFinal_ex(ctx.get(), digest, &len);
  return to_hex(digest, len);
}

std::string filecoin_param_digest(const std::filesystem::path& path) {
  return blake2b512_file_hex(path).substr(0, 32);
}

}  // namespace cuzk::io
