// NVIDIA's management library (NVML), loaded at run time with dlopen and never linked: a binary without the
// NVIDIA driver still starts and proves, and the run report says why the GPU's busy share and energy are
// unavailable (never zeros). Plain C++ (no CUDA header), built with or without nvcc (cuzk_gpu_plan), so that
// the tests of the build without CUDA drive it through a fake library (tests/fake_nvml.cpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

namespace cuzk::gpu {

// The environment variable that names the NVML library to load instead of the driver's libnvidia-ml.so.1 (a
// driver installed outside the loader's path, or the tests' fake).
inline constexpr const char* kNvmlLibraryVariable = "CUZK_NVML_LIBRARY";

// $CUZK_NVML_LIBRARY when set and not empty, else "libnvidia-ml.so.1" (the soname the driver installs).
std::string nvml_library_path();

// One device as NVML knows it. The handle is NVML's nvmlDevice_t, valid while its Nvml lives.
struct NvmlDevice {
  void* handle = nullptr;
  std::string name;  // "NVIDIA H200"; empty when NVML cannot say
};

// An NVML session: the library loaded and initialized (nvmlInit_v2) by open(), shut down (nvmlShutdown) and
// unloaded by the destructor. Reads return nullopt with the reason in `why_not` where NVML refuses them (an
// older GPU without an energy counter, a lost device); they never throw. Thread-safe as NVML is.
class Nvml {
 public:
  // Null, with the reason in `why_not`, when the library cannot be loaded, lacks a function this needs, or
  // does not initialize (no driver loaded, no permission).
  static std::unique_ptr<Nvml> open(std::string& why_not);
  ~Nvml();
  Nvml(const Nvml&) = delete;
  Nvml& operator=(const Nvml&) = delete;

  const std::string& library_path() const { return library_path_; }

  // By PCI bus id as the CUDA runtime writes it ("0000:17:00.0"): NVML's indices follow the bus order and
  // ignore CUDA_VISIBLE_DEVICES, so a CUDA ordinal is not an NVML index.
  std::optional<NvmlDevice> device_by_pci_bus_id(const std::string& bus_id, std::string& why_not) const;
  std::optional<NvmlDevice> device_by_index(unsigned index, std::string& why_not) const;

  // The energy the device used since the driver was loaded, millijoules (Volta and newer).
  std::optional<std::uint64_t> total_energy_millijoules(const NvmlDevice& device, std::string& why_not) const;
  // The share of NVML's last sample period (1/6 s to 1 s, by product) during which one or more kernels ran,
  // percent: the `utilization.gpu` that nvidia-smi shows.
  std::optional<unsigned> gpu_utilization_percent(const NvmlDevice& device, std::string& why_not) const;
  // The board's power draw now, milliwatts.
  std::optional<unsigned> power_milliwatts(const NvmlDevice& device, std::string& why_not) const;

 private:
  struct Api;
  Nvml(void* library, std::string library_path, std::unique_ptr<Api> api);
  std::string failure(const char* call, int code) const;

  void* library_ = nullptr;  // dlopen's handle
  std::string library_path_;
  std::unique_ptr<Api> api_;
};

}  // namespace cuzk::gpu
