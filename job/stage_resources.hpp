// What the job's two stages share besides the parameter store: the proving engines (one or several, each
// made once per parameter set, on a thread of its own) and the pool of prover-input buffers (reused from
// partition to partition). Internal to the run: job/prove.cpp and its stages (job/front_stage.hpp,
// job/back_stage.hpp).
#pragma once

#include <algorithm>
#include <future>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "gpu/device_info.hpp"
#include "gpu/memory_plan.hpp"
#include "job/engine.hpp"
#include "job/prove.hpp"
#include "job/timeline.hpp"
#include "pce/compact_r1cs.hpp"
#include "prover/groth16/prover.hpp"

namespace cuzk::job::detail {

// Setup time left over below this is noise (a loaded host's scheduling gaps reach several milliseconds),
// not a phase: 50 ms, the shortest phase `cuzk compare` judges by default (--min-seconds).
inline constexpr double kSetupNoiseSeconds = 0.05;

// The one-off phases of making `engine` (its setup_phases()) into `shared_phases`, and what they do not
// cover of `made` (the time the factory took: the GPU engine's memory plan and tables) as "<engine>.setup"
// unless it is noise.
inline void add_setup_phases(const groth16::ProverEngine& engine, PhaseTime made, const char* engine_name,
                             PhaseMap<PhaseTime>& shared_phases) {
  for (const auto& [name, seconds] : engine.setup_phases()) {
    shared_phases[name] += PhaseTime{seconds, 0};
    made.wall_s -= seconds;
  }
  if (made.wall_s >= kSetupNoiseSeconds) shared_phases[std::string(engine_name) + ".setup"] += made;
}

// One proving engine per parameter set, made on a thread of its own from the moment the first sector of
// its size is opened (loading the parameters then overlaps that sector's synthesis), and waited for by
// the first proof that needs it.
class EngineCache {
 public:
  // `config` as the run was given it (the memory plan may keep the constraints on the host for synthesis;
  // the engine is still made as asked), made by `make` (make_engine but in tests) with `threads`.
  // `shapes`: the circuit and parameter sizes of each sector size of the run (EngineRequest::shape).
  EngineCache(EngineConfig config, EngineFactory make, unsigned threads, ParameterStore& store,
              Timeline& timeline, std::map<std::uint64_t, gpu::ProverShape> shapes = {})
      : config_(std::move(config)),
        make_(std::move(make)),
        threads_(threads),
        store_(store),
        timeline_(timeline),
        shapes_(std::move(shapes)) {}
  ~EngineCache() {
    // A run that stops early still waits for a load in flight (it uses the store and this cache).
    for (auto& [size, slot] : slots_)
      if (slot.future.valid()) slot.future.wait();
    // A GPU engine frees its memory on the current device: make it the engine's own (this runs on the
    // job's thread, whose current device may be another engine's).
    if (config_.gpu() && config_.devices.size() == 1) {
      try {
        gpu::use_device(config_.devices.front());
      } catch (...) {  // the device is gone: nothing left to free on it
      }
    }
  }

  void prepare(const porep::SectorShape& shape) {
    std::lock_guard lock(mutex_);
    Slot& slot = slots_[shape.sector_size];
    if (slot.future.valid() || slot.engine) return;
    const std::string path = store_.params_path(shape);
    const groth16::ParameterHeader& header = store_.header_for(shape);
    auto known = shapes_.find(shape.sector_size);
    const gpu::ProverShape prover_shape = known == shapes_.end() ? gpu::ProverShape{} : known->second;
    slot.future =
        std::async(std::launch::async, [this, path, &header, prover_shape, label = std::string(shape.label)] {
          PhaseTimer timer;
          const double start = timeline_.now();
          auto engine = make_(config_, {path, header, threads_, prover_shape});
          timeline_.add({"parameters", "params.load " + label, "", -1, start, timeline_.now()});
          return Made{std::move(engine), timer.elapsed()};
        });
  }

  // The engine for `shape` (prepare() first); the one-off phases of making it go to `shared_phases` once.
  groth16::ProverEngine& get(const porep::SectorShape& shape, PhaseMap<PhaseTime>& shared_phases) {
    prepare(shape);
    std::unique_lock lock(mutex_);
    Slot& slot = slots_[shape.sector_size];
    if (!slot.engine) {
      // The future stays in the slot while the engine is made, so that a prepare() meanwhile (the front
      // stage opening the next sector) sees it and does not start a second engine: the GPU would need
      // twice the memory. Only this engine's thread gets and forgets, and std::map keeps `slot` in place.
      lock.unlock();
      slot.future.wait();
      lock.lock();
      Made made = slot.future.get();  // rethrows what the factory threw (the slot is then empty again)
      slot.engine = std::move(made.engine);
      add_setup_phases(*slot.engine, made.time, config_.name(), shared_phases);
    }
    return *slot.engine;
  }

