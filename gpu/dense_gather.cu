#include <span>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/dense_gather.hpp"
#include "prover/groth16/dense_gather.hpp"

namespace cuzk::gpu {
namespace {

// An Fr as the kernel moves it: 32 bytes in two 16-byte loads and stores.
struct alignas(16) FrBits {
  uint4 lo, hi;
};
static_assert(sizeof(FrBits) == sizeof(algebra::Fr));

// Thread w: the values of word w of the density (bits below `count`), written from offsets[w] on.
__global__ void gather_words_kernel(const FrBits* __restrict__ z, std::size_t count,
                                    const std::uint64_t* __restrict__ words,
                                    const std::uint32_t* __restrict__ offsets, std::size_t word_count,
                                    FrBits* __restrict__ dst) {
  const std::size_t w = blockIdx.x * static_cast<std::size_t>(blockDim.x) + threadIdx.x;
  if (w >= word_count) return;
  std::uint64_t word = words[w];
  const std::size_t valid = count - 64 * w;
  if (valid < 64) word &= (std::uint64_t{1} << valid) - 1;
  std::uint32_t at = offsets[w];
  while (word != 0) {
    const int bit = __ffsll(static_cast<long long>(word)) - 1;
    dst[at++] = z[64 * w + static_cast<std::size_t>(bit)];
    word &= word - 1;
  }
}

}  // namespace

std::size_t DeviceDenseGather::device_bytes(std::size_t count) {
  const std::size_t words = (count + 63) / 64;
  return words * sizeof(std::uint64_t) + (words + 1) * sizeof(std::uint32_t);
}

std::size_t DeviceDenseGather::gather(const algebra::Fr* d_z, std::size_t count,
                                      const r1cs::DensityBits& density, algebra::Fr* d_dst,
                                      cudaStream_t stream) {
  const std::vector<std::uint32_t> offsets = groth16::density_word_offsets(density, count);
  const std::size_t word_count = offsets.size() - 1;
  if (word_count == 0) return 0;
  words_.ensure(word_count);
  offsets_.ensure(word_count);
  // Pageable sources: each copy returns once its bytes are staged, so the host vectors may go.
  words_.upload(std::span<const std::uint64_t>(density.words.data(), word_count), stream);
  offsets_.upload(std::span<const std::uint32_t>(offsets.data(), word_count), stream);
  constexpr unsigned kBlock = 256;
  gather_words_kernel<<<static_cast<unsigned>((word_count + kBlock - 1) / kBlock), kBlock, 0, stream>>>(
      reinterpret_cast<const FrBits*>(d_z), count, words_.data(), offsets_.data(), word_count,
      reinterpret_cast<FrBits*>(d_dst));
  CUDA_LAUNCH_OK();
  return offsets.back();
}

}  // namespace cuzk::gpu
