// G1/G2 multi-scalar multiplication, Msm<Cfg>::Impl: a run's ranges, their classification, sorted digits
// and buckets, streamed windows, and the reduction (see msm.hpp for the algorithm; the kernels are in
// msm_kernels.cuh). Msm's members over it: msm_definitions.cuh, included by msm_g1.cu and msm_g2.cu (one
// translation unit per group, so that the two compile in parallel).
#pragma once
#include <algorithm>
#include <cstdlib>
#include <cstring>
#include <cub/device/device_radix_sort.cuh>
#include <cub/device/device_scan.cuh>
#include <future>
#include <optional>
#include <string_view>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/curve.cuh"
#include "gpu/device_buffer.hpp"
#include "gpu/host_staging.hpp"
#include "gpu/msm.hpp"
#include "gpu/msm_common.cuh"
#include "gpu/msm_kernels.cuh"
#include "gpu/msm_reduction.cuh"
#include "prover/algebra/endomorphism.hpp"

namespace cuzk::gpu {

template <class Cfg>
struct Msm<Cfg>::Impl {
  using F = typename DeviceField<Cfg>::type;
  static constexpr int NT = reduce_threads<F>();
  static_assert(sizeof(DevAffine<F>) == sizeof(DeviceAffine));
  static_assert(sizeof(Xyzz<F>) == 4 * sizeof(Field));

  DevAffine<F>* bases = nullptr;  // count bases, then (MsmTables::kEndomorphism) their images under phi
  bool owns_bases = true;         // false: a lent window (Msm::LentWindows), with lent_second beside it
  DevAffine<F>* lent_second = nullptr;
  std::size_t count = 0;
  bool split_scalars = false;  // the phi table is there: scalars are split in two halves
  Stream stream;
  MsmTimings timings;
  // The phases of the last run, for MsmTimings (record_phase_times): its start, then the end of each phase
  // (of its last range; a phase a range skips is recorded where it would have ended).
  struct PhaseEvents {
    Event started, classified, ones_summed, digits_made, sorted, accumulated, reduced;
  } phase;

  // Scratch, grown on demand and kept across calls: the sort scratch and the bucket state in the workspace
  // (shared with other Msm objects when the constructor was given one), the small rest here.
  std::shared_ptr<MsmWorkspace> ws;
  DeviceBuffer<uint32_t> heavy_list, heavy_count;
  DeviceBuffer<Xyzz<F>> window_sums, ones_partial, ones_total;
  DeviceBuffer<Xyzz<F>> ones_totals;  // one sum of the bases of ones per range and vector
  DeviceBuffer<unsigned long long> tail_counter;
  // This run's bucket state, in the workspace (ensure_bucket_buffers): the sums of every bucket of every
  // window; for one pass, the buckets' bounds, the chunks' partial runs and a later range's complete runs.
  Xyzz<F>* bucket_sums = nullptr;
  uint32_t *start = nullptr, *end = nullptr;
  Xyzz<F>*partial_first = nullptr, *partial_last = nullptr, *range_sums = nullptr;
  // Streaming (run with a BaseLoader): the second window buffer, the copy stream and its events.
  DeviceBuffer<DevAffine<F>> second_window;
  Stream copy_stream;
  Event loaded[2], released[2];
  // Per range of a run, for MsmRangeTotals: kept across runs, grown to the most ranges a run had.
  struct RangeEvents {
    Event begin, classified, resumed, ones, end, copy_begin, copy_end;
  };
  std::vector<RangeEvents> range_events;  // per range and vector: entry r * batch_ + v
  std::size_t batch_ = 1;                 // vectors of the current run
  BucketReduction<F, NT> reduction;

  ~Impl() {
    if (bases && owns_bases) cudaFree(bases);
  }

  void cub_ensure(std::size_t bytes) { ws->cub_temp.ensure(std::max<std::size_t>(bytes, 1)); }
  // `count` elements of T in a workspace byte buffer (grown on demand; old contents discarded on growth).
  template <class T>
  static T* typed(DeviceBuffer<unsigned char>& raw, std::size_t count) {
    raw.ensure(std::max<std::size_t>(count, 1) * sizeof(T));
    return reinterpret_cast<T*>(raw.data());
  }

  // Room for the bases and, with the endomorphism table, as many again (the sorted pairs' values hold
  // base indices below 2^31).
  static std::size_t table_entries(std::size_t count, MsmTables tables) {
    if (tables == MsmTables::kBases) return count;
    if (!std::is_same_v<Cfg, algebra::G1Config>) throw GpuError("Msm: the endomorphism table is for G1 only");
    if (count >= (std::size_t{1} << 30))
      throw GpuError("Msm: at most 2^30 - 1 bases with the endomorphism table");
    return 2 * count;
  }

