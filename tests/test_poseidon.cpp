// Poseidon (neptune 11) parameters, native hash and published vectors.
//
// Independent facts used here (none produced by this code):
// - neptune v11 src/round_numbers.rs test table (t -> RP with RF = 8) and src/lib.rs strengthened table;
// - neptune parameters/round_constants-1-1-255-9-8-57-73EDA753...00000001.txt (Poseidon authors' sage
// script);
// - neptune src/poseidon.rs `hash_values_aux` digests of [0, 1, .., arity-1], Standard and Strengthened;
// - neptune src/circuit.rs `test_poseidon_hash` constraint counts, rfp hash.rs (598 for arity 11);
// - rust-fil-proofs filecoin-hashers/src/poseidon.rs `test_poseidon_hasher` and `test_hash_md`.
#include <gtest/gtest.h>

#include <array>
#include <vector>

#include "prover/algebra/hex.hpp"
#include "prover/gadgets/poseidon_constants.hpp"
#include "prover/gadgets/poseidon_native.hpp"
#include "tests/test_util.hpp"

using cuzk::algebra::Fr;
using cuzk::algebra::Limbs;
namespace poseidon = cuzk::gadgets::poseidon;
using poseidon::Strength;

namespace {

// A canonical Fr from its little-endian u64 limbs, as neptune's and rfp's tests write them.
Fr fr_from_limbs(Limbs<4> limbs) {
  EXPECT_TRUE(Fr::is_canonical(limbs));
  return Fr::from_canonical(limbs);
}

std::vector<Fr> counting_preimage(std::size_t arity) {
  std::vector<Fr> v;
  for (std::size_t i = 0; i < arity; ++i) v.push_back(Fr::from_u64(i));
  return v;
}

}  // namespace

TEST(PoseidonParameters, RoundNumbersMatchNeptuneTable) {
  // neptune round_numbers.rs test_round_numbers_against_known_values: (t, RP), RF = 8 for all.
  const std::array<std::pair<std::size_t, std::size_t>, 19> cases = {{{2, 55},
                                                                      {3, 55},
                                                                      {4, 56},
                                                                      {5, 56},
                                                                      {6, 56},
                                                                      {7, 56},
                                                                      {8, 57},
                                                                      {9, 57},
                                                                      {10, 57},
                                                                      {11, 57},
                                                                      {12, 57},
                                                                      {13, 57},
                                                                      {14, 57},
                                                                      {15, 57},
                                                                      {16, 59},
                                                                      {17, 59},
                                                                      {25, 59},
                                                                      {37, 60},
                                                                      {65, 61}}};
  for (auto [t, rp] : cases) {
    poseidon::RoundNumbers r = poseidon::calc_round_numbers(t, true);
    EXPECT_EQ(r.full_rounds, 8u) << "t=" << t;
    EXPECT_EQ(r.partial_rounds, rp) << "t=" << t;
  }
}

TEST(PoseidonParameters, StrengthenedRoundNumbersMatchNeptuneTable) {
  // neptune lib.rs test_strengthened_round_numbers: (arity, RP).
  const std::array<std::pair<std::size_t, std::size_t>, 15> cases = {{{1, 69},
                                                                      {2, 69},
                                                                      {3, 70},
                                                                      {4, 70},
                                                                      {5, 70},
                                                                      {6, 70},
                                                                      {7, 72},
                                                                      {8, 72},
                                                                      {9, 72},
                                                                      {10, 72},
                                                                      {11, 72},
                                                                      {16, 74},
                                                                      {24, 74},
                                                                      {36, 75},
                                                                      {64, 77}}};
  for (auto [arity, rp] : cases) {
    poseidon::RoundNumbers r = poseidon::round_numbers(arity, Strength::kStrengthened);
    EXPECT_EQ(r.full_rounds, 8u) << "arity=" << arity;
    EXPECT_EQ(r.partial_rounds, rp) << "arity=" << arity;
  }
}

