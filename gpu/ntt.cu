// Fr NTT: passes of up to 9 stages each in shared memory (1024 elements per block), done three stages
// at a time in registers (radix-8 groups), Gentleman-Sande (decimation in frequency: natural in,
// bit-reversed out) or Cooley-Tukey (decimation in time: bit-reversed in, natural out). A transform of 2^27
// takes 3 passes over device memory. Coset scaling, the 1/n factor and the H step's pointwise work are fused
// into the first / last pass.
#include <algorithm>
#include <cstring>
#include <optional>
#include <string>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/field.cuh"
#include "gpu/ntt.hpp"

namespace cuzk::gpu {
namespace {

using algebra::Fr;

constexpr unsigned kBlockLog = 10;  // elements per block = 2^10: 36 KiB of shared memory with the padding
// Data and twiddles of the largest block (72 KiB: above the default 48 KiB, so the kernel opts in; three
// blocks, the register limit, still fit an SM's 228 KiB).
constexpr unsigned kPowLoBits = 12;  // power tables: x^i = hi[i >> 12] * lo[i & 4095]
constexpr unsigned kPowLoSize = 1u << kPowLoBits;

struct PassParams {
  unsigned lg;          // log2 of the transform size
  unsigned lo_bit;      // lowest stage (butterfly half-distance bit) of this pass
  unsigned k;           // number of stages in this pass
  unsigned t;           // column bits: the block holds 2^t independent groups of 2^k elements
  unsigned tw_shift;    // max_log - lg: twiddle table index = exponent << tw_shift
  unsigned half_table;  // N/2 of the twiddle table (for inverse twiddles)
  bool dif;             // Gentleman-Sande stages (decreasing) or Cooley-Tukey (increasing)
  bool inverse;
  bool pre_coset;    // multiply loaded coefficient i by g^i
  bool pre_bitrev;   //   i = bitrev(position) (input is bit-reversed)
  bool post_coset;   // multiply stored coefficient i by g^-i
  bool post_bitrev;  //   i = bitrev(position)
  bool post_scale;   // multiply stored values by `scale`
  DevFr scale;
  // Fused pointwise work (positions as this pass reads and writes them): the first pass multiplies the
  // element at position g by pre_mul[g]; the last subtracts sub_factor * post_sub[g] from it, last of all.
  const DevFr* pre_mul;
  const DevFr* post_sub;
  DevFr sub_factor;
};

__device__ __forceinline__ DevFr table_power(const DevFr* lo, const DevFr* hi, uint32_t i) {
  return hi[i >> kPowLoBits] * lo[i & (kPowLoSize - 1)];
}

__device__ __forceinline__ uint32_t bit_reverse(uint32_t x, unsigned lg) {
  return __brev(x) >> (32 - lg);
}

// Global index of local element l of block b (see plan_passes for the two layouts).
__device__ __forceinline__ uint32_t global_index(const PassParams& p, uint32_t b, uint32_t l) {
  if (p.lo_bit == 0) return (b << (p.t + p.k)) | l;  // contiguous block
  uint32_t col = l & ((1u << p.t) - 1);
  uint32_t mid = l >> p.t;
  uint32_t low_hi_bits = p.lo_bit - p.t;
  uint32_t low_hi = b & ((1u << low_hi_bits) - 1);
  uint32_t high = b >> low_hi_bits;
  return (high << (p.lo_bit + p.k)) | (mid << p.lo_bit) | (low_hi << p.t) | col;
}

// One element in two 16-byte accesses (elements are 32-byte aligned in every array here). `data` is read
// and written by the same kernel, so its loads are plain ones; the tables' go through the read-only path.
__device__ __forceinline__ DevFr load_fr(const DevFr* p) {
  const uint4* src = reinterpret_cast<const uint4*>(p);
  const uint4 lo = src[0], hi = src[1];
  return DevFr{{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}};
}
__device__ __forceinline__ DevFr load_fr_ro(const DevFr* p) {
  const uint4* src = reinterpret_cast<const uint4*>(p);
  const uint4 lo = __ldg(src), hi = __ldg(src + 1);
  return DevFr{{lo.x, lo.y, lo.z, lo.w, hi.x, hi.y, hi.z, hi.w}};
}
__device__ __forceinline__ void store_fr(DevFr* p, const DevFr& x) {
  uint4* dst = reinterpret_cast<uint4*>(p);
  dst[0] = make_uint4(x.v[0], x.v[1], x.v[2], x.v[3]);
  dst[1] = make_uint4(x.v[4], x.v[5], x.v[6], x.v[7]);
}

// Where w^e lives in the twiddle table for the butterfly at global index g0 of stage sigma: the index, and
// whether the table value is to be negated (an inverse transform's w^-e = w^(N - e) = -w^(N/2 - e)).
struct TwiddleRef {
  uint32_t index;
  bool negate;
};
__device__ __forceinline__ TwiddleRef twiddle_ref(const PassParams& p, uint32_t g0, unsigned sigma) {
  uint32_t j = g0 & ((1u << sigma) - 1);
  uint32_t e = (j << (p.lg - 1 - sigma)) << p.tw_shift;
  if (!p.inverse || e == 0) return {e, false};
  return {p.half_table - e, true};
}

// Shared memory holds the block's elements word-major (word w of local element l at w * stride +
// slot(l)), so that lanes reading consecutive elements hit consecutive banks. slot() adds one padding
// word per 8 elements: the radix-8 groups of the lowest stages read elements 8 apart, which would
// otherwise all fall into 4 banks; with the padding every group offset from 0 to 4 is conflict-free
// or at most 2-way (worked out per offset when this was written).
__device__ __forceinline__ uint32_t slot(uint32_t l) {
  return l + (l >> 3);
}
constexpr uint32_t slots_for(uint32_t elements) {
  return elements + (elements >> 3);
}

// The twiddles of one pass, per block, in shared memory. The butterfly of local stage q at local index l
// needs w^j with j = g mod 2^(lo_bit + q), g = global_index(l): that depends only on the low q + ms bits
// of l (ms = mid_shift: the column bits, then the stage bits below q; the block's own bits are fixed), so
// stage q has 2^(q + ms) distinct twiddles and the pass (2^k - 1) 2^ms <= E of them, stage q's at offset
// (2^q - 1) 2^ms. The block loads them all at the start, alongside its data: a global load per distinct
// twiddle, issued together, instead of one per butterfly in the middle of the arithmetic, where Nsight
// Compute found a third of the pass's stalls on an H200 (see bench/RESULTS.md). Word-major and padded
// like the data (slot()).
__device__ __forceinline__ uint32_t block_twiddle_offset(unsigned q, unsigned mid_shift) {
  return ((1u << q) - 1) << mid_shift;
}
constexpr uint32_t block_twiddle_count(unsigned k, unsigned mid_shift) {
  return ((1u << k) - 1) << mid_shift;
}

constexpr std::size_t kMaxPassSmemBytes =
    (slots_for(1u << kBlockLog) + slots_for(1u << kBlockLog)) * sizeof(DevFr);

__device__ __forceinline__ void fill_block_twiddles(uint32_t* tw_smem, uint32_t tw_stride,
                                                    const PassParams& p, const DevFr* __restrict__ tw,
                                                    uint32_t b, unsigned mid_shift) {
  const uint32_t count = block_twiddle_count(p.k, mid_shift);
  // kBatch loads per thread issued together, then stored: one memory latency per batch, not per twiddle.
  // 2 rather than 4 or 8: fewer live registers beside the kernel's own (see bench/RESULTS.md).
  constexpr int kBatch = 2;
  for (uint32_t idx0 = threadIdx.x; idx0 < count; idx0 += kBatch * blockDim.x) {
    DevFr x[kBatch];
    bool negate[kBatch];
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      const uint32_t idx = idx0 + r * blockDim.x;
      if (idx >= count) break;
      const uint32_t hi = (idx >> mid_shift) + 1;  // in [2^q, 2^(q+1))
      const unsigned q = 31 - __clz(hi);
      const uint32_t e = ((hi - (1u << q)) << mid_shift) | (idx & ((1u << mid_shift) - 1));
      const TwiddleRef ref = twiddle_ref(p, global_index(p, b, e), p.lo_bit + q);
      x[r] = load_fr_ro(tw + ref.index);
      negate[r] = ref.negate;
    }
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      const uint32_t idx = idx0 + r * blockDim.x;
      if (idx >= count) break;
      if (negate[r]) x[r] = -x[r];
#pragma unroll
      for (int w = 0; w < 8; ++w) tw_smem[w * tw_stride + slot(idx)] = x[r].v[w];
    }
  }
}

