#include "prover/porep/param_names.hpp"

#include <fcntl.h>
#include <fmt/format.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <vector>

#include "io/io_error.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/hash/hash.hpp"

namespace cuzk::porep {
namespace {

// rfp storage-proofs-core/src/parameter_cache.rs: `pub const VERSION: usize = 28;`
constexpr int kParameterVersion = 28;
// parameters.json entries for the PoRep circuits, copied from rust-fil-proofs' root parameters.json
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

}  // namespace

std::string public_params_identifier(const SectorShape& shape) {
  return fmt::format(
      "layered_drgporep::PublicParams{{ graph: stacked_graph::StackedGraph{{expansion_degree: {} base_graph: "
      "drgraph::BucketGraph{{size: {}; degree: {}; hasher: poseidon_hasher}} }}, challenges: LayerChallenges "
      "{{ layers: {}, max_count: {} }}, tree: merkletree-poseidon_hasher-{}-{}-{} }}",
      kExpanderParents, shape.nodes, kDrgParents, shape.layers, shape.challenges_per_partition,
      shape.base_arity, shape.sub_arity, shape.top_arity);
}

std::string identifier_sha256(const SectorShape& shape) {
  return algebra::bytes_to_hex(hash::sha256(public_params_identifier(shape)));
}

std::string cache_identifier(const SectorShape& shape) {
  // StackedCompound cache_prefix: "stacked-proof-of-replication-{Tree::display()}-sha256_hasher".
  return fmt::format("stacked-proof-of-replication-merkletree-poseidon_hasher-{}-{}-{}-sha256_hasher-{}",
                     shape.base_arity, shape.sub_arity, shape.top_arity, identifier_sha256(shape));
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

std::string param_file_name(const SectorShape& shape, ParamFileKind kind) {
  return fmt::format("v{}-{}.{}", kParameterVersion, cache_identifier(shape), extension(kind));
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

std::string blake2b512_file_hex(const std::filesystem::path& path) {
  Fd file{::open(path.c_str(), O_RDONLY | O_CLOEXEC)};
  if (file.fd < 0) throw io::IoError(path.string(), std::strerror(errno));
  hash::Blake2b512 blake2b;
  // 4 MiB chunks: large enough that the syscall cost vanishes next to hashing, small on the stack-free heap.
  std::vector<std::uint8_t> buffer(std::size_t{4} << 20);
  std::uint64_t offset = 0;
  for (;;) {
    ssize_t n = ::read(file.fd, buffer.data(), buffer.size());
    if (n < 0) {
      if (errno == EINTR) continue;
      throw io::IoError(path.string(), std::strerror(errno), offset);
    }
    if (n == 0) break;
    blake2b.update({buffer.data(), static_cast<std::size_t>(n)});
    offset += static_cast<std::uint64_t>(n);
  }
  return algebra::bytes_to_hex(blake2b.finish());
}

std::string filecoin_param_digest(const std::filesystem::path& path) {
  return blake2b512_file_hex(path).substr(0, 32);
}

}  // namespace cuzk::porep
