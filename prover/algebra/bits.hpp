// Powers of two and base-2 logarithms of sizes (evaluation domains, tree arities, table capacities):
// written once here instead of a loop at every use.
#pragma once

#include <bit>
#include <cstdint>

namespace cuzk::algebra {

// The smallest k with 2^k >= x (0 for x <= 1).
constexpr unsigned log2_ceil(std::uint64_t x) {
  return x <= 1 ? 0u : 64u - static_cast<unsigned>(std::countl_zero(x - 1));
}

// The largest k with 2^k <= x (0 for x <= 1).
constexpr unsigned log2_floor(std::uint64_t x) {
  return 63u - static_cast<unsigned>(std::countl_zero(x | 1));
}

// The smallest power of two >= x (1 for x <= 1); x must be at most 2^63.
constexpr std::uint64_t next_power_of_two(std::uint64_t x) {
  return std::uint64_t{1} << log2_ceil(x);
}

constexpr bool is_power_of_two(std::uint64_t x) {
  return std::has_single_bit(x);
}

static_assert(log2_ceil(0) == 0 && log2_ceil(1) == 0 && log2_ceil(2) == 1 && log2_ceil(3) == 2 &&
              log2_ceil(std::uint64_t{1} << 27) == 27 && log2_ceil((std::uint64_t{1} << 27) + 1) == 28);
static_assert(log2_floor(1) == 0 && log2_floor(2) == 1 && log2_floor(3) == 1 && log2_floor(8) == 3);
static_assert(next_power_of_two(2'687'961) == std::uint64_t{1} << 22);  // the 2KiB circuit's domain

}  // namespace cuzk::algebra
