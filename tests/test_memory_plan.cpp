// The memory plans (gpu/memory_plan.hpp, job/run_memory.hpp) of the production 32GiB and 64GiB circuits
// (job/prover_shape.hpp's table), without a GPU: which base vectors the device plan keeps resident at the
// budgets of common cards, that a plan which fits needs no more than its budget, that an impossible budget
// is refused, and what the host plans need (docs/large-sectors.md, "Planning a run").
#include <gtest/gtest.h>
#include <stdlib.h>

#include <algorithm>
#include <cstdio>
#include <optional>
#include <string>
#include <vector>

#include "gpu/memory_plan.hpp"
#include "job/prover_shape.hpp"
#include "job/run_memory.hpp"
#include "prover/porep/registered_proof.hpp"

namespace cuzk::gpu {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;

ProverShape shape_of(const char* label) {
  return job::prover_shape(*job::builtin_circuit_figures(*porep::parse_sector_size(label)));
}

DevicePlan plan_at(const ProverShape& shape, double gib) {
  PlanRequest request;
  request.budget = static_cast<std::size_t>(gib * double(kGiB));
  return plan_device_memory(shape, request);
}

std::string streamed_names(const DevicePlan& plan) {
  std::string names;
  for (const VectorPlan& v : plan.vectors) {
    if (v.resident) continue;
    if (!names.empty()) names += ',';
    names += base_vector_name(v.id);
  }
  return names;
}

struct Tier {
  double gib;
  const char* streamed;  // the vectors streamed, in file order
  bool constraints_on_device;
  unsigned witness_batch;  // partitions whose witness MSMs share one pass over each window
};

// Every tier fits within its budget, streams what the planner chose (pinned below, printed for the log),
// and across the tiers a larger budget keeps every vector a smaller one kept resident, as long as the
// constraints stay where they were (moving the matrices onto the device takes ~11 GiB from the bases).
void check_tiers(const char* label, const std::vector<Tier>& tiers) {
  const ProverShape shape = shape_of(label);
  std::vector<DevicePlan> plans;
  for (const Tier& tier : tiers) {
    const DevicePlan plan = plan_at(shape, tier.gib);
    std::printf(
        "%s at %.0f GiB: streamed [%s], constraints on the %s, need %.2f GiB, %.1f GiB sent per partition\n",
        label, tier.gib, streamed_names(plan).c_str(), plan.constraints_on_device ? "device" : "host",
        double(plan.need) / double(kGiB), double(plan.upload_bytes_per_partition) / double(kGiB));
    std::printf("  %s\n", plan.describe().c_str());
    EXPECT_TRUE(plan.fits) << label << " at " << tier.gib << " GiB";
    EXPECT_LE(plan.need, plan.budget) << label << " at " << tier.gib << " GiB";
    EXPECT_EQ(streamed_names(plan), tier.streamed) << label << " at " << tier.gib << " GiB";
    EXPECT_EQ(plan.constraints_on_device, tier.constraints_on_device)
        << label << " at " << tier.gib << " GiB";
    EXPECT_EQ(plan.witness_batch, tier.witness_batch) << label << " at " << tier.gib << " GiB";
    for (const DevicePlan& smaller : plans) {
      if (smaller.constraints_on_device != plan.constraints_on_device) continue;
      for (BaseVectorId id : kBaseVectors)
        EXPECT_TRUE(!smaller.vector(id).resident || plan.vector(id).resident)
            << label << ": " << base_vector_name(id) << " is resident at "
            << double(smaller.budget) / double(kGiB) << " GiB and streamed at " << tier.gib << " GiB";
    }
    plans.push_back(plan);
  }
}

// 80 GiB (H100, A100 80GB): everything on the device, in a few large ranges sorted in passes. 40 GiB (A100
// 40GB): the constraints on the device and b_g1 beside them (b_g2 streams: the most bytes per point), the
// rest in windows of 2^24 that live in the H step's buffers, one partition at a time (a pair would need the
// constraints on the host, measured slower). 24 GiB (RTX 4090, A10): the constraints on the host and the
// witness MSMs of two partitions sharing each streamed window, which halves what l, a, b_g1 and b_g2 cost in
// transfers, so the room goes to wide ranges of 2^24 instead of to a resident vector. 16 GiB: the same, with
// the H step in two buffers and ranges of 2^22. Few large ranges win over an extra resident vector because
// each range costs ~2 ms (bench/RESULTS.md, the device-memory tiers). The planner (gpu/memory_plan.cpp,
// gpu/msm_shape.hpp) decides; when it changes, the lines this test prints give the new pins.
TEST(MemoryPlan, Tiers32GiB) {
  check_tiers("32GiB", {{16, "h,l,a,b_g1,b_g2", false, 2},
                        {24, "h,l,a,b_g1,b_g2", false, 2},
                        {40, "h,l,a,b_g2", true, 1},
                        {80, "", true, 1}});
}

TEST(MemoryPlan, Tiers64GiB) {
  check_tiers("64GiB", {{16, "h,l,a,b_g1,b_g2", false, 2},
                        {24, "h,l,a,b_g1,b_g2", false, 2},
                        {40, "h,l,a,b_g2", true, 1},
                        {80, "", true, 1}});
}

// The streamed windows go into the H step's second and third buffers (free while the MSMs run) whenever a
// window fits in one: they then cost no device bytes of their own, and the room buys wider ranges. Without
// it (CUZK_GPU_WINDOWS=own) every window is counted, and no plan is wider than with it.
TEST(MemoryPlan, WindowsLiveInTheHStepBuffers) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const ProverShape shape = shape_of(label);
    EXPECT_EQ(h_step_lendable_bytes(shape.log_domain()), (std::size_t{1} << shape.log_domain()) * 32)
        << label;
    for (double gib : {16.0, 24.0, 40.0}) {
      PlanRequest request;
      request.budget = static_cast<std::size_t>(gib * double(kGiB));
      const DevicePlan lent = plan_device_memory(shape, request);
      request.windows_in_h_step = false;
      const DevicePlan own = plan_device_memory(shape, request);
      ASSERT_TRUE(lent.fits && own.fits) << label << " at " << gib << " GiB";
      EXPECT_TRUE(lent.windows_in_h_step) << label << " at " << gib << " GiB";
      EXPECT_EQ(lent.window_bytes, 0u) << label << " at " << gib << " GiB";
      // A window of the widest streamed group fits in one lent part.
      const std::size_t point = lent.vector(BaseVectorId::kBG2).resident ? 96 : 192;
      EXPECT_LE(lent.range * point, h_step_lendable_bytes(shape.log_domain(), lent.h_step_buffers))
          << label << " at " << gib << " GiB";
      EXPECT_FALSE(own.windows_in_h_step) << label << " at " << gib << " GiB";
      EXPECT_GT(own.window_bytes, 0u) << label << " at " << gib << " GiB";
      EXPECT_GE(lent.range, own.range) << label << " at " << gib << " GiB";
      EXPECT_LE(lent.cost, own.cost) << label << " at " << gib << " GiB";
    }
    // Nothing streamed, nothing lent.
    EXPECT_FALSE(plan_at(shape, 80).windows_in_h_step) << label;
  }
}

