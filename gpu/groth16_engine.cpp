#include "gpu/groth16_engine.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <atomic>
#include <cstdlib>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/dense_gather.hpp"
#include "gpu/device_info.hpp"
#include "gpu/h_step.hpp"
#include "gpu/memory_plan.hpp"
#include "gpu/msm.hpp"
#include "gpu/parameter_upload.hpp"
#include "gpu/spmv.hpp"
#include "io/host_memory.hpp"
#include "prover/algebra/bits.hpp"
#include "prover/groth16/dense_gather.hpp"
#include "prover/groth16/errors.hpp"

namespace cuzk::gpu {
namespace {

using algebra::Fr;

// CUZK_GPU_MEMORY_TRACE=1 logs the device memory in use (cudaMemGetInfo, CUDA's context included) after
// each stage of the engine's first proofs, beside the plan's need: how the plan's parts compare with the
// real allocations (bench/RESULTS.md, the device undercount).
class MemoryTrace {
 public:
  MemoryTrace() {
    const char* value = std::getenv("CUZK_GPU_MEMORY_TRACE");
    enabled_ = value && std::string_view(value) == "1";
  }
  void detail(const MsmWorkspace& ws) {
    if (enabled_ && logged_ < kMaxLines)
      spdlog::info("GPU memory trace: workspace {}", describe_workspace(ws));
  }
  void note(const char* where, std::size_t planned) {
    if (!enabled_ || logged_ >= kMaxLines) return;
    CUDA_OK(cudaDeviceSynchronize());
    const std::size_t in_use = device_memory_in_use();
    std::size_t stack = 0;
    cudaDeviceGetLimit(&stack, cudaLimitStackSize);
    ++logged_;
    const DeviceBufferBytes& buffers = device_buffer_bytes();
    constexpr double kGiB = double(1ull << 30);
    spdlog::info(
        "GPU memory trace: {:.3f} GiB in use after {} ({:+.3f} since the last; buffers {:.3f} GiB, "
        "at most {:.3f}; plan {:.3f} GiB; stack limit {} B per thread)",
        double(in_use) / kGiB, where, (double(in_use) - double(last_)) / kGiB,
        double(buffers.live.load()) / kGiB, double(buffers.peak.load()) / kGiB, double(planned) / kGiB,
        stack);
    last_ = in_use;
  }

 private:
  static constexpr int kMaxLines = 120;  // the first few proofs' stages
  bool enabled_ = false;
  int logged_ = 0;
  std::size_t last_ = 0;
};

// The MSMs over one base vector: resident (an Msm over device bases), streamed (bases in pinned host
// memory, sent a window at a time through a window Msm that the streamed vectors of a group share, double
// buffered behind the arithmetic), or nothing for an empty vector (the sum over no bases is the identity).
// Either way the MSM runs in ranges whose bucket sums carry over (MsmOptions::max_range), so the result is
// the same point.
template <class Cfg>
class BaseVector {
 public:
  using DeviceAffine = typename Msm<Cfg>::DeviceAffine;
  using Point = algebra::Jacobian<Cfg>;

  BaseVector() = default;
  // Host bases, uploaded now (the engine made from decoded Parameters, for tests).
  BaseVector(const std::vector<algebra::Affine<Cfg>>& bases, std::shared_ptr<MsmWorkspace> workspace,
             MsmTables tables, const MsmOptions& options)
      : count_(bases.size()), options_(options) {
    if (!bases.empty())
      msm_.emplace(std::span<const algebra::Affine<Cfg>>(bases), std::move(workspace), tables);
  }
  // Decoded from the file (upload_parameter_bases): resident when on the device, else streamed through
  // `window` (which must then exist) from the file or from pinned host memory.
  BaseVector(BaseVectorId id, LoadedVector<DeviceAffine>&& loaded, std::shared_ptr<MsmWorkspace> workspace,
             Msm<Cfg>* window, MsmTables tables, const MsmOptions& options)
      : name_(base_vector_name(id)), count_(loaded.count), options_(options) {
    if (count_ == 0) return;
    if (loaded.device.size() > 0) {
      msm_.emplace(loaded.device.release(), count_, std::move(workspace), tables);
      return;
    }
    if (!window) throw GpuError("GPU prover: a streamed base vector without a window");
    host_ = std::move(loaded.host);
    file_ = std::move(loaded.file);
    window_ = window;
    make_loader();
  }
  BaseVector(BaseVector&&) = delete;  // loader_ captures `this`
  BaseVector& operator=(BaseVector&& other) {
    name_ = other.name_;
    count_ = other.count_;
    options_ = other.options_;
    msm_ = std::move(other.msm_);
    host_ = std::move(other.host_);
    file_ = std::move(other.file_);
    window_ = other.window_;
    if (window_) make_loader();
    return *this;
  }

