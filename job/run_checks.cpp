#include "job/run_checks.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <csignal>
#include <exception>
#include <filesystem>
#include <optional>
#include <set>

#include "io/atomic_file.hpp"
#include "io/mapped_file.hpp"
#include "job/existing_proof.hpp"
#include "job/prover_shape.hpp"
#include "pce/cache.hpp"
#include "prover/porep/c1_validate.hpp"

namespace cuzk::job {

namespace detail {

namespace {

std::string signal_name(int signal) {
  switch (signal) {
    case SIGINT:
      return "SIGINT";
    case SIGTERM:
      return "SIGTERM";
  }
  return "signal " + std::to_string(signal);
}

// The first element in which two verifying keys differ ("vk.gamma_g2", "ic[3]", "the number of ic points:
// 40 and 328"), or "" when they are the same key.
std::string first_difference(const groth16::VerifyingKey& a, const groth16::VerifyingKey& b) {
  if (a.alpha_g1 != b.alpha_g1) return "vk.alpha_g1";
  if (a.beta_g1 != b.beta_g1) return "vk.beta_g1";
  if (a.beta_g2 != b.beta_g2) return "vk.beta_g2";
  if (a.gamma_g2 != b.gamma_g2) return "vk.gamma_g2";
  if (a.delta_g1 != b.delta_g1) return "vk.delta_g1";
  if (a.delta_g2 != b.delta_g2) return "vk.delta_g2";
  if (a.ic.size() != b.ic.size())
    return "the number of ic points: " + std::to_string(a.ic.size()) + " and " + std::to_string(b.ic.size());
  for (std::size_t i = 0; i < a.ic.size(); ++i)
    if (a.ic[i] != b.ic[i]) return "ic[" + std::to_string(i) + "]";
  return "";
}

// The .params and .vk of one sector size are present, and the .vk is the verifying key the .params begins
// with (the .params' header only: its vectors are read when the first sector is proven), so that a .vk of
// another setup is refused now, not by the self-verification after a whole proof. With `missing` (a dry
// run), a file that does not exist is noted there instead of refused.
void check_parameters(ParameterStore& store, const porep::SectorShape& shape, bool need_vk,
                      std::vector<std::string>* missing) {
  const std::string params = store.params_path(shape);
  const std::string why = io::why_not_a_regular_file(params);
  if (!why.empty() && why != "no such file")
    throw JobError(
        JobError::Kind::kMissingParameters,
        "no Groth16 parameters for " + std::string(shape.label) + " sectors: " + params + " is " + why);
  const std::string real_run = " (a real run stops there with exit 6)";
  if (missing && !why.empty()) {
    missing->push_back("no Groth16 parameters for " + std::string(shape.label) + " sectors: " + params +
                       " does not exist" + real_run);
    return;
  }
  const groth16::ParameterHeader& header = store.header_for(shape);  // kMissingParameters when absent
  if (!need_vk) return;
  if (missing && !std::filesystem::exists(store.vk_path(shape))) {
    missing->push_back("no verifying key for " + std::string(shape.label) +
                       " sectors: " + store.vk_path(shape) + " does not exist" + real_run);
    return;
  }
  const groth16::VerifyingKey& vk = store.vk_for(shape);
  if (const std::string differs = first_difference(header.vk, vk); !differs.empty())
    throw JobError(JobError::Kind::kMissingParameters,
                   params + " and " + store.vk_path(shape) +
                       " do not belong together: the .vk is not the verifying key the .params begins with "
                       "(they differ in " +
                       differs + "); they come from different setups");
}

// skip_existing: what the sector's proof file, when there is one, says. One that verifies makes the sector
// already proven (its inputs.json written when asked for and missing); one that does not is renamed aside (a
// dry run notes that it would be) and the sector is proven again.
std::optional<AlreadyProven> take_existing_proof(std::size_t index, const std::string& c1_path,
                                                 const porep::C1Output& c1, const std::string& sector,
                                                 const ProveOptions& options, ParameterStore& store,
                                                 std::vector<std::string>* dry_run_notes) {
  const std::filesystem::path out(options.output_dir);
  const std::filesystem::path proof_path = out / (sector + ".proof");
  const porep::SectorShape& shape = *c1.registered_proof->shape;
  std::error_code ec;
  if (!std::filesystem::exists(proof_path, ec)) return std::nullopt;
  if (dry_run_notes && !std::filesystem::exists(store.vk_path(shape), ec)) {
    dry_run_notes->push_back(proof_path.string() + " exists and cannot be checked without " +
                             store.vk_path(shape) + " (a real run stops there with exit 6)");
    return std::nullopt;
  }
  AlreadyProven done;
  done.input_index = index;
  done.c1_path = c1_path;
  done.sector = sector;
  done.proof_type = std::string(c1.registered_proof->name);
  done.partitions = c1.registered_proof->partitions();
  return settle_existing_proof(examine_existing_proof(proof_path, c1, store.vk_for(shape)), proof_path,
                               std::move(done), options, dry_run_notes);
}

}  // namespace

std::string sector_name(const std::string& c1_path, const porep::C1Output& c1,
                        ProveOptions::ProofNaming naming) {
  if (c1.sector_num && naming == ProveOptions::ProofNaming::kSectorNumber)
    return std::to_string(*c1.sector_num);
  return std::filesystem::path(c1_path).stem().string();
}

JobError same_proof_file(const std::string& c1_path, const porep::C1Output& c1, const std::string& sector,
                         ProveOptions::ProofNaming naming) {
  std::string message = c1_path + ": another input also writes " + sector + ".proof";
  if (c1.sector_num && naming == ProveOptions::ProofNaming::kSectorNumber)
    message += " (its SectorNum is " + sector +
               "; lotus-bench simple commit1 writes 1 into every envelope: --name-by stem names each proof "
               "after its C1 file)";
  return JobError(JobError::Kind::kOutputExists, message);
}

void progress(const ProveOptions& o, const std::string& message) {
  if (o.progress) o.progress(message);
}

void begin_step(const ProveOptions& o, const std::string& message) {
  if (o.stop_requested) {
    if (const int signal = o.stop_requested->load(); signal != 0)
      throw JobError(JobError::Kind::kInterrupted,
                     fmt::format("interrupted by {} before {}", signal_name(signal), message));
  }
  progress(o, message);
}

void FailureLog::record(std::size_t index, const std::string& path, const std::string& sector,
                        const std::string& stage) {
  SectorFailure f;
  f.input_index = index;
  f.c1_path = path;
  f.sector = sector;
  f.stage = stage;
  f.error = std::current_exception();
  try {
    throw;
  } catch (const std::exception& e) {
    f.message = e.what();
  } catch (...) {
    f.message = "unknown exception";
  }
  if (options_.keep_going)
    progress(options_, path + ": failed (" + stage + "); --keep-going: on with the next sector");
  std::lock_guard lock(mutex_);
  if (options_.sector_failed) options_.sector_failed(f);
  failures_.push_back(std::move(f));
}

std::vector<SectorFailure> FailureLog::in_input_order() {
  std::lock_guard lock(mutex_);
  std::vector<SectorFailure> out = std::move(failures_);
  std::stable_sort(out.begin(), out.end(), [](const SectorFailure& a, const SectorFailure& b) {
    return a.input_index < b.input_index;
  });
  return out;
}

CheckedInputs check_inputs(const std::vector<std::string>& paths, const ProveOptions& options,
                           ParameterStore& store, FailureLog& failures,
                           std::vector<std::string>* dry_run_notes) {
  CheckedInputs checked;
  std::set<std::string> names;
  const std::filesystem::path out(options.output_dir);
  const bool out_exists = std::filesystem::is_directory(out);
  std::map<std::uint64_t, std::exception_ptr> parameters_checked;  // per sector size: null when fine
  for (std::size_t i = 0; i < paths.size(); ++i) {
    const std::string& path = paths[i];
    std::string sector;
    try {
      begin_step(options, "checking " + path);
      porep::C1Output c1 = porep::read_c1_file(path);
      porep::validate_c1(c1, path);
      sector = sector_name(path, c1, options.proof_naming);
      if (!names.insert(sector).second) throw same_proof_file(path, c1, sector, options.proof_naming);
      // A dry run's output folder may be yet to be made: its files can be written once it is.
      if (out_exists || !dry_run_notes) {
        io::check_output_file(out / (sector + ".proof"));
        if (options.dump_public_inputs) io::check_output_file(out / (sector + ".inputs.json"));
      }
      const porep::SectorShape& shape = *c1.registered_proof->shape;
      auto [it, first] = parameters_checked.try_emplace(shape.sector_size);
      if (first) {
        try {
          check_parameters(store, shape, options.verify || options.skip_existing, dry_run_notes);
        } catch (...) {
          it->second = std::current_exception();
        }
      }
      if (it->second) std::rethrow_exception(it->second);
      if (options.skip_existing) {
        if (auto done = take_existing_proof(i, path, c1, sector, options, store, dry_run_notes)) {
          progress(options,
                   "checking " + path + ": " + done->proof_path + " verifies: already proven, skipped");
          if (options.already_proven) options.already_proven(*done);
          checked.already_proven.push_back(std::move(*done));
          continue;
        }
      }
      checked.to_prove.push_back({i, sector, &*c1.registered_proof});
    } catch (...) {
      failures.record(i, path, sector, "check");
      if (!options.keep_going) throw;
    }
  }
  return checked;
}

RunMemoryRequest memory_request(const ProveOptions& options, const EngineDevices& devices) {
  RunMemoryRequest request;
  request.gpu = options.engine.gpu();
  // Direct synthesis (no PCE) has no matrices to hand the engine: a, b, c are always made on the host.
  request.device_constraints = options.engine.constraints_on_engine() && options.use_pce;
  request.device_budget = devices.budget;
  request.device_budget_from = devices.budget_from;
  request.device_cuda_memory = devices.cuda_memory;
  request.synthesis_workers = options.synthesis_workers;
  request.available = host_memory_available();
  // --host-memory: the run plans for at most that much (a machine shared with other work).
  if (options.host_memory_limit && (!request.available || options.host_memory_limit < request.available)) {
    request.available = options.host_memory_limit;
    request.available_from = "--host-memory";
  }
  // --devices all: as many engines as the devices found.
  request.engines = static_cast<unsigned>(options.engine.gpu() && options.engine.devices.empty()
                                              ? std::max<std::size_t>(1, devices.ordinals.size())
                                              : options.engine.engine_count());
  return request;
}

void keep_neediest(std::optional<RunMemoryPlan>& chosen, std::optional<RunMemoryPlan> plan) {
  if (!plan) return;
  if (!chosen || (chosen->fits() && (!plan->fits() || plan->host.total > chosen->host.total)))
    chosen = std::move(plan);
}

RunMemoryPlan plan_memory(const std::vector<CheckedInput>& inputs, const ProveOptions& options,
                          const EngineDevices& devices, ParameterStore& store,
                          std::map<std::uint64_t, gpu::ProverShape>& shapes,
                          std::vector<std::string>& notes) {
  const RunMemoryRequest request = memory_request(options, devices);
  const std::filesystem::path pce_dir = pce::cache_dir(options.pce_cache_dir, options.params_dir);
  std::optional<RunMemoryPlan> chosen;
  for (const CheckedInput& input : inputs) {
    const porep::SectorShape& sector = *input.proof->shape;
    if (shapes.contains(sector.sector_size)) continue;
    const ProverShapeResult found = prover_shape_for(sector, pce_dir, store.params_path(sector));
    shapes[sector.sector_size] = found.shape;
    notes.push_back(shape_note(std::string(sector.label) + " circuit", found));
    keep_neediest(chosen, plan_run_memory(std::string(sector.label), found.shape, request));
  }
  return *chosen;
}

std::string shape_note(const std::string& circuit, const ProverShapeResult& found) {
  return fmt::format("{}: {} constraints, {} inputs, {} aux from {}; base vectors {}", circuit,
                     found.shape.constraints, found.shape.inputs, found.shape.aux, found.circuit_from,
                     found.params_present ? "from " + found.vectors_from : found.vectors_from);
}

EngineDevices dry_run_devices(const ProveOptions& options) {
  // A dry run needs no GPU, but the GPU engine's plan needs a budget: the memory limit where none is visible.
  EngineDevices devices = find_devices(options.engine);
  if (options.engine.gpu() && devices.budget == 0)
    throw JobError(JobError::Kind::kNoDeviceBudget,
                   "--gpu-memory: --dry-run --gpu plans for a device budget, and no GPU is visible (" +
                       devices.why_none + "): give one, e.g. --gpu-memory 80GiB");
  return devices;
}

void log_memory_plan(const RunMemoryPlan& plan) {
  if (plan.device) spdlog::info("memory plan, {} GPU: {}", plan.sector_size, plan.device->describe());
  spdlog::info("memory plan, {} host: {}", plan.sector_size, plan.host.describe());
}

}  // namespace detail

// The dry run: the up-front checks and the memory plan alone.
RunPlan plan_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& options) {
  using detail::CheckedInput;
  using detail::FailureLog;
  RunPlan plan;
  const EngineDevices devices = detail::dry_run_devices(options);
  ParameterStore store(options.params_dir);
  io::prepare_output_dir(options.output_dir, /*create=*/false);
  ProveOptions strict = options;
  strict.keep_going = false;  // a dry run stops at the first bad input, as a run without --keep-going would
  FailureLog failures(strict);
  detail::CheckedInputs inputs = detail::check_inputs(c1_paths, strict, store, failures, &plan.notes);
  const std::vector<CheckedInput>& checked = inputs.to_prove;
  plan.already_proven = std::move(inputs.already_proven);
  for (const CheckedInput& input : checked) {
    PlannedSector s;
    s.c1_path = c1_paths[input.index];
    s.sector = input.sector;
    s.proof_type = std::string(input.proof->name);
    s.sector_size = std::string(input.proof->shape->label);
    s.partitions = input.proof->partitions();
    s.proof_path = (std::filesystem::path(options.output_dir) / (input.sector + ".proof")).string();
    plan.sectors.push_back(std::move(s));
  }
  if (!checked.empty()) {
    std::map<std::uint64_t, gpu::ProverShape> shapes;
    plan.memory = detail::plan_memory(checked, options, devices, store, shapes, plan.notes);
  }
  return plan;
}

}  // namespace cuzk::job