__device__ __forceinline__ DevFr load_block_twiddle(const uint32_t* tw_smem, uint32_t tw_stride, unsigned q,
                                                    unsigned mid_shift, uint32_t l) {
  const uint32_t at = slot(block_twiddle_offset(q, mid_shift) + (l & ((1u << (q + mid_shift)) - 1)));
  DevFr x;
#pragma unroll
  for (int w = 0; w < 8; ++w) x.v[w] = tw_smem[w * tw_stride + at];
  return x;
}

// G consecutive stages (local stage bits q_lo .. q_lo + G - 1) in registers: every virtual thread takes
// the 2^G elements that differ only in those bits, does the G radix-2 stages on them (Gentleman-Sande
// from the top bit down, or Cooley-Tukey from the bottom up), and writes them back. Same butterflies and
// twiddles as one stage at a time; a third of the shared-memory traffic and barriers for G = 3.
// Bottom: the group holds the transform's lowest stages (q_lo = 0 in a pass with lo_bit = 0, so that the
// local index's low bits are the global index's): the butterfly of stage j for element m uses w^0 = 1
// whenever the low j bits of m are zero, known at compile time, and skips that multiplication (7 of
// the 12 in a radix-8 group; 6.5% of a 2^27 transform's twiddle multiplications).
template <int G, bool Dif, bool Bottom = false>
__device__ __forceinline__ void radix_group(uint32_t* smem, uint32_t stride, const uint32_t* tw_smem,
                                            uint32_t tw_stride, uint32_t E, unsigned q_lo,
                                            unsigned mid_shift) {
  constexpr int M = 1 << G;
  const unsigned s0 = q_lo + mid_shift;  // bit of the local index for stage q_lo
  for (uint32_t v = threadIdx.x; v < (E >> G); v += blockDim.x) {
    const uint32_t base = ((v >> s0) << (s0 + G)) | (v & ((1u << s0) - 1));
    DevFr x[M];
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const uint32_t at = slot(base | (uint32_t(m) << s0));
#pragma unroll
      for (int w = 0; w < 8; ++w) x[m].v[w] = smem[w * stride + at];
    }
#pragma unroll
    for (int step = 0; step < G; ++step) {
      const int j =
          Dif ? G - 1 - step : step;  // bit of m for this stage (compile time: x stays in registers)
#pragma unroll
      for (int m = 0; m < M; ++m) {
        if (m & (1 << j)) continue;
        DevFr& u = x[m];
        DevFr& t = x[m | (1 << j)];
        if (Bottom && (m & ((1 << j) - 1)) == 0) {  // twiddle 1
          const DevFr sum = u + t;
          t = u - t;
          u = sum;
          continue;
        }
        const uint32_t l0 = base | (uint32_t(m) << s0);
        const DevFr wv = load_block_twiddle(tw_smem, tw_stride, q_lo + unsigned(j), mid_shift, l0);
        if (Dif) {
          const DevFr sum = u + t;
          // u - t + r, unreduced: the product reduces it, which saves operator-'s correction and selects
          // (see bench/RESULTS.md).
          t = wv * DevFr::difference_unreduced(u, t);
          u = sum;
        } else {
          const DevFr vw = t * wv;
          t = u - vw;
          u = u + vw;
        }
      }
    }
#pragma unroll
    for (int m = 0; m < M; ++m) {
      const uint32_t at = slot(base | (uint32_t(m) << s0));
#pragma unroll
      for (int w = 0; w < 8; ++w) smem[w * stride + at] = x[m].v[w];
    }
  }
}

