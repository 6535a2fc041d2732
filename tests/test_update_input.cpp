// The update input file (prover/update/input_file.hpp): the registered names, a round trip through the
// file, every malformed case refused with an UpdateError that names the file (and the partition), and
// generated inputs (prover/update/gen_update.hpp) whose witnesses satisfy the circuit (2KiB) or whose
// Merkle proofs hash to their roots (32GiB, sparse).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

#include "io/temp_dir.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/sparse_tree.hpp"
#include "prover/r1cs/constraint_system.hpp"
#include "prover/update/circuit.hpp"
#include "prover/update/errors.hpp"
#include "prover/update/gen_update.hpp"
#include "prover/update/input_file.hpp"
#include "prover/update/vanilla_proof.hpp"

namespace {

using namespace cuzk;
using namespace cuzk::update;

// A Merkle proof of `levels` path elements with `siblings` hashes each (contents are not looked at here).
porep::MerkleProof merkle_proof(std::size_t levels, std::size_t siblings) {
  porep::MerkleProof p;
  p.kind = porep::MerkleProof::Kind::kSingle;
  p.root[0] = 1;
  p.leaf[0] = 2;
  for (std::size_t l = 0; l < levels; ++l) {
    porep::PathElement e;
    e.hashes.assign(siblings, porep::Domain{});
    e.hashes[0][0] = static_cast<std::uint8_t>(l);
    e.index = l % (siblings + 1);
    p.base.path.push_back(std::move(e));
  }
  return p;
}

// A 2KiB input of the right counts (one partition, 10 challenges, 8 apex leaves): the reader checks the
// counts, not the Merkle proofs (partition_witness does).
UpdateInput counted_2kib_input() {
  UpdateInput in;
  in.registered_proof = find_registered_update_proof("StackedDrg2KiBV1");
  in.sector_id = 42;
  in.comm_r_old[0] = 1;
  in.comm_r_new[1] = 2;
  in.comm_d_new[31] = 0x3f;
  VanillaPartitionProof p;
  p.comm_c[5] = 9;
  p.apex_leafs.assign(8, porep::Domain{});
  for (std::size_t c = 0; c < 10; ++c)
    p.challenge_proofs.push_back({merkle_proof(2, 7), merkle_proof(6, 1), merkle_proof(2, 7)});
  in.vanilla_proofs.push_back(std::move(p));
  return in;
}

std::string replace_once(std::string s, const std::string& from, const std::string& to) {
  const auto pos = s.find(from);
  EXPECT_NE(pos, std::string::npos) << "pattern not found: " << from;
  if (pos != std::string::npos) s.replace(pos, from.size(), to);
  return s;
}

// The message of the UpdateError parsing `text` as u.json throws ("" and a failure if none).
std::string refusal(const std::string& text) {
  try {
    parse_update_input_json(text, "u.json");
  } catch (const UpdateError& e) {
    return e.what();
  }
  ADD_FAILURE() << "accepted: " << text.substr(0, 200);
  return {};
}

void expect_refused(const std::string& text, const std::string& needle, bool names_partition = false) {
  const std::string what = refusal(text);
  EXPECT_EQ(what.rfind("u.json", 0), 0u) << what;
  EXPECT_NE(what.find(needle), std::string::npos) << "expected '" << needle << "' in: " << what;
  if (names_partition) {
    EXPECT_NE(what.find("partition 0"), std::string::npos) << what;
  }
}

std::string base64_of(const std::vector<std::uint8_t>& bytes) {
  return porep::base64_encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
}

TEST(UpdateInputNames, RegisteredUpdateProofs) {
  // rust-filecoin-proofs-api registry.rs RegisteredUpdateProof.
  const std::vector<std::pair<std::string, std::string>> expected = {{"StackedDrg2KiBV1", "2KiB"},
                                                                     {"StackedDrg8MiBV1", "8MiB"},
                                                                     {"StackedDrg512MiBV1", "512MiB"},
                                                                     {"StackedDrg32GiBV1", "32GiB"},
                                                                     {"StackedDrg64GiBV1", "64GiB"}};
  ASSERT_EQ(registered_update_proofs().size(), expected.size());
  for (const auto& [name, size] : expected) {
    const RegisteredUpdateProof* p = find_registered_update_proof(name);
    ASSERT_NE(p, nullptr) << name;
    EXPECT_EQ(p->size_label, size);
    EXPECT_TRUE(p->shape().registered);
    EXPECT_EQ(registered_update_proof_for_size(size), p);
  }
  EXPECT_EQ(find_registered_update_proof("StackedDrg32GiBV1_1"), nullptr);  // a seal proof's spelling
  EXPECT_EQ(find_registered_update_proof("StackedDRG32GiBV1"), nullptr);
  EXPECT_EQ(registered_update_proof_for_size("16KiB"), nullptr);  // a test shape only
}

TEST(UpdateInputFile, RoundTripThroughTheFile) {
  const UpdateInput in = counted_2kib_input();
  io::TempDir dir("cuzk-update-input-");
  const std::string path = (dir.path() / "u.json").string();
  write_update_input_file(path, in);
  EXPECT_EQ(read_update_input_file(path), in);
  const std::string json = update_input_to_json(in);
  EXPECT_NE(json.find("\"registered_proof\":\"StackedDrg2KiBV1\""), std::string::npos);
  EXPECT_NE(json.find("\"sector_id\":42"), std::string::npos);
  // Whitespace and field order are free.
  std::string reordered =
      "{ \"sector_id\" : 42 ,\n" + replace_once(json.substr(1), ",\n\"sector_id\":42", "");
  EXPECT_EQ(parse_update_input_json(reordered, "u.json"), in);
  // No temporary file is left beside it.
  std::size_t files = 0;
  for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator(dir.path())) ++files;
  EXPECT_EQ(files, 1u);
}