  bool streamed() const { return window_ != nullptr; }

  Point run(std::span<const Fr> scalars) {
    check(scalars.size());
    if (scalars.empty()) return Point::identity();
    if (msm_) return logged(*msm_, msm_->run(scalars, options_));
    const Point sum = logged(*window_, window_->run_streamed(scalars, loader_, options_));
    if (file_) file_->check();
    return sum;
  }
  // Scalars already on the device (complete: the caller synchronised their producer).
  Point run_device(const Fr* d_scalars, std::size_t count) {
    check(count);
    if (count == 0) return Point::identity();
    if (msm_) return logged(*msm_, msm_->run_device(d_scalars, count, options_));
    const Point sum = logged(*window_, window_->run_streamed_device(d_scalars, count, loader_, options_));
    if (file_) file_->check();
    return sum;
  }

  // The MSMs of several scalar vectors: streamed, in one pass over the windows for all of them
  // (Msm::run_streamed_batch); resident, one after another.
  std::vector<Point> run_batch(std::span<const std::span<const Fr>> vectors) {
    for (std::span<const Fr> v : vectors) check(v.size());
    std::vector<Point> out;
    if (!window_) {
      for (std::span<const Fr> v : vectors) out.push_back(run(v));
      return out;
    }
    out = window_->run_streamed_batch(vectors, loader_, options_);
    if (!out.empty()) logged(*window_, out.front(), vectors.size());
    if (file_) file_->check();
    return out;
  }

 private:
  // A run in several ranges, at debug level: where its time went beyond the arithmetic.
  const Point& logged(const Msm<Cfg>& msm, const Point& sum, std::size_t partitions = 1) const {
    const MsmRangeTotals& t = msm.last_timings().ranges;
    if (t.ranges > 1 && spdlog::should_log(spdlog::level::debug)) {
      const double gb = double(t.copied_bases) * sizeof(DeviceAffine) / 1e9;
      spdlog::debug(
          "msm {}: {} ranges{}, {:.1f} ms: stalled {:.1f}, classify {:.1f}, host turns {:.1f}, ones {:.1f}, "
          "pippenger {:.1f}; copies {:.1f} ms for {:.2f} GB ({:.1f} GB/s)",
          name_, t.ranges, partitions > 1 ? fmt::format(" for {} partitions", partitions) : "", t.wall_ms,
          t.stall_ms, t.classify_ms, t.host_gap_ms, t.ones_ms, t.pippenger_ms, t.copy_ms, gb,
          t.copy_ms > 0 ? gb / (t.copy_ms / 1e3) : 0.0);
    }
    return sum;
  }

  void check(std::size_t count) const {
    if (count > count_)
      throw GpuError("GPU prover: " + std::to_string(count) + " scalars for " + std::to_string(count_) +
                     " bases");
  }

  // A range of the bases into a window buffer, on the window's copy stream: read from the file (the page
  // cache) and decoded on the device, or copied from pinned host memory.
  void make_loader() {
    loader_ = [this](std::size_t first, std::size_t n, DeviceAffine* dst, cudaStream_t stream) {
      if (file_) return file_->load(first, n, dst, stream);
      CUDA_OK(cudaMemcpyAsync(dst, host_.data() + first, n * sizeof(DeviceAffine), cudaMemcpyHostToDevice,
                              stream));
    };
  }

