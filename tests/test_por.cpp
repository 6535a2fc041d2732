// Native Merkle trees (SHA-256 with Filecoin trimming, Poseidon base/sub/top) and paths.
//
// Independent facts: rfp filecoin-proofs/tests/pieces.rs test_compute_comm_d_empty (comm_d of an all-zero
// 2KiB and 128-byte sector); rfp filecoin-hashers poseidon.rs test_poseidon_hasher (binary Poseidon tree
// over [1, 0, 0, 1]); rfp path lengths (storage-proofs-core/src/merkle/proof.rs) (tree_r / tree_d path lengths per sector size).
#include <gtest/gtest.h>

#include <vector>

#include "prover/algebra/hex.hpp"
#include "prover/gadgets/merkle_native.hpp"
#include "prover/gadgets/poseidon_native.hpp"
#include "tests/test_util.hpp"

using cuzk::algebra::Fr;
namespace merkle = cuzk::gadgets::merkle;
using merkle::Bytes32;
using merkle::TreeShape;

namespace {

std::vector<Fr> random_leaves(std::mt19937_64& rng, std::size_t count) {
  std::vector<Fr> leaves;
  for (std::size_t i = 0; i < count; ++i) leaves.push_back(cuzk::test::random_field<Fr>(rng));
  return leaves;
}

Bytes32 bytes_from_hex(const char* hex) {
  Bytes32 out{};
  for (std::size_t i = 0; i < 32; ++i) {
    out[i] = static_cast<std::uint8_t>(cuzk::algebra::hex_digit_value(hex[2 * i]) * 16 +
                                       cuzk::algebra::hex_digit_value(hex[2 * i + 1]));
  }
  return out;
}

}  // namespace

TEST(MerkleNative, ZeroSectorCommDMatchesRustFilProofs) {
  // 2 KiB = 64 zero nodes of 32 bytes, binary SHA-256 tree with trimming.
  std::vector<Bytes32> zeros_2k(64, Bytes32{});
  Bytes32 expected_2k = {252, 126, 146, 130, 150, 229, 22, 250, 173, 233, 134, 178, 143, 146, 212, 74,
                         79,  36,  185, 53,  72,  82,  35, 55,  106, 121, 144, 39,  188, 24,  248, 51};
  EXPECT_EQ(merkle::tree_root<merkle::Sha256Hasher>(zeros_2k, TreeShape{2}), expected_2k);
  std::vector<Bytes32> zeros_128(4, Bytes32{});
  EXPECT_EQ(merkle::tree_root<merkle::Sha256Hasher>(zeros_128, TreeShape{2}),
            bytes_from_hex("3731bb99ac689f66eef5973e4a94da188f4ddcae580724fc6f3fd60dfd488333"));
}

TEST(MerkleNative, PoseidonBinaryTreeMatchesRustFilProofs) {
  std::vector<Fr> leaves = {Fr::one(), Fr::zero(), Fr::zero(), Fr::one()};
  Fr root = merkle::tree_root<merkle::PoseidonHasher>(leaves, TreeShape{2});
  EXPECT_EQ(root, Fr::from_canonical(
                      {0xefbb8be3e291e671, 0x77cc72b8cb2b5ad2, 0x30eb6385ae6b74ae, 0x1effebb7b26ad9eb}));
}

