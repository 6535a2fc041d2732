// The GPU's busy share and energy over a run, read through NVML (gpu/nvml.hpp): the utilization sampled on a
// thread of its own, the energy counter read at the run's start, at every sector's write and at the end.
// The prover lane's busy share (prover_busy) counts the time a step was on the lane, uploads and host work
// included; this is the time the GPU itself ran kernels, which is what the H200's ~81% against the lane's
// 99.5% showed apart on the H200. Without NVML (no driver, a GPU without the counter) the figures are
// absent with the reason, never zeros.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpu/nvml.hpp"
#include "job/periodic_thread.hpp"

namespace cuzk::job {

// What the run report says of the GPUs (docs/formats.md, "Run reports": gpu_metrics, gpu_busy,
// energy_joules, average_watts).
struct GpuMeterFigures {
  // Empty when measured; else why not ("not applicable: ..." for the CPU engine, or NVML's reason).
  std::string unavailable;
  std::string library;               // the NVML library that was loaded
  std::vector<std::string> devices;  // NVML's names of the metered devices
  unsigned interval_ms = 0;          // between utilization samples
  std::size_t samples = 0;           // utilization samples taken (each over every device)
  // Mean utilization (NVML's share of its sample period with a kernel running) over every sample of the run,
  // and over those in the prover lane's span (the steady state, as prover_busy's span), 0..1.
  std::optional<double> busy_run, busy_steady;
  std::string busy_unavailable;  // why busy_* are absent while NVML is there
  // The energy counter's rise from the run's start to its end, every device summed, and the span between
  // those two reads; average_watts is their ratio.
  std::optional<double> energy_joules, energy_span_s, average_watts;
  std::string energy_unavailable;  // why energy_* are absent while NVML is there (a GPU older than Volta)
};

class GpuMeter {
 public:
  using Clock = std::chrono::steady_clock;
  // NVML's sample period is 1/6 s to 1 s by product (nvmlDeviceGetUtilizationRates); a sample every 100 ms
  // sees each of its periods at least once, as nvidia-smi's 200 ms samples did.
  static constexpr std::chrono::milliseconds kDefaultInterval{100};

  // Loads NVML and finds the devices by PCI bus id (gpu::DeviceInfo::pci_bus_id); reads the energy counter
  // and starts sampling. Never throws for NVML's sake: without it, one info line is logged and finish()
  // says why.
  explicit GpuMeter(std::vector<std::string> pci_bus_ids,
                    std::chrono::milliseconds interval = kDefaultInterval);
  ~GpuMeter();
  GpuMeter(const GpuMeter&) = delete;
  GpuMeter& operator=(const GpuMeter&) = delete;

  // The energy used since the previous call (or the start), joules; called when a sector's proof is
  // written, so that a sector's energy is the counter's rise from the previous write to its own.
  std::optional<double> energy_since_last_read();

  // Stops sampling, reads the counter a last time and sums up; the steady state is [steady_begin,
  // steady_end] (no steady figure when it is empty). Call once.
  GpuMeterFigures finish(Clock::time_point steady_begin, Clock::time_point steady_end);

  // The figures of a run that meters nothing (the CPU engine): unavailable = "not applicable: " + why.
  static GpuMeterFigures not_applicable(const std::string& why);

 private:
  struct Sample {
    Clock::time_point at;
    double busy = 0;  // the devices' mean, 0..1
  };
  void sample();
  std::optional<std::uint64_t> energy_millijoules(std::string& why_not);  // every device summed

  std::chrono::milliseconds interval_;
  std::unique_ptr<gpu::Nvml> nvml_;
  std::vector<gpu::NvmlDevice> devices_;
  std::string unavailable_;
  std::mutex mutex_;  // guards the samples and the energy readings
  std::vector<Sample> samples_;
  std::string busy_unavailable_;
  std::string energy_unavailable_;
  std::optional<std::uint64_t> start_millijoules_, last_millijoules_;
  Clock::time_point start_;
  PeriodicThread ticker_;  // last: stopped before what it samples into goes
};

}  // namespace cuzk::job
