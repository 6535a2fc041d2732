// The main job: C1 files in, verified Filecoin proofs out. For each sector: parse and
// validate the C1 file, synthesize every partition, prove, verify against the verifier-side public
// inputs, write `<sector>.proof` atomically, and report per-phase wall/CPU time and peak memory.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "job/engine.hpp"
#include "job/phase_order.hpp"
#include "job/run_memory.hpp"
#include "job/run_report.hpp"
#include "job/timeline.hpp"
#include "prover/groth16/parameters.hpp"
#include "prover/groth16/proof.hpp"
#include "prover/groth16/prover.hpp"
#include "prover/porep/vanilla_proof.hpp"
#include "prover/timing.hpp"

namespace cuzk::job {

// The job layer's one exception type: a proof that fails its own verification (never written),
// or a job that cannot run as asked.
class JobError : public std::runtime_error {
 public:
  enum class Kind {
    kSelfVerificationFailed,
    kUnsatisfiedCircuit,
    kMissingParameters,
    kOutputExists,
    kNoGpu,
    kInsufficientMemory,  // the run's memory plan does not fit the host or the --gpu-memory budget
    kNoDeviceBudget,      // a GPU dry run with neither a memory limit nor a visible GPU (a usage error)
    kInterrupted,         // ProveOptions::stop_requested was set (SIGINT, SIGTERM): stopped at a safe point
  };
  JobError(Kind kind, const std::string& what) : std::runtime_error(what), kind_(kind) {}
  Kind kind() const { return kind_; }

