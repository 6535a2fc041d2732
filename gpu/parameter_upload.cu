// The upload of a .params file's base vectors to the GPU: read in parallel into device or pinned host
// memory (or left in the file, streamed for every MSM), then decoded and checked on the device.
#include <fcntl.h>
#include <sys/mman.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstring>
#include <exception>
#include <mutex>
#include <optional>
#include <thread>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/curve.cuh"
#include "gpu/parameter_upload.hpp"
#include "io/io_error.hpp"
#include "prover/groth16/errors.hpp"

namespace cuzk::gpu {
namespace {

// A fault of the parameter file (it cannot be opened, ends early, or holds a bad point): a parameter fault
// as the host reader's (prover/groth16/parameters.cpp), whose message names the file and offset.
[[noreturn]] void throw_file_fault(const std::string& path, const std::string& what,
                                   std::optional<std::uint64_t> offset = std::nullopt) {
  throw groth16::Groth16Error(groth16::Groth16ErrorKind::kParameters, io::IoError(path, what, offset).what());
}

// Why a point was refused (the first bad point of a vector is reported).
enum PointFault : uint32_t { kFlags = 1, kNotCanonical = 2, kInfinity = 3, kNotOnCurve = 4 };

const char* fault_text(uint32_t fault) {
  switch (fault) {
    case kFlags:
      return "flag bits of an uncompressed encoding are wrong (compressed or sign flag set)";
    case kNotCanonical:
      return "a coordinate is not below the field modulus";
    case kInfinity:
      return "the point at infinity (bellperson refuses it in the parameter vectors)";
    case kNotOnCurve:
      return "the point is not on the curve";
  }
  return "unknown fault";
}

// The first bad point of a vector as index << 3 | fault, so that one atomicMin keeps the lowest index with
// its own fault; all bits set when there is none.
using FirstFault = unsigned long long;
constexpr FirstFault kNoFault = ~0ull;

// 48 big-endian bytes (4-byte aligned) as 12 little-endian 32-bit limbs; `mask_flags` clears the three flag
// bits of the first byte. Returns false when the value is not below p.
__device__ __forceinline__ bool read_be_fp(const uint32_t* words, bool mask_flags, DevFp& out) {
#pragma unroll
  for (int i = 0; i < 12; ++i) out.v[i] = __byte_perm(words[11 - i], 0, 0x0123);
  if (mask_flags) out.v[11] &= 0x1fffffffu;
#pragma unroll
  for (int i = 11; i >= 0; --i) {
    const uint32_t p = FpTag::c().modulus[i];
    if (out.v[i] != p) return out.v[i] < p;
  }
  return false;  // equal to p
}

__device__ __forceinline__ void record_fault(FirstFault* first, unsigned long long index, uint32_t fault) {
  atomicMin(first, index << 3 | fault);
}

__device__ __forceinline__ DevFp fp_b() {
  return DevFp::one().dbl().dbl();  // 4
}

// `first_index`: the index of points[0] in its vector, for the fault report.
__global__ void decode_g1_in_place(DevAffine<DevFp>* points, std::size_t count, std::size_t first_index,
                                   FirstFault* first) {
  const std::size_t local = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (local >= count) return;
  const std::size_t i = first_index + local;
  const auto* words = reinterpret_cast<const uint32_t*>(points + local);
  const uint32_t top = __byte_perm(words[0], 0, 0x0123) >> 24;  // the first byte
  DevFp x, y;
  const bool x_ok = read_be_fp(words, true, x);
  const bool y_ok = read_be_fp(words + 12, false, y);
  if ((top & 0x80u) || (top & 0x20u)) return record_fault(first, i, kFlags);
  if (top & 0x40u) return record_fault(first, i, kInfinity);
  if (!x_ok || !y_ok) return record_fault(first, i, kNotCanonical);
  x = x.to_montgomery();
  y = y.to_montgomery();
  if (!(y.sqr() == x.sqr() * x + fp_b())) return record_fault(first, i, kNotOnCurve);
  points[local] = {x, y};
}

__global__ void decode_g2_in_place(DevAffine<DevFp2>* points, std::size_t count, std::size_t first_index,
                                   FirstFault* first) {
  const std::size_t local = std::size_t{blockIdx.x} * blockDim.x + threadIdx.x;
  if (local >= count) return;
  const std::size_t i = first_index + local;
  const auto* words = reinterpret_cast<const uint32_t*>(points + local);
  const uint32_t top = __byte_perm(words[0], 0, 0x0123) >> 24;
  DevFp x1, x0, y1, y0;  // encoded as x.c1 || x.c0 || y.c1 || y.c0
  const bool ok = read_be_fp(words, true, x1) & read_be_fp(words + 12, false, x0) &
                  read_be_fp(words + 24, false, y1) & read_be_fp(words + 36, false, y0);
  if ((top & 0x80u) || (top & 0x20u)) return record_fault(first, i, kFlags);
  if (top & 0x40u) return record_fault(first, i, kInfinity);
  if (!ok) return record_fault(first, i, kNotCanonical);
  const DevFp2 x{x0.to_montgomery(), x1.to_montgomery()};
  const DevFp2 y{y0.to_montgomery(), y1.to_montgomery()};
  const DevFp2 b{fp_b(), fp_b()};  // 4 (1 + u)
  if (!(y.sqr() == x.sqr() * x + b)) return record_fault(first, i, kNotOnCurve);
  points[local] = {x, y};
}

// A piece of the file bound for device memory, or for pinned host memory (read there directly).
struct Piece {
  std::uint64_t file_offset;
  std::size_t bytes;
  std::byte* dst;
  bool on_device;
};

// Fraction of the file range's pages in the page cache (mincore over a temporary mapping).
double resident_fraction(int fd, std::uint64_t offset, std::uint64_t bytes) {
  const long page = sysconf(_SC_PAGESIZE);
  const std::uint64_t begin = offset / page * page;
  const std::uint64_t length = offset + bytes - begin;
  if (length == 0) return 1.0;
  void* map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(begin));
  if (map == MAP_FAILED) return 0.0;
  std::vector<unsigned char> vec((length + page - 1) / page);
  double fraction = 0.0;
  if (mincore(map, length, vec.data()) == 0) {
    std::size_t resident = 0;
    for (unsigned char v : vec) resident += v & 1;
    fraction = double(resident) / double(vec.size());
  }
  munmap(map, length);
  return fraction;
}

// Each thread: its own stream and two pinned buffers in turn; pread into one while the other's copy to the
// device runs. Pieces are handed out through one counter, so threads stay busy whatever the vector sizes.
void read_pieces(int fd, const std::string& path, const std::vector<Piece>& pieces, unsigned threads) {
  constexpr std::size_t kBufferBytes = std::size_t{64} << 20;
  int device = 0;
  CUDA_OK(cudaGetDevice(&device));
  std::atomic<std::size_t> next{0};
  std::mutex error_mutex;
  std::exception_ptr error;
  auto worker = [&] {
    try {
      CUDA_OK(cudaSetDevice(device));
      Stream stream;
      PinnedBuffer<std::byte> buffers[2] = {PinnedBuffer<std::byte>(kBufferBytes),
                                            PinnedBuffer<std::byte>(kBufferBytes)};
      Event copied[2];
      bool busy[2] = {false, false};
      unsigned slot = 0;
      for (;;) {
        const std::size_t k = next.fetch_add(1);
        if (k >= pieces.size()) break;
        {
          std::lock_guard lock(error_mutex);
          if (error) break;
        }
        const Piece& piece = pieces[k];
        if (piece.on_device && busy[slot]) copied[slot].synchronize();
        std::byte* target = piece.on_device ? buffers[slot].data() : piece.dst;
        std::size_t done = 0;
        while (done < piece.bytes) {
          const ssize_t n =
              pread(fd, target + done, piece.bytes - done, static_cast<off_t>(piece.file_offset + done));
          if (n <= 0)
            throw_file_fault(path,
                             n == 0 ? "ended early" : std::string("read failed: ") + std::strerror(errno),
                             piece.file_offset + done);
          done += static_cast<std::size_t>(n);
        }
        if (!piece.on_device) continue;
        CUDA_OK(
            cudaMemcpyAsync(piece.dst, buffers[slot].data(), piece.bytes, cudaMemcpyHostToDevice, stream));
        copied[slot].record(stream);
        busy[slot] = true;
        slot ^= 1;
      }
      stream.synchronize();
    } catch (...) {
      std::lock_guard lock(error_mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker);
  worker();
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

// Splits [offset, offset + bytes) of the file into pieces of whole points, at most kPiece bytes each.
void add_pieces(std::vector<Piece>& pieces, std::uint64_t offset, std::size_t bytes, std::size_t point_bytes,
                void* dst, bool on_device) {
  const std::size_t piece_max = (std::size_t{64} << 20) / point_bytes * point_bytes;
  for (std::size_t done = 0; done < bytes; done += piece_max)
    pieces.push_back(
        {offset + done, std::min(piece_max, bytes - done), static_cast<std::byte*>(dst) + done, on_device});
}

// Where a vector goes: device memory (resident), a file source (streamed from the page cache), or pinned
// host memory (streamed from a copy of its own).
template <class DeviceAffine>
void allocate(LoadedVector<DeviceAffine>& v, std::size_t count, bool resident, const BasePlacement& placement,
              const std::string& path, std::uint64_t data_offset, unsigned threads) {
  v.count = count;
  if (resident) {
    v.device = DeviceBuffer<DeviceAffine>(count);
  } else if (placement.stream_from_file) {
    v.file = std::make_unique<FileVectorSource>(path, data_offset, count, sizeof(DeviceAffine), threads,
                                                placement.stream_path);
  } else {
    v.host = PinnedBuffer<DeviceAffine>(count);
  }
}

template <class DeviceAffine>
void* destination(LoadedVector<DeviceAffine>& v) {
  return v.device.size() ? static_cast<void*>(v.device.data()) : static_cast<void*>(v.host.data());
}

template <class DeviceAffine>
void check_decoded(FirstFault fault, const std::string& path, const groth16::ParametersInfo::Vector& v) {
  if (fault == kNoFault) return;
  const std::uint64_t index = fault >> 3;
  const std::uint64_t at = v.length_offset + groth16::kLengthBytes + index * sizeof(DeviceAffine);
  throw_file_fault(path,
                   "invalid point " + std::to_string(index) + " of vector " + v.name + ": " +
                       fault_text(static_cast<uint32_t>(fault & 7)),
                   at);
}

// Reads [offset, offset + bytes) of fd into dst, whole; throws a parameter fault naming the file.
void pread_all(int fd, const std::string& path, std::byte* dst, std::size_t bytes, std::uint64_t offset) {
  std::size_t done = 0;
  while (done < bytes) {
    const ssize_t n = pread(fd, dst + done, bytes - done, static_cast<off_t>(offset + done));
    if (n <= 0)
      throw_file_fault(path, n == 0 ? "ended early" : std::string("read failed: ") + std::strerror(errno),
                       offset + done);
    done += static_cast<std::size_t>(n);
  }
}

// Pieces a streaming load is split into: large enough that pread and the DMA run at speed, small enough
// that the first copy starts early and every reader thread gets work from a 2^20-point window.
constexpr std::size_t kStreamPieceBytes = std::size_t{16} << 20;

// Seconds from `start` to now.
double seconds_since(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// Where a vector's points start in the file: after its u32 length.
std::uint64_t data_offset_of(const groth16::ParametersInfo::Vector& v) {
  return v.length_offset + groth16::kLengthBytes;
}

// The file's base vectors, as read_parameters_info found them.
struct FileVectors {
  const groth16::ParametersInfo::Vector& h;
  const groth16::ParametersInfo::Vector& l;
  const groth16::ParametersInfo::Vector& a;
  const groth16::ParametersInfo::Vector& b_g1;
  const groth16::ParametersInfo::Vector& b_g2;
};

// Places every vector as `placement` says: on the device, streamed from the file, or in pinned host memory.
void allocate_bases(DeviceParameterBases& out, const FileVectors& v, const BasePlacement& placement,
                    const std::string& path, unsigned reader_threads) {
  allocate(out.h, v.h.count, placement.h, placement, path, data_offset_of(v.h), reader_threads);
  allocate(out.l, v.l.count, placement.l, placement, path, data_offset_of(v.l), reader_threads);
  allocate(out.a, v.a.count, placement.a, placement, path, data_offset_of(v.a), reader_threads);
  allocate(out.b_g1, v.b_g1.count, placement.b_g1, placement, path, data_offset_of(v.b_g1), reader_threads);
  allocate(out.b_g2, v.b_g2.count, placement.b_g2, placement, path, data_offset_of(v.b_g2), reader_threads);
}

// The pieces of one vector for the readers; none for a vector streamed from the file (its own loads read
// it, and decode_vector checks it).
template <class DeviceAffine>
void add_vector_pieces(std::vector<Piece>& pieces, LoadedVector<DeviceAffine>& vec,
                       const groth16::ParametersInfo::Vector& v, bool resident) {
  if (vec.file) return;
  add_pieces(pieces, data_offset_of(v), vec.count * sizeof(DeviceAffine), sizeof(DeviceAffine),
             destination(vec), resident);
}

// The pieces of the file that the readers bring to the vectors' places, in file order.
std::vector<Piece> pieces_to_read(DeviceParameterBases& out, const FileVectors& v,
                                  const BasePlacement& placement) {
  std::vector<Piece> pieces;
  add_vector_pieces(pieces, out.h, v.h, placement.h);
  add_vector_pieces(pieces, out.l, v.l, placement.l);
  add_vector_pieces(pieces, out.a, v.a, placement.a);
  add_vector_pieces(pieces, out.b_g1, v.b_g1, placement.b_g1);
  add_vector_pieces(pieces, out.b_g2, v.b_g2, placement.b_g2);
  return pieces;
}

// Launches the decoding kernel of the points' group on `count` points; `first_index` is the index of
// points[0] in its vector, and the first bad point goes to *fault.
template <class DeviceAffine>
void launch_decode(DeviceAffine* points, std::size_t count, std::size_t first_index, FirstFault* fault,
                   cudaStream_t stream) {
  if (count == 0) return;
  constexpr unsigned kBlock = 256;
  const unsigned blocks = static_cast<unsigned>((count + kBlock - 1) / kBlock);
  if constexpr (std::is_same_v<DeviceAffine, G1Msm::DeviceAffine>) {
    decode_g1_in_place<<<blocks, kBlock, 0, stream>>>(reinterpret_cast<DevAffine<DevFp>*>(points), count,
                                                      first_index, fault);
  } else {
    decode_g2_in_place<<<blocks, kBlock, 0, stream>>>(reinterpret_cast<DevAffine<DevFp2>*>(points), count,
                                                      first_index, fault);
  }
  CUDA_LAUNCH_OK();
}

// Decodes one vector on `stream`, its first bad point to *fault: a resident one in place, a host-bound one a
// window at a time through the device `scratch` (G2-sized: room for a window of either group), one streamed
// from the file through its own loads (which keep their own fault).
template <class DeviceAffine>
void decode_vector(LoadedVector<DeviceAffine>& vec, FirstFault* fault, const BasePlacement& placement,
                   DeviceBuffer<G2Msm::DeviceAffine>& scratch, cudaStream_t stream) {
  if (vec.device.size() > 0 || vec.count == 0) {
    return launch_decode(vec.device.data(), vec.count, 0, fault, stream);
  }
  const std::size_t window = std::max<std::size_t>(1, placement.decode_window);
  scratch.ensure(window);
  auto* device = reinterpret_cast<DeviceAffine*>(scratch.data());
  if (vec.file) {  // read and decoded through the path of every later load, the points checked now
    for (std::size_t first = 0; first < vec.count; first += window)
      vec.file->load(first, std::min(window, vec.count - first), device, stream);
    return;
  }
  for (std::size_t first = 0; first < vec.count; first += window) {
    const std::size_t n = std::min(window, vec.count - first);
    CUDA_OK(cudaMemcpyAsync(device, vec.host.data() + first, n * sizeof(DeviceAffine), cudaMemcpyHostToDevice,
                            stream));
    launch_decode(device, n, first, fault, stream);
    CUDA_OK(cudaMemcpyAsync(vec.host.data() + first, device, n * sizeof(DeviceAffine), cudaMemcpyDeviceToHost,
                            stream));
  }
}

// Decodes every vector on a stream of its own and waits for the device; returns each vector's first fault
// (in file order), and the seconds it took in `seconds`.
std::vector<FirstFault> decode_bases(DeviceParameterBases& out, const BasePlacement& placement,
                                     double& seconds) {
  const auto start = std::chrono::steady_clock::now();
  Stream stream;
  DeviceBuffer<FirstFault> faults(5);
  std::vector<FirstFault> none(5, kNoFault);
  faults.upload(std::span<const FirstFault>(none), stream);
  DeviceBuffer<G2Msm::DeviceAffine> scratch;
  decode_vector(out.h, faults.data() + 0, placement, scratch, stream);
  decode_vector(out.l, faults.data() + 1, placement, scratch, stream);
  decode_vector(out.a, faults.data() + 2, placement, scratch, stream);
  decode_vector(out.b_g1, faults.data() + 3, placement, scratch, stream);
  decode_vector(out.b_g2, faults.data() + 4, placement, scratch, stream);
  std::vector<FirstFault> found(5);
  faults.download(std::span<FirstFault>(found), stream);
  stream.synchronize();
  seconds = seconds_since(start);
  return found;
}

// Throws for the first bad point: a file-streamed vector's first, then the others' in file order.
void check_bases(const DeviceParameterBases& out, const std::vector<FirstFault>& found,
                 const std::string& path, const FileVectors& v) {
  for (const FileVectorSource* file :
       {out.h.file.get(), out.l.file.get(), out.a.file.get(), out.b_g1.file.get(), out.b_g2.file.get()})
    if (file) file->check();
  check_decoded<G1Msm::DeviceAffine>(found[0], path, v.h);
  check_decoded<G1Msm::DeviceAffine>(found[1], path, v.l);
  check_decoded<G1Msm::DeviceAffine>(found[2], path, v.a);
  check_decoded<G1Msm::DeviceAffine>(found[3], path, v.b_g1);
  check_decoded<G2Msm::DeviceAffine>(found[4], path, v.b_g2);
}

}  // namespace

// The file's bytes [offset, offset + bytes) mapped read-only from the page below `offset`, and registered
// with CUDA so that copies to the device read the page cache directly. Unregistered and unmapped on the way
// out.
struct FileVectorSource::RegisteredMapping {
  void* map = MAP_FAILED;
  std::size_t length = 0;
  const std::byte* data = nullptr;  // the byte at `offset`
  bool registered = false;

  RegisteredMapping(int fd, const std::string& path, std::uint64_t offset, std::size_t bytes) {
    const std::uint64_t page = static_cast<std::uint64_t>(sysconf(_SC_PAGESIZE));
    const std::uint64_t begin = offset / page * page;
    length = static_cast<std::size_t>(offset + bytes - begin);
    map = mmap(nullptr, length, PROT_READ, MAP_SHARED, fd, static_cast<off_t>(begin));
    if (map == MAP_FAILED) throw_file_fault(path, std::string("cannot map: ") + std::strerror(errno));
    data = static_cast<const std::byte*>(map) + (offset - begin);
    const cudaError_t e = cudaHostRegister(map, length, cudaHostRegisterReadOnly);
    if (e != cudaSuccess) {
      (void)cudaGetLastError();
      munmap(map, length);
      throw GpuError("registering " + std::to_string(length) + " bytes of " + path +
                     " with CUDA for streaming (cudaHostRegister, read-only) failed: " + cudaGetErrorString(e) +
                     "; raise the locked-memory limit (ulimit -l) or stream through staging buffers "
                     "(CUZK_GPU_STREAM=pread)");
    }
    registered = true;
  }
  ~RegisteredMapping() {
    if (registered) (void)cudaHostUnregister(map);
    if (map != MAP_FAILED) munmap(map, length);
  }
  RegisteredMapping(const RegisteredMapping&) = delete;
  RegisteredMapping& operator=(const RegisteredMapping&) = delete;
};

FileVectorSource::FileVectorSource(const std::string& path, std::uint64_t data_offset, std::size_t count,
                                   std::size_t point_bytes, unsigned threads, StreamPath path_kind)
    : path_(path),
      data_offset_(data_offset),
      count_(count),
      point_bytes_(point_bytes),
      threads_(std::max(1u, threads)),
      fault_(1) {
  fd_ = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd_ < 0) throw_file_fault(path, std::string("cannot open: ") + std::strerror(errno));
  try {
    if (path_kind == StreamPath::kRegistered && count > 0) {
      mapping_ = std::make_unique<RegisteredMapping>(fd_, path, data_offset, count * point_bytes);
    } else {
      const std::size_t piece = kStreamPieceBytes / point_bytes * point_bytes;
      for (unsigned i = 0; i < 2 * threads_; ++i) buffers_.emplace_back(piece);
      copied_.resize(2 * threads_);
      busy_.assign(2 * threads_, 0);
    }
    const FirstFault none = kNoFault;
    fault_.upload(std::span<const FirstFault>(&none, 1), nullptr);
    CUDA_OK(cudaDeviceSynchronize());
  } catch (...) {
    close(fd_);
    throw;
  }
}

FileVectorSource::~FileVectorSource() {
  if (fd_ >= 0) close(fd_);
}

void FileVectorSource::load(std::size_t first, std::size_t n, void* dst, cudaStream_t stream) {
  if (first + n > count_)
    throw GpuError("FileVectorSource: points " + std::to_string(first) + " + " + std::to_string(n) + " of " +
                   std::to_string(count_));
  if (n == 0) return;
  const auto start = std::chrono::steady_clock::now();
  const std::size_t bytes = n * point_bytes_;
  if (mapping_) {
    CUDA_OK(
        cudaMemcpyAsync(dst, mapping_->data + first * point_bytes_, bytes, cudaMemcpyHostToDevice, stream));
  } else {
    read_into(first, bytes, dst, stream);
  }
  decode(first, n, dst, stream);
  read_seconds_ += std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  bytes_read_ += bytes;
}

void FileVectorSource::read_into(std::size_t first, std::size_t bytes, void* dst, cudaStream_t stream) {
  const std::size_t piece = kStreamPieceBytes / point_bytes_ * point_bytes_;
  const std::size_t pieces = (bytes + piece - 1) / piece;
  const unsigned threads = unsigned(std::min<std::size_t>(threads_, pieces));
  std::atomic<std::size_t> next{0};
  std::mutex mutex;  // cudaMemcpyAsync from several threads onto one stream, and the first error
  std::exception_ptr error;
  int device = 0;
  CUDA_OK(cudaGetDevice(&device));
  auto worker = [&](unsigned t) {
    try {
      CUDA_OK(cudaSetDevice(device));
      unsigned slot = 0;
      for (std::size_t k = next.fetch_add(1); k < pieces; k = next.fetch_add(1)) {
        const std::size_t b = 2 * t + slot;
        if (busy_[b]) copied_[b].synchronize();  // its last copy is done: the buffer may be refilled
        const std::size_t offset = k * piece, len = std::min(piece, bytes - offset);
        pread_all(fd_, path_, buffers_[b].data(), len, data_offset_ + first * point_bytes_ + offset);
        std::lock_guard lock(mutex);
        CUDA_OK(cudaMemcpyAsync(static_cast<std::byte*>(dst) + offset, buffers_[b].data(), len,
                                cudaMemcpyHostToDevice, stream));
        copied_[b].record(stream);
        busy_[b] = 1;
        slot ^= 1;
      }
    } catch (...) {
      std::lock_guard lock(mutex);
      if (!error) error = std::current_exception();
    }
  };
  std::vector<std::thread> pool;
  for (unsigned t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& t : pool) t.join();
  if (error) std::rethrow_exception(error);
}

void FileVectorSource::decode(std::size_t first, std::size_t n, void* dst, cudaStream_t stream) {
  constexpr unsigned kBlock = 256;
  const unsigned blocks = static_cast<unsigned>((n + kBlock - 1) / kBlock);
  if (point_bytes_ == sizeof(G1Msm::DeviceAffine)) {
    decode_g1_in_place<<<blocks, kBlock, 0, stream>>>(static_cast<DevAffine<DevFp>*>(dst), n, first,
                                                      fault_.data());
  } else {
    decode_g2_in_place<<<blocks, kBlock, 0, stream>>>(static_cast<DevAffine<DevFp2>*>(dst), n, first,
                                                      fault_.data());
  }
  CUDA_LAUNCH_OK();
}

void FileVectorSource::check() const {
  FirstFault fault = kNoFault;
  CUDA_OK(cudaMemcpy(&fault, fault_.data(), sizeof fault, cudaMemcpyDeviceToHost));
  if (fault == kNoFault) return;
  throw_file_fault(path_,
                   "invalid point " + std::to_string(fault >> 3) +
                       " of a streamed vector (the file changed while "
                       "it was in use?): " +
                       fault_text(static_cast<uint32_t>(fault & 7)),
                   data_offset_ + (fault >> 3) * point_bytes_);
}

DeviceParameterBases upload_parameter_bases(const std::string& path, const groth16::ParametersInfo& info,
                                            unsigned reader_threads, ParameterUploadStats* stats,
                                            const BasePlacement& placement) {
  static_assert(sizeof(G1Msm::DeviceAffine) == algebra::kG1UncompressedSize);
  static_assert(sizeof(G2Msm::DeviceAffine) == algebra::kG2UncompressedSize);
  if (reader_threads == 0) reader_threads = std::clamp(std::thread::hardware_concurrency() / 2, 1u, 8u);
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) throw_file_fault(path, std::string("cannot open: ") + std::strerror(errno));
  const std::unique_ptr<int, void (*)(int*)> close_fd(new int(fd), [](int* f) {
    close(*f);
    delete f;
  });

  DeviceParameterBases out;
  const FileVectors vectors{info.vector("h"), info.vector("l"), info.vector("a"), info.vector("b_g1"),
                            info.vector("b_g2")};
  allocate_bases(out, vectors, placement, path, reader_threads);
  const std::vector<Piece> pieces = pieces_to_read(out, vectors, placement);

  ParameterUploadStats local;
  ParameterUploadStats& s = stats ? *stats : local;
  s.reader_threads = reader_threads;
  s.bytes = (out.h.count + out.l.count + out.a.count + out.b_g1.count) * sizeof(G1Msm::DeviceAffine) +
            out.b_g2.count * sizeof(G2Msm::DeviceAffine);
  s.page_cache_fraction = resident_fraction(fd, data_offset_of(vectors.h), s.bytes);
  posix_fadvise(fd, 0, 0, POSIX_FADV_SEQUENTIAL);

  const auto start = std::chrono::steady_clock::now();
  read_pieces(fd, path, pieces, reader_threads);
  s.read_seconds = seconds_since(start);

  const std::vector<FirstFault> found = decode_bases(out, placement, s.decode_seconds);
  check_bases(out, found, path, vectors);
  return out;
}

}  // namespace cuzk::gpu
