// cuzk_bench_gpu: the GPU benchmark sweep (NTT, H step, G1 and G2 MSM) on the first visible GPU.
//
//   cuzk_bench_gpu [--quick] [--json FILE] [--g1-max LOG] [--g2-max LOG] [--ntt-max LOG] [--h-log LOG]
//                  [--reps N] [--min LOG] [--only field,ntt,h,g1,g2] [--window-bits C1,C2,...]
//                  [--device-only]
//
// --window-bits also times the random-scalar MSMs with each of those window sizes forced. --device-only
// leaves out the MSM figures with host transfers (scalars from host memory, bases uploaded), which take
// most of a large sweep's time: for comparing kernels.
//
// Inputs are made on the device (points: distinct multiples of the generator by a walk; scalars: a
// counter-based hash, below r). Device times are CUDA events around the work with the data already on
// the device; "with transfers" adds the copies from / to pinned host memory. MSM times are host wall
// clock around the whole call (it synchronises once to size the tail and finishes the window sums on
// the host), with the per-phase event times of the last run. Each figure: one warm-up, then the median
// of --reps runs (default 5; 3 for the largest sizes).
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <type_traits>
#include <vector>

#include "gpu/cuda_check.hpp"
#include "gpu/device_buffer.hpp"
#include "gpu/device_info.hpp"
#include "gpu/field.cuh"
#include "gpu/msm.hpp"
#include "gpu/h_step.hpp"
#include "gpu/ntt.hpp"

using namespace cuzk;
using algebra::Fr;

namespace {

struct Row {
  std::string what;
  unsigned log_n;
  double median_ms, min_ms, max_ms;
  std::string note;
};

std::vector<Row> g_rows;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.size() % 2 ? v[v.size() / 2] : 0.5 * (v[v.size() / 2 - 1] + v[v.size() / 2]);
}

void record(const std::string& what, unsigned lg, std::vector<double> ms, const std::string& note = "") {
  Row r{
      what, lg, median(ms), *std::min_element(ms.begin(), ms.end()), *std::max_element(ms.begin(), ms.end()),
      note};
  std::printf("%-34s 2^%-2u  median %10.3f ms  (min %.3f, max %.3f)  %s\n", what.c_str(), lg, r.median_ms,
              r.min_ms, r.max_ms, note.c_str());
  std::fflush(stdout);
  g_rows.push_back(r);
}

// Times fn() with events on `stream`: one warm-up, then `reps` runs.
std::vector<double> time_events(cudaStream_t stream, int reps, const std::function<void()>& fn) {
  gpu::Event a, b;
  fn();
  CUDA_OK(cudaStreamSynchronize(stream));
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    a.record(stream);
    fn();
    b.record(stream);
    b.synchronize();
    ms.push_back(b.elapsed_ms_since(a));
  }
  return ms;
}