  // phi(P_i) at bases[count + i], from the bases already in place.
  void fill_endomorphism_table() {
    if constexpr (std::is_same_v<Cfg, algebra::G1Config>) {
      const algebra::Fp beta = algebra::Fp::from_canonical(algebra::hex_to_limbs<6>(algebra::glv::kBetaHex));
      DevFp beta_dev;
      std::memcpy(&beta_dev, &beta, sizeof beta_dev);
      if (count > 0) {
        endomorphism_bases_kernel<<<uint32_t((count + 255) / 256), 256, 0, stream.get()>>>(
            bases, count, beta_dev, bases + count);
        CUDA_LAUNCH_OK();
        stream.synchronize();
      }
      split_scalars = true;
    }
  }

  // Where the Pippenger part finds its scalars: `count` of them, at the positions `index` lists
  // (nullptr: the first `count`, in order).
  struct Tail {
    const uint32_t* index = nullptr;
    std::size_t count = 0;
  };
  struct ScalarClasses {
    Tail tail;         // neither 0 nor 1
    std::size_t ones;  // equal to 1
  };

  // Where run() finds its scalars: on the device, or in host memory (uploaded a range at a time).
  struct Scalars {
    const Fr* device = nullptr;
    const Fr* host = nullptr;
  };

  // One scalar vector of a run and its state across the ranges: its own bucket sums (the workspace's
  // bucket_sums for the first vector, batch_bucket_sums for the others) and the sums of its bases of ones.
  struct VectorRun {
    Scalars in;
    std::size_t n = 0;
    std::size_t ranges = 0;
    std::optional<PippengerShape> whole;  // the layout of its whole MSM
    DeviceBuffer<unsigned char>* sums = nullptr;
    bool carry = false;           // its bucket sums hold an earlier range's
    std::size_t ones_ranges = 0;  // its ranges whose sum of the bases of ones is in ones_totals
  };

  // A streamed run's scalars in host memory: uploaded by start_load with the range's bases, on copy_stream,
  // into the buffers of the range's parity, so that range r + 1's scalars cross PCIe while range r is
  // computed (not on the queuing thread between two ranges, the stream idle meanwhile).
  std::vector<Scalars> prefetch_in_;     // per vector of the current run (its host scalars, or none)
  std::vector<std::size_t> prefetch_n_;  // their lengths

  // sum scalars[i] * P_i, i < n. The scalars go in ranges of at most opt.max_range (and at most a window,
  // when streaming): each range is classified and its digits sorted on its own, and its bucket sums are
  // added to those of the ranges before, so that the buckets are reduced once at the end. Bases: resident
  // (this Msm's table, `load` empty), or streamed: `load` fills a window buffer with range r's bases on
  // copy_stream while range r - 1 is computed on the other buffer.
  Point run(Scalars in, std::size_t n, const MsmOptions& opt, const BaseLoader* load = nullptr) {
    const VectorIn one{in, n};
    return run_vectors(std::span<const VectorIn>(&one, 1), opt, load).front();
  }

  struct VectorIn {
    Scalars in;
    std::size_t n = 0;
  };
  // run() of several scalar vectors over the same bases in one pass over them: each range's bases (a window,
  // when streaming) serve every vector before the next range's, so streamed bases cross PCIe once for all of
  // them. Each vector keeps its own bucket sums; the sums are those of run() of each.
  std::vector<Point> run_vectors(std::span<const VectorIn> vectors, const MsmOptions& opt,
                                 const BaseLoader* load = nullptr) {
    std::size_t n = 0;  // the longest vector
    for (const VectorIn& v : vectors) {
      if (v.n > count && !load) throw GpuError("Msm: more scalars than bases");
      if (v.n >= (std::size_t{1} << 31)) throw GpuError("Msm: at most 2^31 - 1 points");
      n = std::max(n, v.n);
    }
    if (opt.window_bits && (opt.window_bits < 2 || opt.window_bits > kMaxWindowBits))
      throw GpuError("Msm: window_bits must be in 2..24");
    if (load && split_scalars) throw GpuError("Msm: streamed bases with the endomorphism table");
    timings = {};
    cudaStream_t s = stream.get();
    phase.started.record(s);
    const std::size_t k = vectors.size();
    if (n == 0) return std::vector<Point>(k, Point::identity());

    std::size_t range = opt.max_range ? std::min(opt.max_range, n) : n;
    if (load) range = std::min(range, count);  // a window holds `count` bases
    const std::size_t ranges = (n + range - 1) / range;
    std::vector<VectorRun> runs = start_runs(vectors, range, opt, s);
    while (range_events.size() < ranges * k) range_events.emplace_back();
    ones_totals.ensure(ranges * k);  // vector v's at v * ranges
    prepare_scalar_prefetch(runs, range, ranges, load != nullptr);
    queue_ranges(runs, n, range, ranges, opt, load, s);
    return finish_runs(runs, ranges, n, load != nullptr, s);
  }

