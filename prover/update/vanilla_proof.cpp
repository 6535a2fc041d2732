#include "prover/update/vanilla_proof.hpp"

#include <cstring>

#include "prover/update/errors.hpp"
#include "prover/update/randomness.hpp"

namespace cuzk::update {
namespace {

using porep::Domain;
using porep::InclusionPath;
using porep::MerkleProof;

// A bounds-checked little-endian reader over the bytes; every failure names the context and offset.
class BincodeReader {
 public:
  BincodeReader(std::span<const std::uint8_t> bytes, const std::string& context)
      : bytes_(bytes), context_(context) {}

  [[noreturn]] void fail(const std::string& what) const {
    throw UpdateError(context_ + ": " + what + " at byte " + std::to_string(offset_));
  }
  std::uint64_t u64() { return little_endian(8); }
  std::uint32_t u32() { return static_cast<std::uint32_t>(little_endian(4)); }
  Domain domain() {
    need(32, "a 32-byte field element");
    Domain d;
    std::memcpy(d.data(), bytes_.data() + offset_, 32);
    offset_ += 32;
    return d;
  }
  // A sequence length, refused when even its smallest elements could not fit in the bytes left (so a
  // hostile length cannot make the reader reserve memory).
  std::size_t length(std::size_t min_element_bytes, const char* what) {
    const std::uint64_t n = u64();
    if (n > remaining() / min_element_bytes)
      fail("truncated or corrupt: " + std::string(what) + " claims " + std::to_string(n) +
           " elements, more than the bytes left");
    return static_cast<std::size_t>(n);
  }
  void finish() const {
    if (offset_ != bytes_.size()) fail(std::to_string(bytes_.size() - offset_) + " bytes left over");
  }

 private:
  std::size_t remaining() const { return bytes_.size() - offset_; }
  void need(std::size_t n, const char* what) const {
    if (remaining() < n) fail(std::string("truncated: expected ") + what);
  }
  std::uint64_t little_endian(std::size_t width) {
    need(width, width == 8 ? "a u64" : "a u32");
    std::uint64_t v = 0;
    for (std::size_t i = 0; i < width; ++i) v |= std::uint64_t{bytes_[offset_ + i]} << (8 * i);
    offset_ += width;
    return v;
  }

