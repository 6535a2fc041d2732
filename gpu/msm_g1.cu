// Instantiation of the MSM and its test-input generator for G1 (see msm_definitions.cuh and
// msm_generated_points.cuh).
#include "gpu/msm_generated_points.cuh"
#include "gpu/msm_definitions.cuh"

namespace cuzk::gpu {

template class Msm<algebra::G1Config>;
template Msm<algebra::G1Config>::DeviceAffine* generate_points_on_device<algebra::G1Config>(std::size_t,
                                                                                            std::uint64_t);

}  // namespace cuzk::gpu