TEST(PoseidonParameters, GrainConstantsMatchPublishedFileForWidth9) {
  // neptune parameters/round_constants-1-1-255-9-8-57-...txt: "sage create_rcs_grain.sage 1 1 255 9 8 57",
  // 585 constants; the first three and the last two are checked.
  std::vector<Fr> rc = poseidon::grain_round_constants(1, 1, 255, 9, 8, 57);
  ASSERT_EQ(rc.size(), 585u);
  using cuzk::algebra::hex_to_limbs;
  EXPECT_EQ(
      rc[0],
      fr_from_limbs(hex_to_limbs<4>("0x6ce90d12c4045fe08c3caddb776dd84ac52b4ae7e48cd49443984154f2f4c2f9")));
  EXPECT_EQ(
      rc[1],
      fr_from_limbs(hex_to_limbs<4>("0x0ccd9b480c84022b25a75b52c8e89d80b4fa6378d32e58f3a175504940bcec39")));
  EXPECT_EQ(
      rc[2],
      fr_from_limbs(hex_to_limbs<4>("0x513ad11016ab7bb8c7ce9ae51256040e062487edf7168d206ba1b86dfe963629")));
  EXPECT_EQ(
      rc[583],
      fr_from_limbs(hex_to_limbs<4>("0x5861985c6ad8159e1a4f056d02df583d9c79c96bae8c3b9313812b4e0b3bda60")));
  EXPECT_EQ(
      rc[584],
      fr_from_limbs(hex_to_limbs<4>("0x3b3a75eb91b0f723bcc4ab7e449e4a011b8960063efe74670c05e545519d9a8c")));
  // The shared arity-8 instance uses exactly these constants.
  EXPECT_EQ(poseidon::constants(8).round_constants, rc);
}

TEST(PoseidonParameters, MdsIsSymmetricCauchyWithInverse) {
  for (std::size_t arity : {2, 4, 8, 11}) {
    const poseidon::Constants& c = poseidon::constants(arity);
    const std::size_t t = c.width;
    ASSERT_EQ(c.mds.size(), t);
    EXPECT_EQ(c.mds, poseidon::transpose(c.mds));
    for (std::size_t i = 0; i < t; ++i) {
      for (std::size_t j = 0; j < t; ++j) {
        // 1 / (x_i + y_j) with x_i = i and y_j = t + j.
        EXPECT_EQ(c.mds(i, j) * Fr::from_u64(i + t + j), Fr::one());
      }
    }
    EXPECT_EQ(poseidon::mat_mul(c.mds, c.mds_inverse), poseidon::Matrix::identity(t));
    EXPECT_EQ(c.compressed_round_constants.size(), c.full_rounds * t + c.partial_rounds);
    EXPECT_EQ(c.sparse_matrices.size(), c.partial_rounds);
  }
}

TEST(PoseidonParameters, MerkleTreeDomainTag) {
  // neptune hash_type.rs test_domain_tags: MerkleTree tag for arity 8 = 0xff; in general 2^arity - 1.
  EXPECT_EQ(poseidon::constants(8).domain_tag, Fr::from_u64(0xff));
  EXPECT_EQ(poseidon::constants(2).domain_tag, Fr::from_u64(3));
  EXPECT_EQ(poseidon::constants(11).domain_tag, Fr::from_u64(2047));
}

TEST(PoseidonParameters, LegacyCircuitConstraintCounts) {
  // neptune circuit.rs test_poseidon_hash; arity 11 = rfp stacked/circuit/hash.rs hash_single_column.
  const std::array<std::pair<std::size_t, std::size_t>, 7> standard = {
      {{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}, {24, 1009}, {36, 1385}}};
  for (auto [arity, count] : standard) {
    EXPECT_EQ(poseidon::circuit_constraint_count(poseidon::constants(arity)), count) << arity;
  }
  const std::array<std::pair<std::size_t, std::size_t>, 6> strengthened = {
      {{2, 367}, {4, 433}, {8, 565}, {16, 821}, {24, 1069}, {36, 1445}}};
  for (auto [arity, count] : strengthened) {
    EXPECT_EQ(poseidon::circuit_constraint_count(poseidon::constants(arity, Strength::kStrengthened)), count)
        << arity;
  }
}

struct HashVector {
  std::size_t arity;
  Limbs<4> standard;
  Limbs<4> strengthened;
};