// Where memory is short the H step runs in two buffers (c after the product of a and b): the 4 GiB it frees
// at 2^27 buy wider ranges or another resident vector, for c's upload without overlap. The plan takes it
// only with the constraints on the host, only where it costs less, and never with the whole card.
TEST(MemoryPlan, TwoBufferHStepWhereMemoryIsShort) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const ProverShape shape = shape_of(label);
    const unsigned lg = shape.log_domain();
    EXPECT_EQ(h_step_device_bytes(lg, 3) - h_step_device_bytes(lg, 2), (std::size_t{1} << lg) * 32) << label;
    EXPECT_EQ(h_step_lendable_bytes(lg, 2), (std::size_t{1} << lg) * 16) << label;
    for (double gib : {16.0, 24.0, 40.0, 80.0, 139.0}) {
      PlanRequest request;
      request.budget = static_cast<std::size_t>(gib * double(kGiB));
      const DevicePlan plan = plan_device_memory(shape, request);
      request.two_buffer_h_step = false;
      const DevicePlan three = plan_device_memory(shape, request);
      ASSERT_TRUE(plan.fits && three.fits) << label << " at " << gib << " GiB";
      EXPECT_EQ(three.h_step_buffers, 3u) << label << " at " << gib << " GiB";
      EXPECT_LE(plan.cost, three.cost) << label << " at " << gib << " GiB";
      if (plan.h_step_buffers == 2) {
        EXPECT_FALSE(plan.constraints_on_device) << label << " at " << gib << " GiB";
        EXPECT_EQ(plan.h_step_bytes, h_step_device_bytes(lg, 2)) << label << " at " << gib << " GiB";
        EXPECT_LT(plan.cost, three.cost) << label << " at " << gib << " GiB";
      }
    }
    // 16 GiB: three buffers (14 GiB) leave the MSMs ranges of 2^20; two buy wider ones.
    const DevicePlan at16 = plan_at(shape, 16);
    EXPECT_EQ(at16.h_step_buffers, 2u) << label;
    EXPECT_EQ(plan_at(shape, 139).h_step_buffers, 3u) << label;
    EXPECT_EQ(plan_at(shape, 80).h_step_buffers, 3u) << label;
  }
}