  // The state of each vector of a run before its first range: its bucket sums and the layout of its whole
  // MSM. Sets batch_.
  std::vector<VectorRun> start_runs(std::span<const VectorIn> vectors, std::size_t range,
                                    const MsmOptions& opt, cudaStream_t s) {
    const std::size_t k = vectors.size();
    batch_ = k;
    std::vector<VectorRun> runs(k);
    while (ws->batch_bucket_sums.size() + 1 < k) ws->batch_bucket_sums.emplace_back();
    for (std::size_t v = 0; v < k; ++v) {
      VectorRun& vr = runs[v];
      vr.in = vectors[v].in;
      vr.n = vectors[v].n;
      vr.ranges = (vr.n + range - 1) / range;
      vr.sums = v == 0 ? &ws->bucket_sums : &ws->batch_bucket_sums[v - 1];
      if (vr.n == 0) continue;
      // The layout is the whole MSM's: from the tail count when the scalars are on the device (one counting
      // pass), else from n (an upper bound; the planner sized the buckets for it).
      const std::size_t tail_estimate =
          !opt.split_ones
              ? vr.n
              : (vr.in.device ? count_tail(reinterpret_cast<const DevFr*>(vr.in.device), vr.n, s) : vr.n);
      vr.whole.emplace(PippengerShape::for_tail(std::max<std::size_t>(tail_estimate, 1), split_scalars,
                                                opt.window_bits, opt.max_window_bits, vr.ranges));
    }
    return runs;
  }

  // Which vectors of a streamed run have their scalars uploaded by start_load (those in host memory), and
  // their buffers, made here (not on the loading thread).
  void prepare_scalar_prefetch(const std::vector<VectorRun>& runs, std::size_t range, std::size_t ranges,
                               bool streamed) {
    const std::size_t k = runs.size();
    prefetch_in_.assign(k, Scalars{});
    prefetch_n_.assign(k, 0);
    if (!streamed || !scalar_prefetch_enabled()) return;
    for (std::size_t v = 0; v < k; ++v)
      if (runs[v].n > 0 && !runs[v].in.device) {
        prefetch_in_[v] = runs[v].in;
        prefetch_n_[v] = runs[v].n;
        for (std::size_t parity = 0; parity < std::min<std::size_t>(2, ranges); ++parity)
          prefetched_scalars(parity, v).ensure(std::min(range, runs[v].n));
      }
    if (!ws->staging && std::any_of(prefetch_n_.begin(), prefetch_n_.end(), [](std::size_t m) { return m; }))
      ws->staging.emplace();
  }

  // Every range of every vector queued on the stream, range by range; streamed, range r + 1's bases (and
  // prefetched scalars) are loaded on copy_stream while range r is computed.
  void queue_ranges(std::vector<VectorRun>& runs, std::size_t n, std::size_t range, std::size_t ranges,
                    const MsmOptions& opt, const BaseLoader* load, cudaStream_t s) {
    const std::size_t k = runs.size();
    // The load of the next range runs on a thread of its own (a loader may read the file first), so that
    // this thread goes on queuing the current range's work. Declared after everything it uses: a failure
    // here waits for it on the way out.
    int device = 0;
    CUDA_OK(cudaGetDevice(&device));
    std::future<void> next_load;
    if (load) start_load(*load, 0, 0, std::min(range, n));
    for (std::size_t r = 0; r < ranges; ++r) {
      const std::size_t first = r * range, len = std::min(range, n - first);
      const DevAffine<F>* range_bases = bases + first;
      if (load) {
        range_bases = window_buffer(r);
        if (next_load.valid()) next_load.get();  // range r's copies are queued (rethrows the loader's error)
        CUDA_OK(cudaStreamWaitEvent(s, loaded[r % 2].get(), 0));  // and done before its bases are read
        if (r + 1 < ranges) {
          window_buffer(r + 1);  // made here, not on the loading thread
          const std::size_t next_first = first + range, next_len = std::min(range, n - next_first);
          next_load = std::async(std::launch::async, [this, load, device, r, next_first, next_len] {
            CUDA_OK(cudaSetDevice(device));
            start_load(*load, r + 1, next_first, next_len);
          });
        }
      }
      for (std::size_t v = 0; v < k; ++v) {
        RangeEvents& re = range_events[r * k + v];
        if (first >= runs[v].n) {  // a shorter vector: nothing of it in this range
          re.begin.record(s);
          re.classified.record(s);
          re.resumed.record(s);
          re.ones.record(s);
          re.end.record(s);
          continue;
        }
        const std::size_t len_v = std::min(len, runs[v].n - first);
        const DevFr* scalars = prefetch_n_[v]
                                   ? reinterpret_cast<const DevFr*>(prefetched_scalars(r % 2, v).data())
                                   : range_scalars(runs[v].in, first, len_v, s);
        add_range(runs[v], v * ranges, first, len_v, scalars, range_bases, opt, re, s);
      }
      if (load) released[r % 2].record(s);  // the window buffer may be refilled after this
    }
  }