 private:
  Kind kind_;
};

struct ProveOptions {
  std::string params_dir;         // where the v28-... .params/.vk files are
  std::string output_dir;         // where <sector>.proof files go
  bool verify = true;             // verify every proof before writing it
  bool check_circuit = false;     // run the Checker first (names the first unsatisfied constraint)
  unsigned threads = 0;           // 0: all hardware threads
  std::uint64_t miner_id = 1000;  // used to cross-check replica_id when the sector number is known
  // What names a sector's proof file: the SectorNum of a lotus-bench envelope (else the C1 file's stem), or
  // always the C1 file's stem (`lotus-bench simple commit1` writes SectorNum 1 into every envelope, so a
  // batch of its files would all write 1.proof).
  enum class ProofNaming { kSectorNumber, kFileStem };
  ProofNaming proof_naming = ProofNaming::kSectorNumber;
  // Also write <sector>.inputs.json: the verifier-side public inputs, one array of 0x-hex Fr per
  // partition (what scripts/noble/verify.mjs and other independent verifiers read).
  bool dump_public_inputs = false;
  // Synthesis through the pre-compiled constraint cache (WitnessGen + SpMV), loaded or built
  // once per circuit shape. Off: direct synthesis (ProvingAssignment), kept for checking.
  bool use_pce = true;
  std::string
      pce_cache_dir;  // the flag of pce::cache_dir's rule (empty: CUZK_PCE_CACHE, else <params_dir>/pce)
  bool pce_readonly = false;  // refuse to build or rebuild a cache
  // The engine of the heavy proving steps (job/engine.hpp): the CPU engine by default, the GPU engine with
  // the CLI's --gpu. make_engine makes it once per parameter set, on a thread of its own as soon as the
  // first sector of its size is opened, so that loading the parameters overlaps synthesis; an engine that
  // cannot be made stops the run (with keep_going: fails the sector). A GPU config's devices are looked up
  // before any work: none visible stops the run (JobError kNoGpu), and the first one's free memory or
  // engine.memory_limit, the lower, is the device budget of the memory plan. With engine.constraints on the
  // device, synthesis makes only the witness and the engine evaluates a, b, c (and checks a * b = c)
  // itself when it holds the circuit's constraint matrices (groth16::ProverEngine::hold_constraints); for
  // direct synthesis (use_pce off) this does nothing. An engine that declines gets a, b, c computed on the
  // host by the proving stage. Same proofs either way.
  EngineConfig engine;
  // Tests inject r and s to reproduce proofs; production draws them from a CSPRNG per partition.
  std::optional<std::pair<algebra::Fr, algebra::Fr>> fixed_randomness;
  // Synthesize the next partition (of this sector or the next) on a second thread while one is proven.
  // Worth it when proving does not need the CPU cores (the GPU engine); costs the memory of a second
  // synthesized partition (at 32GiB ~4.3 GB, the witness, with the constraints on the engine; else ~17 GB).
  // Results, order of outputs and errors are the same.
  bool overlap = false;
  // Partitions synthesized at once, each on a task of its own with threads / workers threads (0 threads:
  // the hardware's). 1: one at a time on the producing thread. Each costs the memory of a synthesized
  // partition (see overlap). Results, order of outputs and errors are the same for any count. 0: auto, from
  // the run's host memory plan: as many as fit, up to 2 with the GPU engine, 1 on the CPU. The memory plan
  // (job/run_memory.hpp) is made before the first synthesis, logged and recorded in the report: a run that
  // does not fit is refused then (JobError kInsufficientMemory).
  unsigned synthesis_workers = 0;
  // Host bytes the memory plan may use (`--host-memory`): the smaller of this and MemAvailable; the auto
  // synthesis workers and the pairing of partitions follow from it, and a run that needs more is refused.
  // 0: MemAvailable alone.
  std::size_t host_memory_limit = 0;
  // Progress messages; with `overlap` it is called from two threads (never at the same time by one).
  std::function<void(const std::string&)> progress;
  // Non-zero (a signal's number) when the run is asked to stop: it throws JobError kInterrupted at its next
  // safe point (before each check, parse, synthesis, proof and verification: each step begins there), so
  // that everything is unwound (temporary files removed) and reported. Null: never.
  const std::atomic<int>* stop_requested = nullptr;
  // A sector that fails (bad input, unsatisfied circuit, a proving or verification error) is recorded in
  // RunReport::failures and the run goes on with the next one; off: the first failure ends the run.
  bool keep_going = false;
  // A sector whose proof file is in the output folder already and verifies against its C1 file (the check a
  // new proof passes before it is written) is not proven again: it goes to RunReport::already_proven and to
  // `already_proven` when the up-front checks find it. A proof file that does not verify (cut short, altered,
  // another sector's) is renamed to `<sector>.proof.rejected-<UTC time>` (never overwritten or deleted) with
  // a warning, and the sector is proven again. Needs the .vk even when `verify` is off.
  bool skip_existing = false;
  std::function<void(const AlreadyProven&)> already_proven;
  // Called from the proving stage when a partition is proven (`partitions`: the sector's count), and when
  // a sector's proof is written and its report complete (sectors come in input order).
  std::function<void(const std::string& c1_path, unsigned partition, unsigned partitions)> partition_proven;
  // Called once the up-front checks are done (before any synthesis), with the partition count of every
  // input that passed them: the run's total is known before its first partition is proven.
  std::function<void(const std::map<std::string, unsigned>& partitions_by_c1)> inputs_checked;
  std::function<void(const SectorReport&)> sector_done;
  // Called when a sector fails, with keep_going or not, from the stage that found it (one call at a time),
  // as soon as it is found: possibly before earlier sectors are done. Without keep_going the run then ends
  // with this error or with that of an earlier input (the one with the lowest input_index).
  std::function<void(const SectorFailure&)> sector_failed;
  // The price of the GPU (or of the machine) per hour, USD: the report adds what the run and each proof
  // cost (docs/formats.md, "Run reports": cost).
  std::optional<double> gpu_price_per_hour;
  // The GPUs whose busy share and energy the run report gives (job/gpu_meter.hpp), by PCI bus id. Empty: the
  // GPU engine's devices, and none for the CPU engine (NVML is not loaded). Tests meter a fake NVML's device
  // with the CPU engine through it.
  std::vector<std::string> metered_pci_bus_ids;
  std::chrono::milliseconds gpu_sample_interval = GpuMeter::kDefaultInterval;  // of the GPU's utilization
};

// The parameter files of a run: the header of each size's .params (verifying key and vector lengths: read
// once, no base point decoded) and its .vk, shared by every sector of that size.
class ParameterStore {
 public:
  explicit ParameterStore(std::string params_dir) : dir_(std::move(params_dir)) {}
  // Throws JobError(kMissingParameters) when the file is absent, groth16::Groth16Error (kParameters) for any
  // other fault of it.
  const groth16::ParameterHeader& header_for(const porep::SectorShape& shape);
  const groth16::VerifyingKey& vk_for(const porep::SectorShape& shape);
  std::string params_path(const porep::SectorShape& shape) const;
  std::string vk_path(const porep::SectorShape& shape) const;
  // The update (SnapDeals) circuit's files of a sector size (lotus' names, update/param_names.hpp); the
  // same errors.
  const groth16::ParameterHeader& update_header_for(const porep::SectorShape& shape);
  const groth16::VerifyingKey& update_vk_for(const porep::SectorShape& shape);
  std::string update_params_path(const porep::SectorShape& shape) const;
  std::string update_vk_path(const porep::SectorShape& shape) const;

