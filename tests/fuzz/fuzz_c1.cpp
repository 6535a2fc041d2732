// libFuzzer target: the C1 reader (raw serde JSON and the lotus-bench envelope) and the C1 validator.
// A malformed input must end in the layer's own exception (io::IoError, porep::PorepError); anything
// else (another exception, a crash, a sanitizer report) is a finding. Seeds: tests/fuzz/corpus/c1.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "io/io_error.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/c1_validate.hpp"
#include "prover/porep/errors.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  try {
    cuzk::porep::C1Output c1 = cuzk::porep::parse_c1_json(text, "fuzz.json");
    cuzk::porep::validate_c1(c1, "fuzz.json");
    // What the reader accepted, the writer writes back and the reader reads again the same.
    const std::string again = cuzk::porep::c1_to_json(c1);
    cuzk::porep::C1Output c1_again = cuzk::porep::parse_c1_json(again, "fuzz.json (written back)");
    if (cuzk::porep::c1_to_json(c1_again) != again) __builtin_trap();
  } catch (const cuzk::io::IoError&) {
  } catch (const cuzk::porep::PorepError&) {
  }
  return 0;
}
