// A .params file's five base vectors read straight into device memory, in the MSM's layout
// (gpu/msm.hpp DeviceAffine), without decoding them on the host.
//
// Why: the parameters are the fixed cost of every invocation (a 32GiB sector's file is ~44 GiB). Decoding
// them into host vectors and converting again for the device costs tens of seconds and as much host memory
// as the file. Here several threads pread() disjoint 64 MiB pieces of the file into pinned buffers of their
// own and copy them to the device as they are; a kernel then decodes every point in place. The uncompressed
// encoding (bellperson, docs/formats.md) has the size of the device layout: G1 96 bytes = two 48-byte
// coordinates, G2 192 bytes = two Fp2 coordinates, so each thread of that kernel reads one encoded point and
// writes the same bytes back as Montgomery limbs.
//
// Checks on the device, per point: the flag bits of an uncompressed encoding, coordinates below p, not the
// point at infinity (bellperson rejects it in these vectors) and on the curve. The subgroup check is left
// out (rust-fil-proofs reads these vectors unchecked, too): every proof is verified before it is written,
// and `cuzk params check` compares the file's digest with Filecoin's manifest.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "gpu/device_buffer.hpp"
#include "gpu/msm.hpp"
#include "prover/groth16/parameters.hpp"

namespace cuzk::gpu {

struct ParameterUploadStats {
  std::uint64_t bytes = 0;         // base-vector bytes copied to the device
  double page_cache_fraction = 0;  // of those bytes' pages, resident in the page cache before the load
  double read_seconds = 0;         // host reads and copies to the device, overlapped
  double decode_seconds = 0;       // the decoding kernels
  unsigned reader_threads = 0;
};

// How a streamed vector's bytes go from the page cache to the device.
enum class StreamPath {
  // Reader threads pread() pieces into pinned staging buffers, each then copied up: two host copies' worth
  // of CPU and memory bandwidth per byte, shared with synthesis (~30 GB/s alone on the H200's host).
  kPread,
  // The vector's bytes of the file are mapped and registered with CUDA (cudaHostRegisterReadOnly): the page
  // cache's own pages are locked and the DMA reads them, with no host copy and no reader thread (~55 GB/s
  // on the H200's PCIe 5 x16, measured by scripts/device/h2d_paths.cu). The locked pages cannot be reclaimed
  // while the engine lives, so this needs the host memory to hold them beside the run.
  kRegistered,
};

// A streamed base vector read again from the parameter file for every MSM over it: the page cache holds
// the file (it is not counted as the process's memory, and the kernel drops it under pressure), so the host
// keeps no copy of its own. load() copies the range to the device by `StreamPath`, then decodes the points
// there (as the first load did, so a file changed under the run is caught: check()).
class FileVectorSource {
 public:
  // `data_offset`: the file offset of point 0; `point_bytes`: 96 (G1) or 192 (G2). kRegistered throws
  // GpuError when the registration fails (RLIMIT_MEMLOCK, say): the caller chose it, so it is not replaced.
  FileVectorSource(const std::string& path, std::uint64_t data_offset, std::size_t count,
                   std::size_t point_bytes, unsigned threads, StreamPath path_kind = StreamPath::kPread);
  ~FileVectorSource();
  FileVectorSource(const FileVectorSource&) = delete;
  FileVectorSource& operator=(const FileVectorSource&) = delete;

  std::size_t count() const { return count_; }
  StreamPath stream_path() const { return mapping_ ? StreamPath::kRegistered : StreamPath::kPread; }
  // Queues on `stream` the decoded bases [first, first + n) into dst (device memory, n points). Returns when
  // the reads are done and the copies and the decoding are queued. One load at a time per source.
  void load(std::size_t first, std::size_t n, void* dst, cudaStream_t stream);
  // Throws groth16::Groth16Error (kParameters) naming the file and the first bad point when a load decoded
  // one (the stream of the loads synchronised).
  void check() const;
  // Seconds spent in pread and bytes read, over all loads (for the run report's streaming figures).
  double read_seconds() const { return read_seconds_; }
  std::uint64_t bytes_read() const { return bytes_read_; }

 private:
  void read_into(std::size_t first, std::size_t bytes, void* dst, cudaStream_t stream);  // kPread
  void decode(std::size_t first, std::size_t n, void* dst, cudaStream_t stream);
  std::string path_;
  int fd_ = -1;
  std::uint64_t data_offset_;
  std::size_t count_, point_bytes_;
  unsigned threads_;
  // kRegistered: the mapping of the vector's bytes (from the page below data_offset_), registered.
  struct RegisteredMapping;
  std::unique_ptr<RegisteredMapping> mapping_;
  std::vector<PinnedBuffer<std::byte>> buffers_;  // kPread: two per thread, used in turn
  std::vector<Event> copied_;                     // the copy that last used each buffer
  std::vector<char> busy_;                        // not vector<bool>: reader threads set their own elements
  DeviceBuffer<unsigned long long> fault_;        // the first bad point, as in the first load
  double read_seconds_ = 0;
  std::uint64_t bytes_read_ = 0;
};

// One base vector, decoded: on the device (resident), in pinned host memory in the device layout, or read
// from the file for every MSM (both streamed: sent to the device a window at a time by each MSM).
template <class DeviceAffine>
struct LoadedVector {
  DeviceBuffer<DeviceAffine> device;
  PinnedBuffer<DeviceAffine> host;
  std::unique_ptr<FileVectorSource> file;
  std::size_t count = 0;
};

// The base vectors of one .params file, decoded.
struct DeviceParameterBases {
  LoadedVector<G1Msm::DeviceAffine> h, l, a, b_g1;
  LoadedVector<G2Msm::DeviceAffine> b_g2;
};

// Which vectors stay on the device (true) and which go to pinned host memory (false).
struct BasePlacement {
  bool h = true, l = true, a = true, b_g1 = true, b_g2 = true;
  // Points decoded at a time for the host-bound vectors (a device scratch of this many G2 points).
  std::size_t decode_window = std::size_t{1} << 22;
  // The host-bound vectors are read from the file (the page cache) for every MSM instead of being kept in
  // pinned host memory.
  bool stream_from_file = true;
  StreamPath stream_path = StreamPath::kPread;  // how, with stream_from_file
};

// Reads the base vectors of `path`, whose layout `info` gives (groth16::read_parameters_info), into newly
// allocated buffers as `placement` says. `reader_threads` = 0: a default for the machine (at most 8).
// Throws groth16::Groth16Error (kParameters) naming the file, the vector and the first bad point's index when
// a point fails its checks, and GpuError on CUDA failures.
DeviceParameterBases upload_parameter_bases(const std::string& path, const groth16::ParametersInfo& info,
                                            unsigned reader_threads, ParameterUploadStats* stats = nullptr,
                                            const BasePlacement& placement = {});

}  // namespace cuzk::gpu