TEST(MerkleNative, PathLengthsMatchSectorTable) {
  // rfp storage-proofs-core/src/merkle/proof.rs: tree_r path lengths 2, 6, 8, 9+1, 9+1+1 and tree_d 6, 18, 24, 30, 31.
  EXPECT_EQ(merkle::path_length(1u << 6, TreeShape{8}), 2u);
  EXPECT_EQ(merkle::path_length(1u << 18, TreeShape{8}), 6u);
  EXPECT_EQ(merkle::path_length(1u << 24, TreeShape{8}), 8u);
  EXPECT_EQ(merkle::base_path_length(std::size_t{1} << 30, TreeShape{8, 8}), 9u);
  EXPECT_EQ(merkle::path_length(std::size_t{1} << 30, TreeShape{8, 8}), 10u);
  EXPECT_EQ(merkle::base_path_length(std::size_t{1} << 31, TreeShape{8, 8, 2}), 9u);
  EXPECT_EQ(merkle::path_length(std::size_t{1} << 31, TreeShape{8, 8, 2}), 11u);
  EXPECT_EQ(merkle::path_length(std::size_t{1} << 31, TreeShape{2}), 31u);
  EXPECT_EQ(merkle::path_arities(std::size_t{1} << 31, TreeShape{8, 8, 2}),
            (std::vector<std::size_t>{8, 8, 8, 8, 8, 8, 8, 8, 8, 8, 2}));
  EXPECT_THROW(merkle::path_length(48, TreeShape{8}), std::invalid_argument);
  EXPECT_THROW(merkle::path_length(64, TreeShape{8, 0, 2}), std::invalid_argument);
}

TEST(MerkleNative, PoseidonCompoundPathsReachTheRoot) {
  auto rng = cuzk::test::seeded_rng("MerkleNative.PoseidonCompoundPathsReachTheRoot");
  const TreeShape shapes[] = {{8}, {8, 8}, {8, 8, 2}, {8, 4, 2}, {8, 2}, {4}, {2}};
  for (const TreeShape& shape : shapes) {
    const std::size_t leaves_count = 64 * shape.base_tree_count();
    std::vector<Fr> leaves = random_leaves(rng, leaves_count);
    Fr root = merkle::tree_root<merkle::PoseidonHasher>(leaves, shape);
    for (std::size_t index : {std::size_t{0}, std::size_t{1}, leaves_count / 3, leaves_count - 1}) {
      auto path = merkle::tree_path<merkle::PoseidonHasher>(leaves, shape, index);
      ASSERT_EQ(path.size(), merkle::path_length(leaves_count, shape));
      EXPECT_EQ(merkle::path_leaf_index<Fr>(path), index);
      EXPECT_EQ(merkle::root_from_path<merkle::PoseidonHasher>(leaves[index], path), root);
      // A wrong leaf or a tampered sibling gives another root.
      EXPECT_NE(merkle::root_from_path<merkle::PoseidonHasher>(leaves[index] + Fr::one(), path), root);
      path.back().siblings[0] += Fr::one();
      EXPECT_NE(merkle::root_from_path<merkle::PoseidonHasher>(leaves[index], path), root);
    }
  }
}

TEST(MerkleNative, CompoundRootIsTheHashOfBaseRoots) {
  // 8-8-2: two sub-trees of eight base trees each, consecutive leaf ranges (rfp create_tree in
  // por_circuit.rs).
  auto rng = cuzk::test::seeded_rng("MerkleNative.CompoundRootIsTheHashOfBaseRoots");
  const std::size_t base_leaves = 8;
  std::vector<Fr> leaves = random_leaves(rng, base_leaves * 16);
  std::vector<Fr> base_roots;
  for (std::size_t b = 0; b < 16; ++b) {
    base_roots.push_back(merkle::tree_root<merkle::PoseidonHasher>(
        std::span<const Fr>(leaves).subspan(b * base_leaves, base_leaves), TreeShape{8}));
  }
  Fr sub0 = cuzk::gadgets::poseidon::hash(std::span<const Fr>(base_roots).subspan(0, 8));
  Fr sub1 = cuzk::gadgets::poseidon::hash(std::span<const Fr>(base_roots).subspan(8, 8));
  EXPECT_EQ(merkle::tree_root<merkle::PoseidonHasher>(leaves, TreeShape{8, 8, 2}),
            cuzk::gadgets::poseidon::hash(std::vector<Fr>{sub0, sub1}));
}

