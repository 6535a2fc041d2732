// libFuzzer target: the proof file reader (192 bytes per partition: a, c in G1 and b in G2, compressed).
// Malformed input must end in io::IoError (size) or algebra::EncodingError (a point); what it accepts
// must serialize back to the same bytes. Seeds: tests/fuzz/corpus/proof.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "io/io_error.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/groth16/proof_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cuzk;
  const std::span<const std::uint8_t> bytes(data, size);
  try {
    const std::vector<groth16::Proof> proofs = groth16::parse_proofs(bytes, "fuzz.proof");
    const std::vector<std::uint8_t> back = groth16::serialize_proofs(proofs);
    if (back.size() != size || !std::equal(back.begin(), back.end(), data)) __builtin_trap();
  } catch (const io::IoError&) {
  } catch (const algebra::EncodingError&) {
  }
  return 0;
}