// neptune src/poseidon.rs hash_values_aux (MerkleTree hash of [0, 1, .., arity-1]).
const HashVector kNeptuneVectors[] = {
    {2,
     {0x2e203c369a02e7ff, 0xa6fba9339d05a69d, 0x739e0fd902efe161, 0x396508d75e76a56b},
     {0x793dbaf54552cd69, 0x5278ecbf17040ea6, 0xc48b36ecc4cab748, 0x33d28a753baee41b}},
    {4,
     {0x019814ff6662075d, 0xfb6b4605bf1327ec, 0x00db3c6579229399, 0x58a54b10a9e5848a},
     {0x4650ee190212aa9a, 0xe5113a254d6f5c7e, 0x54013bdaf68ba4c2, 0x09d8207c51ca3f43}},
    {8,
     {0x2a9934f56d38a5e6, 0x4b682e9d9cc4aed9, 0x1201004211677077, 0x2394611da3a5de55},
     {0x9f0c3c93c3fc894e, 0xe843d4cfba662df1, 0xd69aae8fe1cb63e8, 0x69e61465981ae17e}},
    {11,
     {0xcee3bbc32b693163, 0x09f3dcd8ccb08fc1, 0x6ca537e232ebe87a, 0x0c0fc1b2e5227f28},
     {0x778af344d8f9e8b7, 0xc94fe2ca3f46d433, 0x07abbcf9b406e8d8, 0x28bb83ff439753c0}},
    {16,
     {0x1291c74060266d37, 0x5b8dbc6d30680a6f, 0xc1c2fb5a6f871e63, 0x2d3ae2663381ae8a},
     {0x3cc2664c5fd6ae07, 0xd7431eaaa5e43189, 0x43ba5f418c6ef01d, 0x68d7856395aa217e}},
    {24,
     {0xd7ef3569f585b321, 0xc3e779f6468815b1, 0x066f39bf783f3d9f, 0x63beb8831f11ae15},
     {0x1df1da58827cb39d, 0x0566756b7b80fb10, 0x222eb82c6666be3d, 0x086e4e81a35bfd92}},
    {36,
     {0x4473606dfa4e8140, 0x75cd368df8a8ac3c, 0x540a30e03c10bbaa, 0x699303082a6e5d5f},
     {0x636401e9371dc311, 0x8f69e35a702ed188, 0x64d73b2ddc03d43b, 0x609f8c6fe45cc054}},
};

TEST(PoseidonNative, NeptuneVectorsStandard) {
  for (const HashVector& v : kNeptuneVectors) {
    const poseidon::Constants& c = poseidon::constants(v.arity);
    std::vector<Fr> preimage = counting_preimage(v.arity);
    EXPECT_EQ(poseidon::hash(c, preimage), fr_from_limbs(v.standard)) << "arity " << v.arity;
    EXPECT_EQ(poseidon::hash_reference(c, preimage), fr_from_limbs(v.standard)) << "arity " << v.arity;
  }
}

TEST(PoseidonNative, NeptuneVectorsStrengthened) {
  for (const HashVector& v : kNeptuneVectors) {
    const poseidon::Constants& c = poseidon::constants(v.arity, Strength::kStrengthened);
    std::vector<Fr> preimage = counting_preimage(v.arity);
    EXPECT_EQ(poseidon::hash(c, preimage), fr_from_limbs(v.strengthened)) << "arity " << v.arity;
    EXPECT_EQ(poseidon::hash_reference(c, preimage), fr_from_limbs(v.strengthened)) << "arity " << v.arity;
  }
}

TEST(PoseidonNative, OptimizedEqualsReferenceOnRandomInputs) {
  auto rng = cuzk::test::seeded_rng("PoseidonNative.OptimizedEqualsReferenceOnRandomInputs");
  for (std::size_t arity : {1, 2, 3, 4, 8, 11, 16}) {
    const poseidon::Constants& c = poseidon::constants(arity);
    for (int i = 0; i < 5; ++i) {
      std::vector<Fr> preimage;
      for (std::size_t k = 0; k < arity; ++k) preimage.push_back(cuzk::test::random_field<Fr>(rng));
      ASSERT_EQ(poseidon::hash(c, preimage), poseidon::hash_reference(c, preimage)) << "arity " << arity;
    }
  }
}

TEST(PoseidonNative, RustFilProofsBinaryTreeVectors) {
  // rfp filecoin-hashers poseidon.rs test_poseidon_hasher: binary tree over leaves [1, 0, 0, 1].
  const Fr one = Fr::one(), zero = Fr::zero();
  Fr h10 = poseidon::hash(std::vector<Fr>{one, zero});
  EXPECT_EQ(h10,
            fr_from_limbs({0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3}));
  Fr h01 = poseidon::hash(std::vector<Fr>{zero, one});
  Fr root = poseidon::hash(std::vector<Fr>{h10, h01});
  EXPECT_EQ(root,
            fr_from_limbs({0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb}));
}

TEST(PoseidonNative, RustFilProofsHashMdOf71Ones) {
  // rfp filecoin-hashers poseidon.rs test_hash_md.
  std::vector<Fr> ones(71, Fr::one());
  EXPECT_EQ(poseidon::hash_md(ones),
            fr_from_limbs({0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7}));
}

