// libFuzzer target: the reader of update vanilla partition proofs (PartitionProofBytes, bincode) and the
// witness built from them. Malformed input must end in update::UpdateError; what the reader accepts must
// serialize back to the same bytes. Seeds: tests/fuzz/corpus/update_vanilla (2KiB-shaped proofs).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "prover/update/errors.hpp"
#include "prover/update/shape.hpp"
#include "prover/update/vanilla_proof.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cuzk;
  const std::span<const std::uint8_t> bytes(data, size);
  try {
    const update::VanillaPartitionProof proof = update::parse_partition_proof(bytes, "fuzz partition 0");
    const std::vector<std::uint8_t> back = update::serialize_partition_proof(proof);
    if (back.size() != size || !std::equal(back.begin(), back.end(), data)) __builtin_trap();
    const update::UpdateShape& shape = *update::UpdateShape::find("2KiB");
    const algebra::Fr one = algebra::Fr::one();
    (void)update::witness_from_vanilla(shape, 0, shape.h_default(), one, one, one, proof, "fuzz partition 0");
  } catch (const update::UpdateError&) {
  }
  return 0;
}