TEST(MerkleNative, Sha256PathsReachTheRoot) {
  auto rng = cuzk::test::seeded_rng("MerkleNative.Sha256PathsReachTheRoot");
  std::vector<Bytes32> leaves(32);
  for (auto& leaf : leaves) {
    for (auto& b : leaf) b = static_cast<std::uint8_t>(rng());
    leaf[31] &= 0x3f;
  }
  Bytes32 root = merkle::tree_root<merkle::Sha256Hasher>(leaves, TreeShape{2});
  for (std::size_t index = 0; index < leaves.size(); ++index) {
    auto path = merkle::tree_path<merkle::Sha256Hasher>(leaves, TreeShape{2}, index);
    ASSERT_EQ(path.size(), 5u);
    EXPECT_EQ(merkle::path_leaf_index<Bytes32>(path), index);
    EXPECT_EQ(merkle::root_from_path<merkle::Sha256Hasher>(leaves[index], path), root);
  }
}

// ---------------------------------------------------------------------------------------------------------
// Insertion (rfp storage-proofs-core/src/gadgets/insertion.rs) and PoR circuits (gadgets/por.rs).
// Counts: rfp insertion.rs test_select / test_insert and storage-proofs-core/tests/por_circuit.rs.

#include "prover/gadgets/insertion.hpp"
#include "prover/gadgets/por.hpp"
#include "prover/r1cs/evaluate.hpp"

namespace {

using cuzk::gadgets::AllocatedBit;
using cuzk::gadgets::AllocatedNum;
using cuzk::gadgets::Boolean;
namespace gadgets = cuzk::gadgets;
namespace r1cs = cuzk::r1cs;

struct InsertionRun {
  std::vector<AllocatedNum> result;
  std::size_t setup_constraints = 0;
};

// rfp test_insert: allocate size - 1 elements, the element, then log2(size) index bits; insert.
template <class CS>
InsertionRun run_insert(CS& cs, const std::vector<Fr>& elements, const Fr& element, std::size_t index,
                        std::size_t log_size) {
  std::vector<AllocatedNum> vars;
  for (const Fr& e : elements) vars.push_back(AllocatedNum::alloc_value(cs, e));
  AllocatedNum to_insert = AllocatedNum::alloc_value(cs, element);
  std::vector<Boolean> bits;
  for (std::size_t i = 0; i < log_size; ++i) bits.push_back(AllocatedBit::alloc(cs, ((index >> i) & 1) != 0));
  InsertionRun run;
  if constexpr (requires { cs.num_constraints(); }) run.setup_constraints = cs.num_constraints();
  run.result =
      gadgets::insert(cs, to_insert, std::span<const Boolean>(bits), std::span<const AllocatedNum>(vars));
  return run;
}

}  // namespace

TEST(Insertion, ConstraintCountsAndValues) {
  auto rng = cuzk::test::seeded_rng("Insertion.ConstraintCountsAndValues");
  for (std::size_t log_size = 1; log_size <= 4; ++log_size) {
    const std::size_t size = std::size_t{1} << log_size;
    // rfp: 8 -> 22 (unoptimized 56), 4 -> 8 (unoptimized 12), otherwise size * (size - 1).
    const std::size_t expected = size == 8 ? 22 : size == 4 ? 8 : size * (size - 1);
    for (std::size_t index = 0; index < size; ++index) {
      std::vector<Fr> elements = random_leaves(rng, size - 1);
      Fr element = cuzk::test::random_field<Fr>(rng);
      r1cs::Checker checker;
      InsertionRun run = run_insert(checker, elements, element, index, log_size);
      ASSERT_EQ(run.setup_constraints, log_size);
      EXPECT_EQ(checker.num_constraints() - run.setup_constraints, expected) << size;
      ASSERT_TRUE(checker.is_satisfied()) << checker.first_failure()->path;
      ASSERT_EQ(run.result.size(), size);
      for (std::size_t pos = 0; pos < size; ++pos) {
        Fr want = pos < index ? elements[pos] : pos == index ? element : elements[pos - 1];
        EXPECT_EQ(run.result[pos].value(), want) << "size " << size << " index " << index << " pos " << pos;
        EXPECT_EQ(checker.value(run.result[pos].variable()), want);
      }
      r1cs::Counter counter;
      run_insert(counter, elements, element, index, log_size);
      r1cs::Recorder recorder;
      run_insert(recorder, elements, element, index, log_size);
      EXPECT_EQ(counter.num_constraints(), checker.num_constraints());
      EXPECT_EQ(recorder.num_constraints(), checker.num_constraints());
      EXPECT_EQ(counter.num_aux(), checker.num_aux());
      // One aux variable per constraint of the insertion itself.
      EXPECT_EQ(checker.num_aux() - (size + log_size), expected);
    }
  }
}