template <int G>
__device__ __forceinline__ void radix_group_dispatch(bool dif, bool bottom, uint32_t* smem, uint32_t stride,
                                                     const uint32_t* tw_smem, uint32_t tw_stride, uint32_t E,
                                                     unsigned q_lo, unsigned mid_shift) {
  if (bottom) {
    dif ? radix_group<G, true, true>(smem, stride, tw_smem, tw_stride, E, q_lo, mid_shift)
        : radix_group<G, false, true>(smem, stride, tw_smem, tw_stride, E, q_lo, mid_shift);
  } else {
    dif ? radix_group<G, true>(smem, stride, tw_smem, tw_stride, E, q_lo, mid_shift)
        : radix_group<G, false>(smem, stride, tw_smem, tw_stride, E, q_lo, mid_shift);
  }
}

// Pass shapes known at compile time (0: taken from the parameters). kStride fixes both shared-memory strides
// (data and twiddles, each laid out for the 2^kBlockLog elements of a full block); kK and kT fix the
// stages and column bits. Every pass of a large transform (9 stages, 2 columns: all three of a 2^27 NTT)
// runs the fully fixed instance, where the index and address arithmetic folds into constants and
// immediate offsets, which made the 2^27 forward transform about 6% faster on an H200 (see bench/RESULTS.md).
// Registers (ptxas, sm_90), with the cap of 3 blocks of 128 threads (12 warps per SM; shared memory allows
// no more either): 148 for that instance, 152 with the strides alone, 168 and 24 bytes spilled for the
// general one. 4 blocks (128 registers) spilled 372 bytes; a cap of 2 blocks (255 registers) ran much
// slower. Radix-4 groups in 512-element blocks, at 4 to 6 blocks per SM, were slower too (see
// bench/RESULTS.md).
template <uint32_t kStride, unsigned kK, unsigned kT>
__global__ void __launch_bounds__(128, 3)
    ntt_pass_kernel(DevFr* __restrict__ data, PassParams params, const DevFr* __restrict__ tw,
                    const DevFr* __restrict__ g_lo, const DevFr* __restrict__ g_hi,
                    const DevFr* __restrict__ gi_lo, const DevFr* __restrict__ gi_hi) {
  extern __shared__ uint32_t smem[];  // data: 8 words x slots_for(E), then twiddles, both word-major
  PassParams p = params;
  if constexpr (kK != 0) {
    p.k = kK;
    p.t = kT;
  }
  const uint32_t E = 1u << (p.k + p.t);
  const uint32_t stride = kStride ? kStride : slots_for(E);
  const uint32_t b = blockIdx.x;
  const uint32_t mid_shift = p.lo_bit == 0 ? 0 : p.t;
  uint32_t* tw_smem = smem + 8 * stride;
  const uint32_t tw_stride = kStride ? kStride : slots_for(block_twiddle_count(p.k, mid_shift));
  fill_block_twiddles(tw_smem, tw_stride, p, tw, b, mid_shift);

  // The block's elements, kBatch per thread with their loads issued together (a strided pass reads
  // scattered 64-byte pieces: one at a time, the load phase was a chain of memory latencies).
  constexpr int kBatch = 4;  // 2 rounds for 1024 elements on 128 threads
  for (uint32_t l0 = threadIdx.x; l0 < E; l0 += kBatch * blockDim.x) {
    DevFr x[kBatch];
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      const uint32_t l = l0 + r * blockDim.x;
      if (l < E) x[r] = load_fr(data + global_index(p, b, l));
    }
#pragma unroll
    for (int r = 0; r < kBatch; ++r) {
      const uint32_t l = l0 + r * blockDim.x;
      if (l >= E) break;
      if (p.pre_mul) x[r] = x[r] * load_fr_ro(p.pre_mul + global_index(p, b, l));
      if (p.pre_coset) {
        const uint32_t g = global_index(p, b, l);
        x[r] = x[r] * table_power(g_lo, g_hi, p.pre_bitrev ? bit_reverse(g, p.lg) : g);
      }
#pragma unroll
      for (int w = 0; w < 8; ++w) smem[w * stride + slot(l)] = x[r].v[w];
    }
  }
  __syncthreads();

  // Groups of three stages, and a group of the one or two stages left over (local stages 0 .. rest-1):
  // Gentleman-Sande goes from the top stage down (the rest last), Cooley-Tukey from the bottom up (the
  // rest first).
  const unsigned full = p.k / 3, rest = p.k % 3;
  // The group at local stage 0 of the pass with the transform's lowest stages has compile-time twiddles.
  const bool bottom_pass = p.lo_bit == 0;
  auto rest_group = [&] {
    if (rest == 2)
      radix_group_dispatch<2>(p.dif, bottom_pass, smem, stride, tw_smem, tw_stride, E, 0, mid_shift);
    if (rest == 1)
      radix_group_dispatch<1>(p.dif, bottom_pass, smem, stride, tw_smem, tw_stride, E, 0, mid_shift);
    __syncthreads();
  };
  if (!p.dif && rest) rest_group();
  for (unsigned i = 0; i < full; ++i) {
    const unsigned q_lo = p.dif ? p.k - 3 * (i + 1) : rest + 3 * i;
    radix_group_dispatch<3>(p.dif, bottom_pass && q_lo == 0, smem, stride, tw_smem, tw_stride, E, q_lo,
                            mid_shift);
    __syncthreads();
  }
  if (p.dif && rest) rest_group();

  for (uint32_t l = threadIdx.x; l < E; l += blockDim.x) {
    uint32_t g = global_index(p, b, l);
    DevFr x;
#pragma unroll
    for (int w = 0; w < 8; ++w) x.v[w] = smem[w * stride + slot(l)];
    if (p.post_scale) x = x * p.scale;
    if (p.post_coset) x = x * table_power(gi_lo, gi_hi, p.post_bitrev ? bit_reverse(g, p.lg) : g);
    if (p.post_sub) x = x - load_fr_ro(p.post_sub + g) * p.sub_factor;
    store_fr(data + g, x);
  }
}

