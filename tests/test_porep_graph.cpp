// The SDR parent graph and labels against rust-fil-proofs' published values (docs/circuit.md §3, §9).
#include <gtest/gtest.h>

#include <openssl/evp.h>

#include <random>
#include <vector>

#include "prover/algebra/hex_bytes.hpp"
#include "prover/porep/graph.hpp"
#include "prover/porep/hashing.hpp"
#include "prover/porep/challenges.hpp"
#include "prover/porep/labels.hpp"

using namespace cuzk::porep;

namespace {

std::array<std::uint8_t, 32> filled(std::uint8_t v) {
  std::array<std::uint8_t, 32> a;
  a.fill(v);
  return a;
}

std::vector<std::uint32_t> parents_of(const StackedGraph& g, std::uint64_t node) {
  std::uint32_t p[kGraphParents];
  g.parents(node, p);
  return {p, p + kGraphParents};
}

std::string hex(const Digest32& d) { return cuzk::algebra::bytes_to_hex(d); }

// SHA-256 of the parent cache file: 14 LE u32 parents per node, nodes 0..N-1 (docs/circuit.md §3).
std::string parent_cache_digest(const StackedGraph& g) {
  std::vector<std::uint8_t> bytes;
  bytes.reserve(g.nodes() * kGraphParents * 4);
  for (std::uint64_t v = 0; v < g.nodes(); ++v) {
    std::uint32_t p[kGraphParents];
    g.parents(v, p);
    for (auto x : p)
      for (int b = 0; b < 4; ++b) bytes.push_back(static_cast<std::uint8_t>(x >> (8 * b)));
  }
  return hex(sha256(bytes));
}

}  // namespace

TEST(StackedGraph, PublishedParentExamples) {
  // Parents derived with the algorithm of docs/circuit.md §3 (it reproduces parent_cache.json).
  const auto* v1_1 = find_registered_seal_proof("StackedDrg2KiBV1_1");
  StackedGraph g(64, v1_1->porep_id(), v1_1->api_version);
  EXPECT_EQ(parents_of(g, 2), (std::vector<std::uint32_t>{1, 1, 1, 0, 1, 0, 30, 28, 55, 63, 63, 36, 37, 36}));
  EXPECT_EQ(parents_of(g, 63), (std::vector<std::uint32_t>{62, 15, 42, 62, 61, 62, 0, 15, 30, 30, 28, 42, 49, 38}));
  const auto* v1 = find_registered_seal_proof("StackedDrg2KiBV1");
  StackedGraph g0(64, v1->porep_id(), v1->api_version);
  EXPECT_EQ(parents_of(g0, 2), (std::vector<std::uint32_t>{0, 1, 1, 1, 1, 1, 32, 49, 26, 57, 3, 4, 47, 63}));
  const auto* big = find_registered_seal_proof("StackedDrg32GiBV1_1");
  StackedGraph g32(1ull << 30, big->porep_id(), big->api_version);
  EXPECT_EQ(parents_of(g32, 1000000),
            (std::vector<std::uint32_t>{999999, 728553, 970851, 951019, 995617, 999435, 89708585, 9031128, 72417564,
                                        743307104, 529092067, 472410944, 699455360, 465952275}));
}

