#include "prover/gadgets/multipack.hpp"

namespace cuzk::gadgets {

std::vector<bool> bytes_to_bits(std::span<const std::uint8_t> bytes) {
  std::vector<bool> bits;
  bits.reserve(bytes.size() * 8);
  for (std::uint8_t byte : bytes) {
    for (int i = 7; i >= 0; --i) bits.push_back(((byte >> i) & 1) != 0);
  }
  return bits;
}

std::vector<bool> bytes_to_bits_le(std::span<const std::uint8_t> bytes) {
  std::vector<bool> bits;
  bits.reserve(bytes.size() * 8);
  for (std::uint8_t byte : bytes) {
    for (int i = 0; i < 8; ++i) bits.push_back(((byte >> i) & 1) != 0);
  }
  return bits;
}

std::vector<Fr> compute_multipacking(const std::vector<bool>& bits) {
  std::vector<Fr> out;
  for (std::size_t start = 0; start < bits.size(); start += kFrCapacity) {
    Fr cur = Fr::zero();
    std::size_t end = std::min(bits.size(), start + kFrCapacity);
    for (std::size_t j = start; j < end; ++j) {
      if (bits[j]) cur += r1cs::detail::pow2(j - start);
    }
    out.push_back(cur);
  }
  return out;
}

std::vector<Boolean> reverse_bit_numbering(std::span<const Boolean> bits) {
  std::vector<Boolean> padded(bits.begin(), bits.end());
  while (padded.size() % 8 != 0) padded.push_back(Boolean::constant(false));
  std::vector<Boolean> out;
  out.reserve(padded.size());
  for (std::size_t byte = 0; byte < padded.size(); byte += 8) {
    for (std::size_t j = 8; j-- > 0;) out.push_back(padded[byte + j]);
  }
  return out;
}

}  // namespace cuzk::gadgets
