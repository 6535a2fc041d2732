// gpu::HostStaging: pageable and pinned host memory to the device and back, byte for byte, for sizes that
// are not multiples of the chunk (and smaller than one chunk, and empty), with work queued before the
// download that it must wait for.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstring>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/host_staging.hpp"
#include "tests/gpu/gpu_test_util.hpp"

using namespace cuzk;

namespace {

std::vector<std::uint8_t> pattern(std::size_t bytes, std::uint8_t seed) {
  std::vector<std::uint8_t> v(bytes);
  for (std::size_t i = 0; i < bytes; ++i) v[i] = std::uint8_t(i * 131 + seed + (i >> 9));
  return v;
}

TEST(GpuHostStaging, PageableRoundTripsEverySize) {
  CUZK_REQUIRE_GPU();
  gpu::Stream stream;
  gpu::HostStaging staging(1000);  // a small chunk: many chunks, and a short last one
  for (std::size_t bytes : {std::size_t{0}, std::size_t{1}, std::size_t{999}, std::size_t{1000},
                            std::size_t{1001}, std::size_t{2000}, std::size_t{123457}}) {
    const auto in = pattern(bytes, std::uint8_t(bytes));
    gpu::DeviceBuffer<std::uint8_t> device(std::max<std::size_t>(bytes, 1));
    staging.upload(device.data(), in.data(), bytes, stream);
    std::vector<std::uint8_t> out(bytes, 0xEE);
    staging.download(out.data(), device.data(), bytes, stream);
    EXPECT_EQ(out, in) << bytes << " bytes";
  }
}

TEST(GpuHostStaging, DownloadWaitsForQueuedWork) {
  CUZK_REQUIRE_GPU();
  gpu::Stream stream;
  gpu::HostStaging staging(4096);
  const std::size_t bytes = 3 * 4096 + 17;
  const auto first = pattern(bytes, 1), second = pattern(bytes, 2);
  gpu::DeviceBuffer<std::uint8_t> a(bytes), b(bytes);
  staging.upload(a.data(), first.data(), bytes, stream);
  staging.upload(b.data(), second.data(), bytes, stream);
  // A device-to-device copy queued on the stream: the download must see its result.
  CUDA_OK(cudaMemcpyAsync(a.data(), b.data(), bytes, cudaMemcpyDeviceToDevice, stream));
  std::vector<std::uint8_t> out(bytes);
  staging.download(out.data(), a.data(), bytes, stream);
  EXPECT_EQ(out, second);
}

// Bytes made in the pinned chunks: elements of 96 bytes (a G1 base) never split across chunks of 1000.
TEST(GpuHostStaging, GeneratedElementsArriveWhole) {
  CUZK_REQUIRE_GPU();
  gpu::Stream stream;
  gpu::HostStaging staging(1000);
  constexpr std::size_t kElement = 96, kCount = 1234;
  const auto expected = pattern(kElement * kCount, 3);
  gpu::DeviceBuffer<std::uint8_t> device(expected.size());
  std::size_t calls = 0;
  staging.upload_generated(
      device.data(), expected.size(), kElement,
      [&](std::byte* chunk, std::size_t offset, std::size_t len) {
        ++calls;
        EXPECT_EQ(offset % kElement, 0u);
        EXPECT_EQ(len % kElement, 0u);
        EXPECT_LE(len, 1000u);
        std::memcpy(chunk, expected.data() + offset, len);
      },
      stream);
  std::vector<std::uint8_t> out(expected.size());
  staging.download(out.data(), device.data(), out.size(), stream);
  EXPECT_EQ(out, expected);
  EXPECT_EQ(calls, (kCount + 9) / 10);  // 10 elements of 96 bytes per chunk of 1000
  EXPECT_THROW(staging.upload_generated(
                   device.data(), 100, 96, [](std::byte*, std::size_t, std::size_t) {}, stream),
               gpu::GpuError);  // not whole elements
}

// Large uploads through the copy lanes: every byte arrives, for sizes at the lanes' threshold (4 chunks),
// just past it and with a short last chunk, over one to eight lanes; uploads queued one after another on a
// stream keep their order with a device copy between them.
TEST(GpuHostStaging, CopyLanesDeliverEveryByte) {
  CUZK_REQUIRE_GPU();
  gpu::Stream stream;
  constexpr std::size_t kChunk = gpu::HostStaging::kLaneChunkBytes;
  for (unsigned lanes : {1u, 2u, 3u, 8u}) {
    gpu::HostStaging staging(1 << 20, lanes);
    for (std::size_t bytes : {4 * kChunk, 4 * kChunk + 1, 37 * kChunk + 12345}) {
      const auto in = pattern(bytes, std::uint8_t(lanes + bytes));
      gpu::DeviceBuffer<std::uint8_t> device(bytes), copy(bytes);
      CUDA_OK(cudaMemsetAsync(device.data(), 0xEE, bytes, stream));
      staging.upload(device.data(), in.data(), bytes, stream);
      CUDA_OK(cudaMemcpyAsync(copy.data(), device.data(), bytes, cudaMemcpyDeviceToDevice, stream));
      const auto second = pattern(bytes, std::uint8_t(lanes + bytes + 1));
      staging.upload(device.data(), second.data(), bytes, stream);  // after the device copy has read
      std::vector<std::uint8_t> out(bytes, 0), first_out(bytes, 0);
      staging.download(out.data(), device.data(), bytes, stream);
      staging.download(first_out.data(), copy.data(), bytes, stream);
      EXPECT_TRUE(out == second) << lanes << " lanes, " << bytes << " bytes";
      EXPECT_TRUE(first_out == in) << lanes << " lanes, " << bytes << " bytes";
    }
  }
}

TEST(GpuHostStaging, PinnedMemoryGoesDirect) {
  CUZK_REQUIRE_GPU();
  gpu::Stream stream;
  gpu::HostStaging staging(1024);
  const std::size_t bytes = 10000;
  const auto in = pattern(bytes, 7);
  gpu::PinnedBuffer<std::uint8_t> pinned_in(bytes), pinned_out(bytes);
  std::copy(in.begin(), in.end(), pinned_in.data());
  gpu::DeviceBuffer<std::uint8_t> device(bytes);
  staging.upload(device.data(), pinned_in.data(), bytes, stream);
  staging.download(pinned_out.data(), device.data(), bytes, stream);
  EXPECT_TRUE(std::equal(in.begin(), in.end(), pinned_out.data()));
}

}  // namespace
