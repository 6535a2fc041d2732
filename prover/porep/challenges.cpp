#include "prover/porep/challenges.hpp"

#include <cstring>
#include <string_view>

#include "prover/porep/errors.hpp"
#include "prover/porep/hashing.hpp"

namespace cuzk::porep {

namespace {

std::span<const std::uint8_t> bytes_of(std::string_view s) {
  return {reinterpret_cast<const std::uint8_t*>(s.data()), s.size()};
}

// (LE integer of `bytes`) mod m, for m < 2^64.
std::uint64_t le_mod(std::span<const std::uint8_t> bytes, std::uint64_t m) {
  unsigned __int128 acc = 0;
  for (std::size_t i = bytes.size(); i-- > 0;) acc = ((acc << 8) | bytes[i]) % m;
  return static_cast<std::uint64_t>(acc);
}

// rfp bigint_to_challenge: never challenges node 0.
std::uint64_t to_challenge(std::span<const std::uint8_t> bytes, std::uint64_t nodes) {
  return le_mod(bytes, nodes - 1) + 1;
}

std::array<std::uint8_t, 4> u32_le(std::uint32_t v) {
  return {static_cast<std::uint8_t>(v), static_cast<std::uint8_t>(v >> 8), static_cast<std::uint8_t>(v >> 16),
          static_cast<std::uint8_t>(v >> 24)};
}

// IETF ChaCha20 keystream (RFC 8439): 32-byte key, 96-bit nonce, 32-bit block counter from 0.
class ChaCha20Stream {
 public:
  ChaCha20Stream(const Digest32& key, const char nonce[12]) {
    for (int i = 0; i < 8; ++i) {
      key_[i] = 0;
      for (int b = 0; b < 4; ++b) key_[i] |= static_cast<std::uint32_t>(key[4 * i + b]) << (8 * b);
    }
    for (int i = 0; i < 3; ++i) {
      nonce_[i] = 0;
      for (int b = 0; b < 4; ++b)
        nonce_[i] |= static_cast<std::uint32_t>(static_cast<std::uint8_t>(nonce[4 * i + b])) << (8 * b);
    }
  }
  // Keystream bytes [position, position + n).
  void read(std::uint64_t position, std::uint8_t* out, std::size_t n) const {
    while (n > 0) {
      std::uint32_t words[4] = {static_cast<std::uint32_t>(position / 64), nonce_[0], nonce_[1], nonce_[2]};
      std::uint32_t block[16];
      chacha_block(key_, words, 20, block);
      std::uint8_t bytes[64];
      for (int i = 0; i < 16; ++i)
        for (int b = 0; b < 4; ++b) bytes[4 * i + b] = static_cast<std::uint8_t>(block[i] >> (8 * b));
      std::size_t offset = position % 64;
      std::size_t take = std::min<std::size_t>(n, 64 - offset);
      std::memcpy(out, bytes + offset, take);
      out += take;
      n -= take;
      position += take;
    }
  }