TEST(Insertion, SelectCosts) {
  // rfp test_select: one constraint per non-leaf node of a binary tree with `size` leaves.
  auto rng = cuzk::test::seeded_rng("Insertion.SelectCosts");
  for (std::size_t log_size = 1; log_size < 5; ++log_size) {
    const std::size_t size = std::size_t{1} << log_size;
    for (std::size_t index = 0; index < size; ++index) {
      r1cs::Checker cs;
      std::vector<AllocatedNum> from;
      std::vector<Fr> values = random_leaves(rng, size);
      for (const Fr& v : values) from.push_back(AllocatedNum::alloc_value(cs, v));
      std::vector<Boolean> bits;
      for (std::size_t i = 0; i < log_size; ++i)
        bits.push_back(AllocatedBit::alloc(cs, ((index >> i) & 1) != 0));
      AllocatedNum selected =
          gadgets::select(cs, std::span<const AllocatedNum>(from), std::span<const Boolean>(bits));
      EXPECT_TRUE(cs.is_satisfied());
      EXPECT_EQ(selected.value(), values[index]);
      EXPECT_EQ(cs.num_constraints() - log_size, size - 1);
    }
  }
}

TEST(Insertion, CheckerCatchesCorruptedPicks) {
  auto rng = cuzk::test::seeded_rng("Insertion.CheckerCatchesCorruptedPicks");
  for (std::size_t log_size : {1, 2, 3}) {
    const std::size_t size = std::size_t{1} << log_size;
    std::vector<Fr> elements = random_leaves(rng, size - 1);
    Fr element = cuzk::test::random_field<Fr>(rng);
    const std::size_t first_gadget_aux = size + log_size;
    const std::size_t gadget_aux = size == 8 ? 22 : size == 4 ? 8 : 2;
    for (std::size_t k = 0; k < gadget_aux; ++k) {
      for (std::size_t index = 0; index < size; ++index) {
        r1cs::Checker checker;
        checker.corrupt_aux_on_alloc(first_gadget_aux + k, cuzk::test::random_field<Fr>(rng));
        run_insert(checker, elements, element, index, log_size);
        EXPECT_FALSE(checker.is_satisfied()) << "size " << size << " aux " << k << " index " << index;
      }
    }
  }
}