// In-place bit reversal for lg >= 8 through shared memory. Index i = (h, mid, l) with h and l of 4 bits
// goes to (rev4(l), rev(mid), rev4(h)), so the 16 x 16 tile of one `mid` and the tile of rev(mid) trade
// places, transposed: one block loads both (rows of 16 consecutive elements, 512 bytes) and writes both
// back. The element-by-element swap it replaces read and wrote single 32-byte elements at random and
// made a 2^27 NN transform 15 ms slower than NR on an H200.
constexpr unsigned kTileBits = 4;
constexpr uint32_t kTile = 1u << kTileBits;  // 16 x 16 elements per tile
// Word-major, one padding slot per row of 16: the transposed reads hit at most 2 lanes per bank.
__device__ __forceinline__ uint32_t tile_slot(uint32_t e) {
  return e + (e >> kTileBits);
}
constexpr uint32_t kTileSlots = kTile * kTile + kTile;

__global__ void __launch_bounds__(256) bit_reverse_tiles_kernel(DevFr* __restrict__ data, unsigned lg) {
  __shared__ uint32_t tiles[2][8 * kTileSlots];
  const unsigned mid_bits = lg - 2 * kTileBits;
  const uint32_t mid = blockIdx.x;
  const uint32_t rmid = mid_bits ? __brev(mid) >> (32 - mid_bits) : 0;
  if (rmid < mid) return;  // the partner block (mid' = rmid) does this pair
  const uint32_t h = threadIdx.x >> kTileBits, l = threadIdx.x & (kTile - 1);
  const uint32_t mids[2] = {mid, rmid};
  const int count = rmid == mid ? 1 : 2;
  for (int k = 0; k < count; ++k) {
    const DevFr x = data[(size_t(h) << (lg - kTileBits)) | (size_t(mids[k]) << kTileBits) | l];
#pragma unroll
    for (int w = 0; w < 8; ++w) tiles[k][w * kTileSlots + tile_slot(threadIdx.x)] = x.v[w];
  }
  __syncthreads();
  // New value at (h, mids[k], l) = old value at (rev4(l), mids[1 - k], rev4(h)).
  const uint32_t source = ((__brev(l) >> (32 - kTileBits)) << kTileBits) | (__brev(h) >> (32 - kTileBits));
  for (int k = 0; k < count; ++k) {
    const int from = count == 1 ? 0 : 1 - k;
    DevFr x;
#pragma unroll
    for (int w = 0; w < 8; ++w) x.v[w] = tiles[from][w * kTileSlots + tile_slot(source)];
    data[(size_t(h) << (lg - kTileBits)) | (size_t(mids[k]) << kTileBits) | l] = x;
  }
}

