// The MSM's bucket reduction: for every window, Q_w = sum_k (k + 1) P_k over its bucket sums P_k, in three
// levels (segments of buckets, blocks of segments, windows), each a parallel form of the running sum.
// Included by gpu/msm_impl.cuh.
#pragma once
#include <algorithm>
#include <cstdint>

#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/msm_common.cuh"

namespace cuzk::gpu {
namespace {

// Bucket reduction, level 1: segment s of L buckets of window w gives R_s = sum P_k and
// T_s = sum k P_k (k local, 0 .. L-1), by running sums from the top. One thread per used segment (the
// narrow windows' first, layout.total_used_segments): segments past the buckets a narrow window uses
// get no thread and are not written, and reduce_entries_kernel does not read them. A thread for every
// laid-out segment, idle in a narrow window's upper half, saved no time (H200, 2^27: blocks land on SMs in
// order, and the SMs that drew three busy blocks still set the time).
template <class F>
__global__ void __launch_bounds__(128)
    reduce_segments_kernel(const Xyzz<F>* __restrict__ bucket_sums, uint32_t buckets, WindowLayout layout,
                           uint32_t seg_len, Xyzz<F>* __restrict__ seg_t, Xyzz<F>* __restrict__ seg_r) {
  const size_t u = blockIdx.x * size_t(blockDim.x) + threadIdx.x;
  if (u >= layout.total_used_segments(seg_len)) return;
  uint32_t w, segment;
  layout.used_segment(u, seg_len, w, segment);
  // The segment as laid out (level 2 reads it there); windows are contiguous, so it starts at g L.
  const size_t g = std::size_t(w) * (buckets / seg_len) + segment;
  const Xyzz<F>* p = bucket_sums + g * seg_len;
  Xyzz<F> run = Xyzz<F>::infinity(), acc = Xyzz<F>::infinity();
  for (uint32_t k = seg_len - 1; k >= 1; --k) {
    run.add(load_vec_rw(p + k));
    acc.add(run);
  }
  run.add(load_vec_rw(p));
  store_vec(seg_t + g, acc);
  store_vec(seg_r + g, run);
}

// Levels 2 and 3. Entry e of a window stands for L = 2^log_len buckets, e L .. e L + L - 1, by
// T_e = sum_j j P_{eL+j} and R_e = sum_j P_{eL+j} (level 1's segments; at level 3, level 2's blocks, whose
// T_e already includes R_e: include_r false). The window's sum is
//   Q = sum_k (k + 1) P_k = sum_e (T_e + R_e) + L sum_e e R_e.
// Block b of window w takes entries [b K, b K + K) (K = per_block) and writes
//   S_b = sum (T_e + R_e) + L sum (e - b K) R_e  and  R_b = sum R_e,
// so that Q = sum_b S_b + (L K) sum_b b R_b: the same form one level up, with entries of L K buckets; one
// block per window (K = entries) gives Q itself. Thread u takes entries [u M, u M + M) (M = per):
// V_u = sum (T_e + R_e), A_u = sum (e - u M) R_e, Rr_u = sum R_e; then sum e R_e = sum_u A_u +
// M sum_u u Rr_u, and sum_u u Rr_u = sum_{u >= 1} suffix_u (suffix sums by a scan in shared memory).
// A window's used entries are ceil(its used level-1 segments / unit) (unit: level-1 segments per entry);
// the others (a narrow window's upper half) are unwritten and not read.
template <class F, int NT>
__global__ void __launch_bounds__(NT)
    reduce_entries_kernel(const Xyzz<F>* __restrict__ t_in, const Xyzz<F>* __restrict__ r_in,
                          uint32_t entries, uint32_t per_block, unsigned log_len, bool include_r,
                          WindowLayout layout, uint32_t seg_len, uint32_t unit, Xyzz<F>* __restrict__ s_out,
                          Xyzz<F>* __restrict__ r_out) {
  __shared__ Xyzz<F> buf[NT];
  const uint32_t blocks_per_window = entries / per_block;
  const uint32_t w = blockIdx.x / blocks_per_window, b = blockIdx.x % blocks_per_window;
  const uint32_t used = (layout.used_segments(w, seg_len) + unit - 1) / unit;
  const uint32_t first = b * per_block;
  if (first >= used) return;  // the whole block: none of its entries is used (level 3 does not read it)
  const Xyzz<F>* T = t_in + size_t(w) * entries + first;
  const Xyzz<F>* R = r_in + size_t(w) * entries + first;
  const uint32_t count = min(per_block, used - first);
  const uint32_t per = (per_block + NT - 1) / NT;  // a power of two (per_block and NT are)
  const uint32_t lo = threadIdx.x * per, hi = min(lo + per, count);
  Xyzz<F> V = Xyzz<F>::infinity(), run = Xyzz<F>::infinity(), A = Xyzz<F>::infinity();
  for (uint32_t e = hi; e-- > lo;) {
    Xyzz<F> r = load_vec_rw(R + e);
    V.add(load_vec_rw(T + e));
    if (include_r) V.add(r);
    run.add(r);
    if (e > lo) A.add(run);
  }
  // Suffix sums of Rr (= run) over threads.
  buf[threadIdx.x] = run;
  __syncthreads();
#pragma unroll 1
  for (int d = 1; d < NT; d <<= 1) {
    Xyzz<F> x = buf[threadIdx.x];
    if (int(threadIdx.x) + d < NT) x.add(buf[threadIdx.x + d]);
    __syncthreads();
    buf[threadIdx.x] = x;
    __syncthreads();
  }
  Xyzz<F> suffix = threadIdx.x >= 1 ? buf[threadIdx.x] : Xyzz<F>::infinity();
  const Xyzz<F> block_r = buf[0];  // sum of every R_e of the block
  __syncthreads();
  // W_u = V_u + L (A_u + M suffix_u); L and M are powers of two.
  for (unsigned j = 0, log_per = log2_floor(per); j < log_per; ++j) suffix = suffix.dbl();
  A.add(suffix);
  for (unsigned j = 0; j < log_len; ++j) A = A.dbl();
  V.add(A);
  Xyzz<F> total = block_sum<F, NT>(V, buf);
  if (threadIdx.x == 0) {
    store_vec(s_out + blockIdx.x, total);
    if (r_out) store_vec(r_out + blockIdx.x, block_r);
  }
}

// Levels 1 to 3 over the buckets of every window, with the scratch they keep across calls.
template <class F, int NT>
class BucketReduction {
 public:
  // window_sums[w] = sum_k (k + 1) bucket_sums[w nb + k] over window w's used buckets, on `stream`.
  void run(const Xyzz<F>* bucket_sums, uint32_t nb, const WindowLayout& layout, Xyzz<F>* window_sums,
           cudaStream_t stream) {
    const unsigned windows = layout.windows;
    // Level 1, segments of seg_len buckets, one thread each; level 2, blocks of up to kLevel2Entries
    // segments (8 per thread), several per window; level 3, one block per window.
    const uint32_t seg_len = segment_length(layout, nb);
    const uint32_t segs = nb / seg_len;
    constexpr uint32_t kLevel2Entries = 8 * NT;
    const uint32_t per_block = std::min(segs, kLevel2Entries), blocks = segs / per_block;
    seg_t_.ensure(std::size_t(segs) * windows);
    seg_r_.ensure(std::size_t(segs) * windows);
    block_s_.ensure(std::size_t(blocks) * windows);
    block_r_.ensure(std::size_t(blocks) * windows);
    const std::size_t seg_threads = layout.total_used_segments(seg_len);
    reduce_segments_kernel<F><<<uint32_t((seg_threads + 127) / 128), 128, 0, stream>>>(
        bucket_sums, nb, layout, seg_len, seg_t_.data(), seg_r_.data());
    CUDA_LAUNCH_OK();
    const unsigned log_seg_len = log2_floor(seg_len);
    reduce_entries_kernel<F, NT>
        <<<blocks * windows, NT, 0, stream>>>(seg_t_.data(), seg_r_.data(), segs, per_block, log_seg_len,
                                              true, layout, seg_len, 1, block_s_.data(), block_r_.data());
    CUDA_LAUNCH_OK();
    reduce_entries_kernel<F, NT><<<windows, NT, 0, stream>>>(
        block_s_.data(), block_r_.data(), blocks, blocks, log_seg_len + log2_floor(per_block), false, layout,
        seg_len, per_block, window_sums, nullptr);
    CUDA_LAUNCH_OK();
  }