TEST(StackedGraph, ParentCacheDigestsOfRustFilProofs) {
  // rust-fil-proofs storage-proofs-porep/parent_cache.json (v28), entries for 2KiB and 8MiB with the
  // V1 and V1_1 porep_ids (which entry is which is fixed by the file names, docs/circuit.md §3).
  struct Case {
    const char* proof;
    const char* digest;
  };
  std::vector<std::string> digests;
  for (const char* name : {"StackedDrg2KiBV1", "StackedDrg2KiBV1_1", "StackedDrg8MiBV1", "StackedDrg8MiBV1_1"}) {
    const auto* p = find_registered_seal_proof(name);
    StackedGraph g(p->shape->nodes, p->porep_id(), p->api_version);
    digests.push_back(parent_cache_digest(g));
  }
  // The manifest lists two 2KiB and two 8MiB digests; each of ours must be one of them, and distinct.
  auto one_of = [](const std::string& d, std::initializer_list<const char*> options) {
    for (const char* o : options)
      if (d == o) return true;
    return false;
  };
  EXPECT_TRUE(one_of(digests[0], {"3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
                                  "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"}))
      << digests[0];
  EXPECT_TRUE(one_of(digests[1], {"3da49221e2ed55371b86d0bf3d6526fcf128af61bed904f966428db1b531750d",
                                  "840057702eea7652cf97e04306c30fe57174714d90de156a25eddd6075c25b97"}))
      << digests[1];
  EXPECT_NE(digests[0], digests[1]);
  EXPECT_TRUE(one_of(digests[2], {"03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
                                  "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"}))
      << digests[2];
  EXPECT_TRUE(one_of(digests[3], {"03cd13565ded97c240a5f52e54295ad127bd0461b57904cb3a4d79b097bbecab",
                                  "a76604f2f59f2744c7151653bbb1d8596b6b57d295e6fa6c1f0c41d725b502ce"}))
      << digests[3];
  EXPECT_NE(digests[2], digests[3]);
}