  // After the ranges: one reduction of each vector's buckets (none when every scalar was 0 or 1), the ones'
  // sums added up, each vector's sum combined on the host; the run's timings.
  std::vector<Point> finish_runs(std::vector<VectorRun>& runs, std::size_t ranges, std::size_t n,
                                 bool streamed, cudaStream_t s) {
    const std::size_t k = runs.size();
    std::vector<std::vector<Xyzz<F>>> host_window_sums(k);
    std::vector<std::optional<WindowLayout>> layouts(k);
    std::vector<std::optional<Xyzz<F>>> ones_host_sums(k);
    ones_total.ensure(k);
    for (std::size_t v = 0; v < k; ++v) {
      VectorRun& vr = runs[v];
      if (vr.carry) {
        layouts[v] = vr.whole->layout;
        bucket_sums = reinterpret_cast<Xyzz<F>*>(vr.sums->data());
        host_window_sums[v] = reduce_windows(*vr.whole, s);
      }
      if (vr.ones_ranges) {
        ones_host_sums[v].emplace();
        Xyzz<F>* total = ones_totals.data() + v * ranges;
        if (vr.ones_ranges > 1) {
          sum_points_kernel<F, NT><<<1, NT, 0, s>>>(total, uint32_t(vr.ones_ranges), ones_total.data() + v);
          CUDA_LAUNCH_OK();
          total = ones_total.data() + v;
        }
        CUDA_OK(cudaMemcpyAsync(&*ones_host_sums[v], total, sizeof(Xyzz<F>), cudaMemcpyDeviceToHost, s));
      }
    }
    phase.reduced.record(s);
    CUDA_OK(cudaStreamSynchronize(s));
    record_phase_times(layouts.back());
    record_range_totals(ranges, k, streamed, n);
    std::vector<Point> out;
    out.reserve(k);
    for (std::size_t v = 0; v < k; ++v)
      out.push_back(combine_on_host(layouts[v], host_window_sums[v], ones_host_sums[v]));
    return out;
  }

  // Range [first, first + len) of one vector of a run (its `scalars` on the device), against `range_bases`
  // (the range's first base):
  // 1. the scalars equal to one are summed apart (into ones_totals[ones_base + ...]); the others (0
  // excluded) are the tail. Without the split, every scalar is in the tail. 2. Pippenger over the tail:
  // signed digits sorted by bucket, bucket sums added to the vector's carried ones; the windows in passes of
  // at most opt.max_sort_pairs pairs, each pass into its windows' buckets.
  void add_range(VectorRun& vr, std::size_t ones_base, std::size_t first, std::size_t len,
                 const DevFr* scalars, const DevAffine<F>* range_bases, const MsmOptions& opt,
                 RangeEvents& re, cudaStream_t s) {
    re.begin.record(s);
    ScalarClasses classes{.tail = {nullptr, len}, .ones = 0};
    if (opt.split_ones) {
      classes = classify_scalars(scalars, uint32_t(len), re.classified, s);
      re.resumed.record(s);  // after the host's wait: from `classified` to here, the stream idled
      if (classes.ones)
        sum_bases_of_ones(classes.ones, range_bases, ones_totals.data() + ones_base + vr.ones_ranges++, s);
    } else {
      phase.classified.record(s);
      re.classified.record(s);
      re.resumed.record(s);
    }
    re.ones.record(s);
    phase.ones_summed.record(s);
    timings.ones_count += classes.ones;
    timings.tail_count += classes.tail.count;
    if (classes.tail.count > 0) {
      const PippengerShape shape = vr.whole->for_range(classes.tail.count, split_scalars);
      const unsigned per_pass = shape.windows_per_pass(opt.max_sort_pairs);
      ensure_bucket_buffers(*vr.whole, shape, per_pass, vr.ranges > 1, *vr.sums);
      for (unsigned w = 0; w < shape.layout.windows; w += per_pass) {
        const PassWindows pass{w, std::min(w + per_pass, shape.layout.windows)};
        sort_digits_by_bucket(scalars, classes.tail, shape, pass, s);
        accumulate_buckets(shape, pass, range_bases, vr.carry, s);
      }
      vr.carry = true;
    } else {
      phase.digits_made.record(s);
      phase.sorted.record(s);
      phase.accumulated.record(s);
    }
    re.end.record(s);
  }