TEST(PoseidonNative, CircuitWitnessEndsWithTheHash) {
  auto rng = cuzk::test::seeded_rng("PoseidonNative.CircuitWitnessEndsWithTheHash");
  for (std::size_t arity : {2, 4, 8, 11}) {
    const poseidon::Constants& c = poseidon::constants(arity);
    std::vector<Fr> preimage;
    for (std::size_t k = 0; k < arity; ++k) preimage.push_back(cuzk::test::random_field<Fr>(rng));
    std::vector<Fr> aux(poseidon::circuit_constraint_count(c) + 1, Fr::from_u64(12345));
    Fr out = poseidon::hash_with_circuit_witness(c, preimage, aux.data());
    EXPECT_EQ(out, poseidon::hash_reference(c, preimage));
    EXPECT_EQ(aux[aux.size() - 2], out);
    EXPECT_EQ(aux.back(), Fr::from_u64(12345)) << "wrote past the declared count";
    // The first three values are (x1 + k1)^2, its square and (x1 + k1)^5 + k1'.
    Fr x = preimage[0] + c.compressed_round_constants[1];
    EXPECT_EQ(aux[0], x.square());
    EXPECT_EQ(aux[1], x.square().square());
    EXPECT_EQ(aux[2], x.square().square() * x + c.compressed_round_constants[c.width + 1]);
  }
}

// ---------------------------------------------------------------------------------------------------------
// The legacy circuit (neptune circuit::poseidon_hash) on every constraint system.

#include "prover/gadgets/poseidon.hpp"
#include "prover/r1cs/evaluate.hpp"

namespace {

using cuzk::gadgets::AllocatedNum;
namespace r1cs = cuzk::r1cs;

template <class CS>
AllocatedNum hash_circuit(CS& cs, const std::vector<Fr>& preimage, Strength strength = Strength::kStandard) {
  std::vector<AllocatedNum> vars;
  for (const Fr& v : preimage) vars.push_back(AllocatedNum::alloc_value(cs, v));
  return cuzk::gadgets::poseidon_hash(cs, std::span<const AllocatedNum>(vars),
                                      poseidon::constants(preimage.size(), strength));
}

std::vector<Fr> random_preimage(std::mt19937_64& rng, std::size_t arity) {
  std::vector<Fr> v;
  for (std::size_t i = 0; i < arity; ++i) v.push_back(cuzk::test::random_field<Fr>(rng));
  return v;
}

}  // namespace

TEST(PoseidonCircuit, ConstraintCountsOnEverySystem) {
  // neptune circuit.rs test_poseidon_hash (Standard and Strengthened); 598 for arity 11 from rfp hash.rs.
  const std::array<std::pair<std::size_t, std::size_t>, 7> standard = {
      {{2, 311}, {4, 377}, {8, 505}, {11, 598}, {16, 761}, {24, 1009}, {36, 1385}}};
  auto rng = cuzk::test::seeded_rng("PoseidonCircuit.ConstraintCountsOnEverySystem");
  for (auto [arity, expected] : standard) {
    std::vector<Fr> preimage = random_preimage(rng, arity);
    r1cs::Counter counter;
    hash_circuit(counter, preimage);
    EXPECT_EQ(counter.num_constraints(), expected) << arity;
    EXPECT_EQ(counter.num_aux(), arity + expected) << arity;  // preimage + one aux per constraint
    EXPECT_EQ(counter.num_inputs(), 1u);
    r1cs::Recorder recorder;
    hash_circuit(recorder, preimage);
    EXPECT_EQ(recorder.num_constraints(), expected) << arity;
    EXPECT_EQ(recorder.num_aux(), counter.num_aux()) << arity;
    r1cs::Checker checker;
    hash_circuit(checker, preimage);
    EXPECT_EQ(checker.num_constraints(), expected) << arity;
    EXPECT_EQ(checker.num_aux(), counter.num_aux()) << arity;
  }
  const std::array<std::pair<std::size_t, std::size_t>, 6> strengthened = {
      {{2, 367}, {4, 433}, {8, 565}, {16, 821}, {24, 1069}, {36, 1445}}};
  for (auto [arity, expected] : strengthened) {
    r1cs::Recorder recorder;
    hash_circuit(recorder, std::vector<Fr>(arity, Fr::zero()), Strength::kStrengthened);
    EXPECT_EQ(recorder.num_constraints(), expected) << arity;
  }
}

