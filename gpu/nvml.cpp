#include "gpu/nvml.hpp"

#include <dlfcn.h>

#include <cstdlib>
#include <string>
#include <type_traits>
#include <utility>

namespace cuzk::gpu {

namespace {

// The few types and signatures of NVML this file calls, declared from NVIDIA's public header nvml.h (the
// NVML API reference, docs.nvidia.com/deploy/nvml-api): nvmlReturn_t is a C enum whose NVML_SUCCESS is 0,
// nvmlDevice_t an opaque pointer, nvmlUtilization_t two unsigned ints (gpu, memory percent).
using NvmlReturn = int;
constexpr NvmlReturn kNvmlSuccess = 0;  // NVML_SUCCESS
using NvmlDeviceHandle = void*;         // nvmlDevice_t (struct nvmlDevice_st*)
struct NvmlUtilization {                // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};
// NVML_DEVICE_NAME_V2_BUFFER_SIZE: the buffer nvmlDeviceGetName fills at most.
constexpr unsigned kDeviceNameBufferSize = 96;

}  // namespace

struct Nvml::Api {
  NvmlReturn (*init)();      // nvmlInit_v2
  NvmlReturn (*shutdown)();  // nvmlShutdown
  const char* (*error_string)(NvmlReturn);
  NvmlReturn (*handle_by_index)(unsigned int, NvmlDeviceHandle*);      // nvmlDeviceGetHandleByIndex_v2
  NvmlReturn (*handle_by_pci_bus_id)(const char*, NvmlDeviceHandle*);  // nvmlDeviceGetHandleByPciBusId_v2
  NvmlReturn (*name)(NvmlDeviceHandle, char*, unsigned int);           // nvmlDeviceGetName
  NvmlReturn (*total_energy)(NvmlDeviceHandle, unsigned long long*);   // ...GetTotalEnergyConsumption
  NvmlReturn (*utilization)(NvmlDeviceHandle, NvmlUtilization*);       // nvmlDeviceGetUtilizationRates
  NvmlReturn (*power)(NvmlDeviceHandle, unsigned int*);                // nvmlDeviceGetPowerUsage
};

std::string nvml_library_path() {
  const char* given = std::getenv(kNvmlLibraryVariable);
  return given && *given ? std::string(given) : std::string("libnvidia-ml.so.1");
}

std::unique_ptr<Nvml> Nvml::open(std::string& why_not) {
  std::string path = nvml_library_path();
  // RTLD_LOCAL: NVML's symbols stay out of the process's namespace (nothing else resolves against them).
  void* library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL);
  if (!library) {
    const char* error = dlerror();
    why_not = "NVML is not loaded (" + std::string(error ? error : path + ": cannot be opened") +
              "; is the NVIDIA driver installed? " + kNvmlLibraryVariable + " names another library)";
    return nullptr;
  }
  auto api = std::make_unique<Api>();
  std::string missing;
  auto bind = [&](auto& function, const char* symbol) {
    function = reinterpret_cast<std::remove_reference_t<decltype(function)>>(dlsym(library, symbol));
    if (!function) missing += std::string(missing.empty() ? "" : ", ") + symbol;
  };
  bind(api->init, "nvmlInit_v2");
  bind(api->shutdown, "nvmlShutdown");
  bind(api->error_string, "nvmlErrorString");
  bind(api->handle_by_index, "nvmlDeviceGetHandleByIndex_v2");
  bind(api->handle_by_pci_bus_id, "nvmlDeviceGetHandleByPciBusId_v2");
  bind(api->name, "nvmlDeviceGetName");
  bind(api->total_energy, "nvmlDeviceGetTotalEnergyConsumption");
  bind(api->utilization, "nvmlDeviceGetUtilizationRates");
  bind(api->power, "nvmlDeviceGetPowerUsage");
  if (!missing.empty()) {
    dlclose(library);
    why_not = path + " lacks " + missing + " (a driver older than NVML's _v2 interface?)";
    return nullptr;
  }
  if (const NvmlReturn code = api->init(); code != kNvmlSuccess) {
    const char* text = api->error_string(code);
    why_not = "nvmlInit_v2 failed: " + std::string(text ? text : "error " + std::to_string(code));
    dlclose(library);
    return nullptr;
  }
  return std::unique_ptr<Nvml>(new Nvml(library, std::move(path), std::move(api)));
}

Nvml::Nvml(void* library, std::string library_path, std::unique_ptr<Api> api)
    : library_(library), library_path_(std::move(library_path)), api_(std::move(api)) {}

Nvml::~Nvml() {
  api_->shutdown();
  dlclose(library_);
}

std::string Nvml::failure(const char* call, int code) const {
  const char* text = api_->error_string(code);
  return std::string(call) + ": " + (text ? text : "error " + std::to_string(code));
}

namespace {

std::optional<NvmlDevice> named_device(NvmlDeviceHandle handle,
                                       NvmlReturn (*name)(NvmlDeviceHandle, char*, unsigned int)) {
  NvmlDevice device;
  device.handle = handle;
  char buffer[kDeviceNameBufferSize] = {};
  if (name(handle, buffer, kDeviceNameBufferSize) == kNvmlSuccess) device.name = buffer;
  return device;
}

}  // namespace

std::optional<NvmlDevice> Nvml::device_by_pci_bus_id(const std::string& bus_id, std::string& why_not) const {
  NvmlDeviceHandle handle = nullptr;
  if (const NvmlReturn code = api_->handle_by_pci_bus_id(bus_id.c_str(), &handle); code != kNvmlSuccess) {
    why_not = failure("nvmlDeviceGetHandleByPciBusId_v2", code) + " (bus id " + bus_id + ")";
    return std::nullopt;
  }
  return named_device(handle, api_->name);
}

std::optional<NvmlDevice> Nvml::device_by_index(unsigned index, std::string& why_not) const {
  NvmlDeviceHandle handle = nullptr;
  if (const NvmlReturn code = api_->handle_by_index(index, &handle); code != kNvmlSuccess) {
    why_not = failure("nvmlDeviceGetHandleByIndex_v2", code) + " (index " + std::to_string(index) + ")";
    return std::nullopt;
  }
  return named_device(handle, api_->name);
}

std::optional<std::uint64_t> Nvml::total_energy_millijoules(const NvmlDevice& device,
                                                            std::string& why_not) const {
  unsigned long long millijoules = 0;
  if (const NvmlReturn code = api_->total_energy(device.handle, &millijoules); code != kNvmlSuccess) {
    why_not = failure("nvmlDeviceGetTotalEnergyConsumption", code);
    return std::nullopt;
  }
  return std::uint64_t(millijoules);
}

std::optional<unsigned> Nvml::gpu_utilization_percent(const NvmlDevice& device, std::string& why_not) const {
  NvmlUtilization utilization{};
  if (const NvmlReturn code = api_->utilization(device.handle, &utilization); code != kNvmlSuccess) {
    why_not = failure("nvmlDeviceGetUtilizationRates", code);
    return std::nullopt;
  }
  return utilization.gpu;
}

std::optional<unsigned> Nvml::power_milliwatts(const NvmlDevice& device, std::string& why_not) const {
  unsigned int milliwatts = 0;
  if (const NvmlReturn code = api_->power(device.handle, &milliwatts); code != kNvmlSuccess) {
    why_not = failure("nvmlDeviceGetPowerUsage", code);
    return std::nullopt;
  }
  return milliwatts;
}

}  // namespace cuzk::gpu