  const char* name_ = "";
  std::size_t count_ = 0;
  MsmOptions options_;
  std::optional<Msm<Cfg>> msm_;
  PinnedBuffer<DeviceAffine> host_;
  std::unique_ptr<FileVectorSource> file_;
  Msm<Cfg>* window_ = nullptr;
  typename Msm<Cfg>::BaseLoader loader_;
};

// The device plan (gpu/memory_plan.hpp) and what the engine adds to it.
struct MemoryPlan {
  DevicePlan device;
  // The dense scalars gathered on the device from the witness (GpuEngineOptions::device_gather, or the
  // constraints on the device): asked for, and the witness fits.
  bool device_gather = false;
  std::size_t need = 0;           // device bytes the plan is expected to use at most
  std::size_t budget = 0;         // what it had to fit in
  std::size_t witness_bytes = 0;  // the witness, the gather's tables and the dense scalars on the device
  bool stream_from_file = true;   // GpuEngineOptions::stream_from_file
  // The constraints were asked for, but the plan could not count them (no circuit sizes given): they are
  // taken at the offer (hold_constraints) when they fit.
  bool constraints_unplanned = false;
  bool streamed() const { return device.streamed(); }
  MsmTables h_tables() const { return device.h_endomorphism ? MsmTables::kEndomorphism : MsmTables::kBases; }
  BasePlacement placement() const {
    BasePlacement placement;
    placement.h = device.vector(BaseVectorId::kH).resident;
    placement.l = device.vector(BaseVectorId::kL).resident;
    placement.a = device.vector(BaseVectorId::kA).resident;
    placement.b_g1 = device.vector(BaseVectorId::kBG1).resident;
    placement.b_g2 = device.vector(BaseVectorId::kBG2).resident;
    placement.decode_window = std::min(std::max<std::size_t>(device.range, 1), kDecodeWindowPoints);
    placement.stream_from_file = stream_from_file;
    return placement;
  }
  // The MSM options of a vector: its ranges (none when one range holds it all), sort passes and window-bits
  // cap.
  MsmOptions msm_options(BaseVectorId id) const {
    MsmOptions options;
    const std::size_t count = device.vector(id).count;
    options.max_range = device.range >= count ? 0 : device.range;
    options.max_sort_pairs = device.sort_pairs;
    options.max_window_bits = id == BaseVectorId::kH ? 22 : kZeroOneMsmMaxWindowBits;
    return options;
  }
  std::string describe() const {
    return device.describe() +
           (device_gather && !device.constraints_on_device ? ", dense scalars gathered on the device" : "");
  }
};

// The circuit's sizes: the job's (from the constraint cache) when given, else the parameters' alone (no
// constraint matrices known: they stay on the host).
ProverShape shape_of(const groth16::ParameterHeader& p, const GpuEngineOptions& options) {
  const bool known = options.shape && options.shape->constraints > 0;
  ProverShape shape = known ? *options.shape : ProverShape{};
  shape.h = p.h;
  shape.l = p.l;
  shape.a = p.a;
  shape.b_g1 = p.b_g1;
  shape.b_g2 = p.b_g2;
  if (!known) {
    shape.inputs = p.vk.ic.size();
    shape.aux = p.l;
    shape.constraints = p.h + 1 - shape.inputs;  // a bound: the domain is all the plan needs from it
  }
  return shape;
}

// Plans the device memory for parameters of these lengths within `budget` bytes (gpu/memory_plan.hpp).
// Throws GpuError with the figures when no plan fits.
MemoryPlan plan_memory(const groth16::ParameterHeader& p, std::size_t budget,
                       const GpuEngineOptions& options) {
  const ProverShape shape = shape_of(p, options);
  PlanRequest request;
  request.budget = budget;
  request.device_constraints = options.device_constraints && options.shape && options.shape->constraints > 0;
  request.windows_in_h_step = windows_in_h_step_allowed();
  request.two_buffer_h_step = two_buffer_h_step_allowed();
  request.max_witness_batch = std::min(max_witness_batch_allowed(), std::max(1u, options.max_witness_batch));
  MemoryPlan plan;
  plan.device = plan_device_memory(shape, request);
  plan.budget = budget;
  plan.stream_from_file = options.stream_from_file;
  plan.constraints_unplanned = options.device_constraints && !request.device_constraints;
  if (!plan.device.fits)
    throw GpuError(
        fmt::format("the GPU prover needs more device memory than {} GiB for these parameters even with "
                    "every base vector "
                    "streamed from host memory (the smallest plan: {})",
                    format_gib(budget), plan.device.describe()));
  plan.need = plan.device.need;
  // The witness and the dense scalars when they are on the device: counted by the plan with the
  // constraints; else added for the device gather when they fit.
  plan.witness_bytes = witness_device_bytes(shape) + std::max(shape.a, shape.b_g1) * sizeof(algebra::Fr);
  if (plan.device.constraints_on_device) {
    plan.device_gather = true;
  } else if (options.device_gather && plan.need + plan.witness_bytes <= budget) {
    plan.device_gather = true;
    plan.need += plan.witness_bytes;
  }
  return plan;
}

// Warns once when a kernel made CUDA grow the stacks beyond kKernelStackBytes, which the plan's budget
// counted: the difference, times the device's resident threads, was not planned for.
void warn_if_stacks_grew() {
  static std::atomic<bool> warned{false};
  std::size_t stack = 0;
  if (warned.load() || cudaDeviceGetLimit(&stack, cudaLimitStackSize) != cudaSuccess) return;
  if (stack > kKernelStackBytes && !warned.exchange(true))
    spdlog::warn(
        "GPU: the kernels' stacks grew to {} bytes a thread, beyond the {} that the memory plan "
        "counts (gpu/device_info.hpp kKernelStackBytes): a tight --gpu-memory may be exceeded",
        stack, kKernelStackBytes);
}

// The budget: the device's free memory once the kernels' stacks are reserved, or the limit when it is lower
// (the job's limit has CUDA's own memory taken off already: job/engine.cpp find_devices).
std::size_t memory_budget(std::size_t limit) {
  std::string why;
  if (list_devices(&why).empty())
    throw GpuError("the GPU prover was asked for, but no GPU is visible: " + why);
  reserve_kernel_stacks();
  std::size_t free_bytes = 0, total_bytes = 0;
  CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
  return limit > 0 ? std::min(limit, free_bytes) : free_bytes;
}

class GpuEngine final : public groth16::ProverEngine {
 public:
  // The five MSMs run one after another: one scratch workspace for all of them. Host bases, all resident.
  GpuEngine(const groth16::Parameters& p, const GpuEngineOptions& options)
      : plan_(resident_plan(groth16::header_of(p), options)),
        workspace_(std::make_shared<MsmWorkspace>()),
        h_(p.h, workspace_, plan_.h_tables(), plan_.msm_options(BaseVectorId::kH)),
        l_(p.l, workspace_, MsmTables::kBases, plan_.msm_options(BaseVectorId::kL)),
        a_(p.a, workspace_, MsmTables::kBases, plan_.msm_options(BaseVectorId::kA)),
        b_g1_(p.b_g1, workspace_, MsmTables::kBases, plan_.msm_options(BaseVectorId::kBG1)),
        b_g2_(p.b_g2, workspace_, MsmTables::kBases, plan_.msm_options(BaseVectorId::kBG2)) {}

