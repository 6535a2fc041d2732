#include "gpu/memory_plan.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <cstdlib>
#include <optional>
#include <string_view>
#include <tuple>
#include <vector>

#include "gpu/msm_shape.hpp"
#include "prover/algebra/bits.hpp"

namespace cuzk::gpu {
namespace {

// Device layout sizes (gpu/msm.hpp DeviceAffine: two coordinates in Montgomery form; Fr is 32 bytes).
constexpr std::size_t kG1Point = 96, kG2Point = 192, kFrBytes = 32;
// NTT power tables: x^i = hi[i >> 12] * lo[i & 4095] (gpu/ntt.cu kPowLoBits).
constexpr std::size_t kPowLoSize = std::size_t{1} << 12;
// GPU SpMV coefficient table: 512 power slots + the 2^15 table codes (gpu/spmv_launch.hpp kPowerSlots,
// prover/r1cs/compact_view.hpp kMaxTableSize).
constexpr std::size_t kCoefficientSlots = 512 + 0x8000;
// What one MSM range costs besides its arithmetic (its classification waits for the device, some fifteen
// launches, the carry of its bucket sums), expressed as the PCIe bytes that move in that time: measured ~2 ms
// a range on an H200 (bench/RESULTS.md, the device-memory tiers of 2026-12-02), at ~25 GB/s. It keeps the
// planner from choosing hundreds of small ranges to fit one more vector.
constexpr double kRangeOverheadBytes = 5e7;
// What a sort pass beyond a range's first costs: a few launches (~20 us, 1e6 PCIe bytes) and its digits
// computed again, a read of the range's scalars at device-memory speed, ~60x PCIe's (32 / 60 bytes a scalar).
constexpr double kPassOverheadBytes = 1e6;
constexpr double kPassScalarBytes = 32.0 / 60.0;
// What the constraints on the host cost beyond the upload of a, b, c and the dense scalars (counted as bytes
// apart): the host's evaluation and gather beside synthesis, and the H step's wait for them. Measured at
// 40 GiB on an H200 (bench/RESULTS.md, "Two partitions per pass"): the paired plan with the constraints on
// the host sent 8.6 GiB less per partition than the unpaired one with them on the device, yet proved a
// partition 0.25 s slower: ~0.45 s a partition, ~20 GB at the ~45 GB/s the streamed windows reach.
constexpr double kHostConstraintsBytes = 2e10;
// The smallest and largest MSM range the planner tries (2^27: one range for every Filecoin circuit).
constexpr unsigned kMinRangeLog = 16, kMaxRangeLog = 27;
// The sort passes it tries: 2^33 pairs hold every window of any Filecoin MSM in one pass (a 2^27-point
// MSM has 2^30.6 pairs); 2^20 pairs is 16 MiB of sort scratch.
constexpr unsigned kMinSortLog = 20, kMaxSortLog = 33;

std::size_t point_bytes(BaseVectorId id) {
  return id == BaseVectorId::kBG2 ? kG2Point : kG1Point;
}

std::size_t count_of(const ProverShape& s, BaseVectorId id) {
  switch (id) {
    case BaseVectorId::kH:
      return s.h;
    case BaseVectorId::kL:
      return s.l;
    case BaseVectorId::kA:
      return s.a;
    case BaseVectorId::kBG1:
      return s.b_g1;
    case BaseVectorId::kBG2:
      return s.b_g2;
  }
  return 0;
}

unsigned max_window_bits(BaseVectorId id) {
  return id == BaseVectorId::kH ? 22 : kZeroOneMsmMaxWindowBits;
}

// What an Msm over this vector keeps of its own (MsmBytes::own), run in ranges of `range` scalars and passes
// of `sort_pairs` pairs.
std::size_t own_bytes(std::size_t count, BaseVectorId id, std::size_t range, bool split,
                      std::size_t sort_pairs) {
  if (count == 0) return 0;
  return MsmBytes::own(count, range, point_bytes(id), split, max_window_bits(id), sort_pairs);
}

}  // namespace

unsigned ProverShape::log_domain() const {
  return algebra::log2_ceil(std::max<std::size_t>(constraints + inputs, 2));
}

std::string format_gib(std::size_t bytes) {
  return fmt::format("{:.1f}", double(bytes) / double(1ull << 30));
}

const char* base_vector_name(BaseVectorId id) {
  switch (id) {
    case BaseVectorId::kH:
      return "h";
    case BaseVectorId::kL:
      return "l";
    case BaseVectorId::kA:
      return "a";
    case BaseVectorId::kBG1:
      return "b_g1";
    case BaseVectorId::kBG2:
      return "b_g2";
  }
  return "?";
}

std::size_t h_step_device_bytes(unsigned log_domain, unsigned buffers) {
  const std::size_t n = std::size_t{1} << std::max(1u, log_domain);
  // a, b, c or a, b (gpu/h_step.hpp HStep), the twiddles w^e (e < n/2) and the power tables of the NTT
  // context.
  return buffers * n * kFrBytes + (n / 2 + 4 * (kPowLoSize + n / kPowLoSize + 1)) * kFrBytes;
}

std::size_t constraint_matrix_device_bytes(const ProverShape& s) {
  // Per matrix: row offsets (rows + 1, u32), columns (u32) and coefficient codes (u16) per entry, and the
  // long rows' list (at most one u32 per row); the coefficient table once (gpu/spmv.hpp DeviceR1cs).
  const std::size_t per_matrix_rows = 2 * (s.constraints + 1) * sizeof(std::uint32_t);
  return kCoefficientSlots * kFrBytes + 3 * per_matrix_rows + (s.nnz_a + s.nnz_b + s.nnz_c) * 6;
}

std::size_t witness_device_bytes(const ProverShape& s) {
  // z = (inputs, aux), and the dense gather's density words and their offsets (gpu/dense_gather.hpp).
  const std::size_t count = s.witness_count();
  const std::size_t words = (count + 63) / 64;
  return count * kFrBytes + words * sizeof(std::uint64_t) + (words + 1) * sizeof(std::uint32_t);
}

bool DevicePlan::streamed() const {
  return std::any_of(vectors.begin(), vectors.end(), [](const VectorPlan& v) { return !v.resident; });
}

std::string DevicePlan::describe() const {
  std::string resident, streamed_names;
  for (const VectorPlan& v : vectors) {
    std::string& list = v.resident ? resident : streamed_names;
    list += (list.empty() ? "" : ", ") + std::string(base_vector_name(v.id));
  }
  std::string text =
      streamed_names.empty()
          ? fmt::format("all bases resident{}", h_endomorphism ? " (h with the endomorphism table)" : "")
          : fmt::format("resident: {}; streamed in windows of 2^{} points, double-buffered: {}",
                        resident.empty() ? "none" : resident, algebra::log2_ceil(range), streamed_names);
  const std::size_t longest =
      std::max_element(vectors.begin(), vectors.end(), [](const VectorPlan& x, const VectorPlan& y) {
        return x.count < y.count;
      })->count;
  text += range >= longest ? std::string("; one range per MSM")
                           : fmt::format("; MSM ranges of 2^{} points", algebra::log2_ceil(range));
  const std::size_t most_passes =
      std::max_element(vectors.begin(), vectors.end(), [](const VectorPlan& x, const VectorPlan& y) {
        return x.passes < y.passes;
      })->passes;
  if (most_passes > 1)
    text += fmt::format(" sorted in passes of 2^{} pairs (up to {} a range)", algebra::log2_ceil(sort_pairs),
                        most_passes);
  if (witness_batch > 1)
    text += fmt::format("; the witness MSMs of {} partitions in one pass over each window", witness_batch);
  text += fmt::format(
      "; constraints {}; about {} of {} GiB (bases {}, H step {}{}, "
      "MSM scratch {}, windows {}, constraints and witness {}); {} GiB sent per partition",
      constraints_on_device ? "on the device" : "on the host", format_gib(need), format_gib(budget),
      format_gib(bases_bytes), format_gib(h_step_bytes), h_step_buffers == 2 ? " in two buffers" : "",
      format_gib(msm_scratch_bytes),
      windows_in_h_step ? std::string("in the H step's buffers") : format_gib(window_bytes),
      format_gib(constraints_bytes + witness_bytes), format_gib(upload_bytes_per_partition));
  return text;
}

bool windows_in_h_step_allowed() {
  const char* value = std::getenv("CUZK_GPU_WINDOWS");
  if (!value || !*value || std::string_view(value) == "h-step") return true;
  if (std::string_view(value) == "own") return false;
  spdlog::warn("CUZK_GPU_WINDOWS={}: not own or h-step, ignored", value);
  return true;
}

bool two_buffer_h_step_allowed() {
  const char* value = std::getenv("CUZK_GPU_H_STEP_BUFFERS");
  if (!value || !*value || std::string_view(value) == "2") return true;
  if (std::string_view(value) == "3") return false;
  spdlog::warn("CUZK_GPU_H_STEP_BUFFERS={}: not 2 or 3, ignored", value);
  return true;
}

unsigned max_witness_batch_allowed() {
  const char* value = std::getenv("CUZK_GPU_WITNESS_BATCH");
  if (!value || !*value || std::string_view(value) == "2") return 2;
  if (std::string_view(value) == "1") return 1;
  spdlog::warn("CUZK_GPU_WITNESS_BATCH={}: not 1 or 2, ignored", value);
  return 2;
}

std::size_t h_step_lendable_bytes(unsigned log_domain, unsigned buffers) {
  const std::size_t buffer = (std::size_t{1} << std::max(1u, log_domain)) * kFrBytes;
  return buffers == 2 ? buffer / 2 : buffer;
}

namespace {

// Each vector's MSM figures at one range and sort pass, whole scalars and split (h's endomorphism).
struct MsmFigures {
  std::size_t passes = 1, own = 0, bucket_sums = 0;
  MsmBytes::Buffers buffers;  // what it asks of the shared workspace
  double pass_cost = 0;  // the passes beyond each range's first, as PCIe bytes
};
using FigureTable = std::array<std::array<MsmFigures, 2>, 5>;  // [vector][split]

FigureTable msm_figures(const ProverShape& shape, std::size_t range, std::size_t sort_pairs) {
  FigureTable figures{};
  for (BaseVectorId id : kBaseVectors) {
    const std::size_t count = count_of(shape, id);
    if (count == 0) continue;
    for (bool split : {false, true}) {
      if (split && id != BaseVectorId::kH) continue;
      MsmFigures& f = figures[static_cast<std::size_t>(id)][split];
      const MsmBytes::Shapes shapes = MsmBytes::shapes(count, range, split, max_window_bits(id), sort_pairs);
      f.passes = (shapes.one.layout.windows + shapes.pass_windows - 1) / shapes.pass_windows;
      f.buffers = MsmBytes::buffers(count, range, point_bytes(id), split, max_window_bits(id), sort_pairs);
      f.own = own_bytes(count, id, range, split, sort_pairs);
      f.bucket_sums =
          MsmBytes::bucket_sums(count, range, point_bytes(id), split, max_window_bits(id), sort_pairs);
      f.pass_cost = double(MsmBytes::ranges_of(count, range)) * double(f.passes - 1) *
                    (kPassOverheadBytes + kPassScalarBytes * double(std::min(range, count)));
    }
  }
  return figures;
}

// What a shape moves and holds whatever the plan.
struct ShapeBytes {
  std::size_t longest = 1;       // the longest MSM
  std::size_t abc = 0;           // a, b and c of the H step
  std::size_t host_scalars = 0;  // the witness MSMs' scalars, made on the host with the constraints there
  std::size_t witness = 0;   // the witnesses on the device (constraints there), of every partition in flight
  std::size_t matrices = 0;  // the constraint matrices on the device
};

// One point of the search.
struct Candidate {
  bool constraints_on_device = false;
  unsigned h_step_buffers = 3;
  std::size_t range = 0;
  std::size_t sort_pairs = 0;  // 0: every window of a range in one sort pass
  unsigned resident = 0;       // bit i: kBaseVectors[i]'s bases stay on the device
  unsigned witness_batch = 1;
  bool h_endomorphism = false;
};

// The MSM part of a candidate: each vector resident or streamed, their tables, scratch and transfers, and
// the cost of the streaming and the extra sort passes. Returns the score so far.
double place_msm_vectors(DevicePlan& plan, const ProverShape& shape, const Candidate& c,
                         const FigureTable& figures) {
  MsmBytes::Buffers workspace;  // the one workspace of all five vectors' MSMs
  std::size_t g1_window_scratch = 0, g2_window_scratch = 0;
  std::size_t batch_sums = 0;  // the bucket sums of a batch's further vector
  double score = 0;
  for (BaseVectorId id : kBaseVectors) {
    const std::size_t i = static_cast<std::size_t>(id);
    VectorPlan& v = plan.vectors[i];
    v.id = id;
    v.count = count_of(shape, id);
    v.bytes = v.count * point_bytes(id);
    v.resident = (c.resident >> i) & 1;
    const bool split = id == BaseVectorId::kH && c.h_endomorphism && v.resident;
    const MsmFigures& f = figures[i][split];
    v.passes = f.passes;
    workspace.grow_to(f.buffers);
    score += f.pass_cost;
    if (v.resident) {
      v.scratch = f.own;
      plan.bases_bytes += MsmBytes::table(v.count, point_bytes(id), split);
      plan.msm_scratch_bytes += v.scratch;
    } else if (v.count > 0) {
      // Streamed vectors share one window MSM per group, sized for the largest of them.
      std::size_t& window_scratch = id == BaseVectorId::kBG2 ? g2_window_scratch : g1_window_scratch;
      window_scratch = std::max(window_scratch, f.own);
      // The witness MSMs of a batch share each window's transfer; h's MSM is one partition's.
      const std::size_t shared_by = id == BaseVectorId::kH ? 1 : c.witness_batch;
      plan.upload_bytes_per_partition += v.bytes / shared_by;
      score += (id == BaseVectorId::kH ? 0.5 : 1.0) * double(v.bytes) / double(shared_by);
      if (id != BaseVectorId::kH) batch_sums = std::max(batch_sums, f.bucket_sums);
    }
  }
  // The endomorphism table's constructor copies h's bases into a buffer twice their size before it frees
  // the given one: for a moment, h's bases three times (the workspace is not made yet).
  const std::size_t endo_transient = c.h_endomorphism ? plan.vector(BaseVectorId::kH).bytes : 0;
  plan.msm_scratch_bytes += g1_window_scratch + g2_window_scratch;
  plan.msm_scratch_bytes += std::max(workspace.total() + (c.witness_batch - 1) * batch_sums, endo_transient);
  return score;
}

// The window buffers of the streamed groups. Two per group (one being filled while the other is computed
// on). The MSMs run after the H step, which leaves h in its first buffer: the other two are free until the
// next partition's H step, so the windows of both groups (which never run at once) are placed there when a
// window fits in one of them (windows_in_h_step). (The setup's decoding scratch, kDecodeWindowPoints G2
// points, is freed before the H step's buffers are made.)
void place_windows(DevicePlan& plan, const ProverShape& shape, const PlanRequest& request,
                   const Candidate& c) {
  const bool g1_streamed = std::any_of(plan.vectors.begin(), plan.vectors.end(), [](const VectorPlan& v) {
    return !v.resident && v.count > 0 && v.id != BaseVectorId::kBG2;
  });
  const bool g2_streamed =
      !plan.vector(BaseVectorId::kBG2).resident && plan.vector(BaseVectorId::kBG2).count > 0;
  const std::size_t h_step_lendable =
      shape.h > 0 ? h_step_lendable_bytes(shape.log_domain(), c.h_step_buffers) : 0;
  const std::size_t g1_window = g1_streamed ? c.range * kG1Point : 0;
  const std::size_t g2_window = g2_streamed ? std::min(c.range, shape.b_g2) * kG2Point : 0;
  plan.windows_in_h_step = request.windows_in_h_step && (g1_streamed || g2_streamed) &&
                           std::max(g1_window, g2_window) <= h_step_lendable;
  if (!plan.windows_in_h_step) plan.window_bytes = 2 * (g1_window + g2_window);
}

// The whole plan of one candidate, its need and its cost (PCIe bytes and their equivalents; lower is
// better).
DevicePlan candidate_plan(const ProverShape& shape, const PlanRequest& request, const ShapeBytes& bytes,
                          const Candidate& c, const FigureTable& figures) {
  DevicePlan plan;
  plan.budget = request.budget;
  plan.range = c.range;
  plan.sort_pairs = c.sort_pairs;
  plan.constraints_on_device = c.constraints_on_device;
  plan.h_endomorphism = c.h_endomorphism;
  plan.h_step_bytes = h_step_device_bytes(shape.log_domain(), c.h_step_buffers);
  plan.h_step_buffers = c.h_step_buffers;
  plan.witness_batch = c.witness_batch;
  // Two buffers: c's upload waits for the product of a and b instead of overlapping the transforms, as if
  // it were sent once more.
  double score = c.h_step_buffers == 2 ? double(bytes.abc / 3) : 0.0;
  score += place_msm_vectors(plan, shape, c, figures);
  // Streamed witness MSMs with their scalars in host memory upload each range's scalars beside its bases,
  // into buffers of their own (gpu/msm_impl.cuh start_load).
  const bool witness_streamed = (c.resident | 1u) != 31;
  if (!c.constraints_on_device && witness_streamed) {
    plan.scalar_prefetch_bytes =
        MsmBytes::prefetch_scalars(std::min(c.range, bytes.longest), c.witness_batch);
    plan.msm_scratch_bytes += plan.scalar_prefetch_bytes;
  }
  place_windows(plan, shape, request, c);
  if (c.constraints_on_device) {
    plan.constraints_bytes = bytes.matrices;
    // The witness, and the A and B MSMs' dense scalars gathered from it (into the MSM workspace's scalar
    // buffer, one vector at a time).
    plan.witness_bytes = bytes.witness + std::max(shape.a, shape.b_g1) * kFrBytes;
    plan.upload_bytes_per_partition += shape.witness_count() * kFrBytes;
    score += double(shape.witness_count() * kFrBytes);
  } else {
    plan.upload_bytes_per_partition += bytes.abc + bytes.host_scalars;
    score += double(bytes.abc + bytes.host_scalars) + kHostConstraintsBytes;
  }
  // (Ranges of 2^25 points and more are counted as 2^25: their overhead is lost in the arithmetic, and the
  // ties between them go to the tables below.)
  for (const VectorPlan& v : plan.vectors)
    score +=
        kRangeOverheadBytes * double(MsmBytes::ranges_of(v.count, std::min(c.range, std::size_t{1} << 25)));
  plan.need = plan.bases_bytes + plan.h_step_bytes + plan.msm_scratch_bytes + plan.window_bytes +
              plan.constraints_bytes + plan.witness_bytes;
  plan.cost = score;
  plan.fits = plan.need <= request.budget;
  return plan;
}

// Every candidate, the cheapest that fits (ties: the larger range up to 2^25, the endomorphism table, the
// larger range, the fewer sort passes); where none fits, the smallest, marked as not fitting.
DevicePlan search_device_plans(const ProverShape& shape, const PlanRequest& request) {
  ShapeBytes bytes;
  bytes.longest = std::max({shape.h, shape.l, shape.a, shape.b_g1, shape.b_g2, std::size_t{1}});
  bytes.abc = 3 * (shape.constraints + shape.inputs) * kFrBytes;
  bytes.host_scalars = (shape.aux + shape.a + shape.b_g1) * kFrBytes;
  bytes.witness = witness_device_bytes(shape) * std::max(1u, request.partitions_in_flight);
  bytes.matrices = constraint_matrix_device_bytes(shape);

  std::optional<std::tuple<double, int, int, std::size_t, int>> best_key;  // lower is better
  DevicePlan best;
  std::optional<DevicePlan> smallest;  // every vector streamed, constraints on the host

  std::vector<bool> constraint_options = {false};
  if (request.device_constraints) constraint_options.insert(constraint_options.begin(), true);
  Candidate c;
  for (bool on_device : constraint_options) {
    c.constraints_on_device = on_device;
    for (unsigned buffers : {3u, 2u}) {
      if (buffers == 2 && (on_device || shape.h == 0 || !request.two_buffer_h_step)) continue;
      c.h_step_buffers = buffers;
      for (unsigned range_log = kMaxRangeLog; range_log >= kMinRangeLog; --range_log) {
        c.range = std::min(std::size_t{1} << range_log, bytes.longest);
        if ((std::size_t{1} << range_log) > 2 * bytes.longest && range_log > kMinRangeLog) continue;
        for (unsigned sort_log = kMaxSortLog; sort_log >= kMinSortLog; --sort_log) {
          c.sort_pairs = sort_log == kMaxSortLog ? 0 : std::size_t{1} << sort_log;
          const FigureTable figures = msm_figures(shape, c.range, c.sort_pairs);
          for (c.resident = 0; c.resident < 32; ++c.resident) {
            // A batch needs a streamed witness vector (l, a, b_g1, b_g2: h is bit 0) and their scalars on
            // the host.
            const bool witness_streamed = (c.resident | 1u) != 31;
            for (c.witness_batch = 1; c.witness_batch <= std::max(1u, request.max_witness_batch);
                 ++c.witness_batch) {
              if (c.witness_batch > 1 && (on_device || !witness_streamed)) continue;
              for (bool endo : {true, false}) {
                // The table only beside every other base.
                if (endo && (c.resident != 31 || shape.h == 0)) continue;
                c.h_endomorphism = endo;
                const DevicePlan plan = candidate_plan(shape, request, bytes, c, figures);
                if (c.resident == 0 && !on_device && (!smallest || plan.need < smallest->need))
                  smallest = plan;
                if (!plan.fits) continue;
                // Ranges of 2^25 and more differ little (their bucket carry-over is a few percent of the
                // work).
                const int range_rank = -int(std::min(range_log, 25u));
                const auto key =
                    std::make_tuple(plan.cost, range_rank, endo ? 0 : 1, ~c.range, -int(sort_log));
                if (!best_key || key < *best_key) {
                  best_key = key;
                  best = plan;
                }
              }
            }
          }
        }
      }
    }
  }
  if (best_key) return best;
  DevicePlan none = smallest.value_or(DevicePlan{});
  none.fits = false;
  return none;
}

}  // namespace

DevicePlan plan_device_memory(const ProverShape& shape, const PlanRequest& request) {
  return search_device_plans(shape, request);
}

std::string HostPlan::describe() const {
  return fmt::format(
      "{} synthesis worker{} ({} partitions alive at {} GiB each), prover scratch {} GiB, constraint "
      "matrices "
      "{} GiB, pinned {} GiB{}, process {} GiB: about {} GiB{}",
      synthesis_workers, synthesis_workers == 1 ? "" : "s", partitions_alive, format_gib(per_partition_bytes),
      format_gib(prover_scratch_bytes), format_gib(constraint_bytes), format_gib(pinned_bytes),
      parameter_bytes ? ", decoded parameters " + format_gib(parameter_bytes) + " GiB" : "",
      format_gib(base_bytes), format_gib(total),
      available ? fmt::format(" of {} GiB available", format_gib(available)) : "");
}

HostPlan plan_host_memory(const ProverShape& shape, const HostPlanRequest& request) {
  HostPlan plan;
  const bool abc_on_host = !request.gpu || !request.constraints_on_device;
  plan.per_partition_bytes = shape.witness_count() * kFrBytes +
                             (abc_on_host ? 3 * (shape.constraints + shape.inputs) * kFrBytes : 0) +
                             (shape.witness_count() + 7) / 8 * 3;  // density bits
  // The host gather's dense A and B scalars (one set, in the proving stage).
  const unsigned engines = std::max(1u, request.engines);
  const unsigned held = engines * std::max(1u, request.witness_batch);  // partitions the engines hold
  plan.prover_scratch_bytes = held * (abc_on_host ? (shape.a + shape.b_g1) * kFrBytes : 0);
  // The PCE's compact matrices as loaded (u32 columns, u16 codes, u32 row offsets).
  plan.constraint_bytes = constraint_matrix_device_bytes(shape);
  // Staging: the prover's two stagings (gpu/host_staging.hpp: the H step's and the MSMs'), each two 32 MiB
  // chunks and up to 8 copy lanes of two 8 MiB chunks, and the parameter readers' pinned pieces (8 x 128 MiB
  // at most, gpu/parameter_upload.hpp) while the parameters load; each engine has its own.
  constexpr std::size_t kStagingBytes = (std::size_t{64} << 20) + 8 * 2 * (std::size_t{8} << 20);
  const std::size_t staging = request.gpu ? 2 * kStagingBytes + (std::size_t{1} << 30) : 0;
  plan.pinned_bytes = engines * (request.pinned_bases_bytes + staging);
  plan.parameter_bytes = engines * (request.gpu ? 0 : request.cpu_parameter_bytes);
  plan.base_bytes = std::size_t{1} << 30;
  plan.available = request.available;
  const std::size_t fixed = plan.prover_scratch_bytes + plan.constraint_bytes + plan.pinned_bytes +
                            plan.parameter_bytes + plan.base_bytes;
  auto total_for = [&](unsigned workers) { return fixed + (workers + 1 + held) * plan.per_partition_bytes; };
  // The most workers that fit (up to 64, the flag's bound).
  plan.workers_that_fit = 0;
  if (request.available) {
    for (unsigned w = 1; w <= 64 && total_for(w) <= request.available; ++w) plan.workers_that_fit = w;
  } else {
    plan.workers_that_fit = 64;
  }
  plan.synthesis_workers =
      request.synthesis_workers
          ? request.synthesis_workers
          : std::max(1u, std::min(request.max_auto_workers * engines, plan.workers_that_fit));
  plan.partitions_alive = plan.synthesis_workers + 1 + held;
  plan.total = total_for(plan.synthesis_workers);
  plan.fits = !request.available || plan.total <= request.available;
  return plan;
}

}  // namespace cuzk::gpu