  // The bases of a streamed MSM: load(first, count, dst, stream) queues the copy of bases [first, first +
  // count) into dst on `stream`.
  void start_load(const BaseLoader& load, std::size_t r, std::size_t first, std::size_t len) {
    cudaStream_t c = copy_stream.get();
    if (r >= 2) CUDA_OK(cudaStreamWaitEvent(c, released[r % 2].get(), 0));  // range r - 2 is done with it
    RangeEvents& re = range_events[r * batch_];  // a range's copy events are its first vector's
    re.copy_begin.record(c);
    load(first, len, reinterpret_cast<DeviceAffine*>(window_buffer(r)), c);
    // The scalars' buffers of this parity were last read by range r - 2, which `released` covers. Only this
    // thread uses the staging during a streamed run (the queuing thread reads the prefetched buffers).
    for (std::size_t v = 0; v < prefetch_n_.size(); ++v)
      if (first < prefetch_n_[v])
        ws->staging->upload(prefetched_scalars(r % 2, v).data(), prefetch_in_[v].host + first,
                            std::min(len, prefetch_n_[v] - first) * sizeof(Fr), c);
    re.copy_end.record(c);
    loaded[r % 2].record(c);
  }
  // Window buffer of range r: the table itself for even ranges, a second one of the same size for odd ones.
  DevAffine<F>* window_buffer(std::size_t r) {
    if (r % 2 == 0) return bases;
    if (lent_second) return lent_second;
    second_window.ensure(count);
    return second_window.data();
  }

  // Off with CUZK_GPU_SCALAR_PREFETCH=0 (for A/B runs): each range's host scalars are then uploaded on the
  // compute stream before the range, by the queuing thread.
  static bool scalar_prefetch_enabled() {
    static const bool enabled = [] {
      const char* value = std::getenv("CUZK_GPU_SCALAR_PREFETCH");
      return !(value && std::string_view(value) == "0");
    }();
    return enabled;
  }

  // The device buffer of vector v's prefetched scalars for ranges of this parity: the workspace's scalar
  // buffer for the first, the workspace's prefetch buffers for the others (MsmBytes::prefetch_scalars).
  DeviceBuffer<Fr>& prefetched_scalars(std::size_t parity, std::size_t v) {
    const std::size_t i = parity * batch_ + v;
    if (i == 0) return ws->scalars;
    while (ws->prefetch_scalars.size() < i) ws->prefetch_scalars.emplace_back();
    return ws->prefetch_scalars[i - 1];
  }

  // Range [first, first + len) of the scalars on the device: in place, or uploaded into the workspace.
  const DevFr* range_scalars(Scalars in, std::size_t first, std::size_t len, cudaStream_t s) {
    if (in.device) return reinterpret_cast<const DevFr*>(in.device + first);
    ws->scalars.ensure(std::max<std::size_t>(len, 1));
    std::optional<HostStaging>& staging = ws->staging;
    if (!staging) staging.emplace();
    staging->upload(ws->scalars.data(), in.host + first, len * sizeof(Fr), s);
    return reinterpret_cast<const DevFr*>(ws->scalars.data());
  }