__global__ void bit_reverse_kernel(DevFr* __restrict__ data, unsigned lg, uint32_t n) {
  uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i >= n) return;
  uint32_t j = bit_reverse(i, lg);
  if (i < j) {
    DevFr a = data[i], b = data[j];
    data[i] = b;
    data[j] = a;
  }
}

// A transform of size 1 is the identity (g^0 = 1): only the scale and the fused pointwise work remain.
__global__ void size_one_kernel(DevFr* __restrict__ data, DevFr scale, const DevFr* __restrict__ pre_mul,
                                const DevFr* __restrict__ post_sub, DevFr sub_factor) {
  DevFr x = data[0];
  if (pre_mul) x = x * pre_mul[0];
  x = x * scale;
  if (post_sub) x = x - post_sub[0] * sub_factor;
  data[0] = x;
}

// x[i] -= y[i] * factor (h_subtract_coefficients).
__global__ void subtract_scaled_kernel(DevFr* __restrict__ x, const DevFr* __restrict__ y, DevFr factor,
                                       uint32_t n) {
  const uint32_t i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) x[i] = x[i] - y[i] * factor;
}

// Natural <-> bit-reversed order, in place.
void bit_reverse_permute(DevFr* data, unsigned lg, cudaStream_t stream) {
  if (lg == 0) return;
  if (lg >= 2 * kTileBits) {
    bit_reverse_tiles_kernel<<<1u << (lg - 2 * kTileBits), kTile * kTile, 0, stream>>>(data, lg);
  } else {
    const uint32_t n = 1u << lg;
    bit_reverse_kernel<<<(n + 255) / 256, 256, 0, stream>>>(data, lg, n);
  }
  CUDA_LAUNCH_OK();
}

__global__ void build_table_kernel(DevFr* __restrict__ out, uint64_t count, const DevFr* __restrict__ lo,
                                   const DevFr* __restrict__ hi) {
  uint64_t i = blockIdx.x * static_cast<uint64_t>(blockDim.x) + threadIdx.x;
  if (i < count) out[i] = hi[i >> kPowLoBits] * lo[i & (kPowLoSize - 1)];
}

DevFr to_dev(const Fr& x) {
  DevFr d;
  static_assert(sizeof d == sizeof x);
  std::memcpy(&d, &x, sizeof d);
  return d;
}

// Powers base^(i * stride_exp) ... as two host tables: lo[j] = base^j (j < 4096), hi[j] = base^(4096 j).
void power_tables(const Fr& base, std::size_t hi_count, std::vector<Fr>& lo, std::vector<Fr>& hi) {
  lo.assign(kPowLoSize, Fr::one());
  for (std::size_t j = 1; j < kPowLoSize; ++j) lo[j] = lo[j - 1] * base;
  Fr step = lo[kPowLoSize - 1] * base;  // base^4096
  hi.assign(std::max<std::size_t>(hi_count, 1), Fr::one());
  for (std::size_t j = 1; j < hi.size(); ++j) hi[j] = hi[j - 1] * step;
}