TEST(PoseidonCircuit, NeptuneVectorsThroughTheCircuit) {
  for (const HashVector& v : kNeptuneVectors) {
    std::vector<Fr> preimage = counting_preimage(v.arity);
    r1cs::Checker checker;
    AllocatedNum out = hash_circuit(checker, preimage);
    EXPECT_TRUE(checker.is_satisfied()) << v.arity << ": " << checker.first_failure()->path;
    EXPECT_EQ(out.value(), fr_from_limbs(v.standard)) << v.arity;
    EXPECT_EQ(checker.value(out.variable()), fr_from_limbs(v.standard)) << v.arity;
    r1cs::WitnessGen witness;
    EXPECT_EQ(hash_circuit(witness, preimage).value(), fr_from_limbs(v.standard)) << v.arity;
  }
}

TEST(PoseidonCircuit, RandomInputsSatisfyRecordedMatricesAndWitnessesAgree) {
  auto rng = cuzk::test::seeded_rng("PoseidonCircuit.RandomInputsSatisfyRecordedMatricesAndWitnessesAgree");
  for (std::size_t arity : {2, 4, 8, 11}) {
    for (int trial = 0; trial < 3; ++trial) {
      std::vector<Fr> preimage = random_preimage(rng, arity);
      const Fr expected = poseidon::hash_reference(poseidon::constants(arity), preimage);

      r1cs::Checker checker;
      EXPECT_EQ(hash_circuit(checker, preimage).value(), expected);
      ASSERT_TRUE(checker.is_satisfied()) << checker.first_failure()->path;

      r1cs::RecorderWithWitness recorder;
      EXPECT_EQ(hash_circuit(recorder, preimage).value(), expected);
      r1cs::R1cs matrices = recorder.finish();
      EXPECT_EQ(r1cs::first_unsatisfied(matrices, recorder.inputs(), recorder.aux()), std::nullopt);

      r1cs::WitnessGen witness;
      AllocatedNum out = hash_circuit(witness, preimage);
      EXPECT_EQ(out.value(), expected);
      EXPECT_EQ(witness.aux(), recorder.aux()) << "WitnessGen and Recorder disagree, arity " << arity;
      EXPECT_EQ(witness.aux(), checker.aux()) << "WitnessGen and Checker disagree, arity " << arity;
      EXPECT_EQ(out.variable(), r1cs::Variable::aux(static_cast<std::uint32_t>(witness.aux().size() - 1)));
    }
  }
}

TEST(PoseidonCircuit, RecordedMatricesHaveNeptunesFirstRoundShape) {
  // First S-box of x_1 with pre-key k and post-key k': (x + k) * (x + k) = l2; l2 * l2 = l4;
  // (x + k) * l4 = l5 - k'. Unified columns: 0 = ONE, 1.. = aux (x_1 = aux 0, x_2 = aux 1, l2 = aux 2).
  const poseidon::Constants& c = poseidon::constants(2);
  r1cs::Recorder recorder;
  hash_circuit(recorder, {Fr::zero(), Fr::zero()});
  r1cs::R1cs m = recorder.finish();
  ASSERT_EQ(m.num_inputs, 1u);
  const Fr& k = c.compressed_round_constants[1];
  const Fr& k_post = c.compressed_round_constants[c.width + 1];
  auto row = [](const r1cs::SparseMatrix& s, std::size_t r) {
    std::vector<std::pair<std::uint32_t, Fr>> out;
    for (auto i = s.row_offsets[r]; i < s.row_offsets[r + 1]; ++i) out.push_back({s.columns[i], s.values[i]});
    return out;
  };
  using Row = std::vector<std::pair<std::uint32_t, Fr>>;
  EXPECT_EQ(row(m.a, 0), (Row{{0, k}, {1, Fr::one()}}));
  EXPECT_EQ(row(m.b, 0), (Row{{0, k}, {1, Fr::one()}}));
  EXPECT_EQ(row(m.c, 0), (Row{{3, Fr::one()}}));
  EXPECT_EQ(row(m.a, 1), (Row{{3, Fr::one()}}));
  EXPECT_EQ(row(m.c, 1), (Row{{4, Fr::one()}}));
  EXPECT_EQ(row(m.a, 2), (Row{{0, k}, {1, Fr::one()}}));
  EXPECT_EQ(row(m.b, 2), (Row{{4, Fr::one()}}));
  EXPECT_EQ(row(m.c, 2), (Row{{0, -k_post}, {5, Fr::one()}}));
  // Second-round allocations: lc * ONE = v, where lc involves ONE (the tag constant) and the first
  // round's two S-box outputs (aux 4 and 7 -> columns 5 and 8).
  EXPECT_EQ(row(m.b, 6), (Row{{0, Fr::one()}}));
  EXPECT_EQ(row(m.a, 6).size(), 3u);
  EXPECT_EQ(row(m.c, 6), (Row{{9, Fr::one()}}));
  // The output constraint is the last one: lc(state[1]) * ONE = out.
  const std::size_t last = m.num_constraints() - 1;
  EXPECT_EQ(row(m.b, last), (Row{{0, Fr::one()}}));
  EXPECT_EQ(row(m.c, last), (Row{{static_cast<std::uint32_t>(m.num_inputs + m.num_aux - 1), Fr::one()}}));
  EXPECT_EQ(row(m.a, last).size(), c.width);  // a combination of the terminal round's S-box outputs
}

