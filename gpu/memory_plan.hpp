// The GPU prover's memory plan: which base vectors stay on the device and which are streamed, the MSM range
// (and streaming window), whether the constraint matrices and the witness live on the device, and what the
// run needs of host memory. A plain function of sizes (no CUDA, no device): the GPU engine plans by it before
// any allocation, `cuzk prove --dry-run` prints it on machines without a GPU, and CPU tests pin it
// (tests/test_memory_plan.cpp). docs/large-sectors.md explains the tiers.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>

namespace cuzk::gpu {

// The sizes a plan depends on, for one circuit and its parameters.
struct ProverShape {
  std::size_t constraints = 0, inputs = 0, aux = 0;     // per partition; inputs include ONE
  std::size_t h = 0, l = 0, a = 0, b_g1 = 0, b_g2 = 0;  // the .params vector lengths (points)
  std::size_t nnz_a = 0, nnz_b = 0, nnz_c = 0;          // entries of the constraint matrices
  // The Groth16 domain: the next power of two of constraints + inputs (h has domain - 1 points).
  unsigned log_domain() const;
  std::size_t witness_count() const { return inputs + aux; }
};

// The base vectors in the order of the .params file (and of a plan's `vectors`).
enum class BaseVectorId { kH, kL, kA, kBG1, kBG2 };
inline constexpr std::array<BaseVectorId, 5> kBaseVectors = {
    BaseVectorId::kH, BaseVectorId::kL, BaseVectorId::kA, BaseVectorId::kBG1, BaseVectorId::kBG2};
const char* base_vector_name(BaseVectorId id);  // "h", "l", "a", "b_g1", "b_g2"

struct VectorPlan {
  BaseVectorId id;
  std::size_t count = 0;    // points
  std::size_t bytes = 0;    // device layout (G1 96 bytes, G2 192 bytes a point)
  bool resident = true;     // else streamed window by window for every MSM over it
  std::size_t scratch = 0;  // what its resident Msm keeps of its own (the bucket state is shared)
  std::size_t passes = 1;   // sort passes per range (windows in groups when sort_pairs limits them)
};

struct PlanRequest {
  std::size_t budget = 0;  // device bytes the plan must fit in
  // Evaluate a, b, c on the device over the constraint matrices held there, from an upload of the witness
  // (--gpu-constraints auto|device); taken when it fits beside the bases that matter more.
  bool device_constraints = true;
  unsigned partitions_in_flight = 1;  // witnesses on the device at once (one per partition being proven)
  // May the streamed windows live in the H step's buffers (DevicePlan::windows_in_h_step)? Off only to
  // measure against (windows_in_h_step_allowed).
  bool windows_in_h_step = true;
  // May the H step run in two buffers (DevicePlan::h_step_buffers)? Off only to measure against
  // (two_buffer_h_step_allowed).
  bool two_buffer_h_step = true;
  // The most partitions whose witness MSMs may share one pass over the streamed windows
  // (DevicePlan::witness_batch); 1 only to measure against (max_witness_batch_allowed).
  unsigned max_witness_batch = 2;
};

// CUZK_GPU_WINDOWS=own keeps the streamed windows in buffers of their own (for A/B measurements); unset or
// `h-step`, they may live in the H step's buffers (anything else is warned about and ignored).
bool windows_in_h_step_allowed();
// CUZK_GPU_H_STEP_BUFFERS=3 keeps the H step in three buffers (for A/B measurements); unset or 2, the plan
// may choose two (anything else is warned about and ignored).
bool two_buffer_h_step_allowed();
// CUZK_GPU_WITNESS_BATCH=1 proves every partition's witness MSMs on their own (for A/B measurements); unset
// or 2, the plan may batch two (anything else is warned about and ignored).
unsigned max_witness_batch_allowed();

// Where everything goes on the device, and what it costs.
struct DevicePlan {
  std::size_t budget = 0;
  std::array<VectorPlan, 5> vectors{};  // h, l, a, b_g1, b_g2
  bool h_endomorphism = false;          // the h MSM with its endomorphism table (a second copy of h's bases)
  // Scalars per MSM range: the sort scratch is that of a range, and bucket sums carry over from range to
  // range (one bucket reduction per MSM). Streamed vectors are sent a range at a time (the window), double
  // buffered behind the arithmetic.
  std::size_t range = 0;
  // Sorted pairs per pass of an MSM (0: no limit): a range whose windows need more sort scratch goes through
  // its windows in groups (gpu/msm.hpp MsmOptions::max_sort_pairs), at the price of its digits per group.
  std::size_t sort_pairs = 0;
  bool constraints_on_device = false;  // and the witness with them
  // The streamed windows live in the H step's second and third buffers, free while the MSMs run (the H
  // step leaves h in its first): window_bytes is then 0.
  bool windows_in_h_step = false;
  // The H step's buffers of the domain's size: 3 (a, b, c), or 2 where memory is short (c goes up after the
  // product of a and b, into b's buffer: its upload no longer overlaps the transforms, and the windows get
  // the halves of the second buffer). Only with the constraints on the host (their evaluation on the device
  // fills a, b and c at once).
  unsigned h_step_buffers = 3;
  // Partitions whose witness MSMs (l, a, b_g1, b_g2) run together, in one pass over each streamed window
  // (gpu/msm.hpp Msm::run_streamed_batch): 2 when one of those vectors is streamed and the constraints are on
  // the host (their scalars come from host memory, so a partition leaves nothing on the device for the
  // next), which halves what those vectors send per partition, for a second set of bucket sums on the device
  // and a second partition held in host memory until its partner is proven. Else 1.
  unsigned witness_batch = 1;
  // Device bytes by part.
  std::size_t bases_bytes = 0, h_step_bytes = 0, msm_scratch_bytes = 0, window_bytes = 0,
              constraints_bytes = 0, witness_bytes = 0;
  // The part of msm_scratch_bytes that holds streamed witness MSMs' host scalars, a range of each vector
  // uploaded beside the range's bases (MsmBytes::prefetch_scalars); 0 with the constraints on the device.
  std::size_t scalar_prefetch_bytes = 0;
  std::size_t need = 0;  // their sum: the plan's device memory at most
  // Bytes sent to the device per partition: streamed bases (those of the witness MSMs over witness_batch),
  // plus the witness (constraints on the device) or a, b, c and the dense scalars (not).
  std::size_t upload_bytes_per_partition = 0;
  // What the planner minimizes: the bytes sent per partition (h's at half weight) plus each MSM range's fixed
  // cost as the bytes PCIe moves in that time. A larger budget never gives a larger cost.
  double cost = 0;
  bool fits = false;  // need <= budget; when false, the other fields describe the smallest plan tried

