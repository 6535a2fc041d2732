// libFuzzer target: the reader of update input files (prover/update/input_file.hpp) and the witnesses built
// from what it accepts. Malformed input must end in update::UpdateError; what the reader accepts must
// write back to a file that reads as the same input. Seeds: tests/fuzz/corpus/update_input (a generated
// 2KiB input and broken variants).
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "prover/update/errors.hpp"
#include "prover/update/input_file.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cuzk;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    const update::UpdateInput input = update::parse_update_input_json(text, "fuzz.json");
    if (!(update::parse_update_input_json(update::update_input_to_json(input), "again.json") == input))
      __builtin_trap();
    for (std::size_t k = 0; k < input.vanilla_proofs.size(); ++k)
      (void)update::partition_witness(input, k, "fuzz.json");
  } catch (const update::UpdateError&) {
  }
  return 0;
}
