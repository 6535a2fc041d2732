// `cuzk proof inspect FILE [--json]`: decodes every partition proof of a proof file and checks every
// point (encoding, on the curve, in the prime-order subgroup, not the point at infinity), printing
// each point's compressed bytes, affine coordinates and OK/INVALID. Exit codes: kInputError when the
// file cannot be read; kEncodingError when its size is not a positive multiple of 192 (refused before it is
// read) or any point is invalid (every point is still reported).
#include "prover/groth16/proof.hpp"

#include <fmt/format.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "cli/commands.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/algebra/hex_bytes.hpp"
#include "prover/groth16/proof_file.hpp"

namespace cuzk::cli {
namespace {

using algebra::EncodingError;
using algebra::EncodingErrorKind;
using algebra::PointCheck;
using groth16::Proof;

struct PointReport {
  std::string name;   // "a", "b", "c"
  std::string group;  // "G1", "G2"
  std::size_t offset = 0;
  std::string compressed_hex;
  // Affine coordinates when the bytes decode to a curve point at all (even one that fails a later
  // check): G1 {x, y}; G2 {x.c0, x.c1, y.c0, y.c1}. Empty for infinity or undecodable bytes.
  std::vector<std::pair<std::string, std::string>> coordinates;
  bool infinity = false;
  std::optional<EncodingError> error;  // nullopt: OK
};

template <class Point>
std::vector<std::pair<std::string, std::string>> coordinates_of(const Point& p) {
  if (p.is_identity()) return {};
  if constexpr (std::is_same_v<Point, algebra::G1Affine>) {
    return {{"x", p.x.to_hex()}, {"y", p.y.to_hex()}};
  } else {
    return {{"x.c0", p.x.c0.to_hex()},
            {"x.c1", p.x.c1.to_hex()},
            {"y.c0", p.y.c0.to_hex()},
            {"y.c1", p.y.c1.to_hex()}};
  }
}

template <class Decode>
PointReport inspect_point(const char* name, const char* group, std::span<const std::uint8_t> all,
                          std::size_t offset, std::size_t size, Decode decode) {
  std::span<const std::uint8_t> bytes = all.subspan(offset, size);
  PointReport r;
  r.name = name;
  r.group = group;
  r.offset = offset;
  r.compressed_hex = algebra::bytes_to_hex(bytes);
  try {
    auto p = decode(bytes, PointCheck::kFull);
    r.coordinates = coordinates_of(p);
    r.infinity = p.is_identity();
    // bellperson's Proof::read_many rejects a point at infinity in a proof.
    if (r.infinity)
      r.error = EncodingError(EncodingErrorKind::kUnexpectedInfinity, std::string(group) + " compressed");
  } catch (const EncodingError& e) {
    r.error = e;
    try {  // still show the coordinates of a point that decodes but fails the curve/subgroup checks
      r.coordinates = coordinates_of(decode(bytes, PointCheck::kUnchecked));
    } catch (const EncodingError&) {
    }
  }
  return r;
}

std::vector<PointReport> inspect_partition(std::span<const std::uint8_t> proof) {
  return {inspect_point("a", "G1", proof, Proof::kOffsetA, algebra::kG1CompressedSize,
                        algebra::decode_g1_compressed),
          inspect_point("b", "G2", proof, Proof::kOffsetB, algebra::kG2CompressedSize,
                        algebra::decode_g2_compressed),
          inspect_point("c", "G1", proof, Proof::kOffsetC, algebra::kG1CompressedSize,
                        algebra::decode_g1_compressed)};
}

void run_inspect(const std::string& path, bool json) {
  const std::vector<std::uint8_t> bytes = groth16::read_proof_file_bytes(path);  // IoError (unreadable): kInputError; a wrong size: kEncodingError
  const std::size_t count = groth16::proof_count(bytes.size(), path);
  std::size_t invalid = 0;
  std::optional<EncodingError> first_error;
  nlohmann::json out = {{"file", path}, {"size", bytes.size()}, {"partitions", nlohmann::json::array()}};
  if (!json) fmt::print("{}: {} bytes, {} partition proof(s)\n", path, bytes.size(), count);
  for (std::size_t i = 0; i < count; ++i) {
    const std::size_t base = i * Proof::kSize;
    std::vector<PointReport> points = inspect_partition(std::span(bytes).subspan(base, Proof::kSize));
    nlohmann::json partition = {{"index", i}, {"offset", base}};
    bool partition_ok = true;
    if (!json) fmt::print("partition {} (offset {}):\n", i, base);
    for (const PointReport& p : points) {
      if (p.error) {
        ++invalid;
        partition_ok = false;
        if (!first_error) {
          first_error =
              EncodingError(p.error->kind(), fmt::format("{}: partition {} (offset {}): proof point {} ({})",
                                                         path, i, base, p.name, p.error->context()));
        }
      }
      if (json) {
        nlohmann::json point = {{"group", p.group},
                                {"offset", base + p.offset},
                                {"compressed", p.compressed_hex},
                                {"ok", !p.error},
                                {"infinity", p.infinity}};
        for (const auto& [k, v] : p.coordinates) point[k] = v;
        if (p.error) point["error"] = p.error->what();
        partition[p.name] = point;
      } else {
        fmt::print("  {} ({}) {}{}\n", p.name, p.group, p.error ? "INVALID: " : "OK",
                   p.error ? std::string(p.error->what()) : "");
        fmt::print("    compressed {}\n", p.compressed_hex);
        if (p.infinity) fmt::print("    point at infinity\n");
        for (const auto& [k, v] : p.coordinates) fmt::print("    {:<4} {}\n", k, v);
      }
    }
    partition["ok"] = partition_ok;
    out["partitions"].push_back(partition);
  }
  out["points"] = 3 * count;
  out["invalid_points"] = invalid;
  out["ok"] = invalid == 0;
  if (json) {
    fmt::print("{}\n", out.dump(2));
  } else {
    fmt::print("{}: {} of {} point(s) invalid\n", invalid == 0 ? "OK" : "INVALID", invalid, 3 * count);
  }
  if (first_error) {
    throw EncodingError(first_error->kind(), fmt::format("{} of {} point(s) invalid, first: {}", invalid,
                                                         3 * count, first_error->context()));
  }
}

}  // namespace

void register_proof_commands(CLI::App& app) {
  CLI::App* proof = app.add_subcommand("proof", "Inspect Groth16 proof files (192 bytes per partition)");
  proof->require_subcommand(1);
  CLI::App* inspect = proof->add_subcommand(
      "inspect", "Decode and check every point of every partition proof (exit 4 if any is invalid)");
  auto path = std::make_shared<std::string>();
  auto json = std::make_shared<bool>(false);
  inspect->add_option("FILE", *path, "Proof file: the concatenated 192-byte partition proofs")->required();
  inspect->add_flag("--json", *json, "Print a JSON report instead of text");
  inspect->callback([path, json] { run_inspect(*path, *json); });
}

}  // namespace cuzk::cli