  bool streamed() const;  // some vector is streamed
  const VectorPlan& vector(BaseVectorId id) const { return vectors[static_cast<std::size_t>(id)]; }
  std::string describe() const;  // one line for the log
};

// The plan that moves the fewest bytes per partition over PCIe within request.budget: every subset of the
// base vectors resident (h, whose MSM is compute-bound and hides its transfer, counts half), with or without
// the constraint matrices, every range from 2^27 down to 2^16 points, every sort pass from 2^33 pairs (no
// limit at these sizes) down to 2^20; ties go to the larger range, then the endomorphism table. When nothing
// fits, `fits` is false and the plan is the smallest one (every vector streamed, the smallest range, the
// constraints on the host).
DevicePlan plan_device_memory(const ProverShape& shape, const PlanRequest& request);

// Host memory of a run (anonymous plus pinned; the page cache of the parameter file not counted).
struct HostPlanRequest {
  bool gpu = true;
  bool constraints_on_device = true;   // DevicePlan::constraints_on_device (gpu)
  std::size_t pinned_bases_bytes = 0;  // streamed base vectors kept in pinned host memory (gpu)
  unsigned synthesis_workers = 0;      // 0: as many as fit, up to max_auto_workers
  unsigned max_auto_workers = 2;
  std::size_t available = 0;            // MemAvailable (0: unknown, no check)
  std::size_t cpu_parameter_bytes = 0;  // the CPU engine's decoded parameters (not gpu)
  // Engines proving at once (--devices, --cpu-engines): each holds a partition being proven, its scratch,
  // staging and pinned bases, or its decoded parameters; auto sizes up to max_auto_workers per engine.
  unsigned engines = 1;
  // Partitions each engine holds at once (DevicePlan::witness_batch).
  unsigned witness_batch = 1;
};
struct HostPlan {
  unsigned synthesis_workers = 0;
  std::size_t partitions_alive = 0;      // workers + one made and waiting + one being proven per engine
  std::size_t per_partition_bytes = 0;   // witness, and a, b, c when they are evaluated on the host
  std::size_t prover_scratch_bytes = 0;  // the proving stage's dense-scalar buffers (host gather)
  std::size_t constraint_bytes = 0;      // the constraint matrices in host memory (the PCE)
  std::size_t pinned_bytes = 0;          // pinned: streamed bases and the staging buffers
  std::size_t parameter_bytes = 0;       // the CPU engine's decoded parameters
  std::size_t base_bytes = 0;            // the process besides (code, parser, small tables)
  std::size_t total = 0;
  std::size_t available = 0;
  bool fits = true;               // total <= available (or available unknown)
  unsigned workers_that_fit = 0;  // the most workers that fit (0: not even one)
  std::string describe() const;
};
HostPlan plan_host_memory(const ProverShape& shape, const HostPlanRequest& request);

// Bytes as GiB with one decimal, for the plan's log lines and the engine's messages.
std::string format_gib(std::size_t bytes);

// Device bytes of the parts, as the GPU code allocates them (the GPU engine checks its real allocations
// against these in tests/gpu).
std::size_t h_step_device_bytes(unsigned log_domain, unsigned buffers = 3);
// Bytes of each of the two parts of the H step's buffers that the MSMs may use between two H steps (its
// second and third buffers, or the halves of its second: gpu/h_step.hpp HStep::lendable).
std::size_t h_step_lendable_bytes(unsigned log_domain, unsigned buffers = 3);
// Points decoded at a time when the parameters' streamed vectors are first read and checked (a device
// scratch of this many G2 points, freed before the H step's buffers are made).
inline constexpr std::size_t kDecodeWindowPoints = std::size_t{1} << 22;
std::size_t constraint_matrix_device_bytes(const ProverShape& shape);
std::size_t witness_device_bytes(const ProverShape& shape);  // z and the dense gather's tables

// The window bits cap of the MSMs over the mostly-0/1 vectors (l, a, b_g1, b_g2): their tail of full-width
// scalars is a small share, so narrower windows cost little there and keep their bucket scratch small.
inline constexpr unsigned kZeroOneMsmMaxWindowBits = 20;

}  // namespace cuzk::gpu