TEST(UpdateInputFile, WriterRefusesWhatTheReaderWould) {
  UpdateInput in = counted_2kib_input();
  in.vanilla_proofs.push_back(in.vanilla_proofs[0]);
  EXPECT_THROW(update_input_to_json(in), UpdateError);
  in = counted_2kib_input();
  in.registered_proof = nullptr;
  EXPECT_THROW(update_input_to_json(in), UpdateError);
}

TEST(UpdateInputFile, MalformedFieldsAreRefused) {
  const std::string json = update_input_to_json(counted_2kib_input());
  expect_refused("", "");
  expect_refused("[]", "u.json");
  expect_refused(replace_once(json, "\"sector_id\":42", "\"sector_id\":42,\"sector_num\":1"),
                 "unknown field \"sector_num\"");
  expect_refused(replace_once(json, "\"sector_id\":42", "\"sector_id\":42,\"sector_id\":43"),
                 "duplicate field \"sector_id\"");
  expect_refused(replace_once(json, "\"sector_id\":42,\n", ""), "missing field \"sector_id\"");
  expect_refused(replace_once(json, "\"sector_id\":42", "\"sector_id\":\"42\""), "u.json (offset");
  expect_refused(replace_once(json, "\"sector_id\":42", "\"sector_id\":-1"), "u.json (offset");
  expect_refused(replace_once(json, "StackedDrg2KiBV1", "StackedDrg2KiBV1_1"),
                 "\"StackedDrg2KiBV1_1\" is not a registered update proof");
  expect_refused(replace_once(json, "\"comm_r_old\":[1,", "\"comm_r_old\":["), "u.json (offset");
  expect_refused(replace_once(json, "\"comm_r_old\":[1,", "\"comm_r_old\":[1,0,"), "u.json (offset");
  expect_refused(replace_once(json, "\"comm_r_old\":[1,", "\"comm_r_old\":[256,"), "u.json (offset");
  // 32 bytes of 0xff: not below the field's order.
  std::string all_ff = "[255";
  for (int i = 1; i < 32; ++i) all_ff += ",255";
  all_ff += "]";
  const std::size_t start = json.find("\"comm_d_new\":") + 13;
  std::string non_canonical = json;
  non_canonical.replace(start, json.find(']', start) + 1 - start, all_ff);
  expect_refused(non_canonical, "comm_d_new is not a canonical field element");
  expect_refused(json + "x", "u.json");
  expect_refused(replace_once(json, "\"vanilla_proofs\":[", "\"vanilla_proofs\":{"), "u.json (offset");
}