 private:
  // `what`: "" or "update " (the circuit, for the messages); `setup_flags`: how to make test parameters.
  const groth16::ParameterHeader& header_at(const std::string& path, const porep::SectorShape& shape,
                                            const std::string& what, const std::string& setup_flags);
  const groth16::VerifyingKey& vk_at(const std::string& path, const porep::SectorShape& shape,
                                     const std::string& what);

  std::mutex mutex_;  // the job's two stages share the store
  std::string dir_;
  std::map<std::string, std::unique_ptr<groth16::ParameterHeader>> headers_;  // by path
  std::map<std::string, std::unique_ptr<groth16::VerifyingKey>> vks_;
};

// Before any heavy work, every C1 file is parsed and validated, every output path and the .params and
// .vk of every sector size are checked (the .vk read, its input count compared with the .params'): a bad
// input throws (or, with keep_going, becomes a failure) before the first partition is synthesized.
RunReport prove_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& options);
// The same with the engines made by `make` instead of make_engine (tests: an engine that counts its calls,
// one that holds the constraints on the CPU).
RunReport prove_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& options,
                         const EngineFactory& make);

// What a run would do, from the up-front checks alone (`cuzk prove --dry-run`): every C1 file parsed and
// validated and every output path checked as prove_c1_files checks them (nothing created or written;
// the first bad input throws), the parameter files checked when present (missing ones become notes: the
// plan needs neither them nor a GPU), and the memory plan against the device budget of the GPU config
// (EngineDevices: its memory limit or a visible GPU's free memory; neither: JobError kNoDeviceBudget) and the
// host's available memory. No inputs (an empty shard) is an empty plan.
struct PlannedSector {
  std::string c1_path;
  std::string sector;  // the proof file's stem
  std::string proof_type;
  std::string sector_size;  // "32GiB"
  unsigned partitions = 0;
  std::string proof_path;
};
struct RunPlan {
  std::vector<PlannedSector> sectors;  // to prove
  // With skip_existing: the sectors whose proof file verifies (nothing is renamed in a dry run: one that
  // does not verify is a note and its sector is in `sectors`).
  std::vector<AlreadyProven> already_proven;
  std::vector<std::string> notes;       // missing parameter files, where the circuit figures came from
  std::optional<RunMemoryPlan> memory;  // of the run's circuit that needs the most (none without sectors)
  bool fits() const { return !memory || memory->fits(); }
};
RunPlan plan_c1_files(const std::vector<std::string>& c1_paths, const ProveOptions& options);

// Verifies partition proofs against the verifier-side public inputs of a sector.
bool verify_sector_proofs(const groth16::VerifyingKey& vk, const porep::RegisteredSealProof& proof,
                          const porep::Domain& replica_id, const porep::Domain& comm_d,
                          const porep::Domain& comm_r, const porep::Domain& seed,
                          const std::vector<groth16::Proof>& proofs);
// The same with those inputs already derived (one vector per partition, generate_public_inputs).
bool verify_sector_proofs(const groth16::VerifyingKey& vk, const std::vector<groth16::Proof>& proofs,
                          const std::vector<std::vector<algebra::Fr>>& public_inputs);

}  // namespace cuzk::job
