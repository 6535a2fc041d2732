#include "gpu/fixed_base_table.hpp"

#include <omp.h>

#include <stdexcept>

#include "prover/groth16/fixed_base.hpp"

namespace cuzk::gpu {

namespace {

template <class Cfg>
std::vector<typename Msm<Cfg>::DeviceAffine> build_table() {
  const groth16::FixedBaseTable<Cfg> table(Cfg::generator(), kFixedBaseWindowBits, omp_get_max_threads());
  if (table.windows() != kFixedBaseWindows || table.digits_per_window() != kFixedBaseDigits)
    throw std::logic_error("fixed-base table: unexpected window layout");
  const auto& entries = table.affine_entries();
  std::vector<typename Msm<Cfg>::DeviceAffine> out(entries.size());
#pragma omp parallel for schedule(static)
  for (std::int64_t i = 0; i < static_cast<std::int64_t>(entries.size()); ++i)
    out[i] = Msm<Cfg>::to_device(entries[i]);
  return out;
}

}  // namespace

std::vector<Msm<algebra::G1Config>::DeviceAffine> g1_fixed_base_table() {
  return build_table<algebra::G1Config>();
}
std::vector<Msm<algebra::G2Config>::DeviceAffine> g2_fixed_base_table() {
  return build_table<algebra::G2Config>();
}

}  // namespace cuzk::gpu