TEST(UpdateInputFile, MalformedVanillaProofsNamePartition) {
  const UpdateInput in = counted_2kib_input();
  const std::string json = update_input_to_json(in);
  const std::vector<std::uint8_t> bytes = serialize_partition_proof(in.vanilla_proofs[0]);
  const std::string b64 = base64_of(bytes);
  ASSERT_NE(json.find(b64), std::string::npos);
  auto with_proof = [&](const std::string& proof) { return replace_once(json, "\"" + b64 + "\"", proof); };
  expect_refused(with_proof("\"" + b64.substr(1) + "\""), "invalid base64", true);
  expect_refused(with_proof("\"" + std::string(b64).replace(8, 1, "!") + "\""), "invalid base64", true);
  expect_refused(with_proof("17"), "partition 0", true);
  // Truncated bytes, bytes left over.
  expect_refused(with_proof("\"" + base64_of({bytes.begin(), bytes.end() - 3}) + "\""), "truncated", true);
  std::vector<std::uint8_t> longer = bytes;
  longer.push_back(0);
  expect_refused(with_proof("\"" + base64_of(longer) + "\""), "left over", true);
  // The wrong partition count for 2KiB (one), and proofs of another shape.
  const std::string two = with_proof("\"" + b64 + "\",\"" + b64 + "\"");
  expect_refused(two, "more than 1 vanilla proofs");  // stopped at the second, registered_proof known
  // With vanilla_proofs first, the count is checked once the proof is known.
  const std::size_t vp = two.find(",\n\"vanilla_proofs\"");
  const std::string fields = two.substr(1, vp - 1), proofs = two.substr(vp + 2);
  const std::string proofs_first = "{" + proofs.substr(0, proofs.rfind('}')) + "," + fields + "}";
  expect_refused(proofs_first, "2 vanilla proofs, a 2KiB update has 1 partitions");
  expect_refused(with_proof(""), "0 vanilla proofs");
  UpdateInput fewer = in;
  fewer.vanilla_proofs[0].challenge_proofs.pop_back();
  expect_refused(with_proof("\"" + base64_of(serialize_partition_proof(fewer.vanilla_proofs[0])) + "\""),
                 "partition 0: 9 challenge proofs, a 2KiB partition has 10", true);
  fewer = in;
  fewer.vanilla_proofs[0].apex_leafs.pop_back();
  expect_refused(with_proof("\"" + base64_of(serialize_partition_proof(fewer.vanilla_proofs[0])) + "\""),
                 "partition 0: 7 apex leaves", true);
}

TEST(UpdateInputFile, MissingAndEmptyFiles) {
  io::TempDir dir("cuzk-update-input-");
  const std::string empty = (dir.path() / "empty.json").string();
  std::ofstream(empty).close();
  try {
    read_update_input_file(empty);
    ADD_FAILURE() << "an empty file was accepted";
  } catch (const UpdateError& e) {
    EXPECT_NE(std::string(e.what()).find("empty.json: empty file"), std::string::npos) << e.what();
  }
  EXPECT_ANY_THROW(read_update_input_file((dir.path() / "absent.json").string()));
}

// --- generated inputs --------------------------------------------------------------------------------