 private:
  // Level 1's segment length L. Every thread runs 2 (L - 1) additions in a row, and the reduction is
  // bound by the multiply-add rate once an SM holds two blocks: an SM's time is then L times the blocks it
  // draws, those past its last full set of resident blocks counting as at least two (they run with the
  // SM part idle). The length with the least such time per SM wins; ties go to the longer (fewer segments
  // for level 2). On an H200 at 2^26 (3 blocks per SM), this model orders the measured times of L = 32 ..
  // 512 for whole scalars (512 best) and split ones (64 best) as they were measured (see bench/RESULTS.md).
  uint32_t segment_length(const WindowLayout& layout, uint32_t nb) {
    if (sms_ == 0) {
      int device = 0;
      CUDA_OK(cudaGetDevice(&device));
      CUDA_OK(cudaDeviceGetAttribute(&sms_, cudaDevAttrMultiProcessorCount, device));
      CUDA_OK(
          cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks_per_sm_, reduce_segments_kernel<F>, 128, 0));
      sms_ = std::max(sms_, 1);
      blocks_per_sm_ = std::max(blocks_per_sm_, 1);
    }
    const std::size_t sms = std::size_t(sms_), slots = std::size_t(blocks_per_sm_);
    uint32_t best = std::min<uint32_t>(32, nb);
    std::size_t best_cost = ~std::size_t{0};
    for (uint32_t len = best; len <= std::min<uint32_t>(nb, 1024); len <<= 1) {
      const std::size_t blocks = (layout.total_used_segments(len) + 127) / 128;
      const std::size_t per_sm = (blocks + sms - 1) / sms;
      const std::size_t rest = per_sm % slots;
      const std::size_t cost = len * (per_sm - rest + (rest ? std::max<std::size_t>(rest, 2) : 0));
      if (cost <= best_cost) {
        best_cost = cost;
        best = len;
      }
    }
    return best;
  }

  DeviceBuffer<Xyzz<F>> seg_t_, seg_r_, block_s_, block_r_;
  int sms_ = 0, blocks_per_sm_ = 0;  // the GPU's SMs, and reduce_segments_kernel's blocks on one
};

}  // namespace
}  // namespace cuzk::gpu
