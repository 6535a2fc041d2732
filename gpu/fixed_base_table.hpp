// The generator window tables of the GPU fixed-base encoder (gpu/fixed_base.hpp), built on the host with
// OpenMP (this file's .cpp is compiled by the host compiler) in the device layout of the MSM bases.
#pragma once

#include <cstddef>
#include <vector>

#include "gpu/msm.hpp"

namespace cuzk::gpu {

inline constexpr unsigned kFixedBaseWindowBits = 16;
// ceil(255 / 16): every canonical scalar (< r < 2^255) is covered; digit j is bits [16 j, 16 j + 16).
inline constexpr unsigned kFixedBaseWindows = 16;
inline constexpr std::size_t kFixedBaseDigits = (std::size_t{1} << kFixedBaseWindowBits) - 1;

// Entry (j, d) = d 2^(16 j) G at index j * kFixedBaseDigits + d - 1, for d >= 1.
std::vector<Msm<algebra::G1Config>::DeviceAffine> g1_fixed_base_table();
std::vector<Msm<algebra::G2Config>::DeviceAffine> g2_fixed_base_table();

}  // namespace cuzk::gpu