  // The bases read from the file (no host copy of the resident ones), placed as `plan` says.
  GpuEngine(const MemoryPlan& plan, const groth16::ParameterHeader& header, DeviceParameterBases&& bases,
            const ParameterUploadStats& load)
      : plan_(plan), workspace_(std::make_shared<MsmWorkspace>()) {
    if (plan_.streamed()) {
      // The window MSMs have two windows of device bases each, refilled by every run: their own, or the H
      // step's second and third buffers, which the MSMs may use between two H steps (the plan's
      // windows_in_h_step; the G1 and G2 windows never run at once).
      const std::size_t window = plan_.device.range;
      const bool g2_streamed = header.b_g2 > 0 && !plan_.device.vector(BaseVectorId::kBG2).resident;
      if (plan_.device.windows_in_h_step) {
        h_step_.emplace(algebra::log2_ceil(header.h + 1), plan_.device.h_step_buffers);
        g1_window_ = lent_window<algebra::G1Config>(window, *h_step_, workspace_);
        if (g2_streamed)
          g2_window_ = lent_window<algebra::G2Config>(std::min(window, header.b_g2), *h_step_, workspace_);
      } else {
        g1_window_ = make_window<algebra::G1Config>(window, workspace_);
        if (g2_streamed)
          g2_window_ = make_window<algebra::G2Config>(std::min(window, header.b_g2), workspace_);
      }
    }
    G1Msm* g1w = g1_window_ ? &*g1_window_ : nullptr;
    G2Msm* g2w = g2_window_ ? &*g2_window_ : nullptr;
    h_ = BaseVector<algebra::G1Config>(BaseVectorId::kH, std::move(bases.h), workspace_, g1w,
                                       plan_.h_tables(), plan_.msm_options(BaseVectorId::kH));
    l_ = BaseVector<algebra::G1Config>(BaseVectorId::kL, std::move(bases.l), workspace_, g1w,
                                       MsmTables::kBases, plan_.msm_options(BaseVectorId::kL));
    a_ = BaseVector<algebra::G1Config>(BaseVectorId::kA, std::move(bases.a), workspace_, g1w,
                                       MsmTables::kBases, plan_.msm_options(BaseVectorId::kA));
    b_g1_ = BaseVector<algebra::G1Config>(BaseVectorId::kBG1, std::move(bases.b_g1), workspace_, g1w,
                                          MsmTables::kBases, plan_.msm_options(BaseVectorId::kBG1));
    b_g2_ = BaseVector<algebra::G2Config>(BaseVectorId::kBG2, std::move(bases.b_g2), workspace_, g2w,
                                          MsmTables::kBases, plan_.msm_options(BaseVectorId::kBG2));
    const bool warm = load.page_cache_fraction >= 0.9;
    setup_phases_.emplace_back(warm ? "params.load.warm" : "params.load.cold", load.read_seconds);
    setup_phases_.emplace_back("params.decode", load.decode_seconds);
    spdlog::info(
        "parameters on the GPU: {:.2f} GB read in {:.2f} s ({:.2f} GB/s, {} threads, {:.0f}% in the "
        "page cache before), decoded and checked in {:.2f} s",
        double(load.bytes) / 1e9, load.read_seconds,
        double(load.bytes) / 1e9 / std::max(load.read_seconds, 1e-9), load.reader_threads,
        100.0 * load.page_cache_fraction, load.decode_seconds);
    trace_.note("engine setup", plan_.need);
    (void)header;
  }