// Below the H step's own buffers (14 GiB at 2^27) nothing fits: the smallest plan is described, and it
// needs more than the budget.
TEST(MemoryPlan, ImpossibleBudgetDoesNotFit) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const DevicePlan plan = plan_at(shape_of(label), 4);
    EXPECT_FALSE(plan.fits) << label;
    EXPECT_GT(plan.need, plan.budget) << label;
    EXPECT_EQ(streamed_names(plan), "h,l,a,b_g1,b_g2") << label;
    EXPECT_FALSE(plan.constraints_on_device) << label;
  }
}

// Over a sweep of budgets: a plan that fits needs no more than its budget, and once a budget fits every
// larger one does.
TEST(MemoryPlan, FitsAreMonotoneAndWithinBudget) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const ProverShape shape = shape_of(label);
    bool fitted = false;
    for (double gib = 4; gib <= 160; gib += 0.5) {
      const DevicePlan plan = plan_at(shape, gib);
      if (plan.fits) {
        EXPECT_LE(plan.need, plan.budget) << label << " at " << gib << " GiB";
      }
      EXPECT_TRUE(plan.fits || !fitted) << label << " fits below " << gib << " GiB but not at it";
      fitted = fitted || plan.fits;
    }
    EXPECT_TRUE(fitted) << label;
  }
}

// The planner minimizes its cost (the bytes sent per partition plus each range's fixed cost): a plan that
// fits one budget fits every larger one, so more memory never gives a costlier plan. (The resident set alone
// is not monotone: a little more memory can buy wider ranges, fewer of them, at the price of a resident
// vector. The per-range cost is real, ~2 ms: bench/RESULTS.md, the device-memory tiers.)
TEST(MemoryPlan, MoreMemoryNeverCostsMore) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const ProverShape shape = shape_of(label);
    std::optional<DevicePlan> before;
    for (double gib = 14; gib <= 160; gib += 0.25) {
      const DevicePlan plan = plan_at(shape, gib);
      if (!plan.fits) continue;
      if (before) {
        EXPECT_LE(plan.cost, before->cost) << label << ": " << gib << " GiB costs more than "
                                           << double(before->budget) / double(kGiB) << " GiB";
      }
      before = plan;
    }
    ASSERT_TRUE(before) << label;
  }
}

