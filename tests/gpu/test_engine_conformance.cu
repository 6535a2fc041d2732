// The engine conformance suite (tests/engine_conformance.hpp) on the GPU engine: as made by default (every
// base resident, a, b, c from the host), with the dense scalars gathered on the device, and with the
// constraint matrices held on the device.
#include "gpu/groth16_engine.hpp"
#include "tests/engine_conformance.hpp"
#include "tests/gpu/gpu_test_util.hpp"

namespace cuzk::test::conformance {
namespace {

template <bool kDeviceGather, bool kDeviceConstraints>
struct GpuEngine {
  static std::unique_ptr<ProverEngine> make(const groth16::Parameters& params) {
    gpu::GpuEngineOptions options;
    options.device_gather = kDeviceGather;
    options.device_constraints = kDeviceConstraints;
    return gpu::make_gpu_engine(params, options);
  }
  static bool holds_constraints() { return kDeviceConstraints; }
  static void require() { CUZK_REQUIRE_GPU(); }
};

using GpuEngines = ::testing::Types<GpuEngine<false, false>, GpuEngine<true, false>, GpuEngine<false, true>>;
INSTANTIATE_TYPED_TEST_SUITE_P(Gpu, EngineConformance, GpuEngines);

}  // namespace
}  // namespace cuzk::test::conformance
