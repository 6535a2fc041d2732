// gpu/ in a build without CUDA (CMakeLists.txt builds cuzk_gpu from this file when nvcc is missing): the
// public functions of device_info.hpp, groth16_engine.hpp and fixed_base.hpp, so that job/ and cli/ are the
// same code in both builds. No GPU is ever visible, and whatever asks for one gets GpuError of kind
// kNoDevice (exit 8, kind no-device: docs/exit-codes.md), never the CPU in its place.
#include <memory>
#include <string>
#include <vector>

#include "gpu/device_info.hpp"
#include "gpu/errors.hpp"
#include "gpu/fixed_base.hpp"
#include "gpu/groth16_engine.hpp"

namespace cuzk::gpu {

namespace {

// The one statement of why a build without CUDA has no GPU: list_devices gives it as the reason, and every
// request of a GPU throws it.
constexpr const char* kNoCuda = "this cuzk was built without CUDA; rebuild where nvcc is installed";

[[noreturn]] void no_cuda(const char* what) {
  throw GpuError(std::string(what) + " was asked for, but " + kNoCuda, GpuErrorKind::kNoDevice);
}

}  // namespace

bool built_with_cuda() {
  return false;
}

std::vector<DeviceInfo> list_devices(std::string* why_none) {
  if (why_none) *why_none = kNoCuda;
  return {};
}

int visible_device_count() {
  return 0;
}

void use_device(int) {
  no_cuda("a GPU");
}

void reserve_kernel_stacks() {
  no_cuda("a GPU");
}

std::size_t device_memory_in_use() {
  return 0;
}

std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const groth16::Parameters&, const GpuEngineOptions&) {
  no_cuda("the GPU prover");
}

std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const std::string&, const groth16::ParameterHeader&,
                                                       const GpuEngineOptions&) {
  no_cuda("the GPU prover");
}

std::unique_ptr<groth16::FixedBaseEncoder> make_gpu_fixed_base_encoder(std::size_t) {
  no_cuda("the GPU fixed-base encoder");
}

}  // namespace cuzk::gpu