// Where a witness MSM's bases stream and the constraints are on the host (16 and 24 GiB), the plan pairs
// partitions: one pass over each window serves the witness MSMs of two, which halves what those vectors send
// per partition, for a second set of bucket sums. Where the constraints fit on the device unpaired (40 GiB:
// the device holds one partition's witness, and a pair would move a, b, c to the host) or nothing streams
// (80 GiB), or when batches are off (CUZK_GPU_WITNESS_BATCH=1), partitions go one at a time.
TEST(MemoryPlan, WitnessMsmsOfTwoPartitionsShareAPassWhereTheyStream) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const ProverShape shape = shape_of(label);
    for (double gib : {16.0, 24.0, 40.0, 80.0}) {
      PlanRequest request;
      request.budget = static_cast<std::size_t>(gib * double(kGiB));
      const DevicePlan batched = plan_device_memory(shape, request);
      request.max_witness_batch = 1;
      const DevicePlan alone = plan_device_memory(shape, request);
      EXPECT_EQ(alone.witness_batch, 1u) << label << " at " << gib;
      if (gib >= 40) {
        EXPECT_EQ(batched.witness_batch, 1u)
            << label << " at " << gib << " (the constraints fit on the device)";
        continue;
      }
      ASSERT_EQ(batched.witness_batch, 2u) << label << " at " << gib;
      EXPECT_TRUE(batched.fits);
      EXPECT_FALSE(batched.constraints_on_device);
      EXPECT_NE(batched.describe().find("witness MSMs of 2 partitions"), std::string::npos);
      EXPECT_LT(batched.cost, alone.cost) << label << " at " << gib;
      // The streamed witness vectors count half per partition; h (one partition's MSM) counts whole.
      std::size_t expect = 0;
      for (const VectorPlan& v : batched.vectors)
        if (!v.resident) expect += v.id == BaseVectorId::kH ? v.bytes : v.bytes / 2;
      const std::size_t host_side = batched.upload_bytes_per_partition - expect;
      std::size_t alone_streamed = 0;
      for (const VectorPlan& v : alone.vectors)
        if (!v.resident) alone_streamed += v.bytes;
      if (alone.constraints_on_device == batched.constraints_on_device) {  // else a, b, c are sent or not
        EXPECT_EQ(host_side, alone.upload_bytes_per_partition - alone_streamed)
            << "a, b, c and the dense scalars are sent per partition either way";
      }
      std::printf("%s at %.0f GiB: %.1f GiB sent per partition in pairs, %.1f alone\n", label, gib,
                  double(batched.upload_bytes_per_partition) / double(kGiB),
                  double(alone.upload_bytes_per_partition) / double(kGiB));
    }
  }
}

// A streamed witness MSM whose scalars come from host memory uploads each range's scalars beside its bases
// (gpu/msm_impl.cuh start_load), two ranges per vector of the pass: the plan counts those buffers, and only
// there (with the constraints on the device the scalars are already on the device).
TEST(MemoryPlan, StreamedHostScalarsAreCountedTwiceARange) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const ProverShape shape = shape_of(label);
    const std::size_t longest = std::max({shape.h, shape.l, shape.a, shape.b_g1, shape.b_g2});
    for (double gib : {16.0, 24.0, 40.0, 80.0}) {
      const DevicePlan plan = plan_at(shape, gib);
      ASSERT_TRUE(plan.fits) << label << " at " << gib;
      bool witness_streamed = false;
      for (const VectorPlan& v : plan.vectors) witness_streamed |= v.id != BaseVectorId::kH && !v.resident;
      if (plan.constraints_on_device || !witness_streamed) {
        EXPECT_EQ(plan.scalar_prefetch_bytes, 0u) << label << " at " << gib;
        continue;
      }
      const std::size_t range = std::min(plan.range, longest);
      EXPECT_EQ(plan.scalar_prefetch_bytes, (2 * plan.witness_batch - 1) * range * 32) << label << " at " << gib;
      EXPECT_GE(plan.msm_scratch_bytes, plan.scalar_prefetch_bytes) << label << " at " << gib;
    }
  }
}