TEST(PoseidonCircuit, CheckerCatchesEveryKindOfCorruptedValue) {
  auto rng = cuzk::test::seeded_rng("PoseidonCircuit.CheckerCatchesEveryKindOfCorruptedValue");
  for (std::size_t arity : {2, 8, 11}) {
    std::vector<Fr> preimage = random_preimage(rng, arity);
    const std::size_t count = poseidon::circuit_constraint_count(poseidon::constants(arity));
    // The first S-box values, a partial-round value, the output, and random positions (after the preimage).
    std::vector<std::size_t> targets = {arity, arity + 1, arity + 2, arity + count / 2, arity + count - 1};
    for (int i = 0; i < 8; ++i) targets.push_back(arity + rng() % count);
    for (std::size_t target : targets) {
      r1cs::Checker checker;
      checker.corrupt_aux_on_alloc(target, cuzk::test::random_field<Fr>(rng));
      hash_circuit(checker, preimage);
      EXPECT_FALSE(checker.is_satisfied()) << "arity " << arity << ", aux " << target;
    }
  }
}

TEST(PoseidonCircuit, RustFilProofsHash2AndHashMd) {
  // hash2_circuit(1, 0) = rfp test_poseidon_hasher's H(1, 0).
  r1cs::Checker checker;
  AllocatedNum h = hash_circuit(checker, {Fr::one(), Fr::zero()});
  EXPECT_TRUE(checker.is_satisfied());
  EXPECT_EQ(h.value(),
            fr_from_limbs({0xb339ff6079800b5e, 0xec5907b3dc3094af, 0x93c003cc74a24f26, 0x042f94ffbe786bc3}));

  // rfp test_hash_md_circuit: 71 allocated ones, 2,770 constraints, value = native hash_md.
  auto run_md = [](auto& cs) {
    std::vector<AllocatedNum> ones;
    for (int i = 0; i < 71; ++i) ones.push_back(AllocatedNum::alloc_value(cs, Fr::one()));
    return cuzk::gadgets::poseidon_hash_md(cs, std::span<const AllocatedNum>(ones));
  };
  r1cs::Checker md_checker;
  AllocatedNum md = run_md(md_checker);
  EXPECT_TRUE(md_checker.is_satisfied());
  EXPECT_EQ(md_checker.num_constraints(), 2770u);
  EXPECT_EQ(md.value(),
            fr_from_limbs({0x351c54133b332c90, 0xc26f6d625f4e8195, 0x5fd9623643ed9622, 0x59f42220e09ff6f7}));
  r1cs::Counter counter;
  run_md(counter);
  EXPECT_EQ(counter.num_constraints(), 2770u);
  r1cs::Recorder recorder;
  run_md(recorder);
  EXPECT_EQ(recorder.num_constraints(), 2770u);

  // A short last chunk allocates zero padding: 40 elements = one chunk of 35 and one of 4 (+31 padding).
  std::vector<Fr> values(40);
  for (std::size_t i = 0; i < values.size(); ++i) values[i] = Fr::from_u64(i * 7 + 1);
  r1cs::Checker pad_checker;
  std::vector<AllocatedNum> vars;
  for (const Fr& v : values) vars.push_back(AllocatedNum::alloc_value(pad_checker, v));
  AllocatedNum padded = cuzk::gadgets::poseidon_hash_md(pad_checker, std::span<const AllocatedNum>(vars));
  EXPECT_TRUE(pad_checker.is_satisfied());
  EXPECT_EQ(padded.value(), poseidon::hash_md(values));
  EXPECT_EQ(pad_checker.num_aux(), 40u + 2 * 1385 + 31);
}