// Primitive 2^lg-th root of unity as bellperson derives it: ROOT_OF_UNITY (order 2^32) squared 32-lg times.
Fr root_of_unity(unsigned lg) {
  Fr w = Fr::generator().pow(Fr::kTrace);
  for (unsigned i = lg; i < Fr::kTwoAdicity; ++i) w = w.square();
  return w;
}

struct Pass {
  unsigned lo_bit, k, t;
};

// The compile-time shapes of ntt_pass_kernel that transform_scaled launches (see the kernel).
constexpr uint32_t kFullBlockStride = slots_for(1u << kBlockLog);
constexpr unsigned kCommonStages = kBlockLog - 1, kCommonColumnBits = 1;
using PassKernel = void (*)(DevFr*, PassParams, const DevFr*, const DevFr*, const DevFr*, const DevFr*,
                            const DevFr*);
constexpr PassKernel kCommonPass = ntt_pass_kernel<kFullBlockStride, kCommonStages, kCommonColumnBits>;
constexpr PassKernel kFullBlockPass = ntt_pass_kernel<kFullBlockStride, 0, 0>;
constexpr PassKernel kGeneralPass = ntt_pass_kernel<0, 0, 0>;

// Splits lg stages into passes of at most kBlockLog - 1 stages (so that every block can hold two or
// more columns for wider memory transactions), each block holding 2^kBlockLog elements when possible.
// Passes are listed from the top stage down (the order of decimation in frequency).
std::vector<Pass> plan_passes(unsigned lg) {
  std::vector<Pass> passes;
  if (lg <= kBlockLog) {
    passes.push_back({0, lg, 0});
    return passes;
  }
  unsigned count = (lg + kBlockLog - 2) / (kBlockLog - 1);
  unsigned top = lg;
  for (unsigned i = 0; i < count; ++i) {
    unsigned k = (top + (count - i) - 1) / (count - i);  // spread evenly, larger first
    unsigned lo = top - k;
    unsigned t = kBlockLog - k;
    if (lo != 0) t = std::min(t, lo);
    passes.push_back({lo, k, t});
    top = lo;
  }
  return passes;
}

}  // namespace

std::size_t NttContext::device_bytes(unsigned max_log_size) {
  const std::size_t n = std::size_t{1} << std::max(1u, max_log_size);
  // Twiddles w^e (e < n/2); power tables of kPowLoSize + n / kPowLoSize + 1 elements at most: g^i, g^-i
  // and the twiddles' transient pair, rounded up to four.
  return (n / 2 + 4 * (kPowLoSize + n / kPowLoSize + 1)) * sizeof(Fr);
}

NttContext::NttContext(unsigned max_log_size, cudaStream_t stream) : max_log_(std::max(1u, max_log_size)) {
  if (max_log_ > kMaxLogSize) throw GpuError("NttContext: domain larger than 2^28");
  const std::size_t n = std::size_t{1} << max_log_;
  const std::size_t half = n / 2;
  for (PassKernel kernel : {kCommonPass, kFullBlockPass, kGeneralPass})
    CUDA_OK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, int(kMaxPassSmemBytes)));
  std::vector<Fr> lo, hi;
  // Twiddles w^e, e < N/2.
  power_tables(root_of_unity(max_log_), (half + kPowLoSize - 1) / kPowLoSize, lo, hi);
  DeviceBuffer<Fr> d_lo(lo.size()), d_hi(hi.size());
  d_lo.upload(lo, stream);
  d_hi.upload(hi, stream);
  twiddles_ = DeviceBuffer<Fr>(half);
  build_table_kernel<<<(half + 255) / 256, 256, 0, stream>>>(reinterpret_cast<DevFr*>(twiddles_.data()), half,
                                                             reinterpret_cast<const DevFr*>(d_lo.data()),
                                                             reinterpret_cast<const DevFr*>(d_hi.data()));
  CUDA_LAUNCH_OK();
  // Coset generator powers, i < N.
  std::size_t hi_count = (n + kPowLoSize - 1) / kPowLoSize;
  std::vector<Fr> glo, ghi, gilo, gihi;
  power_tables(Fr::generator(), hi_count, glo, ghi);
  power_tables(Fr::generator().inverse(), hi_count, gilo, gihi);
  gen_lo_ = DeviceBuffer<Fr>(glo.size());
  gen_hi_ = DeviceBuffer<Fr>(ghi.size());
  gen_inv_lo_ = DeviceBuffer<Fr>(gilo.size());
  gen_inv_hi_ = DeviceBuffer<Fr>(gihi.size());
  gen_lo_.upload(glo, stream);
  gen_hi_.upload(ghi, stream);
  gen_inv_lo_.upload(gilo, stream);
  gen_inv_hi_.upload(gihi, stream);
  CUDA_OK(cudaStreamSynchronize(stream));  // the host vectors and d_lo/d_hi go out of scope
}