// The host holds one more partition per engine when partitions are paired.
TEST(MemoryPlan, PairedPartitionsAreCountedOnTheHost) {
  const ProverShape shape = shape_of("32GiB");
  HostPlanRequest request;
  request.gpu = true;
  request.constraints_on_device = false;
  request.synthesis_workers = 1;
  const HostPlan alone = plan_host_memory(shape, request);
  request.witness_batch = 2;
  const HostPlan paired = plan_host_memory(shape, request);
  EXPECT_EQ(paired.partitions_alive, alone.partitions_alive + 1);
  EXPECT_EQ(paired.total - alone.total,
            alone.per_partition_bytes + (paired.prover_scratch_bytes - alone.prover_scratch_bytes));
}

// The run pairs partitions only where the host holds the partition a pair keeps back beside the synthesis
// workers it would run unpaired: with MemAvailable between the two plans' needs, it goes one at a time.
TEST(RunMemory, PairsPartitionsOnlyWhereTheHostHasRoom) {
  const ProverShape shape = shape_of("32GiB");
  job::RunMemoryRequest request;
  request.gpu = true;
  request.device_budget = std::size_t{24} << 30;
  request.available = std::size_t{512} << 30;
  const job::RunMemoryPlan roomy = job::plan_run_memory("32GiB", shape, request);
  ASSERT_EQ(roomy.device->witness_batch, 2u);
  ASSERT_EQ(roomy.host.synthesis_workers, 2u);
  setenv("CUZK_GPU_WITNESS_BATCH", "1", 1);
  const job::RunMemoryPlan alone = job::plan_run_memory("32GiB", shape, request);
  unsetenv("CUZK_GPU_WITNESS_BATCH");
  ASSERT_EQ(alone.device->witness_batch, 1u);
  ASSERT_LT(alone.host.total, roomy.host.total);
  request.available = (alone.host.total + roomy.host.total) / 2;
  const job::RunMemoryPlan tight = job::plan_run_memory("32GiB", shape, request);
  EXPECT_TRUE(tight.fits());
  EXPECT_EQ(tight.device->witness_batch, 1u);
  EXPECT_EQ(tight.host.synthesis_workers, 2u);
  EXPECT_EQ(tight.host.total, alone.host.total);
  // With one worker asked for, the pair fits again.
  request.synthesis_workers = 1;
  EXPECT_EQ(job::plan_run_memory("32GiB", shape, request).device->witness_batch, 2u);
}

// A 16 GiB card with the streamed bases read from the page cache (no pinned copy): one synthesis worker
// fits a 64 GiB host.
TEST(MemoryPlan, HostPlanAt16GiBFitsA64GiBHostWithOneWorker) {
  for (const char* label : {"32GiB", "64GiB"}) {
    const ProverShape shape = shape_of(label);
    const DevicePlan device = plan_at(shape, 16);
    HostPlanRequest request;
    request.gpu = true;
    request.constraints_on_device = device.constraints_on_device;
    request.pinned_bases_bytes = 0;
    request.synthesis_workers = 1;
    request.available = 64 * kGiB;
    const HostPlan host = plan_host_memory(shape, request);
    std::printf("%s host at a 16 GiB card: %s\n", label, host.describe().c_str());
    EXPECT_TRUE(host.fits) << label;
    EXPECT_LE(host.total, 64 * kGiB) << label;
    EXPECT_EQ(host.synthesis_workers, 1u) << label;
  }
}

}  // namespace
}  // namespace cuzk::gpu