std::vector<double> time_wall(int reps, const std::function<void()>& fn) {
  fn();
  CUDA_OK(cudaDeviceSynchronize());
  std::vector<double> ms;
  for (int i = 0; i < reps; ++i) {
    auto t0 = std::chrono::steady_clock::now();
    fn();
    CUDA_OK(cudaDeviceSynchronize());
    ms.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  return ms;
}

__global__ void count_mismatches(const uint4* a, const uint4* b, std::size_t words, unsigned long long* out) {
  std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  if (i < words) {
    uint4 x = a[i], y = b[i];
    if (x.x != y.x || x.y != y.y || x.z != y.z || x.w != y.w) atomicAdd(out, 1ull);
  }
}

unsigned long long mismatches(const Fr* a, const Fr* b, std::size_t n) {
  gpu::DeviceBuffer<unsigned long long> count(1);
  count.zero();
  std::size_t words = n * sizeof(Fr) / 16;
  count_mismatches<<<unsigned((words + 255) / 256), 256>>>(
      reinterpret_cast<const uint4*>(a), reinterpret_cast<const uint4*>(b), words, count.data());
  CUDA_LAUNCH_OK();
  unsigned long long h = 0;
  CUDA_OK(cudaMemcpy(&h, count.data(), sizeof h, cudaMemcpyDeviceToHost));
  return h;
}

// Field multiplication throughput: every thread runs two independent chains x <- x * y, the shape of
// the MSM's and NTT's inner loops. kEvenOdd is the library's multiplication, kCios the first version
// (gpu/mont_mul.hpp keeps both); kSquareByMul (x <- x * x) against kSquare (the dedicated squaring, x <-
// x^2), all measured in the same run.
enum class MulAlgorithm { kEvenOdd, kCios, kSquareByMul, kSquare };

template <class D, MulAlgorithm A>
__global__ void mul_chain_kernel(D* data, int iterations) {
  const std::size_t i = blockIdx.x * std::size_t(blockDim.x) + threadIdx.x;
  D x0 = data[2 * i], x1 = data[2 * i + 1], y = data[(2 * i + 7) % (2 * std::size_t(gridDim.x) * blockDim.x)];
  x0.v[D::N - 1] &= 0x0fffffffu;  // below p and r whatever the seed's limbs
  x1.v[D::N - 1] &= 0x0fffffffu;
  y.v[D::N - 1] &= 0x0fffffffu;
  gpu::ptx::Ops ops;
  for (int k = 0; k < iterations; ++k) {
    if constexpr (A == MulAlgorithm::kEvenOdd) {
      x0 = x0 * y;
      x1 = x1 * y;
    } else if constexpr (A == MulAlgorithm::kSquare) {
      x0 = x0.sqr();
      x1 = x1.sqr();
    } else if constexpr (A == MulAlgorithm::kSquareByMul) {
      x0 = x0 * x0;
      x1 = x1 * x1;
    } else {
      D r0, r1;
      gpu::mont::mul_cios<D::N>(ops, r0.v, x0.v, y.v, D::Tag::c().modulus, D::Tag::c().inv);
      gpu::mont::mul_cios<D::N>(ops, r1.v, x1.v, y.v, D::Tag::c().modulus, D::Tag::c().inv);
      x0 = r0;
      x1 = r1;
    }
  }
  data[2 * i] = x0;
  data[2 * i + 1] = x1;
}

template <class D, MulAlgorithm A>
void bench_mul_one(const char* name, int reps) {
  const int blocks = 132 * 8, threads = 256, iterations = 512;
  const std::size_t elements = 2 * std::size_t(blocks) * threads;
  Fr* seed = gpu::generate_scalars_on_device(elements * sizeof(D) / sizeof(Fr),
                                             9);  // limbs masked below p in the kernel
  D* data = reinterpret_cast<D*>(seed);
  gpu::Stream stream;
  auto ms = time_events(stream, reps, [&] {
    mul_chain_kernel<D, A><<<blocks, threads, 0, stream>>>(data, iterations);
    CUDA_LAUNCH_OK();
  });
  const double muls = double(elements) * iterations;
  char note[128];
  std::snprintf(note, sizeof note, "%.2f G mul/s", muls / (median(ms) * 1e-3) / 1e9);
  record(name, 0, ms, note);
  CUDA_OK(cudaFree(seed));
}

void bench_field(int reps) {
  bench_mul_one<gpu::DevFp, MulAlgorithm::kEvenOdd>("Fp mul even/odd", reps);
  bench_mul_one<gpu::DevFp, MulAlgorithm::kCios>("Fp mul CIOS (baseline)", reps);
  bench_mul_one<gpu::DevFp, MulAlgorithm::kSquareByMul>("Fp sqr by mul", reps);
  bench_mul_one<gpu::DevFp, MulAlgorithm::kSquare>("Fp sqr dedicated", reps);
  bench_mul_one<gpu::DevFr, MulAlgorithm::kEvenOdd>("Fr mul even/odd", reps);
  bench_mul_one<gpu::DevFr, MulAlgorithm::kCios>("Fr mul CIOS (baseline)", reps);
  bench_mul_one<gpu::DevFr, MulAlgorithm::kSquareByMul>("Fr sqr by mul", reps);
  bench_mul_one<gpu::DevFr, MulAlgorithm::kSquare>("Fr sqr dedicated", reps);
}

void bench_ntt(unsigned lo, unsigned hi, int reps) {
  gpu::Stream stream;
  gpu::NttContext ctx(hi, stream);
  const std::size_t max_n = std::size_t{1} << hi;
  Fr* x = gpu::generate_scalars_on_device(max_n, 1);
  gpu::DeviceBuffer<Fr> work(max_n);
  gpu::PinnedBuffer<Fr> host(max_n);
  for (unsigned lg = lo; lg <= hi; ++lg) {
    const std::size_t n = std::size_t{1} << lg;
    const int r = lg >= 26 ? std::max(3, reps - 2) : reps;
    CUDA_OK(cudaMemcpyAsync(work.data(), x, n * sizeof(Fr), cudaMemcpyDeviceToDevice, stream));
    record("NTT fwd NR (device)", lg, time_events(stream, r, [&] {
             ctx.transform(work.data(), lg, gpu::NttDirection::kForward, gpu::NttOrder::kNatural,
                           gpu::NttOrder::kBitReversed, false, stream);
           }));
    record("NTT fwd NN (device)", lg, time_events(stream, r, [&] {
             ctx.transform(work.data(), lg, gpu::NttDirection::kForward, gpu::NttOrder::kNatural,
                           gpu::NttOrder::kNatural, false, stream);
           }));
    record("NTT coset fwd RN (device)", lg, time_events(stream, r, [&] {
             ctx.transform(work.data(), lg, gpu::NttDirection::kForward, gpu::NttOrder::kBitReversed,
                           gpu::NttOrder::kNatural, true, stream);
           }));
    record("NTT fwd NN + HtoD + DtoH (pinned)", lg, time_events(stream, r, [&] {
             work.upload(std::span<const Fr>(host.data(), n), stream);
             ctx.transform(work.data(), lg, gpu::NttDirection::kForward, gpu::NttOrder::kNatural,
                           gpu::NttOrder::kNatural, false, stream);
             work.download(std::span<Fr>(host.data(), n), stream);
           }));
    // Round trip check at this size: inverse(forward(x)) == x.
    CUDA_OK(cudaMemcpyAsync(work.data(), x, n * sizeof(Fr), cudaMemcpyDeviceToDevice, stream));
    ctx.transform(work.data(), lg, gpu::NttDirection::kForward, gpu::NttOrder::kNatural,
                  gpu::NttOrder::kBitReversed, true, stream);
    ctx.transform(work.data(), lg, gpu::NttDirection::kInverse, gpu::NttOrder::kBitReversed,
                  gpu::NttOrder::kNatural, true, stream);
    stream.synchronize();
    unsigned long long bad = mismatches(work.data(), x, n);
    std::printf("  check 2^%u coset round trip: %s\n", lg, bad ? "MISMATCH" : "ok");
    if (bad) throw gpu::GpuError("NTT round trip mismatch in the benchmark");
  }
  CUDA_OK(cudaFree(x));
}

void bench_h(unsigned lg, int reps) {
  gpu::Stream stream;
  gpu::NttContext ctx(lg, stream);
  const std::size_t n = std::size_t{1} << lg;
  Fr* src = gpu::generate_scalars_on_device(3 * n, 2);
  gpu::DeviceBuffer<Fr> a(n), b(n), c(n);
  auto reset = [&] {
    CUDA_OK(cudaMemcpyAsync(a.data(), src, n * sizeof(Fr), cudaMemcpyDeviceToDevice, stream));
    CUDA_OK(cudaMemcpyAsync(b.data(), src + n, n * sizeof(Fr), cudaMemcpyDeviceToDevice, stream));
    CUDA_OK(cudaMemcpyAsync(c.data(), src + 2 * n, n * sizeof(Fr), cudaMemcpyDeviceToDevice, stream));
  };
  gpu::Event e0, e1;
  std::vector<double> ms;
  for (int i = 0; i <= reps; ++i) {
    reset();
    e0.record(stream);
    ctx.compute_h(a.data(), b.data(), c.data(), lg, stream);
    e1.record(stream);
    e1.synchronize();
    if (i) ms.push_back(e1.elapsed_ms_since(e0));
  }
  record("H step (a,b,c on device)", lg, ms, "6 NTTs, pointwise fused");
  gpu::PinnedBuffer<Fr> ha(n), hb(n), hc(n);
  CUDA_OK(cudaMemcpy(ha.data(), src, n * sizeof(Fr), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(hb.data(), src + n, n * sizeof(Fr), cudaMemcpyDeviceToHost));
  CUDA_OK(cudaMemcpy(hc.data(), src + 2 * n, n * sizeof(Fr), cudaMemcpyDeviceToHost));
  ms.clear();
  for (int i = 0; i <= reps; ++i) {
    e0.record(stream);
    a.upload(std::span<const Fr>(ha.data(), n), stream);
    b.upload(std::span<const Fr>(hb.data(), n), stream);
    c.upload(std::span<const Fr>(hc.data(), n), stream);
    ctx.compute_h(a.data(), b.data(), c.data(), lg, stream);
    a.download(std::span<Fr>(ha.data(), n), stream);
    e1.record(stream);
    e1.synchronize();
    if (i) ms.push_back(e1.elapsed_ms_since(e0));
    CUDA_OK(cudaMemcpy(ha.data(), src, n * sizeof(Fr), cudaMemcpyDeviceToHost));
  }
  record("H step + HtoD a,b,c + DtoH h", lg, ms, "pinned host memory");
  // From pageable host vectors, the uploads overlapping the transforms: h into a new host vector
  // (HStep::run: most of its time is that 4 GiB vector's allocation and filling at 2^27), or kept on the
  // device (HStep::run_on_device: the GPU prover's path).
  {
    std::vector<Fr> va(n), vb(n), vc(n);
    CUDA_OK(cudaMemcpy(va.data(), src, n * sizeof(Fr), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(vb.data(), src + n, n * sizeof(Fr), cudaMemcpyDeviceToHost));
    CUDA_OK(cudaMemcpy(vc.data(), src + 2 * n, n * sizeof(Fr), cudaMemcpyDeviceToHost));
    gpu::HStep step(lg);
    auto hs = time_wall(std::max(3, reps - 2), [&] { step.run(va, vb, vc); });
    record("H step: HStep::run, pageable vectors", lg, hs, "h back to the host");
    auto hd = time_wall(std::max(3, reps - 2), [&] { step.run_on_device(va, vb, vc); });
    record("H step: HStep::run_on_device, pageable", lg, hd, "the GPU prover's path: h stays");
  }
  CUDA_OK(cudaFree(src));
}

// Window sizes to time the random-scalar MSM with (--window-bits; empty: the library's choice only).
std::vector<unsigned> g_window_bits;
bool g_device_only = false;  // --device-only: skip the MSM figures with host transfers (a kernel A/B run)

template <class Cfg>
void bench_msm(const char* group, unsigned lo, unsigned hi, int reps, bool witness_too) {
  const std::size_t max_n = std::size_t{1} << hi;
  auto t0 = std::chrono::steady_clock::now();
  auto* points = gpu::generate_points_on_device<Cfg>(max_n, 2026);
  double gen_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("%s: generated 2^%u points on the device in %.2f s\n", group, hi, gen_s);
  // G1 also with the endomorphism table (MsmTables::kEndomorphism), on a copy of the same points and the
  // same scratch, so that the two are timed side by side.
  auto workspace = std::make_shared<gpu::MsmWorkspace>();
  std::optional<gpu::Msm<Cfg>> msm_phi;
  if constexpr (std::is_same_v<Cfg, algebra::G1Config>) {
    typename gpu::Msm<Cfg>::DeviceAffine* copy = nullptr;
    CUDA_OK(cudaMalloc(reinterpret_cast<void**>(&copy), max_n * sizeof *copy));
    CUDA_OK(cudaMemcpy(copy, points, max_n * sizeof *copy, cudaMemcpyDeviceToDevice));
    msm_phi.emplace(copy, max_n, workspace, gpu::MsmTables::kEndomorphism);
  }
  gpu::Msm<Cfg> msm(points, max_n, workspace);
  Fr* random = gpu::generate_scalars_on_device(max_n, 3);
  Fr* witness = witness_too ? gpu::generate_scalars_on_device(max_n, 4, 0.4, 0.3) : nullptr;
  for (unsigned lg = lo; lg <= hi; ++lg) {
    const std::size_t n = std::size_t{1} << lg;
    const int r = lg >= 26 ? std::max(3, reps - 2) : reps;
    char note[256];
    // Times the random-scalar MSM with `options` and records it with the phases of its last run.
    auto time_random = [&](const std::string& what, const gpu::MsmOptions& options, gpu::Msm<Cfg>& which) {
      auto ms = time_wall(r, [&] { which.run_device(random, n, options); });
      const auto& t = which.last_timings();
      std::snprintf(note, sizeof note, "c=%u w=%u | sort %.1f acc %.1f red %.1f digits %.1f ms",
                    t.window_bits, t.windows, t.sort_ms, t.accumulate_ms, t.reduce_ms, t.digits_ms);
      record(std::string(group) + what, lg, ms, note);
    };
    time_random(" MSM random (device)", {}, msm);
    if (msm_phi) time_random(" MSM random, endomorphism", {}, *msm_phi);
    for (unsigned c : g_window_bits) {
      gpu::MsmOptions forced;
      forced.window_bits = c;
      time_random(" MSM random, c=" + std::to_string(c), forced, msm);
    }
    if (witness) {
      auto msw = time_wall(r, [&] { msm.run_device(witness, n); });
      const auto& tw = msm.last_timings();
      std::snprintf(note, sizeof note, "tail %zu ones %zu | classify %.1f ones %.1f sort %.1f acc %.1f ms",
                    tw.tail_count, tw.ones_count, tw.classify_ms, tw.ones_ms, tw.sort_ms, tw.accumulate_ms);
      record(std::string(group) + " MSM witness-like (device)", lg, msw, note);
      if (msm_phi) {
        auto msp = time_wall(r, [&] { msm_phi->run_device(witness, n); });
        const auto& tp = msm_phi->last_timings();
        std::snprintf(note, sizeof note, "tail %zu | sort %.1f acc %.1f red %.1f ms", tp.tail_count,
                      tp.sort_ms, tp.accumulate_ms, tp.reduce_ms);
        record(std::string(group) + " MSM witness-like, endomorphism", lg, msp, note);
      }
    }
    if (!g_device_only && (lg == hi || lg == lo)) {  // scalars from pinned host memory (bases stay resident)
      gpu::PinnedBuffer<Fr> host(n);
      CUDA_OK(cudaMemcpy(host.data(), random, n * sizeof(Fr), cudaMemcpyDeviceToHost));
      auto msh = time_wall(r, [&] { msm.run(std::span<const Fr>(host.data(), n)); });
      record(std::string(group) + " MSM random + HtoD scalars", lg, msh, "bases resident, scalars pinned");
      std::vector<Fr> pageable(host.data(), host.data() + n);  // the GPU prover's case: a std::vector
      auto msp = time_wall(r, [&] { msm.run(std::span<const Fr>(pageable)); });
      record(std::string(group) + " MSM random + HtoD, pageable", lg, msp, "staged through pinned chunks");
    }
  }
  // Bases from host memory (the prover's SRS vectors): converted chunk by chunk into pinned staging,
  // against converting into a full host copy and one pageable cudaMemcpy (the old way), same run.
  if (!g_device_only) {
    using DeviceAffine = typename gpu::Msm<Cfg>::DeviceAffine;
    std::vector<DeviceAffine> raw(max_n);
    CUDA_OK(cudaMemcpy(raw.data(), points, max_n * sizeof(DeviceAffine), cudaMemcpyDeviceToHost));
    std::vector<typename gpu::Msm<Cfg>::Affine> host(max_n);
    for (std::size_t i = 0; i < max_n; ++i) host[i] = gpu::Msm<Cfg>::Affine::from_xy(raw[i].x, raw[i].y);
    raw = {};
    auto staged =
        time_wall(2, [&] { gpu::Msm<Cfg> uploaded{std::span<const typename gpu::Msm<Cfg>::Affine>(host)}; });
    record(std::string(group) + " bases from host, staged", hi, staged, "Msm(span<Affine>): pinned chunks");
    auto full_copy = time_wall(2, [&] {
      std::vector<DeviceAffine> converted(max_n);
      for (std::size_t i = 0; i < max_n; ++i) converted[i] = gpu::Msm<Cfg>::to_device(host[i]);
      gpu::DeviceBuffer<DeviceAffine> dst(max_n);
      CUDA_OK(cudaMemcpy(dst.data(), converted.data(), max_n * sizeof(DeviceAffine), cudaMemcpyHostToDevice));
    });
    record(std::string(group) + " bases from host, full copy", hi, full_copy,
           "convert all, one pageable copy");
  }
  // Consistency at the smallest size: the 0/1 split and plain Pippenger agree on witness-like scalars.
  if (witness) {
    const std::size_t n = std::size_t{1} << lo;
    gpu::MsmOptions plain;
    plain.split_ones = false;
    bool same = msm.run_device(witness, n) == msm.run_device(witness, n, plain);
    std::printf("  check %s 2^%u split == plain: %s\n", group, lo, same ? "ok" : "MISMATCH");
    if (!same) throw gpu::GpuError("MSM split/plain mismatch in the benchmark");
  }
  CUDA_OK(cudaFree(random));
  if (witness) CUDA_OK(cudaFree(witness));
}

void write_json(const std::string& path, const gpu::DeviceInfo& dev) {
  std::ofstream out(path);
  out << "{\n  \"gpu\": \"" << dev.name << "\",\n  \"sms\": " << dev.multiprocessors << ",\n  \"rows\": [\n";
  for (std::size_t i = 0; i < g_rows.size(); ++i) {
    const Row& r = g_rows[i];
    out << "    {\"what\": \"" << r.what << "\", \"log_n\": " << r.log_n << ", \"median_ms\": " << r.median_ms
        << ", \"min_ms\": " << r.min_ms << ", \"max_ms\": " << r.max_ms << ", \"note\": \"" << r.note << "\"}"
        << (i + 1 < g_rows.size() ? "," : "") << "\n";
  }
  out << "  ]\n}\n";
}

}  // namespace

int main(int argc, char** argv) {
  unsigned g1_max = 27, g2_max = 25, ntt_max = 27, h_log = 27, lo = 20;
  int reps = 5;
  std::string json;
  std::string only = "all";
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    auto next = [&] { return i + 1 < argc ? std::string(argv[++i]) : std::string(); };
    if (a == "--device-only") {
      g_device_only = true;
    } else if (a == "--quick") {
      g1_max = 21, g2_max = 20, ntt_max = 21, h_log = 20, reps = 3;
    } else if (a == "--json") {
      json = next();
    } else if (a == "--g1-max") {
      g1_max = std::stoul(next());
    } else if (a == "--g2-max") {
      g2_max = std::stoul(next());
    } else if (a == "--ntt-max") {
      ntt_max = std::stoul(next());
    } else if (a == "--h-log") {
      h_log = std::stoul(next());
    } else if (a == "--min") {
      lo = std::stoul(next());
    } else if (a == "--reps") {
      reps = std::stoi(next());
    } else if (a == "--only") {
      only = next();
    } else if (a == "--window-bits") {  // comma-separated, e.g. 19,21,22
      std::string list = next();
      for (std::size_t at = 0; at < list.size();) {
        std::size_t comma = list.find(',', at);
        if (comma == std::string::npos) comma = list.size();
        g_window_bits.push_back(std::stoul(list.substr(at, comma - at)));
        at = comma + 1;
      }
    } else {
      std::fprintf(stderr, "unknown argument %s\n", a.c_str());
      return 2;
    }
  }
  try {
    std::string why;
    auto devices = gpu::list_devices(&why);
    if (devices.empty()) {
      std::printf("no GPU: %s\n", why.c_str());
      return 0;
    }
    const auto& d = devices[0];
    std::printf("GPU 0: %s, cc %d.%d, %d SMs, %.1f GiB\n", d.name.c_str(), d.major, d.minor,
                d.multiprocessors, d.total_memory / 1073741824.0);
    auto run_if = [&](const char* part, const std::function<void()>& fn) {
      if (only == "all" || only.find(part) != std::string::npos) fn();
    };
    run_if("field", [&] { bench_field(reps); });
    run_if("ntt", [&] { bench_ntt(lo, ntt_max, reps); });
    run_if("h", [&] { bench_h(h_log, std::max(3, reps - 2)); });
    run_if("g1", [&] { bench_msm<algebra::G1Config>("G1", lo, g1_max, reps, true); });
    run_if("g2", [&] { bench_msm<algebra::G2Config>("G2", lo, g2_max, reps, false); });
    std::printf("\n%-34s %-5s %12s %12s %12s  %s\n", "benchmark", "size", "median ms", "min ms", "max ms",
                "notes");
    for (const Row& r : g_rows)
      std::printf("%-34s 2^%-3u %12.3f %12.3f %12.3f  %s\n", r.what.c_str(), r.log_n, r.median_ms, r.min_ms,
                  r.max_ms, r.note.c_str());
    if (!json.empty()) write_json(json, d);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "cuzk_bench_gpu: %s\n", e.what());
    if (!json.empty() && !g_rows.empty()) {
      auto devices = gpu::list_devices();
      if (!devices.empty()) write_json(json, devices[0]);
    }
    return 1;
  }
  return 0;
}
