// The SHA-256 circuit against bellpepper's published counts (gadgets/sha256.rs tests: 25,840 / 44,874 / 0),
// rust-fil-proofs' hash_leaf_bits_circuit count (45,387), NIST FIPS 180-4 example vectors and OpenSSL.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "prover/algebra/hex_bytes.hpp"
#include "prover/gadgets/sha256.hpp"
#include "prover/gadgets/sha256_native.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/r1cs/evaluate.hpp"
#include "tests/test_util.hpp"

namespace cuzk::gadgets {
namespace {

using r1cs::Checker;
using r1cs::Counter;
using r1cs::Recorder;
using r1cs::RecorderWithWitness;
using r1cs::WitnessGen;

std::string to_hex(std::span<const std::uint8_t> bytes) { return algebra::bytes_to_hex(bytes); }

std::vector<std::uint8_t> bytes_of(const std::string& s) {
  return {s.begin(), s.end()};
}

// Message bits (MSB first per byte) as allocated bits.
template <class CS>
std::vector<Boolean> alloc_message(CS& cs, std::span<const std::uint8_t> message) {
  std::vector<Boolean> bits;
  for (std::size_t k = 0; k < message.size(); ++k) {
    for (int j = 7; j >= 0; --j) {
      auto ns = cs.push_namespace([&] { return "input bit " + std::to_string(8 * k + 7 - j); });
      bits.push_back(AllocatedBit::alloc(cs, ((message[k] >> j) & 1) != 0));
    }
  }
  return bits;
}

std::vector<std::uint8_t> digest_of(const std::vector<Boolean>& bits) {
  std::vector<std::uint8_t> out(bits.size() / 8, 0);
  for (std::size_t i = 0; i < bits.size(); ++i) {
    if (bits[i].value()) out[i / 8] |= static_cast<std::uint8_t>(0x80 >> (i % 8));
  }
  return out;
}

std::vector<std::uint8_t> random_bytes(std::mt19937_64& rng, std::size_t n) {
  std::vector<std::uint8_t> v(n);
  for (auto& b : v) b = static_cast<std::uint8_t>(rng());
  return v;
}

// FIPS 180-4 / NIST CSRC "SHA256.pdf" example messages and digests.
struct Vector {
  std::string message;
  const char* digest;
};
const Vector kNistVectors[] = {
    {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
    {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
    {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",  // 448 bits
     "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
    {"abcdefghbcdefghicdefghijdefghijkefghijklfghijklmghijklmnhijklmnoijklmnopjklmnopqklmnopqrlmnopqrsmnopqrs"
     "tnopq"
     "rstu",  // 896 bits
     "cf5b16a778af8380036ce59e7b0492370b249b11e8f07a51afac45037afee9d1"},
};

TEST(Sha256Native, NistVectorsAndOwnCompression) {
  for (const Vector& v : kNistVectors) {
    auto m = bytes_of(v.message);
    EXPECT_EQ(to_hex(native::sha256(m)), v.digest) << v.message;
    // Own compression function over the padded message equals OpenSSL.
    std::vector<std::uint8_t> padded = m;
    padded.push_back(0x80);
    while (padded.size() % 64 != 56) padded.push_back(0);
    std::uint64_t bit_len = m.size() * 8;
    for (int i = 7; i >= 0; --i) padded.push_back(static_cast<std::uint8_t>(bit_len >> (8 * i)));
    native::Sha256Words state = native::sha256_iv_words();
    for (std::size_t off = 0; off < padded.size(); off += 64) {
      native::sha256_compress(state, std::span<const std::uint8_t, 64>(padded.data() + off, 64));
    }
    EXPECT_EQ(to_hex(native::sha256_words_to_digest(state)), v.digest);
  }
}

TEST(Sha256Native, TrimmedClearsTheTopTwoBits) {
  // sha256("abc") ends in 0xad = 0b1010_1101; trimmed: 0b0010_1101 = 0x2d.
  auto d = native::sha256_trimmed(bytes_of("abc"));
  EXPECT_EQ(to_hex(d), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f200152d");
}

TEST(Sha256Gadget, BlankCompressionIsFreeAndCorrect) {
  // bellpepper test_blank_hash: block 0x80 00.. (the padded empty message) from the constant IV.
  Counter counter;
  Checker checker;
  std::vector<Boolean> block(512, Boolean::constant(false));
  block[0] = Boolean::constant(true);
  sha256_block_no_padding(counter, block);
  auto out = sha256_block_no_padding(checker, block);
  EXPECT_EQ(counter.num_constraints(), 0u);
  EXPECT_EQ(counter.num_aux(), 0u);
  EXPECT_EQ(to_hex(digest_of(out)), kNistVectors[1].digest);
  for (const Boolean& b : out) EXPECT_TRUE(b.is_constant());
}

TEST(Sha256Gadget, AllConstantInputCostsNothing) {
  auto rng = test::seeded_rng("Sha256Gadget.AllConstantInputCostsNothing");
  auto message = random_bytes(rng, 100);
  std::vector<Boolean> bits;
  for (bool b : bytes_to_bits(message)) bits.push_back(Boolean::constant(b));
  Counter counter;
  auto out = sha256(counter, bits);
  EXPECT_EQ(counter.num_constraints(), 0u);
  auto expected = native::sha256(message);
  EXPECT_EQ(digest_of(out), std::vector<std::uint8_t>(expected.begin(), expected.end()));
}

TEST(Sha256Gadget, FullBlockFromIvIs25840) {
  // bellpepper test_full_block: num_constraints - 512 == 25,840.
  auto rng = test::seeded_rng("Sha256Gadget.FullBlockFromIvIs25840");
  auto block = random_bytes(rng, 64);
  Counter counter;
  Checker checker;
  auto bits = alloc_message(counter, block);
  sha256_compression_function(counter, bits, sha256_iv());
  EXPECT_EQ(counter.num_constraints() - 512, 25840u);
  EXPECT_EQ(counter.num_aux() - 512, 25814u);  // docs/circuit.md §8.1: every constraint but the 26 MultiEq allocates

  auto checker_bits = alloc_message(checker, block);
  auto out = sha256_block_no_padding(checker, checker_bits);
  EXPECT_TRUE(checker.is_satisfied());
  native::Sha256Words state = native::sha256_iv_words();
  native::sha256_compress(state, std::span<const std::uint8_t, 64>(block.data(), 64));
  auto expected = native::sha256_words_to_digest(state);
  EXPECT_EQ(digest_of(out), std::vector<std::uint8_t>(expected.begin(), expected.end()));
}

TEST(Sha256Gadget, FullHashOf512BitsIs44874) {
  // bellpepper test_full_hash: num_constraints - 512 == 44,874 (= 25,840 + 19,034, docs/circuit.md §8.1).
  auto rng = test::seeded_rng("Sha256Gadget.FullHashOf512BitsIs44874");
  auto message = random_bytes(rng, 64);
  Counter counter;
  auto bits = alloc_message(counter, message);
  sha256(counter, bits);
  EXPECT_EQ(counter.num_constraints() - 512, 44874u);
  EXPECT_EQ(counter.num_aux() - 512, 25814u + 19014u);
}

TEST(Sha256Gadget, AllocatedChainingValueBlockCounts) {
  // docs/circuit.md §5, the per-block costs: an allocated chaining value with 512 allocated bits costs 26,192 (aux 26,166).
  auto rng = test::seeded_rng("Sha256Gadget.AllocatedChainingValueBlockCounts");
  Counter counter;
  Sha256State state;
  for (auto& w : state) w = UInt32::alloc(counter, static_cast<std::uint32_t>(rng()));
  auto bits = alloc_message(counter, random_bytes(rng, 64));
  std::size_t c0 = counter.num_constraints(), a0 = counter.num_aux();
  sha256_compression_function(counter, bits, state);
  EXPECT_EQ(counter.num_constraints() - c0, 26192u);
  EXPECT_EQ(counter.num_aux() - a0, 26166u);
}

TEST(Sha256Gadget, NistVectorsThroughTheGadget) {
  for (const Vector& v : kNistVectors) {
    auto m = bytes_of(v.message);
    Checker checker;
    auto out = sha256(checker, alloc_message(checker, m));
    EXPECT_TRUE(checker.is_satisfied()) << v.message;
    EXPECT_EQ(to_hex(digest_of(out)), v.digest) << v.message;
  }
}

TEST(Sha256Gadget, RandomLengthsMatchOpenSsl) {
  // bellpepper test_against_vectors: lengths 0..31 and multiples of 8 up to 248 bytes (a subset here).
  auto rng = test::seeded_rng("Sha256Gadget.RandomLengthsMatchOpenSsl");
  for (std::size_t len : {0, 1, 5, 31, 32, 55, 56, 63, 64, 65, 119, 120, 200, 248}) {
    auto m = random_bytes(rng, len);
    WitnessGen wit;
    auto out = sha256(wit, alloc_message(wit, m));
    auto expected = native::sha256(m);
    EXPECT_EQ(digest_of(out), std::vector<std::uint8_t>(expected.begin(), expected.end())) << len;
  }
}

TEST(Sha256Gadget, CheckerCatchesACorruptedWitnessValue) {
  auto rng = test::seeded_rng("Sha256Gadget.CheckerCatchesACorruptedWitnessValue");
  auto m = random_bytes(rng, 64);
  Counter counter;
  sha256(counter, alloc_message(counter, m));
  for (int trial = 0; trial < 5; ++trial) {
    std::size_t index = 512 + rng() % (counter.num_aux() - 512);  // a gadget variable, not an input bit
    Checker checker;
    checker.corrupt_aux_on_alloc(index, Fr::from_u64(2 + rng() % 1000));  // neither 0 nor 1
    sha256(checker, alloc_message(checker, m));
    ASSERT_FALSE(checker.is_satisfied()) << index;
    const std::string& path = checker.first_failure()->path;
    EXPECT_EQ(path.rfind("block ", 0), 0u) << path;  // inside sha256's "block i" namespace
    EXPECT_TRUE(path.find("compression round") != std::string::npos ||
                path.find("w extension") != std::string::npos || path.find("new h") != std::string::npos ||
                path.find("deferred h") != std::string::npos || path.find("multieq") != std::string::npos)
        << path;
  }
}

TEST(Sha256Gadget, RecorderWitnessGenAndCounterAgree) {
  auto rng = test::seeded_rng("Sha256Gadget.RecorderWitnessGenAndCounterAgree");
  auto m = random_bytes(rng, 64);
  Counter counter;
  WitnessGen wit;
  RecorderWithWitness rec;
  Recorder plain;
  sha256(counter, alloc_message(counter, m));
  sha256(wit, alloc_message(wit, m));
  sha256(rec, alloc_message(rec, m));
  sha256(plain, alloc_message(plain, m));
  EXPECT_EQ(counter.num_constraints(), rec.num_constraints());
  EXPECT_EQ(counter.num_aux(), rec.num_aux());
  EXPECT_EQ(counter.num_inputs(), rec.num_inputs());
  EXPECT_EQ(wit.aux().size(), rec.num_aux());
  EXPECT_EQ(wit.aux(), rec.aux());
  EXPECT_EQ(wit.inputs(), rec.inputs());
  std::vector<Fr> inputs = rec.inputs(), aux = rec.aux();
  r1cs::R1cs r = rec.finish();
  r1cs::R1cs r_plain = plain.finish();
  EXPECT_EQ(r, r_plain);  // the structure does not depend on the values
  EXPECT_EQ(r.num_constraints(), 512u + 44874u);
  EXPECT_FALSE(r1cs::first_unsatisfied(r, inputs, aux).has_value());
  // One flipped bit of the witness breaks the matrices too.
  aux[1000] = aux[1000].is_zero() ? Fr::one() : Fr::zero();
  EXPECT_TRUE(r1cs::first_unsatisfied(r, inputs, aux).has_value());
}

// Each bit: 0 = Constant(false), 1 = Constant(true), 2 = Is, 3 = Not; and the value of allocated bits.
struct BitSpec {
  int kind;
  bool value;
};
template <class CS>
Boolean make_bit(CS& cs, const BitSpec& spec) {
  if (spec.kind < 2) return Boolean::constant(spec.kind == 1);
  Boolean b = AllocatedBit::alloc(cs, spec.kind == 3 ? !spec.value : spec.value);
  return spec.kind == 3 ? b.not_() : b;
}

// The word-level path (WitnessGen, Counter) against the Boolean-by-Boolean path (RecorderWithWitness,
// Checker) on blocks and chaining values mixing constants, Is and Not bits, so that every constant-folding
// case of xor / and / ch / maj / addmany occurs.
TEST(Sha256Gadget, WordPathMatchesBooleanPathOnMixedBits) {
  auto rng = test::seeded_rng("Sha256Gadget.WordPathMatchesBooleanPathOnMixedBits");
  for (int trial = 0; trial < 12; ++trial) {
    // Trial-dependent densities: from almost all constant to almost all allocated.
    unsigned constant_percent = static_cast<unsigned>(trial * 9);
    auto random_spec = [&] {
      bool constant = rng() % 100 < constant_percent;
      return BitSpec{constant ? static_cast<int>(rng() % 2) : 2 + static_cast<int>(rng() % 2),
                     (rng() & 1) != 0};
    };
    std::vector<BitSpec> block(512), state(256);
    for (auto& b : block) b = random_spec();
    for (int w = 0; w < 8; ++w) {
      int shape = static_cast<int>(rng() % 3);  // all constant, all random, or the trial's mix
      for (int i = 0; i < 32; ++i) {
        BitSpec spec = random_spec();
        if (shape == 0) spec.kind = static_cast<int>(rng() % 2);
        if (shape == 1) spec.kind = 2 + static_cast<int>(rng() % 2);
        state[32 * w + i] = spec;
      }
    }
    auto run = [&](auto& cs) {
      std::vector<Boolean> in;
      for (const auto& b : block) in.push_back(make_bit(cs, b));
      Sha256State cur;
      for (int w = 0; w < 8; ++w) {
        std::vector<Boolean> bits;
        for (int i = 0; i < 32; ++i) bits.push_back(make_bit(cs, state[32 * w + i]));
        cur[w] = UInt32::from_bits_le(bits);
      }
      return sha256_compression_function(cs, in, cur);
    };
    RecorderWithWitness rec;
    WitnessGen wit;
    Counter counter;
    Checker checker;
    Sha256State by_booleans = run(rec);
    Sha256State by_words = run(wit);
    run(counter);
    run(checker);
    EXPECT_TRUE(checker.is_satisfied());
    EXPECT_EQ(counter.num_constraints(), rec.num_constraints()) << trial;
    EXPECT_EQ(counter.num_aux(), rec.num_aux()) << trial;
    ASSERT_EQ(wit.aux().size(), rec.aux().size()) << trial;
    EXPECT_TRUE(wit.aux() == rec.aux()) << trial;
    for (int w = 0; w < 8; ++w) {
      EXPECT_EQ(by_words[w].value, by_booleans[w].value);
      for (int i = 0; i < 32; ++i) {
        EXPECT_EQ(by_words[w].bits[i].kind(), by_booleans[w].bits[i].kind()) << w << " " << i;
        EXPECT_EQ(by_words[w].bits[i].value(), by_booleans[w].bits[i].value()) << w << " " << i;
      }
    }
    std::vector<Fr> inputs = rec.inputs(), aux = rec.aux();
    r1cs::R1cs r = rec.finish();
    EXPECT_FALSE(r1cs::first_unsatisfied(r, inputs, aux).has_value());
  }
}

TEST(Sha256Gadget, ValuesDoNotChangeTheStructure) {
  // Two different messages give identical matrices (no value-dependent branching).
  auto rng = test::seeded_rng("Sha256Gadget.ValuesDoNotChangeTheStructure");
  Recorder r1, r2;
  sha256(r1, alloc_message(r1, random_bytes(rng, 40)));
  sha256(r2, alloc_message(r2, random_bytes(rng, 40)));
  EXPECT_EQ(r1.finish(), r2.finish());
}

// --- rust-fil-proofs Sha256Function circuits ------------------------------------------------------------

Fr fr_from_le_bytes(const native::Sha256Digest& d) {
  Fr out;
  EXPECT_TRUE(Fr::from_bytes_le(d.data(), out));
  return out;
}

TEST(Sha256Function, HashLeafBitsCircuitIs45387) {
  // rfp storage-proofs-core util.rs test: 2 x 256 allocated bits -> 45,387 constraints in all.
  auto rng = test::seeded_rng("Sha256Function.HashLeafBitsCircuitIs45387");
  auto left = random_bytes(rng, 32), right = random_bytes(rng, 32);
  Checker checker;
  auto alloc_le = [&](const std::vector<std::uint8_t>& bytes) {
    std::vector<Boolean> bits;
    for (bool b : bytes_to_bits_le(bytes)) bits.push_back(AllocatedBit::alloc(checker, b));
    return bits;
  };
  auto l = alloc_le(left), r = alloc_le(right);
  AllocatedNum out = sha256_hash_leaf_bits_circuit(checker, l, r);
  EXPECT_EQ(checker.num_constraints(), 45387u);
  EXPECT_TRUE(checker.is_satisfied());
  std::vector<std::uint8_t> preimage = left;
  preimage.insert(preimage.end(), right.begin(), right.end());
  EXPECT_EQ(out.value(), fr_from_le_bytes(native::sha256_trimmed(preimage)));
}

TEST(Sha256Function, Hash2CircuitMatchesNative) {
  // Two AllocatedNums: 2 x 256 (to_bits_le) + 44,866 (docs/circuit.md §8.1: the constant pad bit at offset 248 of each
  // half saves 8) + 1 (pack_bits) = 45,379 constraints.
  auto rng = test::seeded_rng("Sha256Function.Hash2CircuitMatchesNative");
  Fr a = test::random_field<Fr>(rng), b = test::random_field<Fr>(rng);
  Checker checker;
  AllocatedNum x = AllocatedNum::alloc_value(checker, a), y = AllocatedNum::alloc_value(checker, b);
  AllocatedNum out = sha256_hash2_circuit(checker, x, y);
  EXPECT_EQ(checker.num_constraints(), 45379u);
  EXPECT_TRUE(checker.is_satisfied());
  std::vector<std::uint8_t> preimage(64);
  a.to_bytes_le(preimage.data());
  b.to_bytes_le(preimage.data() + 32);
  EXPECT_EQ(out.value(), fr_from_le_bytes(native::sha256_trimmed(preimage)));

  Checker multi;
  AllocatedNum leaves[2] = {AllocatedNum::alloc_value(multi, a), AllocatedNum::alloc_value(multi, b)};
  AllocatedNum out2 = sha256_hash_multi_leaf_circuit(multi, std::span<const AllocatedNum>(leaves, 2));
  EXPECT_EQ(out2.value(), out.value());
  EXPECT_EQ(multi.num_constraints(), 45379u);
  EXPECT_TRUE(multi.is_satisfied());
}

}  // namespace
}  // namespace cuzk::gadgets
