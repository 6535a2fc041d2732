// The gpu layer's one exception type, without CUDA's headers: job/ and cli/ catch it in every build, the
// CUDA one (gpu/cuda_check.hpp raises it from CUDA's codes) and the one without CUDA (gpu/no_cuda.cpp raises
// it for every request of a GPU).
#pragma once

#include <stdexcept>
#include <string>

namespace cuzk::gpu {

// What kind of trouble a GpuError is: a fault on a GPU that is there (a CUDA error, a size this layer
// refuses), or no GPU to use at all (none visible, no driver, not permitted, or a build without CUDA): a
// permanent condition of the machine, which retrying does not cure (docs/exit-codes.md, kind no-device).
enum class GpuErrorKind { kFault, kNoDevice };

class GpuError : public std::runtime_error {
 public:
  explicit GpuError(const std::string& what, GpuErrorKind kind = GpuErrorKind::kFault, int cuda_code = 0)
      : std::runtime_error(what), kind_(kind), code_(cuda_code) {}
  // CUDA's cudaError_t value; 0 (cudaSuccess) for errors this layer found itself.
  int code() const { return code_; }
  bool no_usable_device() const { return kind_ == GpuErrorKind::kNoDevice; }

 private:
  GpuErrorKind kind_;
  int code_;
};

}  // namespace cuzk::gpu