TEST(GeneratedUpdateInput, TwoKiBThroughTheFileSatisfiesTheCircuit) {
  GenUpdateOptions options;
  options.seed = 11;
  const UpdateInput in = generate_update_input("2KiB", 7, options);
  EXPECT_EQ(in.registered_proof, find_registered_update_proof("StackedDrg2KiBV1"));
  EXPECT_EQ(in.sector_id, 7u);
  EXPECT_NE(in.comm_r_new, in.comm_r_old);  // dense: real deal data changes the replica
  io::TempDir dir("cuzk-update-input-");
  const std::string path = (dir.path() / "u.json").string();
  write_update_input_file(path, in);
  const UpdateInput back = read_update_input_file(path);
  ASSERT_EQ(back, in);
  r1cs::Checker cs;
  synthesize_update_circuit(cs, back.registered_proof->shape(), partition_witness(back, 0, path));
  ASSERT_TRUE(cs.is_satisfied()) << cs.first_failure()->path;
  // The same seed gives the same file; another seed another one.
  EXPECT_EQ(generate_update_input("2KiB", 7, options), in);
  options.seed = 12;
  EXPECT_NE(generate_update_input("2KiB", 7, options).comm_d_new, in.comm_d_new);
  // A tampered comm_r_new draws other challenges than the ones the proofs prove.
  UpdateInput tampered = back;
  tampered.comm_r_new[0] ^= 1;
  EXPECT_THROW(partition_witness(tampered, 0, path), UpdateError);
  EXPECT_THROW(generate_update_input("16KiB", 1, options), UpdateError);  // no registered proof
}

// The root a Merkle proof's leaf and path hash to (base levels, then sub, then top).
porep::Domain root_of(const porep::MerkleProof& p, porep::SparseTree::NodeHasher hasher) {
  porep::Domain current = p.leaf;
  for (const porep::InclusionPath* part : {&p.base, &p.sub, &p.top}) {
    for (const porep::PathElement& e : part->path) {
      std::vector<porep::Domain> children = e.hashes;
      children.insert(children.begin() + static_cast<std::ptrdiff_t>(e.index), current);
      current = hasher(children.data(), static_cast<unsigned>(children.size()));
    }
  }
  return current;
}

// 32GiB is sparse by default: 16 partitions of 86 challenges in well under a second, each challenge's
// three proofs hashing to the roots, whose witnesses the circuit's checks accept (synthesizing 81 M
// constraints per partition is left to the provers).
TEST(GeneratedUpdateInput, SparseThirtyTwoGiBProofsHashToTheirRoots) {
  GenUpdateOptions options;
  options.seed = 3;
  const GeneratedUpdate g = generate_update(*UpdateShape::find("32GiB"), options);
  ASSERT_TRUE(g.sparse);
  ASSERT_EQ(g.vanilla_proofs.size(), 16u);
  for (std::size_t k : {std::size_t{0}, std::size_t{9}, std::size_t{15}}) {
    SCOPED_TRACE("partition " + std::to_string(k));
    const VanillaPartitionProof& p = g.vanilla_proofs[k];
    ASSERT_EQ(p.challenge_proofs.size(), 86u);
    for (const VanillaChallengeProof& c : p.challenge_proofs) {
      EXPECT_EQ(c.proof_r_old.kind, porep::MerkleProof::Kind::kSub);
      EXPECT_EQ(root_of(c.proof_r_old, porep::poseidon_node), g.root_r_old);
      EXPECT_EQ(root_of(c.proof_r_new, porep::poseidon_node), g.root_r_new);
      EXPECT_EQ(root_of(c.proof_d_new, porep::sha256_node), g.comm_d_new);
    }
  }
  const UpdateInput in = generate_update_input("32GiB", 1, options);
  EXPECT_EQ(in.comm_r_new, g.comm_r_new);
  const std::string json = update_input_to_json(in);
  EXPECT_EQ(parse_update_input_json(json, "u32.json"), in);
  for (std::size_t k = 0; k < 16; ++k) EXPECT_NO_THROW(partition_witness(in, k, "u32.json")) << k;
}

}  // namespace