 private:
  std::uint32_t key_[8];
  std::uint32_t nonce_[3];
};

constexpr char kSynthNonce[12] = {'s', 'y', 'n', 't', 'h', '-', 'p', 'o', 'r', 'e', 'p', '\0'};
constexpr std::uint64_t kDefaultSynthChallengeCount = 1ull << 18;  // rfp DEFAULT_SYNTH_CHALLENGE_COUNT

Digest32 synth_key(std::string_view tag, const Domain& a, const Domain& b) {
  std::uint8_t msg[64];
  std::memcpy(msg, a.data(), 32);
  std::memcpy(msg + 32, b.data(), 32);
  return blake2b256_keyed(bytes_of(tag), msg);
}

}  // namespace

std::vector<std::uint64_t> interactive_challenges(std::uint64_t nodes, const Domain& replica_id, const Domain& seed,
                                                  unsigned challenges_per_partition, std::uint8_t k) {
  std::vector<std::uint64_t> out;
  for (unsigned i = 0; i < challenges_per_partition; ++i) {
    auto j = u32_le(challenges_per_partition * k + i);
    Digest32 h = sha256({replica_id, seed, j});
    out.push_back(to_challenge(h, nodes));
  }
  return out;
}

std::vector<std::uint64_t> ni_challenges(std::uint64_t nodes, const Domain& replica_id, const Domain& comm_r,
                                         unsigned challenges_per_partition, std::uint8_t k) {
  std::vector<std::uint64_t> out;
  for (unsigned i = 0; i < challenges_per_partition; ++i) {
    auto j = u32_le(challenges_per_partition * k + i);
    Digest32 h = sha256({bytes_of("filecoin.io|PoRep|1|NonInteractive|1"), replica_id, comm_r, j});
    out.push_back(to_challenge(h, nodes));
  }
  return out;
}

std::uint64_t default_num_synth_challenges(std::uint64_t nodes) {
  return std::min(nodes, kDefaultSynthChallengeCount);
}

std::uint64_t synthetic_challenge(std::uint64_t nodes, const Domain& replica_id, const Domain& comm_r,
                                  std::uint64_t i) {
  ChaCha20Stream stream(synth_key("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r), kSynthNonce);
  std::uint8_t bytes[32];
  stream.read(32 * i, bytes, 32);
  return to_challenge(bytes, nodes);
}

std::vector<std::uint64_t> synthetic_porep_challenges(std::uint64_t nodes, const Domain& replica_id,
                                                      const Domain& comm_r, const Domain& seed,
                                                      unsigned challenges_per_partition, std::uint8_t k,
                                                      std::uint64_t num_synth) {
  ChaCha20Stream select(synth_key("filecoin.io|PoRep|1|Synthetic|1|Selection", replica_id, seed), kSynthNonce);
  ChaCha20Stream generate(synth_key("filecoin.io|PoRep|1|Synthetic|1|Generation", replica_id, comm_r),
                          kSynthNonce);
  std::vector<std::uint64_t> out;
  for (unsigned i = 0; i < challenges_per_partition; ++i) {
    std::uint8_t index_bytes[4];
    select.read(4 * (static_cast<std::uint64_t>(k) * challenges_per_partition + i), index_bytes, 4);
    std::uint32_t raw = static_cast<std::uint32_t>(index_bytes[0]) | static_cast<std::uint32_t>(index_bytes[1]) << 8 |
                        static_cast<std::uint32_t>(index_bytes[2]) << 16 |
                        static_cast<std::uint32_t>(index_bytes[3]) << 24;
    std::uint64_t index = raw % num_synth;
    std::uint8_t bytes[32];
    generate.read(32 * index, bytes, 32);
    out.push_back(to_challenge(bytes, nodes));
  }
  return out;
}

std::vector<std::uint64_t> partition_challenges(const RegisteredSealProof& proof, const Domain& replica_id,
                                                const Domain& comm_r, const Domain& seed, unsigned k) {
  const SectorShape& s = *proof.shape;
  auto k8 = static_cast<std::uint8_t>(k);  // rfp passes k as u8 (docs/circuit.md §2)
  switch (proof.feature) {
    case PorepFeature::kInteractive:
      return interactive_challenges(s.nodes, replica_id, seed, s.challenges_per_partition, k8);
    case PorepFeature::kSynthetic:
      return synthetic_porep_challenges(s.nodes, replica_id, comm_r, seed, s.challenges_per_partition, k8,
                                        default_num_synth_challenges(s.nodes));
    case PorepFeature::kNonInteractive:
      return ni_challenges(s.nodes, replica_id, comm_r, s.challenges_per_partition, k8);
  }
  return {};
}

Domain replica_id(const Domain& prover_id, std::uint64_t sector_id, const Domain& ticket, const Domain& comm_d,
                  const std::array<std::uint8_t, 32>& porep_id) {
  std::uint8_t sector_be[8];
  for (int b = 0; b < 8; ++b) sector_be[b] = static_cast<std::uint8_t>(sector_id >> (56 - 8 * b));
  Digest32 h = sha256({prover_id, sector_be, ticket, comm_d, porep_id});
  trim_to_fr32(h);
  return h;
}

Domain prover_id_from_miner_id(std::uint64_t miner_id) {
  Domain out{};
  std::size_t pos = 0;
  do {
    std::uint8_t byte = miner_id & 0x7f;
    miner_id >>= 7;
    if (miner_id) byte |= 0x80;
    out[pos++] = byte;
  } while (miner_id);
  return out;
}

algebra::Fr domain_to_fr(const Domain& d, const char* what) {
  algebra::Fr f;
  if (!algebra::Fr::from_bytes_le(d.data(), f))
    throw PorepError(std::string(what) + " is not a canonical field element (>= r)");
  return f;
}

std::vector<algebra::Fr> generate_public_inputs(const RegisteredSealProof& proof, const Domain& replica_id_bytes,
                                                const Domain& comm_d, const Domain& comm_r, const Domain& seed,
                                                unsigned k) {
  using algebra::Fr;
  std::vector<Fr> inputs = {domain_to_fr(replica_id_bytes, "replica_id"), domain_to_fr(comm_d, "comm_d"),
                            domain_to_fr(comm_r, "comm_r")};
  StackedGraph graph(proof.shape->nodes, proof.porep_id(), proof.api_version);
  for (std::uint64_t c : partition_challenges(proof, replica_id_bytes, comm_r, seed, k)) {
    Fr challenge = Fr::from_u64(c);
    inputs.push_back(challenge);  // comm_d inclusion path index
    std::uint32_t parents[kGraphParents];
    graph.parents(c, parents);
    for (std::uint32_t p : parents) inputs.push_back(Fr::from_u64(p));  // tree C paths of the 14 parents
    inputs.push_back(challenge);  // challenge_num packed into an input
    inputs.push_back(challenge);  // comm_r_last inclusion path index
    inputs.push_back(challenge);  // c_x inclusion path index
  }
  return inputs;
}

}  // namespace cuzk::porep