  std::span<const std::uint8_t> bytes_;
  const std::string& context_;
  std::size_t offset_ = 0;
};

InclusionPath read_path(BincodeReader& in) {
  InclusionPath path;
  path.path.resize(in.length(16, "a Merkle path"));  // an element is at least two u64s
  for (porep::PathElement& e : path.path) {
    e.hashes.resize(in.length(32, "a path element's hashes"));
    for (Domain& h : e.hashes) h = in.domain();
    e.index = in.u64();
  }
  return path;
}

MerkleProof read_merkle_proof(BincodeReader& in) {
  MerkleProof p;
  const std::uint32_t variant = in.u32();
  switch (variant) {
    case 0:  // Single { root, leaf, path }
      p.kind = MerkleProof::Kind::kSingle;
      p.root = in.domain();
      p.leaf = in.domain();
      p.base = read_path(in);
      break;
    case 1:  // Sub { base_proof, sub_proof, root, leaf }
      p.kind = MerkleProof::Kind::kSub;
      p.base = read_path(in);
      p.sub = read_path(in);
      p.root = in.domain();
      p.leaf = in.domain();
      break;
    case 2:  // Top { base_proof, sub_proof, top_proof, root, leaf }
      p.kind = MerkleProof::Kind::kTop;
      p.base = read_path(in);
      p.sub = read_path(in);
      p.top = read_path(in);
      p.root = in.domain();
      p.leaf = in.domain();
      break;
    default:
      in.fail("unknown Merkle proof variant " + std::to_string(variant));
  }
  return p;
}

void put_u64(std::vector<std::uint8_t>& out, std::uint64_t v) {
  for (int i = 0; i < 8; ++i) out.push_back(static_cast<std::uint8_t>(v >> (8 * i)));
}
void put_domain(std::vector<std::uint8_t>& out, const Domain& d) {
  out.insert(out.end(), d.begin(), d.end());
}
void put_path(std::vector<std::uint8_t>& out, const InclusionPath& path) {
  put_u64(out, path.path.size());
  for (const porep::PathElement& e : path.path) {
    put_u64(out, e.hashes.size());
    for (const Domain& h : e.hashes) put_domain(out, h);
    put_u64(out, e.index);
  }
}
void put_merkle_proof(std::vector<std::uint8_t>& out, const MerkleProof& p) {
  const std::uint32_t variant = p.kind == MerkleProof::Kind::kSingle ? 0
                                : p.kind == MerkleProof::Kind::kSub  ? 1
                                                                     : 2;
  for (int i = 0; i < 4; ++i) out.push_back(static_cast<std::uint8_t>(variant >> (8 * i)));
  if (p.kind == MerkleProof::Kind::kSingle) {
    put_domain(out, p.root);
    put_domain(out, p.leaf);
    put_path(out, p.base);
    return;
  }
  put_path(out, p.base);
  put_path(out, p.sub);
  if (p.kind == MerkleProof::Kind::kTop) put_path(out, p.top);
  put_domain(out, p.root);
  put_domain(out, p.leaf);
}

Fr to_fr(const Domain& d, const std::string& what) {
  Fr out;
  if (!Fr::from_bytes_le(d.data(), out)) throw UpdateError(what + " is not a canonical field element");
  return out;
}

// The proof's levels as the circuit takes them (base, sub, top), with the shape and the challenge checked.
PathSiblings siblings_of(const MerkleProof& p, const gadgets::merkle::TreeShape& tree, std::uint64_t nodes,
                         std::uint64_t challenge, const std::string& what) {
  const MerkleProof::Kind expected = tree.top_arity   ? MerkleProof::Kind::kTop
                                     : tree.sub_arity ? MerkleProof::Kind::kSub
                                                      : MerkleProof::Kind::kSingle;
  if (p.kind != expected) throw UpdateError(what + " is a Merkle proof of another tree shape");
  std::vector<const porep::PathElement*> elements;
  for (const auto* part : {&p.base, &p.sub, &p.top})
    for (const porep::PathElement& e : part->path) elements.push_back(&e);
  const std::vector<std::size_t> arities = gadgets::merkle::path_arities(nodes, tree);
  if (elements.size() != arities.size())
    throw UpdateError(what + " has " + std::to_string(elements.size()) + " levels, the tree " +
                      std::to_string(arities.size()));
  PathSiblings out;
  std::uint64_t index = 0, scale = 1;
  for (std::size_t row = 0; row < elements.size(); ++row) {
    const porep::PathElement& e = *elements[row];
    if (e.hashes.size() + 1 != arities[row] || e.index >= arities[row])
      throw UpdateError(what + " level " + std::to_string(row) + " does not fit arity " +
                        std::to_string(arities[row]));
    std::vector<Fr> level;
    for (std::size_t s = 0; s < e.hashes.size(); ++s)
      level.push_back(
          to_fr(e.hashes[s], what + " level " + std::to_string(row) + " sibling " + std::to_string(s)));
    out.push_back(std::move(level));
    index += e.index * scale;
    scale *= arities[row];
  }
  if (index != challenge)
    throw UpdateError(what + " proves node " + std::to_string(index) + ", the challenge is node " +
                      std::to_string(challenge));
  return out;
}

}  // namespace

VanillaPartitionProof parse_partition_proof(std::span<const std::uint8_t> bytes, const std::string& context) {
  BincodeReader in(bytes, context);
  VanillaPartitionProof proof;
  proof.comm_c = in.domain();
  proof.apex_leafs.resize(in.length(32, "apex_leafs"));
  for (Domain& leaf : proof.apex_leafs) leaf = in.domain();
  // Each challenge proof holds three Merkle proofs of at least a variant and two field elements.
  proof.challenge_proofs.resize(in.length(3 * (4 + 64 + 8), "challenge_proofs"));
  for (VanillaChallengeProof& c : proof.challenge_proofs) {
    c.proof_r_old = read_merkle_proof(in);
    c.proof_d_new = read_merkle_proof(in);
    c.proof_r_new = read_merkle_proof(in);
  }
  in.finish();
  return proof;
}

std::vector<std::uint8_t> serialize_partition_proof(const VanillaPartitionProof& proof) {
  std::vector<std::uint8_t> out;
  put_domain(out, proof.comm_c);
  put_u64(out, proof.apex_leafs.size());
  for (const Domain& leaf : proof.apex_leafs) put_domain(out, leaf);
  put_u64(out, proof.challenge_proofs.size());
  for (const VanillaChallengeProof& c : proof.challenge_proofs) {
    put_merkle_proof(out, c.proof_r_old);
    put_merkle_proof(out, c.proof_d_new);
    put_merkle_proof(out, c.proof_r_new);
  }
  return out;
}

PartitionWitness witness_from_vanilla(const UpdateShape& shape, std::size_t k, std::size_t h,
                                      const Fr& comm_r_old, const Fr& comm_d_new, const Fr& comm_r_new,
                                      const VanillaPartitionProof& proof, const std::string& context) {
  if (proof.challenge_proofs.size() != shape.challenge_count)
    throw UpdateError(context + ": " + std::to_string(proof.challenge_proofs.size()) +
                      " challenge proofs, the " + "circuit takes " + std::to_string(shape.challenge_count));
  if (proof.apex_leafs.size() != shape.apex_leaf_count)
    throw UpdateError(context + ": " + std::to_string(proof.apex_leafs.size()) +
                      " apex leaves, the circuit takes " + std::to_string(shape.apex_leaf_count));
  PartitionWitness w;
  w.k_and_h_select = k_and_h_select(shape, k, h);
  w.comm_r_old = comm_r_old;
  w.comm_d_new = comm_d_new;
  w.comm_r_new = comm_r_new;
  w.comm_c = to_fr(proof.comm_c, context + ": comm_c");
  for (std::size_t i = 0; i < proof.apex_leafs.size(); ++i)
    w.apex_leafs.push_back(to_fr(proof.apex_leafs[i], context + ": apex leaf " + std::to_string(i)));
  // rfp PrivateInputs::new takes the roots from the first challenge; every challenge must share them.
  const Domain& root_r_old = proof.challenge_proofs[0].proof_r_old.root;
  const Domain& root_r_new = proof.challenge_proofs[0].proof_r_new.root;
  w.root_r_old = to_fr(root_r_old, context + ": root_r_old");
  w.root_r_new = to_fr(root_r_new, context + ": root_r_new");
  const gadgets::merkle::TreeShape tree_d{2, 0, 0};
  const std::vector<std::uint64_t> challenges = partition_challenges(shape, comm_r_new, k);
  for (std::size_t i = 0; i < challenges.size(); ++i) {
    const VanillaChallengeProof& c = proof.challenge_proofs[i];
    const std::string where = context + ": challenge " + std::to_string(i) + " ";
    if (c.proof_r_old.root != root_r_old || c.proof_r_new.root != root_r_new)
      throw UpdateError(where + "has other TreeROld / TreeRNew roots than challenge 0");
    ChallengeWitness cw;
    cw.leaf_r_old = to_fr(c.proof_r_old.leaf, where + "leaf_r_old");
    cw.leaf_d_new = to_fr(c.proof_d_new.leaf, where + "leaf_d_new");
    cw.path_r_old =
        siblings_of(c.proof_r_old, shape.tree_r, shape.sector_nodes, challenges[i], where + "proof_r_old");
    cw.path_d_new =
        siblings_of(c.proof_d_new, tree_d, shape.sector_nodes, challenges[i], where + "proof_d_new");
    cw.path_r_new =
        siblings_of(c.proof_r_new, shape.tree_r, shape.sector_nodes, challenges[i], where + "proof_r_new");
    w.challenges.push_back(std::move(cw));
  }
  try {
    check_witness_shape(shape, w);
  } catch (const UpdateError& e) {
    throw UpdateError(context + ": " + e.what());
  }
  return w;
}

}  // namespace cuzk::update