namespace {

struct PorCase {
  TreeShape shape;
  bool sha256;
  std::size_t public_root_constraints;  // rfp test_por_circuit (num_inputs 3)
  std::size_t
      private_root_constraints;  // rfp test_por_circuit_private_root (num_inputs 2); 0 = not published
};

template <class TreeHash, class CS>
void run_por(CS& cs, const TreeShape& shape, const Fr& leaf, const std::vector<merkle::PathElement<Fr>>& path,
             const Fr& root, bool private_root) {
  gadgets::por_circuit<TreeHash>(cs, shape, leaf, std::span<const merkle::PathElement<Fr>>(path), root,
                                 private_root);
}

Fr bytes_to_fr(const Bytes32& b) {
  Fr f;
  EXPECT_TRUE(Fr::from_bytes_le(b.data(), f));
  return f;
}

// Checks one PoR case end to end at a few leaf indices.
void check_por_case(const PorCase& pc, std::mt19937_64& rng) {
  const std::size_t leaves_count = 64 * pc.shape.base_tree_count();
  std::vector<Fr> leaves;
  Fr root;
  std::vector<Bytes32> sha_leaves;
  if (pc.sha256) {
    for (std::size_t i = 0; i < leaves_count; ++i) {
      Bytes32 b;
      for (auto& x : b) x = static_cast<std::uint8_t>(rng());
      b[31] &= 0x3f;
      sha_leaves.push_back(b);
      leaves.push_back(bytes_to_fr(b));
    }
    root = bytes_to_fr(merkle::tree_root<merkle::Sha256Hasher>(sha_leaves, pc.shape));
  } else {
    leaves = random_leaves(rng, leaves_count);
    root = merkle::tree_root<merkle::PoseidonHasher>(leaves, pc.shape);
  }
  const std::size_t indices[] = {0, leaves_count - 1, static_cast<std::size_t>(rng() % leaves_count)};
  for (std::size_t index : indices) {
    std::vector<merkle::PathElement<Fr>> path;
    if (pc.sha256) {
      for (const auto& e : merkle::tree_path<merkle::Sha256Hasher>(sha_leaves, pc.shape, index)) {
        merkle::PathElement<Fr> f;
        f.index = e.index;
        for (const Bytes32& s : e.siblings) f.siblings.push_back(bytes_to_fr(s));
        path.push_back(std::move(f));
      }
    } else {
      path = merkle::tree_path<merkle::PoseidonHasher>(leaves, pc.shape, index);
    }
    for (bool private_root : {false, true}) {
      r1cs::Checker checker;
      if (pc.sha256) {
        run_por<gadgets::Sha256TreeHash>(checker, pc.shape, leaves[index], path, root, private_root);
      } else {
        run_por<gadgets::PoseidonTreeHash>(checker, pc.shape, leaves[index], path, root, private_root);
      }
      ASSERT_TRUE(checker.is_satisfied()) << checker.first_failure()->path;
      const std::size_t expected =
          private_root
              ? (pc.private_root_constraints ? pc.private_root_constraints : pc.public_root_constraints - 1)
              : pc.public_root_constraints;
      EXPECT_EQ(checker.num_constraints(), expected);
      ASSERT_EQ(checker.num_inputs(), private_root ? 2u : 3u);
      // generate_public_inputs: [leaf index as Fr] (+ [root] when public).
      EXPECT_EQ(checker.inputs()[1], Fr::from_u64(index));
      if (!private_root) {
        EXPECT_EQ(checker.inputs()[2], root);
      }
    }
  }
  // Counter and Recorder on a blank path (rfp blank_circuit) count the same.
  std::vector<merkle::PathElement<Fr>> blank = gadgets::blank_path(leaves_count, pc.shape);
  r1cs::Counter counter;
  r1cs::Recorder recorder;
  if (pc.sha256) {
    run_por<gadgets::Sha256TreeHash>(counter, pc.shape, Fr::zero(), blank, Fr::zero(), false);
    run_por<gadgets::Sha256TreeHash>(recorder, pc.shape, Fr::zero(), blank, Fr::zero(), false);
  } else {
    run_por<gadgets::PoseidonTreeHash>(counter, pc.shape, Fr::zero(), blank, Fr::zero(), false);
    run_por<gadgets::PoseidonTreeHash>(recorder, pc.shape, Fr::zero(), blank, Fr::zero(), false);
  }
  EXPECT_EQ(counter.num_constraints(), pc.public_root_constraints);
  EXPECT_EQ(recorder.num_constraints(), pc.public_root_constraints);
  EXPECT_EQ(counter.num_inputs(), 3u);
  EXPECT_EQ(recorder.num_aux(), counter.num_aux());
}

}  // namespace

