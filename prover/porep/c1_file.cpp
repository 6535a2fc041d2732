#include "prover/porep/c1_file.hpp"

#include <algorithm>
#include <array>
#include <functional>
#include <initializer_list>
#include <utility>

#include "io/json_reader.hpp"
#include "io/mapped_file.hpp"

namespace cuzk::porep {

using porep::C1Output;
using porep::ChallengeProof;
using porep::Column;
using porep::ColumnProof;
using porep::Domain;
using porep::InclusionPath;
using porep::LabelingProof;
using porep::MerkleProof;
using porep::PathElement;

namespace {

// Reads one JSON object whose fields must be exactly `names` (any order, each once), calling
// `on_field(index)` with the reader positioned at the value.
void read_struct(io::JsonReader& r, const std::string& what, std::initializer_list<std::string_view> names,
                 const std::function<void(std::size_t)>& on_field) {
  r.begin_object();
  std::vector<bool> seen(names.size(), false);
  std::string key;
  while (r.next_key(key)) {
    std::size_t i = 0;
    for (auto name : names) {
      if (name == key) break;
      ++i;
    }
    if (i == names.size()) r.fail(what + ": unknown field " + io::quote_for_message(key));
    if (seen[i]) r.fail(what + ": duplicate field " + io::quote_for_message(key));
    seen[i] = true;
    on_field(i);
  }
  std::size_t i = 0;
  for (auto name : names) {
    if (!seen[i++]) r.fail(what + ": missing field \"" + std::string(name) + "\"");
  }
}

Domain read_domain(io::JsonReader& r) {
  Domain d;
  r.read_bytes(d.data(), d.size());
  return d;
}

std::vector<Domain> read_domains(io::JsonReader& r) {
  std::vector<Domain> out;
  r.begin_array();
  while (r.has_next_element()) out.push_back(read_domain(r));
  return out;
}

InclusionPath read_inclusion_path(io::JsonReader& r, const std::string& what) {
  InclusionPath p;
  read_struct(r, what, {"path"}, [&](std::size_t) {
    r.begin_array();
    while (r.has_next_element()) {
      PathElement e;
      read_struct(r, what + " path element " + std::to_string(p.path.size()), {"hashes", "index"},
                  [&](std::size_t f) {
                    if (f == 0)
                      e.hashes = read_domains(r);
                    else
                      e.index = r.read_u64();
                  });
      p.path.push_back(std::move(e));
    }
  });
  return p;
}

MerkleProof read_merkle_proof(io::JsonReader& r, const std::string& what) {
  MerkleProof m;
  read_struct(r, what, {"data"}, [&](std::size_t) {
    r.begin_object();
    std::string variant;
    if (!r.next_key(variant)) r.fail(what + ": empty ProofData (expected Single, Sub or Top)");
    std::string inner = what + " (" + io::quote_for_message(variant) + ")";
    if (variant == "Single") {
      m.kind = MerkleProof::Kind::kSingle;
      read_struct(r, inner, {"root", "leaf", "path"}, [&](std::size_t f) {
        if (f == 0)
          m.root = read_domain(r);
        else if (f == 1)
          m.leaf = read_domain(r);
        else
          m.base = read_inclusion_path(r, inner + " path");
      });
    } else if (variant == "Sub") {
      m.kind = MerkleProof::Kind::kSub;
      read_struct(r, inner, {"base_proof", "sub_proof", "root", "leaf"}, [&](std::size_t f) {
        if (f == 0)
          m.base = read_inclusion_path(r, inner + " base_proof");
        else if (f == 1)
          m.sub = read_inclusion_path(r, inner + " sub_proof");
        else if (f == 2)
          m.root = read_domain(r);
        else
          m.leaf = read_domain(r);
      });
    } else if (variant == "Top") {
      m.kind = MerkleProof::Kind::kTop;
      read_struct(r, inner, {"base_proof", "sub_proof", "top_proof", "root", "leaf"}, [&](std::size_t f) {
        if (f == 0)
          m.base = read_inclusion_path(r, inner + " base_proof");
        else if (f == 1)
          m.sub = read_inclusion_path(r, inner + " sub_proof");
        else if (f == 2)
          m.top = read_inclusion_path(r, inner + " top_proof");
        else if (f == 3)
          m.root = read_domain(r);
        else
          m.leaf = read_domain(r);
      });
    } else {
      r.fail(what + ": unknown ProofData variant " + io::quote_for_message(variant) +
             " (expected Single, Sub or Top)");
    }
    std::string extra;
    if (r.next_key(extra)) r.fail(what + ": ProofData has more than one variant");
  });
  return m;
}

ColumnProof read_column_proof(io::JsonReader& r, const std::string& what) {
  ColumnProof c;
  read_struct(r, what, {"column", "inclusion_proof"}, [&](std::size_t f) {
    if (f == 0) {
      read_struct(r, what + " column", {"index", "rows", "_h"}, [&](std::size_t g) {
        if (g == 0) {
          std::uint64_t index = r.read_u64();
          if (index > UINT32_MAX) r.fail(what + ": column index does not fit u32");
          c.column.index = static_cast<std::uint32_t>(index);
        } else if (g == 1) {
          c.column.rows = read_domains(r);
        } else {
          r.read_null();  // PhantomData: serde writes null (docs/formats.md, "C1 files")
        }
      });
    } else {
      c.inclusion_proof = read_merkle_proof(r, what + " inclusion_proof");
    }
  });
  return c;
}

LabelingProof read_labeling_proof(io::JsonReader& r, const std::string& what) {
  LabelingProof p;
  read_struct(r, what, {"parents", "layer_index", "node"}, [&](std::size_t f) {
    if (f == 0) {
      p.parents = read_domains(r);
    } else if (f == 1) {
      std::uint64_t layer = r.read_u64();
      if (layer > UINT32_MAX) r.fail(what + ": layer_index does not fit u32");
      p.layer_index = static_cast<std::uint32_t>(layer);
    } else {
      p.node = r.read_u64();
    }
  });
  return p;
}

std::vector<ColumnProof> read_column_proofs(io::JsonReader& r, const std::string& what) {
  std::vector<ColumnProof> out;
  r.begin_array();
  while (r.has_next_element())
    out.push_back(read_column_proof(r, what + "[" + std::to_string(out.size()) + "]"));
  return out;
}

// `where` is already the reader's context, so messages inside name only the part.
ChallengeProof read_challenge_proof(io::JsonReader& r, const std::string& /*where*/) {
  const std::string where = "vanilla proof";
  ChallengeProof p;
  read_struct(
      r, where,
      {"comm_d_proofs", "comm_r_last_proof", "replica_column_proofs", "labeling_proofs", "encoding_proof"},
      [&](std::size_t f) {
        switch (f) {
          case 0:
            p.comm_d_proofs = read_merkle_proof(r, where + " comm_d_proofs");
            break;
          case 1:
            p.comm_r_last_proof = read_merkle_proof(r, where + " comm_r_last_proof");
            break;
          case 2:
            read_struct(r, where + " replica_column_proofs", {"c_x", "drg_parents", "exp_parents"},
                        [&](std::size_t g) {
                          auto& rc = p.replica_column_proofs;
                          if (g == 0)
                            rc.c_x = read_column_proof(r, where + " c_x");
                          else if (g == 1)
                            rc.drg_parents = read_column_proofs(r, where + " drg_parents");
                          else
                            rc.exp_parents = read_column_proofs(r, where + " exp_parents");
                        });
            break;
          case 3:
            r.begin_array();
            while (r.has_next_element())
              p.labeling_proofs.push_back(read_labeling_proof(
                  r, where + " labeling_proofs[" + std::to_string(p.labeling_proofs.size()) + "]"));
            break;
          default:
            p.encoding_proof = read_labeling_proof(r, where + " encoding_proof");
            break;
        }
      });
  return p;
}

// The most partitions and challenges per partition a C1 file may hold: those of its registered proof
// when it came first (as serde writes it), else the most of any registered proof. The reader stops at the
// first one beyond, so that its memory stays bounded by what the format can hold, not by the file (an
// empty partition "[]," is 3 bytes of text but a vector and its share of the array's growth in memory).
struct VanillaBounds {
  std::size_t partitions = 0;
  std::size_t challenges = 0;
  std::string allowed_by;
};

VanillaBounds vanilla_bounds(const RegisteredSealProof* proof) {
  if (proof != nullptr)
    return {proof->partitions(), proof->shape->challenges_per_partition, std::string(proof->name)};
  VanillaBounds most{0, 0, "any registered proof"};
  for (const RegisteredSealProof& p : all_registered_seal_proofs()) {
    most.partitions = std::max<std::size_t>(most.partitions, p.partitions());
    most.challenges = std::max<std::size_t>(most.challenges, p.shape->challenges_per_partition);
  }
  return most;
}

C1Output parse_raw(io::JsonReader& r) {
  C1Output c1;
  read_struct(r, "SealCommitPhase1Output",
              {"registered_proof", "vanilla_proofs", "comm_r", "comm_d", "replica_id", "seed", "ticket"},
              [&](std::size_t f) {
                switch (f) {
                  case 0: {
                    std::string name = r.read_string();
                    c1.registered_proof = porep::find_registered_seal_proof(name);
                    if (!c1.registered_proof)
                      r.fail("unknown registered_proof " + io::quote_for_message(name));
                    break;
                  }
                  case 1: {
                    r.begin_object();
                    if (!r.next_key(c1.vanilla_variant)) r.fail("vanilla_proofs: empty object");
                    const VanillaBounds bounds = vanilla_bounds(c1.registered_proof);
                    r.begin_array();
                    while (r.has_next_element()) {
                      std::size_t k = c1.vanilla_proofs.size();
                      if (k == bounds.partitions)
                        r.fail("partition " + std::to_string(k) + ": more partitions than " +
                               bounds.allowed_by + " allows (" + std::to_string(bounds.partitions) + ")");
                      auto& partition = c1.vanilla_proofs.emplace_back();
                      r.begin_array();
                      while (r.has_next_element()) {
                        if (partition.size() == bounds.challenges)
                          r.fail("partition " + std::to_string(k) + " challenge " +
                                 std::to_string(partition.size()) + ": more challenges than " +
                                 bounds.allowed_by + " allows (" + std::to_string(bounds.challenges) + ")");
                        std::string where = "partition " + std::to_string(k) + " challenge " +
                                            std::to_string(partition.size());
                        r.set_context(where);
                        partition.push_back(read_challenge_proof(r, where));
                        r.set_context({});
                      }
                    }
                    std::string extra;
                    if (r.next_key(extra)) r.fail("vanilla_proofs: more than one variant");
                    break;
                  }
                  case 2:
                    c1.comm_r = read_domain(r);
                    break;
                  case 3:
                    c1.comm_d = read_domain(r);
                    break;
                  case 4:
                    c1.replica_id = read_domain(r);
                    break;
                  case 5:
                    c1.seed = read_domain(r);
                    break;
                  default:
                    c1.ticket = read_domain(r);
                    break;
                }
              });
  r.expect_end();
  return c1;
}

// A tiny writer for serde_json's compact format.
class JsonWriter {
 public:
  std::string out;
  void raw(std::string_view s) { out += s; }
  void key(std::string_view k) {
    out += '"';
    out += k;
    out += "\":";
  }
  void u64(std::uint64_t v) { out += std::to_string(v); }
  void domain(const Domain& d) {
    out += '[';
    for (std::size_t i = 0; i < d.size(); ++i) {
      if (i) out += ',';
      out += std::to_string(d[i]);
    }
    out += ']';
  }
  void domains(const std::vector<Domain>& ds) {
    out += '[';
    for (std::size_t i = 0; i < ds.size(); ++i) {
      if (i) out += ',';
      domain(ds[i]);
    }
    out += ']';
  }
  void path(const InclusionPath& p) {
    raw("{\"path\":[");
    for (std::size_t i = 0; i < p.path.size(); ++i) {
      if (i) out += ',';
      raw("{\"hashes\":");
      domains(p.path[i].hashes);
      raw(",\"index\":");
      u64(p.path[i].index);
      out += '}';
    }
    raw("]}");
  }
  void merkle(const MerkleProof& m) {
    raw("{\"data\":");
    switch (m.kind) {
      case MerkleProof::Kind::kSingle:
        raw("{\"Single\":{\"root\":");
        domain(m.root);
        raw(",\"leaf\":");
        domain(m.leaf);
        raw(",\"path\":");
        path(m.base);
        raw("}}");
        break;
      case MerkleProof::Kind::kSub:
      case MerkleProof::Kind::kTop:
        raw(m.kind == MerkleProof::Kind::kSub ? "{\"Sub\":{\"base_proof\":" : "{\"Top\":{\"base_proof\":");
        path(m.base);
        raw(",\"sub_proof\":");
        path(m.sub);
        if (m.kind == MerkleProof::Kind::kTop) {
          raw(",\"top_proof\":");
          path(m.top);
        }
        raw(",\"root\":");
        domain(m.root);
        raw(",\"leaf\":");
        domain(m.leaf);
        raw("}}");
        break;
    }
    out += '}';
  }
  void column_proof(const ColumnProof& c) {
    raw("{\"column\":{\"index\":");
    u64(c.column.index);
    raw(",\"rows\":");
    domains(c.column.rows);
    raw(",\"_h\":null},\"inclusion_proof\":");
    merkle(c.inclusion_proof);
    out += '}';
  }
  void labeling(const LabelingProof& p) {
    raw("{\"parents\":");
    domains(p.parents);
    raw(",\"layer_index\":");
    u64(p.layer_index);
    raw(",\"node\":");
    u64(p.node);
    out += '}';
  }
  void challenge(const ChallengeProof& p) {
    raw("{\"comm_d_proofs\":");
    merkle(p.comm_d_proofs);
    raw(",\"comm_r_last_proof\":");
    merkle(p.comm_r_last_proof);
    raw(",\"replica_column_proofs\":{\"c_x\":");
    column_proof(p.replica_column_proofs.c_x);
    raw(",\"drg_parents\":[");
    for (std::size_t i = 0; i < p.replica_column_proofs.drg_parents.size(); ++i) {
      if (i) out += ',';
      column_proof(p.replica_column_proofs.drg_parents[i]);
    }
    raw("],\"exp_parents\":[");
    for (std::size_t i = 0; i < p.replica_column_proofs.exp_parents.size(); ++i) {
      if (i) out += ',';
      column_proof(p.replica_column_proofs.exp_parents[i]);
    }
    raw("]},\"labeling_proofs\":[");
    for (std::size_t i = 0; i < p.labeling_proofs.size(); ++i) {
      if (i) out += ',';
      labeling(p.labeling_proofs[i]);
    }
    raw("],\"encoding_proof\":");
    labeling(p.encoding_proof);
    out += '}';
  }
};

constexpr char kBase64Alphabet[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

}  // namespace

C1Output parse_c1_json(std::string_view text, const std::string& source_name,
                       std::size_t max_phase1_out_chars) {
  // The envelope's first key is "SectorNum", "Phase1Out" or "SectorSize"; the raw form's keys are
  // snake_case. Look at the first key to decide, then parse strictly.
  io::JsonReader probe(text, source_name);
  probe.begin_object();
  std::string first_key;
  if (!probe.next_key(first_key)) probe.fail("empty JSON object: not a C1 output");
  bool envelope = first_key == "SectorNum" || first_key == "Phase1Out" || first_key == "SectorSize";
  if (!envelope) {
    io::JsonReader r(text, source_name);
    return parse_raw(r);
  }
  io::JsonReader r(text, source_name);
  std::int64_t sector_num = 0;
  std::uint64_t sector_size = 0;
  std::string_view phase1_out;  // a view into `text`: the base64 is not copied
  std::size_t phase1_offset = 0;
  read_struct(r, "C1 envelope", {"SectorNum", "Phase1Out", "SectorSize"}, [&](std::size_t f) {
    if (f == 0) {
      sector_num = r.read_i64();
      // Sector numbers are unsigned (abi.SectorNumber, a uint64 in lotus); a negative one would name
      // the proof "-1.proof" and enter replica_id as 2^64 - 1.
      if (sector_num < 0) r.fail("C1 envelope: SectorNum " + std::to_string(sector_num) + " is negative");
    } else if (f == 1) {
      phase1_offset = r.offset();
      // The whole raw C1 file, base64-encoded (which needs no escapes: Go's encoding/json writes none).
      phase1_out = r.read_plain_string(max_phase1_out_chars, "C1 envelope: Phase1Out");
    } else
      sector_size = r.read_u64();
  });
  r.expect_end();
  std::string inner_name = source_name + " (Phase1Out at offset " + std::to_string(phase1_offset) + ")";
  std::string raw = base64_decode(phase1_out, inner_name);
  io::JsonReader inner(raw, inner_name);
  C1Output c1 = parse_raw(inner);
  c1.sector_num = sector_num;
  c1.envelope_sector_size = sector_size;
  return c1;
}

C1Output read_c1_file(const std::string& path) {
  io::MappedFile file(path);
  std::string_view text(reinterpret_cast<const char*>(file.bytes().data()), file.size());
  if (text.empty()) throw io::IoError(path, "empty file: not a C1 output");
  return file.read_guarded([&] { return parse_c1_json(text, path); });
}

std::optional<std::int64_t> read_c1_sector_number(const std::string& path) {
  io::MappedFile file(path);
  std::string_view text(reinterpret_cast<const char*>(file.bytes().data()), file.size());
  if (text.empty()) throw io::IoError(path, "empty file: not a C1 output");
  return file.read_guarded([&]() -> std::optional<std::int64_t> {
    io::JsonReader r(text, path);
    r.begin_object();
    std::string key;
    while (r.next_key(key)) {
      if (key == "SectorNum") {
        const std::int64_t sector_num = r.read_i64();
        if (sector_num < 0) r.fail("C1 envelope: SectorNum " + std::to_string(sector_num) + " is negative");
        return sector_num;
      }
      if (key == "Phase1Out")
        r.read_plain_string(kMaxPhase1OutChars, "C1 envelope: Phase1Out");
      else if (key == "SectorSize")
        r.read_u64();
      else
        return std::nullopt;  // the raw form: its keys are snake_case
    }
    return std::nullopt;  // an envelope without SectorNum (read_c1_file refuses it)
  });
}

std::string c1_to_json(const C1Output& c1) {
  JsonWriter w;
  w.raw("{\"registered_proof\":\"");
  w.raw(c1.registered_proof ? c1.registered_proof->name : "");
  w.raw("\",\"vanilla_proofs\":{\"");
  w.raw(c1.vanilla_variant);
  w.raw("\":[");
  for (std::size_t k = 0; k < c1.vanilla_proofs.size(); ++k) {
    if (k) w.raw(",");
    w.raw("[");
    for (std::size_t i = 0; i < c1.vanilla_proofs[k].size(); ++i) {
      if (i) w.raw(",");
      w.challenge(c1.vanilla_proofs[k][i]);
    }
    w.raw("]");
  }
  w.raw("]},\"comm_r\":");
  w.domain(c1.comm_r);
  w.raw(",\"comm_d\":");
  w.domain(c1.comm_d);
  w.raw(",\"replica_id\":");
  w.domain(c1.replica_id);
  w.raw(",\"seed\":");
  w.domain(c1.seed);
  w.raw(",\"ticket\":");
  w.domain(c1.ticket);
  w.raw("}");
  return std::move(w.out);
}

std::string c1_to_envelope_json(const C1Output& c1) {
  std::string out = "{\"SectorNum\":" + std::to_string(c1.sector_num.value_or(0)) + ",\"Phase1Out\":\"";
  out += base64_encode(c1_to_json(c1));
  out += "\",\"SectorSize\":";
  out += std::to_string(c1.registered_proof ? c1.registered_proof->shape->sector_size : 0);
  out += "}";
  return out;
}

std::string base64_encode(std::string_view bytes) {
  std::string out;
  out.reserve((bytes.size() + 2) / 3 * 4);
  std::size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    std::uint32_t v = (static_cast<std::uint8_t>(bytes[i]) << 16) |
                      (static_cast<std::uint8_t>(bytes[i + 1]) << 8) |
                      static_cast<std::uint8_t>(bytes[i + 2]);
    for (int s = 18; s >= 0; s -= 6) out += kBase64Alphabet[(v >> s) & 63];
  }
  std::size_t rest = bytes.size() - i;
  if (rest) {
    std::uint32_t v = static_cast<std::uint8_t>(bytes[i]) << 16;
    if (rest == 2) v |= static_cast<std::uint8_t>(bytes[i + 1]) << 8;
    out += kBase64Alphabet[(v >> 18) & 63];
    out += kBase64Alphabet[(v >> 12) & 63];
    out += rest == 2 ? kBase64Alphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string base64_decode(std::string_view text, const std::string& source_name) {
  // Go's encoding/json uses standard base64 with padding (RFC 4648 section 4).
  std::array<int, 256> value;
  value.fill(-1);
  for (int i = 0; i < 64; ++i) value[static_cast<unsigned char>(kBase64Alphabet[i])] = i;
  if (text.size() % 4 != 0) throw io::IoError(source_name, "invalid base64: length is not a multiple of 4");
  // Two passes: the first only checks, so that an invalid text (up to kMaxPhase1OutChars of it) is refused
  // before the 3/4 of its size that the output takes is allocated.
  std::string out;
  const auto decode = [&](bool write) {
    for (std::size_t i = 0; i < text.size(); i += 4) {
      int v[4];
      int pad = 0;
      for (int j = 0; j < 4; ++j) {
        char c = text[i + j];
        if (c == '=' && i + 4 == text.size() && j >= 2) {
          v[j] = 0;
          ++pad;
          continue;
        }
        if (pad) throw io::IoError(source_name, "invalid base64: data after padding", i + j);
        v[j] = value[static_cast<unsigned char>(c)];
        if (v[j] < 0) throw io::IoError(source_name, "invalid base64 character", i + j);
      }
      if (!write) continue;
      std::uint32_t word = (v[0] << 18) | (v[1] << 12) | (v[2] << 6) | v[3];
      out += static_cast<char>((word >> 16) & 0xff);
      if (pad < 2) out += static_cast<char>((word >> 8) & 0xff);
      if (pad < 1) out += static_cast<char>(word & 0xff);
    }
  };
  decode(false);
  out.reserve(text.size() / 4 * 3);
  decode(true);
  return out;
}

}  // namespace cuzk::porep