  // Whether the engine for `shape` (get() first) evaluates the constraints itself: it is offered `circuit`
  // once (ProverEngine::hold_constraints) and its answer kept. The offer's time (the GPU engine uploads the
  // matrices) is the shared phase <engine>.constraints.
  bool hold_constraints(const porep::SectorShape& shape, const pce::CompactR1cs& circuit,
                        PhaseMap<PhaseTime>& shared_phases) {
    std::lock_guard lock(mutex_);
    Slot& slot = slots_.at(shape.sector_size);
    if (!slot.holds_constraints) {
      PhaseTimer timer;
      const double start = timeline_.now();
      slot.holds_constraints = slot.engine->hold_constraints(circuit.view());
      shared_phases[std::string(config_.name()) + ".constraints"] += timer.elapsed();
      timeline_.add(
          {"parameters", "constraints " + std::string(shape.label), "", -1, start, timeline_.now()});
    }
    return *slot.holds_constraints;
  }

  // The engine for `shape` was offered the constraints and declined them: synthesis should evaluate a, b, c
  // itself from now on (the partitions already made without them are evaluated by the proving stage).
  bool declined_constraints(const porep::SectorShape& shape) {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(shape.sector_size);
    return it != slots_.end() && it->second.holds_constraints == false;
  }

  // After a failed proof (keep_going) the next sector gets a fresh engine: a device error may leave this
  // one's buffers half made. An engine still being made is left alone.
  void forget(const porep::SectorShape& shape) {
    std::lock_guard lock(mutex_);
    auto it = slots_.find(shape.sector_size);
    if (it != slots_.end() && it->second.engine) slots_.erase(it);
  }

 private:
  struct Made {
    std::unique_ptr<groth16::ProverEngine> engine;
    PhaseTime time;
  };
  struct Slot {
    std::future<Made> future;
    std::unique_ptr<groth16::ProverEngine> engine;
    std::optional<bool> holds_constraints;  // asked once
  };
  const EngineConfig config_;
  const EngineFactory make_;
  const unsigned threads_;
  ParameterStore& store_;
  Timeline& timeline_;
  const std::map<std::uint64_t, gpu::ProverShape> shapes_;
  std::mutex mutex_;
  std::map<std::uint64_t, Slot> slots_;
};

// The run's engines: one EngineCache per engine, each made from the run's config narrowed to its own device
// (EngineConfig::devices) and, on the CPU, with its share of the threads (EngineConfig::cpu_engines).
class EngineSet {
 public:
  // `ordinals`: the GPU engines' devices (find_devices' ordinals); ignored on the CPU.
  EngineSet(const EngineConfig& config, const std::vector<int>& ordinals, const EngineFactory& make,
            unsigned threads, ParameterStore& store, Timeline& timeline,
            const std::map<std::uint64_t, gpu::ProverShape>& shapes) {
    const std::size_t count = config.gpu() ? ordinals.size() : config.engine_count();
    // CPU engines prove on the cores synthesis uses too: they split the threads rather than each
    // taking all of them.
    const unsigned hardware = std::max(1u, std::thread::hardware_concurrency());
    const unsigned cpu_threads =
        count == 1 ? threads : std::max(1u, (threads ? threads : hardware) / static_cast<unsigned>(count));
    for (std::size_t i = 0; i < count; ++i) {
      EngineConfig own = config;
      if (config.gpu()) {
        own.devices = {ordinals[i]};
        devices_.push_back(ordinals[i]);
      } else {
        own.cpu_engines = 1;
        devices_.push_back(std::nullopt);
      }
      caches_.push_back(std::make_unique<EngineCache>(own, make, config.gpu() ? threads : cpu_threads, store,
                                                      timeline, shapes));
    }
  }

  std::size_t size() const { return caches_.size(); }
  EngineCache& at(std::size_t i) { return *caches_.at(i); }
  std::optional<int> device(std::size_t i) const { return devices_.at(i); }

  // Every engine starts loading the parameters of `shape` at once.
  void prepare(const porep::SectorShape& shape) {
    for (auto& cache : caches_) cache->prepare(shape);
  }
  // Engines of one config answer alike; any one that declined decides.
  bool declined_constraints(const porep::SectorShape& shape) {
    return std::any_of(caches_.begin(), caches_.end(),
                       [&](const auto& cache) { return cache->declined_constraints(shape); });
  }

 private:
  std::vector<std::unique_ptr<EngineCache>> caches_;
  std::vector<std::optional<int>> devices_;  // each engine's GPU; none on the CPU
};

// Prover inputs whose partition is proven, kept for the next synthesis: their witness and a, b, c buffers
// are reused instead of faulting in fresh memory per partition (~4.3 GB at 32GiB, ~17 GB with a, b, c) (the
// memory stays bounded: no more inputs exist than partitions in flight).
class BufferPool {
 public:
  groth16::ProverInput take() {
    std::lock_guard lock(mutex_);
    if (free_.empty()) return {};
    groth16::ProverInput in = std::move(free_.back());
    free_.pop_back();
    return in;
  }
  void give(groth16::ProverInput&& in) {
    in.inputs.clear();
    std::lock_guard lock(mutex_);
    free_.push_back(std::move(in));
  }

 private:
  std::mutex mutex_;
  std::vector<groth16::ProverInput> free_;
};

}  // namespace cuzk::job::detail