  std::vector<std::pair<std::string, double>> setup_phases() const override { return setup_phases_; }

  std::size_t compute_h(std::vector<Fr>& a, std::vector<Fr>& b, std::vector<Fr>& c) override {
    witness_of_ = nullptr;
    // The domain is the parameters' (h has 2^lg - 1 points): its tables and buffers are made once.
    if (!h_step_) h_step_.emplace(algebra::log2_ceil(a.size()), plan_.device.h_step_buffers);
    const std::size_t h_count = h_step_->run_on_device(a, b, c);  // h stays on the device for msm_h
    trace_.note("H step", plan_.need);
    return h_count;
  }
  algebra::G1 msm_h() override {
    if (!h_step_) throw GpuError("GPU prover: msm_h before compute_h");
    const algebra::G1 sum = h_.run_device(h_step_->device_h(), h_step_->h_count());
    trace_.note("h MSM", plan_.need);
    return sum;
  }
  algebra::G1 msm_g1(G1Bases which, std::span<const Fr> scalars) override {
    switch (which) {
      case G1Bases::kL:
        return traced(l_.run(scalars), "l MSM");
      case G1Bases::kA:
        return traced(a_.run(scalars), "a MSM");
      case G1Bases::kBG1:
        return traced(b_g1_.run(scalars), "b_g1 MSM");
    }
    throw GpuError("GPU prover: unknown base vector");
  }
  algebra::G2 msm_b_g2(std::span<const Fr> scalars) override {
    const algebra::G2 sum = traced(b_g2_.run(scalars), "b_g2 MSM");
    warn_if_stacks_grew();
    return sum;
  }

  bool hold_constraints(const r1cs::CompactR1csView& circuit) override {
    if (constraints_) return constraints_->num_constraints() == circuit.num_constraints();
    const std::size_t bound = DeviceR1cs::device_bytes_bound(circuit);
    if (plan_.constraints_unplanned) {
      // The plan was made without the circuit's sizes (an engine made from Parameters, or no constraint
      // cache header): the matrices and the witness are taken when they fit beside what is planned.
      const std::size_t extra = bound + (plan_.device_gather ? 0 : plan_.witness_bytes);
      // (A plan with the H step in two buffers has no room for the evaluation's c.)
      if (plan_.need + extra > plan_.budget || plan_.device.h_step_buffers != 3) {
        spdlog::warn(
            "the constraint matrices do not fit on the GPU beside the bases (about {} GiB more, {} GiB "
            "of {} GiB planned): a, b and c are computed on the host",
            format_gib(extra), format_gib(plan_.need), format_gib(plan_.budget));
        return false;
      }
      constraints_.emplace(circuit);
      plan_.need += extra;
      plan_.device_gather = true;
      spdlog::info("GPU memory plan: constraints evaluated on the device");
      return true;
    }
    if (!plan_.device.constraints_on_device) {
      spdlog::info(
          "GPU memory plan: the constraint matrices stay on the host (a, b and c are computed there)");
      return false;
    }
    // The plan counted the matrices from the constraint cache's header; these are the real ones.
    if (plan_.need - plan_.device.constraints_bytes + bound > plan_.budget) {
      spdlog::warn(
          "the constraint matrices take {} GiB on the GPU, more than the {} GiB planned for them within {} "
          "GiB: "
          "a, b and c are computed on the host",
          format_gib(bound), format_gib(plan_.device.constraints_bytes), format_gib(plan_.budget));
      return false;
    }
    constraints_.emplace(circuit);
    plan_.device_gather = true;  // the witness is on the device anyway
    spdlog::info("GPU memory plan: constraints evaluated on the device");
    return true;
  }
  std::size_t held_constraints() const override { return constraints_ ? constraints_->num_constraints() : 0; }