void NttContext::transform(Fr* d_values, unsigned lg, NttDirection direction, NttOrder input, NttOrder output,
                           bool coset, cudaStream_t stream) const {
  std::optional<Fr> scale;
  if (direction == NttDirection::kInverse) scale = Fr::from_u64(std::uint64_t{1} << lg).inverse();
  transform_scaled(d_values, lg, direction, input, output, coset, scale, stream);
}

void NttContext::transform_scaled(Fr* d_values, unsigned lg, NttDirection direction, NttOrder input,
                                  NttOrder output, bool coset, std::optional<Fr> scale, cudaStream_t stream,
                                  const Fr* pre_mul, const Fr* post_sub, const Fr& sub_factor) const {
  if (lg > max_log_) throw GpuError("NttContext::transform: domain larger than the context's");
  DevFr* data = reinterpret_cast<DevFr*>(d_values);
  const uint32_t n = 1u << lg;
  const bool inverse = direction == NttDirection::kInverse;
  const auto* tw = reinterpret_cast<const DevFr*>(twiddles_.data());
  const auto* glo = reinterpret_cast<const DevFr*>(gen_lo_.data());
  const auto* ghi = reinterpret_cast<const DevFr*>(gen_hi_.data());
  const auto* gilo = reinterpret_cast<const DevFr*>(gen_inv_lo_.data());
  const auto* gihi = reinterpret_cast<const DevFr*>(gen_inv_hi_.data());

  const auto* mul_by = reinterpret_cast<const DevFr*>(pre_mul);
  const auto* sub = reinterpret_cast<const DevFr*>(post_sub);
  if ((mul_by || sub) && input != NttOrder::kNatural)
    throw GpuError("NttContext: fused pointwise work needs a natural-order input");
  if (lg == 0) {
    if (scale || mul_by || sub) {
      size_one_kernel<<<1, 1, 0, stream>>>(data, to_dev(scale.value_or(Fr::one())), mul_by, sub,
                                           to_dev(sub_factor));
      CUDA_LAUNCH_OK();
    }
    return;
  }
  auto permute = [&] { bit_reverse_permute(data, lg, stream); };

  // NN and RR go through one permutation and the NR kernel (GS).
  bool dif = true;
  bool permute_before = false, permute_after = false;
  bool pre_bitrev = false, post_bitrev = true;
  if (input == NttOrder::kNatural && output == NttOrder::kBitReversed) {
  } else if (input == NttOrder::kBitReversed && output == NttOrder::kNatural) {
    dif = false;
    pre_bitrev = true;
    post_bitrev = false;
  } else if (input == NttOrder::kNatural && output == NttOrder::kNatural) {
    permute_after = true;
  } else {
    permute_before = true;
  }
  if (permute_before) permute();

  std::vector<Pass> passes = plan_passes(lg);
  if (!dif) std::reverse(passes.begin(), passes.end());
  for (std::size_t i = 0; i < passes.size(); ++i) {
    PassParams p{};
    p.lg = lg;
    p.lo_bit = passes[i].lo_bit;
    p.k = passes[i].k;
    p.t = passes[i].t;
    p.tw_shift = max_log_ - lg;
    p.half_table = 1u << (max_log_ - 1);
    p.dif = dif;
    p.inverse = inverse;
    p.pre_coset = i == 0 && coset && !inverse;
    p.pre_bitrev = pre_bitrev;
    bool last = i + 1 == passes.size();
    p.post_coset = last && coset && inverse;
    p.post_bitrev = post_bitrev;
    p.post_scale = last && scale.has_value();
    p.scale = to_dev(scale.value_or(Fr::one()));
    p.pre_mul = i == 0 ? mul_by : nullptr;
    p.post_sub = last ? sub : nullptr;
    p.sub_factor = to_dev(sub_factor);
    const uint32_t elements = 1u << (p.k + p.t);
    const uint32_t blocks = n / elements;
    const uint32_t threads = std::max(32u, std::min(128u, elements / 8));  // one radix-8 group each
    const unsigned mid_shift = p.lo_bit == 0 ? 0 : p.t;
    const bool full_block = elements == (1u << kBlockLog);
    const PassKernel kernel = !full_block                                        ? kGeneralPass
                              : p.k == kCommonStages && p.t == kCommonColumnBits ? kCommonPass
                                                                                 : kFullBlockPass;
    // A full block's instances lay out the twiddles with the data's stride: the largest smem.
    const std::size_t smem =
        full_block ? kMaxPassSmemBytes
                   : std::size_t{slots_for(elements) + slots_for(block_twiddle_count(p.k, mid_shift))} *
                         sizeof(DevFr);
    kernel<<<blocks, threads, smem, stream>>>(data, p, tw, glo, ghi, gilo, gihi);
    CUDA_LAUNCH_OK();
  }
  if (permute_after) permute();
}