TEST(PorCircuit, PoseidonTreesMatchRustFilProofsCounts) {
  auto rng = cuzk::test::seeded_rng("PorCircuit.PoseidonTreesMatchRustFilProofsCounts");
  const PorCase cases[] = {
      {{2}, false, 1887, 1886},    {{4}, false, 1164, 1163},    {{8}, false, 1063, 1062},
      {{8, 2}, false, 1377, 0},    {{8, 4, 2}, false, 1764, 0}, {{8, 8}, false, 1593, 0},
      {{8, 8, 2}, false, 1907, 0}, {{8, 2, 4}, false, 1764, 0},
  };
  for (const PorCase& pc : cases) {
    SCOPED_TRACE(std::to_string(pc.shape.base_arity) + "-" + std::to_string(pc.shape.sub_arity) + "-" +
                 std::to_string(pc.shape.top_arity));
    check_por_case(pc, rng);
  }
}

TEST(PorCircuit, Sha256BinaryTreeMatchesRustFilProofsCount) {
  auto rng = cuzk::test::seeded_rng("PorCircuit.Sha256BinaryTreeMatchesRustFilProofsCount");
  check_por_case({{2}, true, 272'295, 0}, rng);
}

TEST(PorCircuit, Sha256QuadAndOctTreesMatchRustFilProofsCounts) {
  // rfp por_circuit.rs test_por_circuit_sha256_base_4 / _8 (hash_multi_leaf_circuit over 4 / 8 leaves).
  for (auto [arity, expected] : {std::pair<std::size_t, std::size_t>{4, 216'258}, {8, 250'987}}) {
    r1cs::Counter counter;
    std::vector<merkle::PathElement<Fr>> blank = gadgets::blank_path(64, TreeShape{arity});
    run_por<gadgets::Sha256TreeHash>(counter, TreeShape{arity}, Fr::zero(), blank, Fr::zero(), false);
    EXPECT_EQ(counter.num_constraints(), expected) << arity;
  }
}

TEST(PorCircuit, EnforceInclusionWithExistingVariables) {
  // The stacked circuit's enforce_inclusion: leaf and root already allocated, private root. Per level
  // log2(a) + insert + Poseidon-a constraints, plus 2 (pack_into_inputs, equal); docs/circuit.md §9: tree C / R
  // levels cost 530 (arity 8) and 314 (arity 2).
  auto rng = cuzk::test::seeded_rng("PorCircuit.EnforceInclusionWithExistingVariables");
  const TreeShape shape{8, 8, 2};
  std::vector<Fr> leaves = random_leaves(rng, 8 * 8 * 16);
  Fr root_value = merkle::tree_root<merkle::PoseidonHasher>(leaves, shape);
  const std::size_t index = static_cast<std::size_t>(rng() % leaves.size());
  auto path = merkle::tree_path<merkle::PoseidonHasher>(leaves, shape, index);
  auto run = [&](auto& cs, const Fr& leaf_value) {
    AllocatedNum root = AllocatedNum::alloc_value(cs, root_value);
    AllocatedNum leaf = AllocatedNum::alloc_value(cs, leaf_value);
    gadgets::enforce_inclusion<gadgets::PoseidonTreeHash>(
        cs, shape, std::span<const merkle::PathElement<Fr>>(path), root, leaf);
  };
  r1cs::Checker checker;
  run(checker, leaves[index]);
  ASSERT_TRUE(checker.is_satisfied()) << checker.first_failure()->path;
  EXPECT_EQ(checker.num_constraints(), 2 * 530 + 530 + 314 + 2);
  EXPECT_EQ(checker.num_inputs(), 2u);
  EXPECT_EQ(checker.inputs()[1], Fr::from_u64(index));
  // A wrong leaf reaches another root: the final equality fails.
  r1cs::Checker wrong;
  run(wrong, leaves[index] + Fr::one());
  ASSERT_FALSE(wrong.is_satisfied());
  EXPECT_NE(wrong.first_failure()->path.find("enforce root is correct"), std::string::npos)
      << wrong.first_failure()->path;
  // Witness and recorder agree; the recorded matrices accept the witness.
  r1cs::WitnessGen witness;
  run(witness, leaves[index]);
  r1cs::RecorderWithWitness recorder;
  run(recorder, leaves[index]);
  EXPECT_EQ(witness.aux(), recorder.aux());
  EXPECT_EQ(witness.inputs(), recorder.inputs());
  r1cs::R1cs m = recorder.finish();
  EXPECT_EQ(r1cs::first_unsatisfied(m, recorder.inputs(), recorder.aux()), std::nullopt);
}

TEST(PorCircuit, CheckerCatchesCorruptedPathValues) {
  auto rng = cuzk::test::seeded_rng("PorCircuit.CheckerCatchesCorruptedPathValues");
  const TreeShape shape{8, 2};
  std::vector<Fr> leaves = random_leaves(rng, 64 * 2);
  Fr root = merkle::tree_root<merkle::PoseidonHasher>(leaves, shape);
  const std::size_t index = 77;
  auto path = merkle::tree_path<merkle::PoseidonHasher>(leaves, shape, index);
  r1cs::Counter counter;
  run_por<gadgets::PoseidonTreeHash>(counter, shape, leaves[index], path, root, true);
  // Aux 0 is the leaf, 1..3 the first index bits, 4..10 the first siblings; then insert and Poseidon.
  std::vector<std::size_t> targets = {0, 1, 3, 4, 10, 11, 40, counter.num_aux() - 1};
  for (int i = 0; i < 10; ++i) targets.push_back(static_cast<std::size_t>(rng() % counter.num_aux()));
  for (std::size_t target : targets) {
    r1cs::Checker checker;
    checker.corrupt_aux_on_alloc(target, cuzk::test::random_field<Fr>(rng));
    run_por<gadgets::PoseidonTreeHash>(checker, shape, leaves[index], path, root, true);
    EXPECT_FALSE(checker.is_satisfied()) << "aux " << target;
  }
}

TEST(PorCircuit, SectorSizeInclusionCounts) {
  // docs/circuit.md §9 (derived from the published anchors): tree D PoR per challenge = 272,294 (2KiB, 6 levels),
  // 1,361,462 (32GiB, 30 levels); Poseidon 8-8-0 (32GiB tree C/R) = 9 * 530 + 530 + 2.
  auto count = [](auto hash, std::size_t leaves, const TreeShape& shape) {
    r1cs::Counter counter;
    AllocatedNum root = AllocatedNum::alloc_value(counter, Fr::zero());
    AllocatedNum leaf = AllocatedNum::alloc_value(counter, Fr::zero());
    std::vector<merkle::PathElement<Fr>> blank = gadgets::blank_path(leaves, shape);
    gadgets::enforce_inclusion<decltype(hash)>(counter, shape,
                                               std::span<const merkle::PathElement<Fr>>(blank), root, leaf);
    return counter.num_constraints();
  };
  EXPECT_EQ(count(gadgets::Sha256TreeHash{}, 64, TreeShape{2}), 272'294u);
  EXPECT_EQ(count(gadgets::Sha256TreeHash{}, std::size_t{1} << 30, TreeShape{2}), 1'361'462u);
  EXPECT_EQ(count(gadgets::PoseidonTreeHash{}, std::size_t{1} << 30, TreeShape{8, 8}), 10u * 530 + 2);
  EXPECT_EQ(count(gadgets::PoseidonTreeHash{}, std::size_t{1} << 31, TreeShape{8, 8, 2}),
            10u * 530 + 314 + 2);
}