  // The number of scalars that are neither 0 nor 1 (one pass; the layout of a ranged MSM is chosen by it).
  std::size_t count_tail(const DevFr* scalars, std::size_t n, cudaStream_t s) {
    tail_counter.ensure(1);
    tail_counter.zero(s);
    count_tail_kernel<<<uint32_t((n + 255) / 256), 256, 0, s>>>(scalars, n, tail_counter.data());
    CUDA_LAUNCH_OK();
    unsigned long long tail = 0;
    CUDA_OK(cudaMemcpyAsync(&tail, tail_counter.data(), sizeof tail, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaStreamSynchronize(s));
    return std::size_t(tail);
  }

 private:
  // Classification and compaction: the positions of the tail scalars (neither 0 nor 1) into
  // ws->tail_index, those of the scalars equal to one into ws->ones_index. Waits for the stream: the
  // host needs both counts to size what follows.
  ScalarClasses classify_scalars(const DevFr* scalars, uint32_t n32, Event& classified, cudaStream_t s) {
    const std::size_t n = n32;
    const uint32_t words = (n32 + 31) / 32;
    ws->ones_bitmap.ensure(words);
    ws->ones_per_word.ensure(words);
    ws->ones_offset.ensure(words);
    ws->ones_index.ensure(n);
    ws->tail_flag.ensure(n);
    ws->tail_pos.ensure(n);
    ws->tail_index.ensure(n);
    classify_kernel<<<(n32 + 255) / 256, 256, 0, s>>>(scalars, n32, ws->ones_bitmap.data(),
                                                      ws->ones_per_word.data(), ws->tail_flag.data());
    CUDA_LAUNCH_OK();
    std::size_t bytes = 0, bytes2 = 0;
    CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, bytes, ws->tail_flag.data(), ws->tail_pos.data(), int(n32),
                                          s));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(nullptr, bytes2, ws->ones_per_word.data(), ws->ones_offset.data(),
                                          int(words), s));
    cub_ensure(std::max(bytes, bytes2));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(ws->cub_temp.data(), bytes, ws->tail_flag.data(),
                                          ws->tail_pos.data(), int(n32), s));
    CUDA_OK(cub::DeviceScan::ExclusiveSum(ws->cub_temp.data(), bytes2, ws->ones_per_word.data(),
                                          ws->ones_offset.data(), int(words), s));
    scatter_tail_kernel<<<(n32 + 255) / 256, 256, 0, s>>>(ws->tail_flag.data(), ws->tail_pos.data(), n32,
                                                          ws->tail_index.data());
    CUDA_LAUNCH_OK();
    scatter_ones_kernel<<<(n32 + 255) / 256, 256, 0, s>>>(ws->ones_bitmap.data(), ws->ones_offset.data(), n32,
                                                          ws->ones_index.data());
    CUDA_LAUNCH_OK();
    // The counts are the last exclusive prefix sums plus the last elements.
    uint32_t last[4] = {0, 0, 0, 0};
    CUDA_OK(cudaMemcpyAsync(&last[0], ws->tail_pos.data() + n32 - 1, 4, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaMemcpyAsync(&last[1], ws->tail_flag.data() + n32 - 1, 4, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaMemcpyAsync(&last[2], ws->ones_offset.data() + words - 1, 4, cudaMemcpyDeviceToHost, s));
    CUDA_OK(cudaMemcpyAsync(&last[3], ws->ones_per_word.data() + words - 1, 4, cudaMemcpyDeviceToHost, s));
    phase.classified.record(s);
    classified.record(s);
    CUDA_OK(cudaStreamSynchronize(s));
    timings.classify_ms = phase.classified.elapsed_ms_since(phase.started);
    return {.tail = {ws->tail_index.data(), std::size_t(last[0]) + last[1]},
            .ones = std::size_t(last[2]) + last[3]};
  }

  // Batch addition of the bases of the `ones` scalars equal to one (ws->ones_index) into *out.
  void sum_bases_of_ones(std::size_t ones, const DevAffine<F>* range_bases, Xyzz<F>* out, cudaStream_t s) {
    constexpr int kOnesThreads = 128;
    uint32_t per_thread = 1;
    while (ones / per_thread > (std::size_t{1} << 17)) per_thread <<= 1;
    const uint32_t threads = uint32_t((ones + per_thread - 1) / per_thread);
    const uint32_t blocks = (threads + kOnesThreads - 1) / kOnesThreads;
    ones_partial.ensure(blocks);
    ones_sum_kernel<F, kOnesThreads><<<blocks, kOnesThreads, 0, s>>>(
        ws->ones_index.data(), uint32_t(ones), per_thread, range_bases, ones_partial.data());
    CUDA_LAUNCH_OK();
    sum_points_kernel<F, NT><<<1, NT, 0, s>>>(ones_partial.data(), blocks, out);
    CUDA_LAUNCH_OK();
  }

  // The sorted pairs, the bucket sums of every window, and a pass's bucket bounds, partial runs and (ranged)
  // complete runs, in the workspace for `shape` in passes of `per_pass` windows. The bucket sums' size is
  // the whole MSM's, the same for every range, so they are never reallocated (and lost) within a run.
  void ensure_bucket_buffers(const PippengerShape& whole, const PippengerShape& shape, unsigned per_pass,
                             bool ranged, DeviceBuffer<unsigned char>& sums) {
    const std::size_t all_buckets = std::size_t(whole.buckets) * whole.layout.windows;
    const std::size_t pass_buckets = std::size_t(whole.buckets) * per_pass;
    const std::size_t pass_pairs = shape.per_window * per_pass;
    const std::size_t pass_chunks = shape.chunks * per_pass;
    ws->keys_in.ensure(pass_pairs);
    ws->values_in.ensure(pass_pairs);
    ws->keys_out.ensure(pass_pairs);
    ws->values_out.ensure(pass_pairs);
    ws->bucket_start.ensure(pass_buckets);
    ws->bucket_end.ensure(pass_buckets);
    start = ws->bucket_start.data();
    end = ws->bucket_end.data();
    bucket_sums = typed<Xyzz<F>>(sums, all_buckets);
    partial_first = typed<Xyzz<F>>(ws->partial_first, pass_chunks);
    partial_last = typed<Xyzz<F>>(ws->partial_last, pass_chunks);
    range_sums = ranged ? typed<Xyzz<F>>(ws->range_sums, pass_buckets) : nullptr;
  }

  // The signed digits of the tail scalars in the pass's windows as (bucket, point) pairs, window by window,
  // sorted by bucket into ws->keys_out/values_out.
  void sort_digits_by_bucket(const DevFr* scalars, const Tail& tail, const PippengerShape& shape,
                             PassWindows pass, cudaStream_t s) {
    // Sorted pairs per window: one per tail scalar, or one per half of a split scalar.
    const uint32_t m32 = uint32_t(shape.per_window);
    const unsigned c = shape.layout.c, windows = pass.end - pass.begin;
    const uint32_t phi_offset = split_scalars ? uint32_t(count) : 0;
    digits_kernel<<<uint32_t((tail.count + 127) / 128), 128, 0, s>>>(
        scalars, tail.index, uint32_t(tail.count), shape.layout, pass, phi_offset, ws->keys_in.data(),
        ws->values_in.data());
    CUDA_LAUNCH_OK();
    phase.digits_made.record(s);
    std::size_t bytes = 0;
    CUDA_OK(cub::DeviceRadixSort::SortPairs(nullptr, bytes, ws->keys_in.data(), ws->keys_out.data(),
                                            ws->values_in.data(), ws->values_out.data(), int(m32), 0, int(c),
                                            s));
    cub_ensure(bytes);
    for (unsigned w = 0; w < windows; ++w) {
      std::size_t off = std::size_t(w) * m32;
      CUDA_OK(cub::DeviceRadixSort::SortPairs(ws->cub_temp.data(), bytes, ws->keys_in.data() + off,
                                              ws->keys_out.data() + off, ws->values_in.data() + off,
                                              ws->values_out.data() + off, int(m32), 0, int(c), s));
    }
    phase.sorted.record(s);
  }

  // The pass's buckets' sums into bucket_sums from the sorted pairs: the bounds of every bucket's run, the
  // runs of every thread's chunk, then the buckets cut by chunk ends (few runs: fixup_kernel; many: a block
  // each in heavy_fixup_kernel). The kernels see the pass's windows as windows 0, 1, ...
  void accumulate_buckets(const PippengerShape& shape, PassWindows pass, const DevAffine<F>* range_bases,
                          bool carry, cudaStream_t s) {
    const uint32_t m32 = uint32_t(shape.per_window);
    const unsigned windows = pass.end - pass.begin;
    const uint32_t nb = shape.buckets, chunk = shape.chunk, chunks = uint32_t(shape.chunks);
    const std::size_t pairs = std::size_t(m32) * windows;
    const std::size_t all_buckets = std::size_t(nb) * windows;
    Xyzz<F>* pass_sums = bucket_sums + std::size_t(pass.begin) * nb;
    CUDA_OK(cudaMemsetAsync(start, 0, all_buckets * sizeof(uint32_t), s));
    CUDA_OK(cudaMemsetAsync(end, 0, all_buckets * sizeof(uint32_t), s));
    bucket_bounds_kernel<<<uint32_t((pairs + 255) / 256), 256, 0, s>>>(ws->keys_out.data(), m32, windows, nb,
                                                                       start, end);
    CUDA_LAUNCH_OK();
    const std::size_t threads = std::size_t(chunks) * windows;
    // The first range writes the bucket sums; later ones write their complete runs apart, carried by fixup.
    Xyzz<F>* complete_runs = carry ? range_sums : pass_sums;
    accumulate_kernel<F><<<uint32_t((threads + 127) / 128), 128, 0, s>>>(
        ws->keys_out.data(), ws->values_out.data(), m32, windows, nb, chunk, chunks, start, end, range_bases,
        complete_runs, partial_first, partial_last);
    CUDA_LAUNCH_OK();
    // At most this many buckets can be cut into more than kMaxSerial runs.
    constexpr uint32_t kMaxSerial = 16;
    const std::size_t heavy_bound = pairs / (std::size_t(kMaxSerial - 1) * chunk) + 1;
    heavy_list.ensure(heavy_bound);
    heavy_count.ensure(1);
    heavy_count.zero(s);
    fixup_kernel<F><<<uint32_t((all_buckets + 127) / 128), 128, 0, s>>>(
        nb, windows, chunk, chunks, start, end, partial_first, partial_last, pass_sums, kMaxSerial,
        heavy_list.data(), heavy_count.data(), carry, complete_runs);
    CUDA_LAUNCH_OK();
    heavy_fixup_kernel<F, NT><<<uint32_t(std::min<std::size_t>(heavy_bound, all_buckets)), NT, 0, s>>>(
        nb, chunk, chunks, start, end, partial_first, partial_last, pass_sums, heavy_list.data(),
        heavy_count.data(), carry);
    CUDA_LAUNCH_OK();
    phase.accumulated.record(s);
  }

  // Each window's bucket sums reduced to its sum, sum_b b B_b, copied to the host (enqueued on the
  // stream: valid once it is synchronised; moving the vector keeps its storage).
  std::vector<Xyzz<F>> reduce_windows(const PippengerShape& shape, cudaStream_t s) {
    const unsigned windows = shape.layout.windows;
    window_sums.ensure(windows);
    reduction.run(bucket_sums, shape.buckets, shape.layout, window_sums.data(), s);
    std::vector<Xyzz<F>> host_window_sums(windows);
    CUDA_OK(cudaMemcpyAsync(host_window_sums.data(), window_sums.data(), windows * sizeof(Xyzz<F>),
                            cudaMemcpyDeviceToHost, s));
    return host_window_sums;
  }

  // The phase times from the events run() recorded (the stream synchronised).
  void record_phase_times(const std::optional<WindowLayout>& layout) {
    timings.ones_ms = phase.ones_summed.elapsed_ms_since(phase.classified);
    timings.digits_ms = phase.digits_made.elapsed_ms_since(phase.ones_summed);
    timings.sort_ms = phase.sorted.elapsed_ms_since(phase.digits_made);
    timings.accumulate_ms = phase.accumulated.elapsed_ms_since(phase.sorted);
    timings.reduce_ms = phase.reduced.elapsed_ms_since(phase.accumulated);
    timings.window_bits = layout ? layout->c : 0;
    timings.windows = layout ? layout->windows : 0;
  }

  // The sums over the run's ranges (the stream synchronised), `vectors` entries of range_events a range. An
  // entry's stall is the time from the end of the entry before (the run's start for the first) to its
  // beginning, when its window's copy (or its scalars' upload) held it.
  void record_range_totals(std::size_t ranges, std::size_t vectors, bool streamed, std::size_t n) {
    MsmRangeTotals& t = timings.ranges;
    t = {};
    t.ranges = ranges;
    t.wall_ms = phase.reduced.elapsed_ms_since(phase.started);
    for (std::size_t e = 0; e < ranges * vectors; ++e) {
      const RangeEvents& re = range_events[e];
      t.stall_ms += re.begin.elapsed_ms_since(e ? range_events[e - 1].end : phase.started);
      t.classify_ms += re.classified.elapsed_ms_since(re.begin);
      t.host_gap_ms += re.resumed.elapsed_ms_since(re.classified);
      t.ones_ms += re.ones.elapsed_ms_since(re.resumed);
      t.pippenger_ms += re.end.elapsed_ms_since(re.ones);
      if (streamed && e % vectors == 0) t.copy_ms += re.copy_end.elapsed_ms_since(re.copy_begin);
    }
    t.copied_bases = streamed ? n : 0;
  }

  // Horner over the windows: sum_w 2^(offset w) Q_w, doubling by the width of each lower window; plus
  // the sum of the bases of the scalars equal to one.
  static Point combine_on_host(const std::optional<WindowLayout>& layout,
                               const std::vector<Xyzz<F>>& host_window_sums,
                               const std::optional<Xyzz<F>>& ones_sum) {
    auto to_point = [](const Xyzz<F>& x) {
      Field f[4];
      std::memcpy(f, &x, sizeof f);
      return jacobian_from_xyzz(f[0], f[1], f[2], f[3]);
    };
    Point result = Point::identity();
    for (unsigned w = layout ? layout->windows : 0; w-- > 0;) {
      for (unsigned j = 0; j < layout->width(w) && !result.is_identity(); ++j) result = result.dbl();
      result = result + to_point(host_window_sums[w]);
    }
    if (ones_sum) result = result + to_point(*ones_sum);
    return result;
  }
};

}  // namespace cuzk::gpu
