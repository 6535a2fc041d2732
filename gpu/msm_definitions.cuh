// Msm<Cfg>'s members (msm.hpp) over Msm<Cfg>::Impl (msm_impl.cuh): the bounds, the constructors that
// place the bases, and the entry points of a run. Included by msm_g1.cu and msm_g2.cu, which instantiate
// them for their group.
#pragma once
#include <cstddef>
#include <memory>
#include <span>
#include <vector>

#include "gpu/host_staging.hpp"
#include "gpu/msm.hpp"
#include "gpu/msm_impl.cuh"

namespace cuzk::gpu {

template <class Cfg>
std::size_t Msm<Cfg>::device_bytes_bound(std::size_t count, MsmTables tables, const MsmOptions& options) {
  const bool split = tables == MsmTables::kEndomorphism;
  return Impl::table_entries(count, tables) * sizeof(DeviceAffine) +
         MsmBytes::own(count, options.max_range, sizeof(DeviceAffine), split, options.max_window_bits,
                       options.max_sort_pairs);
}

template <class Cfg>
std::size_t Msm<Cfg>::workspace_bytes_bound(std::size_t count, MsmTables tables, const MsmOptions& options) {
  const bool split = tables == MsmTables::kEndomorphism;
  return MsmBytes::workspace(count, options.max_range, split, options.max_window_bits,
                             options.max_sort_pairs) +
         MsmBytes::shared_buckets(count, options.max_range, sizeof(DeviceAffine), split,
                                  options.max_window_bits, options.max_sort_pairs);
}

template <class Cfg>
typename Msm<Cfg>::DeviceAffine Msm<Cfg>::to_device(const Affine& p) {
  DeviceAffine d{};
  if (!p.infinity) {
    d.x = p.x;
    d.y = p.y;
  }
  return d;
}

template <class Cfg>
Msm<Cfg>::Msm(std::span<const Affine> bases, std::shared_ptr<MsmWorkspace> workspace, MsmTables tables)
    : impl_(std::make_unique<Impl>()) {
  impl_->ws = workspace ? std::move(workspace) : std::make_shared<MsmWorkspace>();
  impl_->count = bases.size();
  const std::size_t entries = Impl::table_entries(bases.size(), tables);
  if (bases.empty()) return;
  const std::size_t bytes = bases.size() * sizeof(DeviceAffine);
  CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&impl_->bases), entries * sizeof(DeviceAffine)));
  // Converted to the device layout chunk by chunk in pinned memory (the SRS vectors are up to 12 GiB at
  // 32GiB sectors: no second full copy on the host, and pinned-speed copies).
  std::optional<HostStaging>& staging = impl_->ws->staging;
  if (!staging) staging.emplace();
  staging->upload_generated(
      impl_->bases, bytes, sizeof(DeviceAffine),
      [&](std::byte* chunk, std::size_t offset, std::size_t len) {
        auto* out = reinterpret_cast<DeviceAffine*>(chunk);
        const std::size_t first = offset / sizeof(DeviceAffine);
        split_across_threads(len / sizeof(DeviceAffine), 1 << 16, [&](std::size_t begin, std::size_t end) {
          for (std::size_t i = begin; i < end; ++i) out[i] = to_device(bases[first + i]);
        });
      },
      impl_->stream.get());
  impl_->stream.synchronize();
  if (tables == MsmTables::kEndomorphism) impl_->fill_endomorphism_table();
}

template <class Cfg>
Msm<Cfg>::Msm(DeviceAffine* device_bases, std::size_t count, std::shared_ptr<MsmWorkspace> workspace,
              MsmTables tables)
    : impl_(std::make_unique<Impl>()) {
  impl_->ws = workspace ? std::move(workspace) : std::make_shared<MsmWorkspace>();
  impl_->bases = reinterpret_cast<DevAffine<typename Impl::F>*>(device_bases);
  impl_->count = count;
  const std::size_t entries = Impl::table_entries(count, tables);
  if (tables == MsmTables::kEndomorphism && count > 0) {
    // The bases move into a buffer with room for the second table, which the Msm owns from its allocation
    // on; the given one is freed when this scope ends, whatever happens.
    const std::unique_ptr<void, cudaError_t (*)(void*)> given(device_bases, cudaFree);
    impl_->bases = nullptr;
    CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&impl_->bases), entries * sizeof(DeviceAffine)));
    // On this Msm's stream, which the table's kernel then follows: a cudaMemcpy between device buffers
    // returns before the copy is done and runs on the legacy stream, which a non-blocking stream does not
    // wait for, so the kernel could read the new buffer before the bases are in it.
    CUDA_OK(cudaMemcpyAsync(impl_->bases, device_bases, count * sizeof(DeviceAffine),
                            cudaMemcpyDeviceToDevice, impl_->stream.get()));
    impl_->fill_endomorphism_table();  // synchronises the stream: the copy is done before `given` is freed
  }
}

