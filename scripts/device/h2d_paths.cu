// Measures the ways bytes of a file in the page cache can reach the device, for the streamed tiers of the
// GPU prover (docs/large-sectors.md): each prints GB/s over the same bytes.
//   pread:      reader threads pread pieces into pinned staging buffers, each copied up on its own stream
//               (what gpu/parameter_upload.cu does today);
//   registered: the file mapped and its pages registered with CUDA (cudaHostRegisterReadOnly), so the DMA
//               reads the page cache itself: no host copy; the registration's own time is printed apart;
//   pageable:   cudaMemcpyAsync straight from the mapping (the driver stages it).
// Usage: h2d_paths FILE [GiB to copy] [reader threads] [piece MiB]
#include <cuda_runtime.h>
#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>

#define CHECK(call)                                                                              \
  do {                                                                                           \
    cudaError_t e_ = (call);                                                                     \
    if (e_ != cudaSuccess) {                                                                     \
      std::printf("%s failed: %s (%s)\n", #call, cudaGetErrorName(e_), cudaGetErrorString(e_)); \
      return false;                                                                              \
    }                                                                                            \
  } while (0)

using Clock = std::chrono::steady_clock;
static double seconds_since(Clock::time_point t) {
  return std::chrono::duration<double>(Clock::now() - t).count();
}

static bool via_pread(int fd, size_t bytes, unsigned threads, size_t piece, char* device) {
  std::atomic<size_t> next{0};
  std::atomic<bool> ok{true};
  auto t0 = Clock::now();
  std::vector<std::thread> pool;
  for (unsigned t = 0; t < threads; ++t) {
    pool.emplace_back([&] {
      void* staging[2];
      cudaEvent_t done[2];
      cudaStream_t stream;
      if (cudaMallocHost(&staging[0], piece) || cudaMallocHost(&staging[1], piece) ||
          cudaEventCreate(&done[0]) || cudaEventCreate(&done[1]) || cudaStreamCreate(&stream)) {
        ok = false;
        return;
      }
      bool used[2] = {false, false};
      for (int slot = 0;; slot ^= 1) {
        size_t at = next.fetch_add(piece);
        if (at >= bytes) break;
        size_t len = std::min(piece, bytes - at);
        if (used[slot]) cudaEventSynchronize(done[slot]);
        for (size_t got = 0; got < len;) {
          ssize_t n = pread(fd, static_cast<char*>(staging[slot]) + got, len - got, off_t(at + got));
          if (n <= 0) {
            ok = false;
            return;
          }
          got += size_t(n);
        }
        cudaMemcpyAsync(device + (at % (size_t{4} << 30)), staging[slot], len, cudaMemcpyHostToDevice, stream);
        cudaEventRecord(done[slot], stream);
        used[slot] = true;
      }
      cudaStreamSynchronize(stream);
      cudaFreeHost(staging[0]);
      cudaFreeHost(staging[1]);
    });
  }
  for (auto& t : pool) t.join();
  double s = seconds_since(t0);
  std::printf("pread      threads %2u piece %4zu MiB: %6.2f GB/s (%.2f s)\n", threads, piece >> 20,
              bytes / s / 1e9, s);
  return ok;
}

static bool via_registered(const char* map, size_t bytes, size_t piece, char* device, unsigned streams_n) {
  auto t0 = Clock::now();
  cudaError_t e = cudaHostRegister(const_cast<char*>(map), bytes, cudaHostRegisterReadOnly);
  double reg = seconds_since(t0);
  if (e != cudaSuccess) {
    std::printf("registered: cudaHostRegister(ReadOnly) failed after %.2f s: %s (%s)\n", reg, cudaGetErrorName(e),
                cudaGetErrorString(e));
    cudaGetLastError();
    return false;
  }
  std::vector<cudaStream_t> streams(streams_n);
  for (auto& s : streams) CHECK(cudaStreamCreate(&s));
  for (int round = 0; round < 2; ++round) {
    auto t1 = Clock::now();
    size_t i = 0;
    for (size_t at = 0; at < bytes; at += piece, ++i) {
      size_t len = std::min(piece, bytes - at);
      CHECK(cudaMemcpyAsync(device + (at % (size_t{4} << 30)), map + at, len, cudaMemcpyHostToDevice,
                            streams[i % streams_n]));
    }
    CHECK(cudaDeviceSynchronize());
    double s = seconds_since(t1);
    std::printf("registered streams %u piece %4zu MiB, round %d: %6.2f GB/s (%.2f s; registering took %.2f s)\n",
                streams_n, piece >> 20, round, bytes / s / 1e9, s, reg);
  }
  auto t2 = Clock::now();
  CHECK(cudaHostUnregister(const_cast<char*>(map)));
  std::printf("registered: unregister %.2f s\n", seconds_since(t2));
  // Registering window by window, as a streamed MSM would if the whole file could not stay registered.
  const size_t window = size_t{1} << 30;
  auto t3 = Clock::now();
  double reg_total = 0;
  for (size_t at = 0; at < bytes; at += window) {
    size_t len = std::min(window, bytes - at);
    auto r0 = Clock::now();
    CHECK(cudaHostRegister(const_cast<char*>(map + at), len, cudaHostRegisterReadOnly));
    reg_total += seconds_since(r0);
    CHECK(cudaMemcpyAsync(device + (at % (size_t{4} << 30)), map + at, len, cudaMemcpyHostToDevice, streams[0]));
    CHECK(cudaStreamSynchronize(streams[0]));
    CHECK(cudaHostUnregister(const_cast<char*>(map + at)));
  }
  double s3 = seconds_since(t3);
  std::printf("registered per 1 GiB window (register, copy, unregister): %6.2f GB/s (%.2f s, %.2f s registering)\n",
              bytes / s3 / 1e9, s3, reg_total);
  for (auto& s : streams) cudaStreamDestroy(s);
  return true;
}

static bool via_pageable(const char* map, size_t bytes, size_t piece, char* device) {
  auto t0 = Clock::now();
  for (size_t at = 0; at < bytes; at += piece) {
    size_t len = std::min(piece, bytes - at);
    CHECK(cudaMemcpy(device + (at % (size_t{4} << 30)), map + at, len, cudaMemcpyHostToDevice));
  }
  double s = seconds_since(t0);
  std::printf("pageable   piece %4zu MiB: %6.2f GB/s (%.2f s)\n", piece >> 20, bytes / s / 1e9, s);
  return true;
}

int main(int argc, char** argv) {
  if (argc < 2) {
    std::printf("usage: h2d_paths FILE [GiB] [threads] [piece MiB]\n");
    return 2;
  }
  const char* path = argv[1];
  size_t gib = argc > 2 ? std::strtoull(argv[2], nullptr, 10) : 16;
  unsigned threads = argc > 3 ? unsigned(std::atoi(argv[3])) : 8;
  size_t piece = (argc > 4 ? std::strtoull(argv[4], nullptr, 10) : 16) << 20;
  int fd = open(path, O_RDONLY);
  struct stat st{};
  if (fd < 0 || fstat(fd, &st) != 0) {
    std::printf("cannot open %s\n", path);
    return 1;
  }
  size_t bytes = std::min(size_t(st.st_size), gib << 30);
  char* device = nullptr;
  if (cudaMalloc(&device, size_t{4} << 30) != cudaSuccess) return 1;
  const char* map = static_cast<const char*>(mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd, 0));
  if (map == MAP_FAILED) return 1;
  std::printf("file %s, %.2f GB\n", path, bytes / 1e9);
  // Warm the page cache (the streamed tiers read a file the page cache already holds).
  via_pread(fd, bytes, threads, piece, device);
  for (unsigned t : {4u, 8u, 12u, 16u}) via_pread(fd, bytes, t, piece, device);
  via_pread(fd, bytes, 16, size_t{64} << 20, device);
  via_registered(map, bytes, size_t{64} << 20, device, 1);
  via_registered(map, bytes, size_t{64} << 20, device, 4);
  via_pageable(map, bytes, size_t{64} << 20, device);
  return 0;
}
