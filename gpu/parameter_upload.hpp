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
#include <string>

#include "gpu/device_buffer.hpp"
#include "gpu/msm.hpp"
#include "prover/groth16/parameters.hpp"

namespace cuzk::gpu {

struct ParameterUploadStats {
  std::uint64_t bytes = 0;           // base-vector bytes copied to the device
  double page_cache_fraction = 0;    // of those bytes' pages, resident in the page cache before the load
  double read_seconds = 0;           // host reads and copies to the device, overlapped
  double decode_seconds = 0;         // the decoding kernels
  unsigned reader_threads = 0;
};

// One base vector, decoded: on the device (resident), or in pinned host memory in the device layout
// (streamed: sent to the device a window at a time by each MSM).
template <class DeviceAffine>
struct LoadedVector {
  DeviceBuffer<DeviceAffine> device;
  PinnedBuffer<DeviceAffine> host;
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
};

// Reads the base vectors of `path`, whose layout `info` gives (groth16::read_parameters_info), into newly
// allocated buffers as `placement` says. `reader_threads` = 0: a default for the machine (at most 8).
// Throws io::IoError naming the file, the vector and the first bad point's index when a point fails its
// checks, and GpuError on CUDA failures.
DeviceParameterBases upload_parameter_bases(const std::string& path, const groth16::ParametersInfo& info,
                                            unsigned reader_threads, ParameterUploadStats* stats = nullptr,
                                            const BasePlacement& placement = {});

}  // namespace cuzk::gpu
