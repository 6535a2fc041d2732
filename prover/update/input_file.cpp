#include "prover/update/input_file.hpp"

#include <array>
#include <optional>

#include "io/atomic_file.hpp"
#include "io/io_error.hpp"
#include "io/json_reader.hpp"
#include "io/mapped_file.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/update/errors.hpp"

namespace cuzk::update {

namespace {

constexpr std::array<RegisteredUpdateProof, 5> kRegistered = {{
    {"StackedDrg2KiBV1", "2KiB"},
    {"StackedDrg8MiBV1", "8MiB"},
    {"StackedDrg512MiBV1", "512MiB"},
    {"StackedDrg32GiBV1", "32GiB"},
    {"StackedDrg64GiBV1", "64GiB"},
}};

constexpr std::array<std::string_view, 6> kFields = {"registered_proof", "comm_r_old", "comm_r_new",
                                                     "comm_d_new",       "sector_id",  "vanilla_proofs"};
// The most partitions of any registered update proof (32GiB and 64GiB: constants.rs partition_count).
constexpr std::size_t kMaxUpdatePartitions = 16;

enum Field : std::size_t { kProof, kCommROld, kCommRNew, kCommDNew, kSectorId, kVanillaProofs };

std::size_t field_index(io::JsonReader& r, const std::string& key) {
  for (std::size_t i = 0; i < kFields.size(); ++i)
    if (kFields[i] == key) return i;
  r.fail("unknown field " + io::quote_for_message(key) +
         " (an update input has registered_proof, sector_id, comm_r_old, comm_r_new, comm_d_new and "
         "vanilla_proofs)");
}

porep::Domain read_commitment(io::JsonReader& r, std::string_view name) {
  porep::Domain d;
  r.read_bytes(d.data(), d.size());
  algebra::Fr value;
  if (!algebra::Fr::from_bytes_le(d.data(), value))
    r.fail(std::string(name) +
           " is not a canonical field element (little-endian, below the BLS12-381 order)");
  return d;
}

// Partition k's base64 string, decoded and parsed. Errors name the file and the partition.
VanillaPartitionProof read_vanilla_proof(io::JsonReader& r, std::size_t k) {
  const std::string context = r.source() + ": partition " + std::to_string(k);
  r.set_context("partition " + std::to_string(k));
  const std::size_t offset = r.offset();
  const std::string_view text = r.read_plain_string(kMaxVanillaProofChars, "vanilla proof");
  r.set_context("");
  std::string bytes;
  try {
    bytes = porep::base64_decode(text,
                                 context + ": vanilla proof base64 string at byte " + std::to_string(offset));
  } catch (const io::IoError& e) {
    throw UpdateError(e.what());
  }
  const auto* data = reinterpret_cast<const std::uint8_t*>(bytes.data());
  return parse_partition_proof({data, bytes.size()}, context);
}

void check_against_shape(const UpdateInput& in, const std::string& source) {
  const UpdateShape& shape = in.registered_proof->shape();
  const std::string size = in.registered_proof->size_label;
  if (in.vanilla_proofs.size() != shape.partition_count)
    throw UpdateError(source + ": " + std::to_string(in.vanilla_proofs.size()) + " vanilla proofs, a " +
                      size + " update has " + std::to_string(shape.partition_count) + " partitions");
  for (std::size_t k = 0; k < in.vanilla_proofs.size(); ++k) {
    const VanillaPartitionProof& p = in.vanilla_proofs[k];
    const std::string where = source + ": partition " + std::to_string(k) + ": ";
    if (p.challenge_proofs.size() != shape.challenge_count)
      throw UpdateError(where + std::to_string(p.challenge_proofs.size()) + " challenge proofs, a " + size +
                        " partition has " + std::to_string(shape.challenge_count));
    if (p.apex_leafs.size() != shape.apex_leaf_count)
      throw UpdateError(where + std::to_string(p.apex_leafs.size()) + " apex leaves, a " + size +
                        " partition has " + std::to_string(shape.apex_leaf_count));
  }
}

void read_field(io::JsonReader& r, std::size_t field, UpdateInput& in) {
  switch (field) {
    case kProof: {
      const std::string name = r.read_string();
      in.registered_proof = find_registered_update_proof(name);
      if (!in.registered_proof)
        r.fail("registered_proof " + io::quote_for_message(name) +
               " is not a registered update proof (StackedDrg2KiBV1, StackedDrg8MiBV1, StackedDrg512MiBV1, "
               "StackedDrg32GiBV1 or StackedDrg64GiBV1)");
      break;
    }
    case kCommROld:
      in.comm_r_old = read_commitment(r, "comm_r_old");
      break;
    case kCommRNew:
      in.comm_r_new = read_commitment(r, "comm_r_new");
      break;
    case kCommDNew:
      in.comm_d_new = read_commitment(r, "comm_d_new");
      break;
    case kSectorId:
      in.sector_id = r.read_u64();
      break;
    default: {
      // Bounded before the proofs are decoded: by the registered proof's partitions once it is known,
      // else by the most any registered proof has.
      const std::size_t most =
          in.registered_proof ? in.registered_proof->shape().partition_count : kMaxUpdatePartitions;
      r.begin_array();
      while (r.has_next_element()) {
        if (in.vanilla_proofs.size() == most)
          r.fail("more than " + std::to_string(most) + " vanilla proofs (one per partition)");
        in.vanilla_proofs.push_back(read_vanilla_proof(r, in.vanilla_proofs.size()));
      }
    }
  }
}

Fr commitment_fr(const porep::Domain& d, const std::string& source, const char* name) {
  Fr value;
  if (!Fr::from_bytes_le(d.data(), value))
    throw UpdateError(source + ": " + name + " is not a field element");
  return value;
}

void append_domain(std::string& out, const porep::Domain& d) {
  out += '[';
  for (std::size_t i = 0; i < d.size(); ++i) {
    if (i) out += ',';
    out += std::to_string(d[i]);
  }
  out += ']';
}

}  // namespace

const UpdateShape& RegisteredUpdateProof::shape() const {
  return *UpdateShape::find(size_label);
}

std::vector<RegisteredUpdateProof> registered_update_proofs() {
  return {kRegistered.begin(), kRegistered.end()};
}

const RegisteredUpdateProof* find_registered_update_proof(std::string_view name) {
  for (const RegisteredUpdateProof& p : kRegistered)
    if (name == p.name) return &p;
  return nullptr;
}

const RegisteredUpdateProof* registered_update_proof_for_size(std::string_view size_label) {
  for (const RegisteredUpdateProof& p : kRegistered)
    if (size_label == p.size_label) return &p;
  return nullptr;
}

UpdateInput parse_update_input_json(std::string_view text, const std::string& source_name) {
  UpdateInput in;
  try {
    io::JsonReader r(text, source_name);
    std::array<bool, kFields.size()> seen{};
    r.begin_object();
    std::string key;
    while (r.next_key(key)) {
      const std::size_t field = field_index(r, key);
      if (seen[field]) r.fail("duplicate field " + io::quote_for_message(key));
      seen[field] = true;
      read_field(r, field, in);
    }
    for (std::size_t i = 0; i < kFields.size(); ++i)
      if (!seen[i]) r.fail("missing field \"" + std::string(kFields[i]) + "\"");
    r.expect_end();
  } catch (const io::IoError& e) {
    throw UpdateError(e.what());  // the reader's message names the file and the offset
  }
  check_against_shape(in, source_name);
  return in;
}

UpdateInput read_update_input_file(const std::string& path) {
  io::MappedFile file(path);
  const std::string_view text(reinterpret_cast<const char*>(file.bytes().data()), file.size());
  if (text.empty()) throw UpdateError(path + ": empty file: not an update input");
  return file.read_guarded([&] { return parse_update_input_json(text, path); });
}

std::string update_input_to_json(const UpdateInput& input) {
  if (!input.registered_proof) throw UpdateError("update input: no registered proof");
  check_against_shape(input, "update input");
  std::string out = "{\"registered_proof\":\"";
  out += input.registered_proof->name;
  out += "\",\n\"sector_id\":" + std::to_string(input.sector_id) + ",\n\"comm_r_old\":";
  append_domain(out, input.comm_r_old);
  out += ",\n\"comm_r_new\":";
  append_domain(out, input.comm_r_new);
  out += ",\n\"comm_d_new\":";
  append_domain(out, input.comm_d_new);
  out += ",\n\"vanilla_proofs\":[";
  for (std::size_t k = 0; k < input.vanilla_proofs.size(); ++k) {
    const std::vector<std::uint8_t> bytes = serialize_partition_proof(input.vanilla_proofs[k]);
    out += k ? ",\n\"" : "\n\"";
    out += porep::base64_encode({reinterpret_cast<const char*>(bytes.data()), bytes.size()});
    out += '"';
  }
  out += "]}\n";
  return out;
}

void write_update_input_file(const std::string& path, const UpdateInput& input) {
  const std::string json = update_input_to_json(input);
  io::write_file_atomic(path, {reinterpret_cast<const std::uint8_t*>(json.data()), json.size()});
}

PartitionWitness partition_witness(const UpdateInput& input, std::size_t k, const std::string& source_name) {
  if (!input.registered_proof) throw UpdateError(source_name + ": no registered proof");
  const UpdateShape& shape = input.registered_proof->shape();
  if (k >= input.vanilla_proofs.size())
    throw UpdateError(source_name + ": partition " + std::to_string(k) + " of " +
                      std::to_string(input.vanilla_proofs.size()));
  return witness_from_vanilla(shape, k, shape.h_default(),
                              commitment_fr(input.comm_r_old, source_name, "comm_r_old"),
                              commitment_fr(input.comm_d_new, source_name, "comm_d_new"),
                              commitment_fr(input.comm_r_new, source_name, "comm_r_new"),
                              input.vanilla_proofs[k], source_name + ": partition " + std::to_string(k));
}

std::vector<std::vector<Fr>> sector_public_inputs(const UpdateInput& input, const std::string& source_name) {
  if (!input.registered_proof) throw UpdateError(source_name + ": no registered proof");
  const UpdateShape& shape = input.registered_proof->shape();
  const Fr comm_r_old = commitment_fr(input.comm_r_old, source_name, "comm_r_old");
  const Fr comm_d_new = commitment_fr(input.comm_d_new, source_name, "comm_d_new");
  const Fr comm_r_new = commitment_fr(input.comm_r_new, source_name, "comm_r_new");
  std::vector<std::vector<Fr>> inputs;
  for (std::size_t k = 0; k < shape.partition_count; ++k)
    inputs.push_back(public_inputs(shape, k, shape.h_default(), comm_r_old, comm_d_new, comm_r_new));
  return inputs;
}

}  // namespace cuzk::update