void NttContext::compute_h(Fr* d_a, Fr* d_b, Fr* d_c, unsigned lg, cudaStream_t stream) const {
  h_to_coset(d_a, lg, stream);
  h_to_coset(d_b, lg, stream);
  h_to_coefficients(d_c, lg, stream);
  h_finish(d_a, d_b, d_c, lg, stream);
}

// h = (coset_inverse(A * B on the coset) - C) / Z: C has degree < n, so coset_inverse(C on the coset) is
// C's coefficients exactly and c needs no trip to the coset and back (6 transforms, not the 7 of the
// textbook sequence; the same field elements). Z(X) = X^n - 1 is the constant g^n - 1 on the coset.
// The inverse transforms skip their 1/n (one multiplication per element each): a, b, c come out n times
// too large. The final transform's single scale takes the 1/n of the three inverse transforms on a and b
// and of itself, and Z^-1: 1 / (Z n^3); c's coefficients are divided by n Z as they are subtracted.
void NttContext::h_to_coset(Fr* d_x, unsigned lg, cudaStream_t stream) const {
  if (lg > max_log_) throw GpuError("NttContext::compute_h: domain larger than the context's");
  // Evaluations -> coefficients (bit-reversed), then -> evaluations on the coset g*H (natural).
  h_to_coefficients(d_x, lg, stream);
  transform(d_x, lg, NttDirection::kForward, NttOrder::kBitReversed, NttOrder::kNatural, true, stream);
}

void NttContext::h_to_coefficients(Fr* d_x, unsigned lg, cudaStream_t stream) const {
  if (lg > max_log_) throw GpuError("NttContext::compute_h: domain larger than the context's");
  transform_scaled(d_x, lg, NttDirection::kInverse, NttOrder::kNatural, NttOrder::kBitReversed, false,
                   std::nullopt, stream);
}

void NttContext::h_finish(Fr* d_a, const Fr* d_b, const Fr* d_c, unsigned lg, cudaStream_t stream) const {
  if (lg > max_log_) throw GpuError("NttContext::compute_h: domain larger than the context's");
  const uint32_t n = 1u << lg;
  const Fr n_fr = Fr::from_u64(n);
  const Fr z = Fr::generator().pow(static_cast<std::uint64_t>(n)) - Fr::one();
  // (n a)(n b) -> the final inverse coset transform, c's coefficients subtracted in its last pass (where
  // both are in bit-reversed order), then the permutation to natural order.
  const Fr final_scale = (z * n_fr * n_fr * n_fr).inverse();
  transform_scaled(d_a, lg, NttDirection::kInverse, NttOrder::kNatural, NttOrder::kNatural, true, final_scale,
                   stream, d_b, d_c, (n_fr * z).inverse());
}

// h_finish in two steps, for an H step that has no third buffer for c while a and b are on the coset: the
// same final transform without the subtraction and the permutation (b is free afterwards, and c goes there),
// then the subtraction of c's coefficients, in the same bit-reversed positions, and the permutation. The
// same field elements as h_finish: every value sees the same operations in the same order.
void NttContext::h_finish_product(Fr* d_a, const Fr* d_b, unsigned lg, cudaStream_t stream) const {
  if (lg > max_log_) throw GpuError("NttContext::compute_h: domain larger than the context's");
  const Fr n_fr = Fr::from_u64(std::uint64_t{1} << lg);
  const Fr z = Fr::generator().pow(static_cast<std::uint64_t>(std::uint64_t{1} << lg)) - Fr::one();
  const Fr final_scale = (z * n_fr * n_fr * n_fr).inverse();
  transform_scaled(d_a, lg, NttDirection::kInverse, NttOrder::kNatural, NttOrder::kBitReversed, true,
                   final_scale, stream, d_b);
}

void NttContext::h_subtract_coefficients(Fr* d_a, const Fr* d_c, unsigned lg, cudaStream_t stream) const {
  if (lg > max_log_) throw GpuError("NttContext::compute_h: domain larger than the context's");
  const uint32_t n = 1u << lg;
  const Fr n_fr = Fr::from_u64(n);
  const Fr z = Fr::generator().pow(static_cast<std::uint64_t>(n)) - Fr::one();
  auto* data = reinterpret_cast<DevFr*>(d_a);
  subtract_scaled_kernel<<<(n + 255) / 256, 256, 0, stream>>>(data, reinterpret_cast<const DevFr*>(d_c),
                                                              to_dev((n_fr * z).inverse()), n);
  CUDA_LAUNCH_OK();
  bit_reverse_permute(data, lg, stream);
}

}  // namespace cuzk::gpu