  // z = (inputs, aux) goes up once; a, b and c are evaluated from it into the H step's buffers (with the
  // input rows a = input_i, b = c = 0 of groth16::prove_with), checked, and transformed. z stays for
  // msm_witness.
  std::size_t compute_h_from_witness(const groth16::ProverInput& in) override {
    if (!constraints_) throw GpuError("GPU prover: a witness without a, b, c, and no constraints held");
    witness_of_ = nullptr;
    const std::size_t rows = constraints_->num_constraints(), inputs = in.inputs.size();
    if (!h_step_) h_step_.emplace(algebra::log2_ceil(rows + inputs));
    upload_witness(in);
    cudaStream_t stream = gather_stream_.get();
    Fr* a = h_step_->input_a();
    Fr* b = h_step_->input_b();
    Fr* c = h_step_->input_c();
    constraints_->evaluate(witness_.data(), a, b, c, stream);
    if (auto row = first_unsatisfied(a, b, c, rows, stream))
      throw groth16::Groth16Error(*row, "the witness does not satisfy constraint " + std::to_string(*row) +
                                            " (a * b != c, evaluated on the GPU)");
    // The input rows: a = the inputs (z's first values), b = c = 0.
    CUDA_OK(
        cudaMemcpyAsync(a + rows, witness_.data(), inputs * sizeof(Fr), cudaMemcpyDeviceToDevice, stream));
    CUDA_OK(cudaMemsetAsync(b + rows, 0, inputs * sizeof(Fr), stream));
    CUDA_OK(cudaMemsetAsync(c + rows, 0, inputs * sizeof(Fr), stream));
    const std::size_t h_count = h_step_->run_filled(rows + inputs, stream);
    witness_of_ = &in;
    return h_count;
  }

  // Partitions whose witness MSMs share each streamed window (the plan's witness_batch): their scalars come
  // from host memory, so a partition leaves nothing on the device that the next would overwrite.
  unsigned witness_batch() const override { return plan_.device_gather ? 1 : plan_.device.witness_batch; }

  std::vector<WitnessMsms> msm_witness_batch(std::span<const groth16::ProverInput* const> inputs,
                                             std::span<std::vector<Fr>* const> a_scratch,
                                             std::span<std::vector<Fr>* const> b_scratch) override {
    const std::size_t k = inputs.size();
    if (k <= 1 || plan_.device_gather) return ProverEngine::msm_witness_batch(inputs, a_scratch, b_scratch);
    std::vector<std::span<const Fr>> aux(k), a(k), b(k);
    for (std::size_t i = 0; i < k; ++i) {
      aux[i] = inputs[i]->aux;
      a[i] = *a_scratch[i];
      b[i] = *b_scratch[i];
    }
    const std::vector<algebra::G1> l_sums = l_.run_batch(aux);
    trace_.note("l MSM (batch)", plan_.need);
    const std::vector<algebra::G1> a_sums = a_.run_batch(a);
    trace_.note("a MSM (batch)", plan_.need);
    const std::vector<algebra::G1> b_g1_sums = b_g1_.run_batch(b);
    trace_.note("b_g1 MSM (batch)", plan_.need);
    PhaseTimer g2_timer;
    const std::vector<algebra::G2> b_g2_sums = b_g2_.run_batch(b);
    const PhaseTime g2 = g2_timer.elapsed();
    warn_if_stacks_grew();
    trace_.note("b_g2 MSM (batch)", plan_.need);
    trace_.detail(*workspace_);
    std::vector<WitnessMsms> out(k);
    for (std::size_t i = 0; i < k; ++i)
      out[i] = {l_sums.at(i), a_sums.at(i), b_g1_sums.at(i), b_g2_sums.at(i),
                PhaseTime{g2.wall_s / double(k), g2.cpu_s / double(k)}};
    return out;
  }

  // The host gather runs beside msm_h, which leaves the host's cores to it.
  DenseGather dense_gather() const override {
    return plan_.device_gather ? DenseGather::kEngine : DenseGather::kHostBesideMsmH;
  }

