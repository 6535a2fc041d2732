// The up-front part of a run, shared by the real run (job/prove.cpp) and the dry run (plan_c1_files): every
// input checked before heavy work, the failures of a keep-going run, the safe points where a step begins, and
// the run's memory plan. Internal to job/.
#pragma once

#include <cstddef>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "gpu/memory_plan.hpp"
#include "job/engine.hpp"
#include "job/prove.hpp"
#include "job/prover_shape.hpp"
#include "job/run_memory.hpp"
#include "job/run_report.hpp"
#include "prover/porep/c1_file.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::job::detail {

// The stem of a sector's proof file: its SectorNum or its C1 file's stem (ProveOptions::proof_naming).
std::string sector_name(const std::string& c1_path, const porep::C1Output& c1,
                        ProveOptions::ProofNaming naming);
// Two inputs would write the same proof file: a usage error, with the way out when envelopes name them.
JobError same_proof_file(const std::string& c1_path, const porep::C1Output& c1, const std::string& sector,
                         ProveOptions::ProofNaming naming);
// ProveOptions::progress, when there is one.
void progress(const ProveOptions& o, const std::string& message);

// The start of a step: a safe point to stop at when asked (ProveOptions::stop_requested), then its progress.
void begin_step(const ProveOptions& o, const std::string& message);

// The failed sectors of a keep-going run, recorded from both pipeline stages.
class FailureLog {
 public:
  explicit FailureLog(const ProveOptions& options) : options_(options) {}
  // Call inside a catch block: records the exception being handled.
  void record(std::size_t index, const std::string& path, const std::string& sector,
              const std::string& stage);
  std::vector<SectorFailure> in_input_order();

 private:
  const ProveOptions& options_;
  std::mutex mutex_;
  std::vector<SectorFailure> failures_;
};

// An input that passed the up-front checks.
struct CheckedInput {
  std::size_t index = 0;  // among the C1 files
  std::string sector;     // the proof file's stem
  const porep::RegisteredSealProof* proof = nullptr;
};

struct CheckedInputs {
  std::vector<CheckedInput> to_prove;
  std::vector<AlreadyProven> already_proven;  // skip_existing: proof files that verify
};

// Everything that can be checked before heavy work: each C1 file parses and validates, its proof file
// can be written and the parameters of its size are there; with skip_existing, a proof file already there
// is verified (job/existing_proof.hpp). Returns the sectors to prove and those already proven; a failure
// throws, or with keep_going is recorded and the sector left out. With `dry_run_notes` nothing is created
// or renamed (an output folder yet to be made passes when it could be made) and missing parameter files
// and proof files that would be set aside are noted there.
CheckedInputs check_inputs(const std::vector<std::string>& paths, const ProveOptions& options,
                           ParameterStore& store, FailureLog& failures,
                           std::vector<std::string>* dry_run_notes = nullptr);

// The memory plan of a run over the checked inputs (job/run_memory.hpp): the shape of every sector size
// in it (job/prover_shape.hpp; the engines are given them) and the plan of the size that needs the most
// host memory, or of the first that does not fit (a run of several sizes proves them one after another).
// `devices`: the GPU config's (find_devices), whose budget the device plan is made against. `notes`: where
// the figures came from.
RunMemoryPlan plan_memory(const std::vector<CheckedInput>& inputs, const ProveOptions& options,
                          const EngineDevices& devices, ParameterStore& store,
                          std::map<std::uint64_t, gpu::ProverShape>& shapes, std::vector<std::string>& notes);

// The request the run's plans are made with: the engine config's, `devices`' budget, MemAvailable.
RunMemoryRequest memory_request(const ProveOptions& options, const EngineDevices& devices);
// Of several circuits' plans (a run proves its sizes one after another): the first that does not fit, else
// the one that needs the most host memory (a `plan` of nothing changes nothing).
void keep_neediest(std::optional<RunMemoryPlan>& chosen, std::optional<RunMemoryPlan> plan);
// "<circuit>: N constraints, ... from <where>; base vectors from <where>", for the dry run's notes.
std::string shape_note(const std::string& circuit, const ProverShapeResult& found);
// A dry run's devices (find_devices): with --gpu and neither a memory limit nor a visible GPU, JobError
// kNoDeviceBudget (the GPU plan needs a budget).
EngineDevices dry_run_devices(const ProveOptions& options);

// A real run's plan in its log (a dry run prints it instead).
void log_memory_plan(const RunMemoryPlan& plan);

}  // namespace cuzk::job::detail
