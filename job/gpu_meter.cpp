#include "job/gpu_meter.hpp"

#include <spdlog/spdlog.h>

#include <algorithm>
#include <utility>

namespace cuzk::job {

namespace {

constexpr double kJoulesPerMillijoule = 1e-3;
constexpr double kPercent = 100;

}  // namespace

GpuMeter::GpuMeter(std::vector<std::string> pci_bus_ids, std::chrono::milliseconds interval)
    : interval_(interval), start_(Clock::now()) {
  // Each GPU once, however many engines it holds (--devices 0,0): its energy counter is the board's.
  std::sort(pci_bus_ids.begin(), pci_bus_ids.end());
  pci_bus_ids.erase(std::unique(pci_bus_ids.begin(), pci_bus_ids.end()), pci_bus_ids.end());
  std::string why_not;
  nvml_ = gpu::Nvml::open(why_not);
  for (std::size_t i = 0; nvml_ && i < pci_bus_ids.size(); ++i) {
    std::optional<gpu::NvmlDevice> device = nvml_->device_by_pci_bus_id(pci_bus_ids[i], why_not);
    if (!device) {
      nvml_.reset();
      break;
    }
    devices_.push_back(std::move(*device));
  }
  if (nvml_ && devices_.empty()) {
    why_not = "no device to meter";
    nvml_.reset();
  }
  if (!nvml_) {
    unavailable_ = why_not;
    spdlog::info("GPU busy share and energy are not measured: {}", unavailable_);
    return;
  }
  start_ = Clock::now();
  start_millijoules_ = energy_millijoules(energy_unavailable_);
  last_millijoules_ = start_millijoules_;
  sample();
  ticker_.start(interval_, [this] { sample(); });
}

GpuMeter::~GpuMeter() {
  ticker_.stop();
}

std::optional<std::uint64_t> GpuMeter::energy_millijoules(std::string& why_not) {
  std::uint64_t sum = 0;
  for (const gpu::NvmlDevice& device : devices_) {
    const std::optional<std::uint64_t> millijoules = nvml_->total_energy_millijoules(device, why_not);
    if (!millijoules) return std::nullopt;
    sum += *millijoules;
  }
  return sum;
}

void GpuMeter::sample() {
  std::string why_not;
  double sum = 0;
  for (const gpu::NvmlDevice& device : devices_) {
    const std::optional<unsigned> percent = nvml_->gpu_utilization_percent(device, why_not);
    if (!percent) {
      std::lock_guard lock(mutex_);
      if (busy_unavailable_.empty()) busy_unavailable_ = why_not;
      return;
    }
    sum += *percent / kPercent;
  }
  std::lock_guard lock(mutex_);
  samples_.push_back({Clock::now(), sum / double(devices_.size())});
}

std::optional<double> GpuMeter::energy_since_last_read() {
  if (!nvml_) return std::nullopt;
  std::string why_not;
  const std::optional<std::uint64_t> now = energy_millijoules(why_not);
  std::lock_guard lock(mutex_);
  // A counter that went back (the driver reloaded) gives no figure rather than a wrapped one.
  if (!now || !last_millijoules_ || *now < *last_millijoules_) {
    last_millijoules_ = now;
    return std::nullopt;
  }
  const double joules = double(*now - *last_millijoules_) * kJoulesPerMillijoule;
  last_millijoules_ = now;
  return joules;
}

GpuMeterFigures GpuMeter::finish(Clock::time_point steady_begin, Clock::time_point steady_end) {
  GpuMeterFigures figures;
  figures.interval_ms = unsigned(interval_.count());
  if (!nvml_) {
    figures.unavailable = unavailable_;
    return figures;
  }
  std::string why_not;
  const std::optional<std::uint64_t> end_millijoules = energy_millijoules(why_not);
  const Clock::time_point end = Clock::now();
  ticker_.stop();

  figures.library = nvml_->library_path();
  for (const gpu::NvmlDevice& device : devices_) figures.devices.push_back(device.name);
  figures.samples = samples_.size();
  if (!samples_.empty()) {
    double run_sum = 0, steady_sum = 0;
    std::size_t steady_count = 0;
    for (const Sample& s : samples_) {
      run_sum += s.busy;
      if (s.at >= steady_begin && s.at <= steady_end) {
        steady_sum += s.busy;
        ++steady_count;
      }
    }
    figures.busy_run = run_sum / double(samples_.size());
    if (steady_count) figures.busy_steady = steady_sum / double(steady_count);
  } else {
    figures.busy_unavailable = busy_unavailable_.empty() ? "no utilization sample" : busy_unavailable_;
  }
  if (start_millijoules_ && end_millijoules && *end_millijoules >= *start_millijoules_) {
    figures.energy_joules = double(*end_millijoules - *start_millijoules_) * kJoulesPerMillijoule;
    figures.energy_span_s = std::chrono::duration<double>(end - start_).count();
    if (*figures.energy_span_s > 0) figures.average_watts = *figures.energy_joules / *figures.energy_span_s;
  } else {
    figures.energy_unavailable = !energy_unavailable_.empty() ? energy_unavailable_
                                 : !why_not.empty()           ? why_not
                                                              : "the energy counter went back during the run";
  }
  return figures;
}

GpuMeterFigures GpuMeter::not_applicable(const std::string& why) {
  GpuMeterFigures figures;
  figures.unavailable = "not applicable: " + why;
  return figures;
}

}  // namespace cuzk::job