  // With the device gather: z = (inputs, aux) goes up once (or is still there from compute_h_from_witness);
  // the l MSM runs over its aux part, and the A and B scalars are gathered from it into the MSM workspace's
  // scalar buffer, which is where Msm::run would have uploaded them. Else the MSMs over the scalars that
  // prove_with gathered.
  WitnessMsms msm_witness(const groth16::ProverInput& in, std::vector<Fr>& a_scratch,
                          std::vector<Fr>& b_scratch) override {
    if (!plan_.device_gather) return ProverEngine::msm_witness(in, a_scratch, b_scratch);
    const std::size_t inputs = in.inputs.size(), aux = in.aux.size(), count = inputs + aux;
    if (witness_of_ != &in) upload_witness(in);
    witness_of_ = nullptr;         // one proof's: the next input may live at the same address
    gather_stream_.synchronize();  // run_device wants its scalars complete
    WitnessMsms out;
    out.l = l_.run_device(witness_.data() + inputs, aux);
    // The MSMs only read their scalars (Msm::run_device), so the B scalars serve both b_g1 and b_g2.
    DeviceBuffer<Fr>& dense = workspace_->scalars;
    auto gather = [&](const r1cs::DensityBits& density) {
      dense.ensure(std::max<std::size_t>(count, 1));
      const std::size_t gathered =
          gather_.gather(witness_.data(), count, density, dense.data(), gather_stream_);
      gather_stream_.synchronize();
      return gathered;
    };
    const r1cs::DensityBits a_density = groth16::concat_density(nullptr, inputs, in.densities.a_aux, aux);
    const r1cs::DensityBits b_density =
        groth16::concat_density(&in.densities.b_input, inputs, in.densities.b_aux, aux);
    const std::size_t a_count = gather(a_density);
    out.a = a_.run_device(dense.data(), a_count);
    const std::size_t b_count = gather(b_density);
    out.b_g1 = b_g1_.run_device(dense.data(), b_count);
    PhaseTimer g2_timer;
    out.b_g2 = b_g2_.run_device(dense.data(), b_count);
    out.g2 = g2_timer.elapsed();
    return out;
  }

 private:
  // Host parameters (tests): all resident, checked against the free memory before any upload.
  static MemoryPlan resident_plan(const groth16::ParameterHeader& header, const GpuEngineOptions& options) {
    MemoryPlan plan = plan_memory(header, memory_budget(options.memory_limit), options);
    if (plan.streamed())
      throw GpuError("the GPU prover needs about " + format_gib(plan.need) +
                     " GiB with every base resident; use the engine made from the parameter file to stream");
    return plan;
  }

  template <class Cfg>
  static std::optional<Msm<Cfg>> make_window(std::size_t window, std::shared_ptr<MsmWorkspace> workspace) {
    typename Msm<Cfg>::DeviceAffine* bases = nullptr;
    CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&bases), window * sizeof(typename Msm<Cfg>::DeviceAffine)));
    std::optional<Msm<Cfg>> msm;
    try {
      msm.emplace(bases, window, std::move(workspace));
    } catch (...) {
      cudaFree(bases);
      throw;
    }
    return msm;
  }

  // A window over the H step's idle buffers (DevicePlan::windows_in_h_step, HStep::lendable).
  template <class Cfg>
  static std::optional<Msm<Cfg>> lent_window(std::size_t window, HStep& h_step,
                                             std::shared_ptr<MsmWorkspace> workspace) {
    using DeviceAffine = typename Msm<Cfg>::DeviceAffine;
    const HStep::Lendable lendable = h_step.lendable();
    if (window * sizeof(DeviceAffine) > lendable.bytes)
      throw GpuError("GPU prover: a window of " + std::to_string(window) +
                     " points does not fit in the H step's buffers");
    typename Msm<Cfg>::LentWindows lent{static_cast<DeviceAffine*>(lendable.first),
                                        static_cast<DeviceAffine*>(lendable.second)};
    std::optional<Msm<Cfg>> msm;
    msm.emplace(lent, window, std::move(workspace));
    return msm;
  }

  template <class Sum>
  Sum traced(Sum sum, const char* where) {
    trace_.note(where, plan_.need);
    return sum;
  }

  MemoryPlan plan_;
  MemoryTrace trace_;
  std::vector<std::pair<std::string, double>> setup_phases_;
  std::shared_ptr<MsmWorkspace> workspace_;
  std::optional<HStep> h_step_;  // before the windows that may live in its buffers
  std::optional<G1Msm> g1_window_;
  std::optional<G2Msm> g2_window_;
  BaseVector<algebra::G1Config> h_, l_, a_, b_g1_;
  BaseVector<algebra::G2Config> b_g2_;
  // z = (inputs, aux) into witness_, queued on gather_stream_.
  void upload_witness(const groth16::ProverInput& in) {
    const std::size_t inputs = in.inputs.size(), count = inputs + in.aux.size();
    witness_.ensure(std::max<std::size_t>(count, 1));
    std::optional<HostStaging>& staging = workspace_->staging;
    if (!staging) staging.emplace();
    if (constraints_) {  // checks the lengths against the circuit's
      constraints_->upload_witness(in.inputs, in.aux, witness_.data(), witness_.size(), *staging,
                                   gather_stream_.get());
    } else {
      staging->upload(witness_.data(), in.inputs.data(), inputs * sizeof(Fr), gather_stream_);
      staging->upload(witness_.data() + inputs, in.aux.data(), in.aux.size() * sizeof(Fr), gather_stream_);
    }
  }

  // The circuit's matrices (hold_constraints), uploaded once.
  std::optional<DeviceR1cs> constraints_;
  // The device gather's witness and tables (plan_.device_gather), made at the first proof.
  const groth16::ProverInput* witness_of_ = nullptr;  // whose witness is in witness_ (until msm_witness)
  DeviceBuffer<Fr> witness_;
  DeviceDenseGather gather_;
  Stream gather_stream_;
};

}  // namespace

