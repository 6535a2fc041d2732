// libFuzzer target: the .vk and .params readers (bellperson's layout): the header/length walk of
// `params info` (parameters_info), the verifying key with every point checked, and the whole parameter
// file. Malformed input must end in groth16::Groth16Error, algebra::EncodingError or io::IoError.
// Seeds: tests/fuzz/corpus/params.
#include <cstddef>
#include <cstdint>
#include <span>

#include "io/io_error.hpp"
#include "prover/algebra/encoding.hpp"
#include "prover/groth16/errors.hpp"
#include "prover/groth16/parameters.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cuzk;
  const std::span<const std::uint8_t> bytes(data, size);
  auto guarded = [](auto&& read) {
    try {
      read();
    } catch (const groth16::Groth16Error&) {
    } catch (const algebra::EncodingError&) {
    } catch (const io::IoError&) {
    }
  };
  guarded([&] { (void)groth16::parameters_info(bytes, "fuzz.params"); });
  guarded([&] { (void)groth16::VerifyingKey::from_bytes(bytes, "fuzz.vk"); });
  guarded(
      [&] { (void)groth16::Parameters::from_bytes(bytes, algebra::PointCheck::kFull, "fuzz.params", 1); });
  return 0;
}