template <class Cfg>
Msm<Cfg>::Msm(LentWindows windows, std::size_t count, std::shared_ptr<MsmWorkspace> workspace)
    : impl_(std::make_unique<Impl>()) {
  if (count > 0 && (!windows.first || !windows.second))
    throw GpuError("Msm: a lent window without its buffers");
  impl_->ws = workspace ? std::move(workspace) : std::make_shared<MsmWorkspace>();
  impl_->bases = reinterpret_cast<DevAffine<typename Impl::F>*>(windows.first);
  impl_->lent_second = reinterpret_cast<DevAffine<typename Impl::F>*>(windows.second);
  impl_->owns_bases = false;
  impl_->count = count;
}

template <class Cfg>
Msm<Cfg>::~Msm() = default;
template <class Cfg>
Msm<Cfg>::Msm(Msm&&) noexcept = default;
template <class Cfg>
Msm<Cfg>& Msm<Cfg>::operator=(Msm&&) noexcept = default;

template <class Cfg>
std::size_t Msm<Cfg>::size() const {
  return impl_->count;
}
template <class Cfg>
const typename Msm<Cfg>::DeviceAffine* Msm<Cfg>::device_bases() const {
  return reinterpret_cast<const DeviceAffine*>(impl_->bases);
}
template <class Cfg>
void Msm<Cfg>::load_bases(std::span<const DeviceAffine> host_bases) {
  if (impl_->split_scalars) throw GpuError("Msm::load_bases: not with the endomorphism table");
  if (host_bases.size() > impl_->count)
    throw GpuError("Msm::load_bases: " + std::to_string(host_bases.size()) + " bases for a window of " +
                   std::to_string(impl_->count));
  if (host_bases.empty()) return;
  CUDA_OK(cudaMemcpyAsync(impl_->bases, host_bases.data(), host_bases.size_bytes(), cudaMemcpyHostToDevice,
                          impl_->stream.get()));
}

template <class Cfg>
cudaStream_t Msm<Cfg>::stream() const {
  return impl_->stream.get();
}
template <class Cfg>
const MsmTimings& Msm<Cfg>::last_timings() const {
  return impl_->timings;
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run_device(const Fr* d_scalars, std::size_t count,
                                              const MsmOptions& options) {
  return impl_->run({.device = d_scalars}, count, options);
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run(std::span<const Fr> scalars, const MsmOptions& options) {
  if (scalars.size() > impl_->count) throw GpuError("Msm::run: more scalars than bases");
  return impl_->run({.host = scalars.data()}, scalars.size(), options);
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run_streamed(std::span<const Fr> scalars, const BaseLoader& load,
                                                const MsmOptions& options) {
  return impl_->run({.host = scalars.data()}, scalars.size(), options, &load);
}

template <class Cfg>
typename Msm<Cfg>::Point Msm<Cfg>::run_streamed_device(const Fr* d_scalars, std::size_t count,
                                                       const BaseLoader& load, const MsmOptions& options) {
  return impl_->run({.device = d_scalars}, count, options, &load);
}

template <class Cfg>
std::vector<typename Msm<Cfg>::Point> Msm<Cfg>::run_streamed_batch(
    std::span<const std::span<const Fr>> vectors, const BaseLoader& load, const MsmOptions& options) {
  std::vector<typename Impl::VectorIn> in;
  in.reserve(vectors.size());
  for (auto v : vectors) in.push_back({{.host = v.data()}, v.size()});
  return impl_->run_vectors(in, options, &load);
}

template <class Cfg>
std::vector<typename Msm<Cfg>::Point> Msm<Cfg>::run_batch(std::span<const std::span<const Fr>> vectors,
                                                          const MsmOptions& options) {
  std::vector<Point> out;
  out.reserve(vectors.size());
  for (auto v : vectors) out.push_back(run(v, options));
  return out;
}

}  // namespace cuzk::gpu