std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const groth16::Parameters& params,
                                                       const GpuEngineOptions& options) {
  return std::make_unique<GpuEngine>(params, options);
}

namespace {

// How streamed vectors reach the device (gpu/parameter_upload.hpp StreamPath). Registered pages stay locked
// in the page cache while the engine lives, so they are taken only when the host holds them with
// kRegisteredHeadroom to spare for the rest of the run (synthesis holds up to ~53 GiB at 32GiB with the
// constraints on the host: docs/large-sectors.md). CUZK_GPU_STREAM=pread|registered overrides the choice.
StreamPath choose_stream_path(const MemoryPlan& plan) {
  constexpr std::size_t kRegisteredHeadroom = std::size_t{64} << 30;
  if (!plan.streamed() || !plan.stream_from_file) return StreamPath::kPread;
  std::size_t streamed = 0;
  for (const VectorPlan& v : plan.device.vectors)
    if (!v.resident) streamed += v.bytes;
  if (const char* forced = std::getenv("CUZK_GPU_STREAM"); forced && *forced) {
    const std::string_view value(forced);
    if (value == "pread" || value == "registered") {
      spdlog::info("streamed base vectors ({} GiB): {} (CUZK_GPU_STREAM)", format_gib(streamed), value);
      return value == "pread" ? StreamPath::kPread : StreamPath::kRegistered;
    }
    spdlog::warn("CUZK_GPU_STREAM={}: not pread or registered, ignored", forced);
  }
  const std::size_t available = io::host_memory_available();
  const bool registered = available >= streamed + kRegisteredHeadroom;
  spdlog::info("streamed base vectors ({} GiB): {} ({} GiB available{})", format_gib(streamed),
               registered ? "read by the DMA from the page cache, registered in place"
                          : "read into pinned staging buffers",
               format_gib(available),
               registered
                   ? ""
                   : fmt::format(", registering needs {} GiB", format_gib(streamed + kRegisteredHeadroom)));
  return registered ? StreamPath::kRegistered : StreamPath::kPread;
}

}  // namespace

std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const std::string& params_path,
                                                       const groth16::ParameterHeader& header,
                                                       const GpuEngineOptions& options) {
  const groth16::ParametersInfo info = groth16::read_parameters_info(params_path);
  if (info.vector("h").count != header.h || info.vector("l").count != header.l ||
      info.vector("a").count != header.a || info.vector("b_g1").count != header.b_g1 ||
      info.vector("b_g2").count != header.b_g2)
    throw GpuError(params_path +
                   " changed while it was being read (its vector lengths differ from its header)");
  // Planned before any upload: a plan that cannot fit stops the run now, with the figures.
  const MemoryPlan plan = plan_memory(header, memory_budget(options.memory_limit), options);
  spdlog::info("GPU memory plan: {}", plan.describe());
  BasePlacement placement = plan.placement();
  placement.stream_path = choose_stream_path(plan);
  ParameterUploadStats stats;
  DeviceParameterBases bases =
      upload_parameter_bases(params_path, info, options.reader_threads, &stats, placement);
  return std::make_unique<GpuEngine>(plan, header, std::move(bases), stats);
}

}  // namespace cuzk::gpu