TEST(Labels, LastLabelVectorsOfRustFilProofs) {
  // rfp storage-proofs-porep/tests/stacked_vanilla.rs test_stacked_porep_generate_labels:
  // 11 layers, replica_id [9; 32], last label of node N-1, expected as canonical LE u64 limbs.
  struct Case {
    std::uint64_t nodes;
    std::uint8_t porep_byte;
    ApiVersion api;
    std::array<std::uint64_t, 4> limbs;
  };
  const Case cases[] = {
      {64, 0, ApiVersion::kV1_0_0, {0xd3faa96b9a0fba04, 0xea81a283d106485e, 0xe3d51b9afa5ac2b3, 0x0462f4f4f1a68d37}},
      {128, 0, ApiVersion::kV1_0_0, {0x7e191e52c4a8da86, 0x5ae8a1c9e6fac148, 0xce239f3b88a894b8, 0x234c00d1dc1d53be}},
      {64, 123, ApiVersion::kV1_1_0, {0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
      {128, 123, ApiVersion::kV1_1_0, {0x22ab81cf68c4676d, 0x7a77a82fc7c9c189, 0xc6c03d32c1e42d23, 0x0f777c18cc2c55bd}},
      {64, 123, ApiVersion::kV1_2_0, {0xabb3f38bb70defcf, 0x777a2e4d7769119f, 0x3448959d495490bc, 0x06021188c7a71cb5}},
  };
  for (const auto& c : cases) {
    StackedGraph g(c.nodes, filled(c.porep_byte), c.api);
    auto labels = generate_labels(g, 11, filled(9));
    Domain expected;
    for (int i = 0; i < 32; ++i) expected[i] = static_cast<std::uint8_t>(c.limbs[i / 8] >> (8 * (i % 8)));
    EXPECT_EQ(labels[10][c.nodes - 1], expected) << "nodes " << c.nodes << " porep_id byte " << int(c.porep_byte);
  }
}

TEST(Hashing, ChaCha20MatchesRfc8439) {
  // RFC 8439 section 2.3.2 test vector: key 00..1f, counter 1, nonce 00:00:00:09:00:00:00:4a:00:00:00:00.
  std::uint32_t key[8];
  for (int i = 0; i < 8; ++i)
    key[i] = static_cast<std::uint32_t>(4 * i) | static_cast<std::uint32_t>(4 * i + 1) << 8 |
             static_cast<std::uint32_t>(4 * i + 2) << 16 | static_cast<std::uint32_t>(4 * i + 3) << 24;
  std::uint32_t words[4] = {1, 0x09000000, 0x4a000000, 0};
  std::uint32_t out[16];
  chacha_block(key, words, 20, out);
  EXPECT_EQ(out[0], 0xe4e7f110u);
  EXPECT_EQ(out[1], 0x15593bd1u);
  EXPECT_EQ(out[15], 0x4e3c50a2u);
}

TEST(Hashing, Blake2bOneBlockMatchesOpenSslAndRfc7693) {
  // RFC 7693 appendix A: BLAKE2b-512("abc") starts ba 80 a5 3f and ends d4 00 99 23.
  const std::uint8_t abc[3] = {'a', 'b', 'c'};
  auto d = blake2b512(abc);
  EXPECT_EQ(d[0], 0xba);
  EXPECT_EQ(d[1], 0x80);
  EXPECT_EQ(d[63], 0x23);
  // The built-in one-block path against OpenSSL's BLAKE2b-512 for every length 0..128.
  std::mt19937_64 rng(1);
  for (std::size_t len = 0; len <= 128; ++len) {
    std::vector<std::uint8_t> msg(len);
    for (auto& b : msg) b = static_cast<std::uint8_t>(rng());
    std::array<std::uint8_t, 64> expected;
    unsigned out_len = 0;
    ASSERT_EQ(EVP_Digest(msg.data(), msg.size(), expected.data(), &out_len, EVP_blake2b512(), nullptr), 1);
    EXPECT_EQ(blake2b512(msg), expected) << "length " << len;
  }
}

TEST(Challenges, SyntheticMatchesRustFilProofsVector) {
  // rfp challenges.rs test_synth_challenges_against_hardcoded (docs/circuit.md §2): nodes 2^10, replica_id = Fr 55,
  // comm_r = Fr 101, num_synth = 21, seed = [1; 32], 10 porep challenges.
  Domain replica{}, comm_r{};
  replica[0] = 55;
  comm_r[0] = 101;
  const std::uint64_t nodes = 1 << 10;
  std::vector<std::uint64_t> synth;
  for (std::uint64_t i = 0; i < 21; ++i) synth.push_back(synthetic_challenge(nodes, replica, comm_r, i));
  EXPECT_EQ(synth, (std::vector<std::uint64_t>{178, 297, 869, 211, 875, 477, 94, 781, 124, 332, 856, 801, 176, 692,
                                               429, 691, 290, 204, 986, 210, 973}));
  EXPECT_EQ(synthetic_porep_challenges(nodes, replica, comm_r, filled(1), 10, 0, 21),
            (std::vector<std::uint64_t>{176, 781, 801, 986, 290, 211, 692, 856, 986, 332}));
}

TEST(Challenges, InteractiveAreInRangeAndPartitionDependent) {
  Domain replica = filled(3), seed = filled(4);
  auto a = interactive_challenges(1 << 30, replica, seed, 18, 0);
  auto b = interactive_challenges(1 << 30, replica, seed, 18, 1);
  ASSERT_EQ(a.size(), 18u);
  EXPECT_NE(a, b);
  for (auto c : a) {
    EXPECT_GE(c, 1u);
    EXPECT_LT(c, 1u << 30);
  }
  // Independent recomputation of the first one: sha256(replica || seed || 0u32) mod (N - 1) + 1.
  std::uint8_t zero[4] = {};
  auto h = sha256({replica, seed, std::span<const std::uint8_t>(zero, 4)});
  unsigned __int128 acc = 0;
  for (int i = 31; i >= 0; --i) acc = ((acc << 8) | h[i]) % ((1u << 30) - 1);
  EXPECT_EQ(a[0], static_cast<std::uint64_t>(acc) + 1);
}

TEST(Challenges, ProverIdFromMinerId) {
  // t01000 -> ID address payload LEB128(1000) = e8 07 (go-address NewIDAddress(...).Payload()).
  Domain id = prover_id_from_miner_id(1000);
  EXPECT_EQ(id[0], 0xe8);
  EXPECT_EQ(id[1], 0x07);
  EXPECT_EQ(id[2], 0);
}
