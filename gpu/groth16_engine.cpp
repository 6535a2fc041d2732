#include "gpu/groth16_engine.hpp"

#include <fmt/format.h>
#include <spdlog/spdlog.h>

#include <algorithm>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/device_info.hpp"
#include "gpu/msm.hpp"
#include "gpu/ntt.hpp"

namespace cuzk::gpu {
namespace {

using algebra::Fr;

// An MSM over one base vector, or nothing for an empty vector (the sum over no bases is the identity).
template <class Cfg>
class ResidentBases {
 public:
  ResidentBases(const std::vector<algebra::Affine<Cfg>>& bases, std::shared_ptr<MsmWorkspace> workspace,
                MsmTables tables = MsmTables::kBases) {
    if (!bases.empty())
      msm_.emplace(std::span<const algebra::Affine<Cfg>>(bases), std::move(workspace), tables);
  }
  algebra::Jacobian<Cfg> run(std::span<const Fr> scalars) {
    if (scalars.empty()) return algebra::Jacobian<Cfg>::identity();
    check(scalars.size());
    return msm_->run(scalars);
  }
  // Scalars already on the device (complete: the caller synchronised their producer).
  algebra::Jacobian<Cfg> run_device(const Fr* d_scalars, std::size_t count) {
    if (count == 0) return algebra::Jacobian<Cfg>::identity();
    check(count);
    return msm_->run_device(d_scalars, count);
  }

 private:
  void check(std::size_t count) const {
    if (!msm_ || count > msm_->size())
      throw GpuError("GPU prover: " + std::to_string(count) + " scalars for " +
                     std::to_string(msm_ ? msm_->size() : 0) + " resident bases");
  }

  std::optional<Msm<Cfg>> msm_;
};

class GpuEngine final : public groth16::ProverEngine {
 public:
  // The five MSMs run one after another: one scratch workspace for all of them.
  explicit GpuEngine(const groth16::Parameters& p)
      : plan_(plan_device_memory(p)),
        workspace_(std::make_shared<MsmWorkspace>()),
        h_(p.h, workspace_, plan_.h_tables),
        l_(p.l, workspace_),
        a_(p.a, workspace_),
        b_g1_(p.b_g1, workspace_),
        b_g2_(p.b_g2, workspace_) {}

  std::size_t compute_h(std::vector<Fr> a, std::vector<Fr> b, std::vector<Fr> c) override {
    // The domain is the parameters' (h has 2^lg - 1 points): its tables and buffers are made once.
    if (!h_step_) {
      unsigned lg = 0;
      while ((std::size_t{1} << lg) < a.size()) ++lg;
      h_step_.emplace(lg);
    }
    return h_step_->run_on_device(a, b, c);  // h stays on the device for msm_h
  }
  algebra::G1 msm_h() override {
    if (!h_step_) throw GpuError("GPU prover: msm_h before compute_h");
    return h_.run_device(h_step_->device_h(), h_step_->h_count());
  }
  algebra::G1 msm_g1(G1Bases which, std::span<const Fr> scalars) override {
    switch (which) {
      case G1Bases::kL:
        return l_.run(scalars);
      case G1Bases::kA:
        return a_.run(scalars);
      case G1Bases::kBG1:
        return b_g1_.run(scalars);
    }
    throw GpuError("GPU prover: unknown base vector");
  }
  algebra::G2 msm_b_g2(std::span<const Fr> scalars) override { return b_g2_.run(scalars); }

 private:
  struct MemoryPlan {
    // The h MSM is the only one with random scalars (the others' are mostly 0 and 1): with the
    // endomorphism table (a second copy of its bases) its bucket reduction halves. Taken when it fits.
    MsmTables h_tables = MsmTables::kBases;
  };

  // Checked before the first upload, so that a machine without a GPU, or with too little memory for these
  // parameters, gets the reason at once instead of a CUDA error after minutes of uploads and synthesis.
  static MemoryPlan plan_device_memory(const groth16::Parameters& p) {
    std::string why;
    const std::vector<DeviceInfo> devices = list_devices(&why);
    if (devices.empty()) throw GpuError("the GPU prover was asked for, but no GPU is visible: " + why);
    const std::size_t largest = std::max({p.h.size(), p.l.size(), p.a.size(), p.b_g1.size(), p.b_g2.size()});
    unsigned h_log = 0;
    while ((std::size_t{1} << h_log) < p.h.size() + 1) ++h_log;
    const std::size_t bases_and_scratch =
        G1Msm::device_bytes_bound(p.h.size()) + G1Msm::device_bytes_bound(p.l.size()) +
        G1Msm::device_bytes_bound(p.a.size()) + G1Msm::device_bytes_bound(p.b_g1.size()) +
        G2Msm::device_bytes_bound(p.b_g2.size());
    const std::size_t workspace = G1Msm::workspace_bytes_bound(largest);
    const std::size_t h_step = HStep::device_bytes(h_log);
    const std::size_t need = bases_and_scratch + workspace + h_step;
    std::size_t free_bytes = 0, total_bytes = 0;
    CUDA_OK(cudaMemGetInfo(&free_bytes, &total_bytes));
    if (need > free_bytes) {
      auto gib = [](std::size_t bytes) { return fmt::format("{:.1f}", double(bytes) / double(1ull << 30)); };
      throw GpuError(fmt::format(
          "the GPU prover needs about {} GiB of device memory for these parameters (bases and per-MSM "
          "scratch {} GiB, shared MSM scratch {} GiB, H step {} GiB); {} has {} GiB free of {} GiB",
          gib(need), gib(bases_and_scratch), gib(workspace), gib(h_step), devices.front().name,
          gib(free_bytes), gib(total_bytes)));
    }
    MemoryPlan plan;
    const std::size_t with_table =
        need - G1Msm::device_bytes_bound(p.h.size()) - workspace +
        G1Msm::device_bytes_bound(p.h.size(), MsmTables::kEndomorphism) +
        std::max(workspace, G1Msm::workspace_bytes_bound(p.h.size(), MsmTables::kEndomorphism));
    if (!p.h.empty() && with_table <= free_bytes) plan.h_tables = MsmTables::kEndomorphism;
    spdlog::debug("GPU prover: h MSM {} the endomorphism table ({:.1f} of {:.1f} GiB free needed with it)",
                  plan.h_tables == MsmTables::kEndomorphism ? "with" : "without",
                  double(with_table) / double(1ull << 30), double(free_bytes) / double(1ull << 30));
    return plan;
  }

  MemoryPlan plan_;
  std::shared_ptr<MsmWorkspace> workspace_;
  ResidentBases<algebra::G1Config> h_, l_, a_, b_g1_;
  ResidentBases<algebra::G2Config> b_g2_;
  std::optional<HStep> h_step_;
};

}  // namespace

std::unique_ptr<groth16::ProverEngine> make_gpu_engine(const groth16::Parameters& params) {
  return std::make_unique<GpuEngine>(params);
}

}  // namespace cuzk::gpu