namespace cuzk::job {
namespace {

constexpr std::size_t kGiB = std::size_t{1} << 30;

gpu::ProverShape shape_32gib() {
  return prover_shape(*builtin_circuit_figures(*porep::parse_sector_size("32GiB")));
}

// Auto workers: two with the GPU when they fit, one when only one does; an explicit count that does not
// fit is refused with the count that would.
TEST(RunMemory, AutoWorkersFollowTheHost) {
  RunMemoryRequest request;
  request.gpu = true;
  request.device_budget = 80 * kGiB;
  request.available = 256 * kGiB;
  const RunMemoryPlan roomy = plan_run_memory("32GiB", shape_32gib(), request);
  ASSERT_TRUE(roomy.device.has_value());
  EXPECT_TRUE(roomy.fits());
  EXPECT_EQ(roomy.host.synthesis_workers, 2u);
  EXPECT_EQ(roomy.shortfall(), "");

  request.synthesis_workers = 1;
  const std::size_t one_worker = plan_run_memory("32GiB", shape_32gib(), request).host.total;
  request.synthesis_workers = 0;
  request.available = one_worker + kGiB / 2;  // one fits, two do not
  const RunMemoryPlan tight = plan_run_memory("32GiB", shape_32gib(), request);
  EXPECT_TRUE(tight.fits());
  EXPECT_EQ(tight.host.synthesis_workers, 1u);

  request.synthesis_workers = 2;
  const RunMemoryPlan refused = plan_run_memory("32GiB", shape_32gib(), request);
  EXPECT_FALSE(refused.fits());
  EXPECT_NE(refused.shortfall().find("--synthesis-workers 1 would fit"), std::string::npos)
      << refused.shortfall();
}

// The CPU engine counts the decoded parameters (every base at the host's point size); no device plan.
TEST(RunMemory, CpuEngineCountsDecodedParameters) {
  RunMemoryRequest request;
  request.available = 64 * kGiB;
  const gpu::ProverShape shape = shape_32gib();
  const RunMemoryPlan plan = plan_run_memory("32GiB", shape, request);
  EXPECT_FALSE(plan.device.has_value());
  EXPECT_EQ(plan.host.synthesis_workers, 1u);
  EXPECT_EQ(plan.host.parameter_bytes,
            (shape.h + shape.l + shape.a + shape.b_g1) * sizeof(algebra::G1Affine) +
                shape.b_g2 * sizeof(algebra::G2Affine));
  EXPECT_FALSE(plan.fits());  // ~46 GiB of points and three 17 GB partitions
  EXPECT_NE(plan.shortfall().find("--gpu"), std::string::npos) << plan.shortfall();
}

// An impossible device budget: both numbers and the budget that would fit are named.
TEST(RunMemory, DeviceShortfallNamesTheNumbers) {
  RunMemoryRequest request;
  request.gpu = true;
  request.device_budget = 4 * kGiB;
  request.device_budget_from = "--gpu-memory";
  const RunMemoryPlan plan = plan_run_memory("32GiB", shape_32gib(), request);
  ASSERT_TRUE(plan.device.has_value());
  EXPECT_FALSE(plan.fits());
  const std::string why = plan.shortfall();
  EXPECT_NE(why.find("4.0 GiB"), std::string::npos) << why;
  EXPECT_NE(why.find(std::to_string(plan.device->need)), std::string::npos) << why;
  const std::size_t would_fit = (plan.device->need + kGiB - 1) / kGiB;  // whole GiB
  EXPECT_NE(why.find("--gpu-memory " + std::to_string(would_fit) + "GiB"), std::string::npos) << why;
}

// CUDA's own memory is held besides the budget: the limit that would fit counts it too.
TEST(RunMemory, DeviceShortfallCountsCudaMemoryInTheLimitThatFits) {
  RunMemoryRequest request;
  request.gpu = true;
  request.device_budget = 4 * kGiB;
  request.device_cuda_memory = 3 * kGiB / 2;
  const RunMemoryPlan plan = plan_run_memory("32GiB", shape_32gib(), request);
  ASSERT_TRUE(plan.device.has_value());
  const std::size_t would_fit = (plan.device->need + request.device_cuda_memory + kGiB - 1) / kGiB;
  EXPECT_NE(plan.shortfall().find("--gpu-memory " + std::to_string(would_fit) + "GiB"), std::string::npos)
      << plan.shortfall();
}

TEST(RunMemory, TestOverrideOfAvailableMemory) {
  ::setenv("CUZK_TEST_MEM_AVAILABLE", "3GiB", 1);
  EXPECT_EQ(host_memory_available(), 3 * kGiB);
  ::unsetenv("CUZK_TEST_MEM_AVAILABLE");
  EXPECT_GT(host_memory_available(), 0u);  // /proc/meminfo's MemAvailable
}

}  // namespace
}  // namespace cuzk::job
