// A stand-in for NVIDIA's libnvidia-ml.so.1 with scripted counters, so that the tests of gpu/nvml.hpp and
// job/gpu_meter.hpp run without a GPU or a driver (they point CUZK_NVML_LIBRARY at it). It defines the few
// functions gpu/nvml.cpp looks up, with the signatures of NVIDIA's public nvml.h, and one device:
// - the energy counter starts at kStartMillijoules and rises by FAKE_NVML_ENERGY_STEP_MJ (default
//   kDefaultEnergyStepMillijoules) at every read, so that a run's joules follow from its number of reads;
// - utilization.gpu is FAKE_NVML_UTILIZATION percent (default kDefaultUtilizationPercent) at every sample;
// - FAKE_NVML_NO_ENERGY=1: the energy counter is not supported (a GPU older than Volta);
// - FAKE_NVML_INIT_FAILS=1: nvmlInit_v2 fails as without a loaded driver.
#include <atomic>
#include <cstdlib>
#include <cstring>

namespace {

constexpr int kSuccess = 0;               // NVML_SUCCESS
constexpr int kErrorNotSupported = 3;     // NVML_ERROR_NOT_SUPPORTED
constexpr int kErrorDriverNotLoaded = 9;  // NVML_ERROR_DRIVER_NOT_LOADED
constexpr int kErrorInvalidArgument = 2;  // NVML_ERROR_INVALID_ARGUMENT
constexpr unsigned long long kStartMillijoules = 1'000'000'000;
constexpr unsigned long long kDefaultEnergyStepMillijoules = 250'000;  // 250 J per read
constexpr unsigned kDefaultUtilizationPercent = 80;
constexpr unsigned kPowerMilliwatts = 415'000;  // about an H200's board power while proving

struct Utilization {  // nvmlUtilization_t
  unsigned int gpu;
  unsigned int memory;
};

int the_device;  // the one device's handle points here
std::atomic<unsigned long long> energy_reads{0};

unsigned long long number_from(const char* variable, unsigned long long fallback) {
  const char* text = std::getenv(variable);
  return text && *text ? std::strtoull(text, nullptr, 10) : fallback;
}

bool flag(const char* variable) {
  const char* text = std::getenv(variable);
  return text && std::strcmp(text, "1") == 0;
}

}  // namespace

extern "C" {

int nvmlInit_v2() {
  return flag("FAKE_NVML_INIT_FAILS") ? kErrorDriverNotLoaded : kSuccess;
}
int nvmlShutdown() {
  return kSuccess;
}

const char* nvmlErrorString(int result) {
  switch (result) {
    case kSuccess:
      return "Success";
    case kErrorInvalidArgument:
      return "Invalid Argument";
    case kErrorNotSupported:
      return "Not Supported";
    case kErrorDriverNotLoaded:
      return "Driver Not Loaded";
    default:
      return "Unknown Error";
  }
}

int nvmlDeviceGetHandleByIndex_v2(unsigned int index, void** device) {
  if (index != 0 || !device) return kErrorInvalidArgument;
  *device = &the_device;
  return kSuccess;
}

int nvmlDeviceGetHandleByPciBusId_v2(const char* bus_id, void** device) {
  if (!bus_id || !device) return kErrorInvalidArgument;
  *device = &the_device;
  return kSuccess;
}

int nvmlDeviceGetName(void* device, char* name, unsigned int length) {
  if (device != &the_device || !name || length < sizeof("Fake GPU")) return kErrorInvalidArgument;
  std::strcpy(name, "Fake GPU");
  return kSuccess;
}

int nvmlDeviceGetTotalEnergyConsumption(void* device, unsigned long long* energy) {
  if (device != &the_device || !energy) return kErrorInvalidArgument;
  if (flag("FAKE_NVML_NO_ENERGY")) return kErrorNotSupported;
  const unsigned long long step = number_from("FAKE_NVML_ENERGY_STEP_MJ", kDefaultEnergyStepMillijoules);
  *energy = kStartMillijoules + step * energy_reads.fetch_add(1);
  return kSuccess;
}

int nvmlDeviceGetUtilizationRates(void* device, Utilization* utilization) {
  if (device != &the_device || !utilization) return kErrorInvalidArgument;
  utilization->gpu = unsigned(number_from("FAKE_NVML_UTILIZATION", kDefaultUtilizationPercent));
  utilization->memory = 0;
  return kSuccess;
}

int nvmlDeviceGetPowerUsage(void* device, unsigned int* power) {
  if (device != &the_device || !power) return kErrorInvalidArgument;
  *power = kPowerMilliwatts;
  return kSuccess;
}

}  // extern "C"
